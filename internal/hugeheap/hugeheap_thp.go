//go:build linux && (amd64 || arm64)

package hugeheap

import (
	"os"
	"strings"
	"sync"
	"syscall"
)

// madvHugepage is MADV_HUGEPAGE (asm-generic/mman-common.h), which the
// syscall package does not name.
const madvHugepage = 14

var sysLimit = sync.OnceValue(func() int64 {
	if !canAdvise(readSmall("/sys/kernel/mm/transparent_hugepage/enabled"),
		readSmall("/proc/sys/vm/overcommit_memory"), os.Getenv("GODEBUG")) {
		return 0
	}
	if addressSpaceLimited() {
		return 0
	}
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return int64(uint64(si.Totalram) * uint64(si.Unit) / 4)
})

// canAdvise reports whether advice would change anything and is safe, from
// the transparent_hugepage mode, the overcommit mode and GODEBUG. Advice
// matters only in mode "madvise" (with "always" every anonymous mapping
// gets huge pages, with "never" none does). Under strict overcommit
// accounting (mode 2) the ballast's mapping is charged in full, and a
// charge the system refuses makes the runtime abort. GODEBUG=disablethp=1
// is the Go runtime's own switch for a heap without huge pages.
func canAdvise(thpMode, overcommit, godebug string) bool {
	if !strings.Contains(thpMode, "[madvise]") || strings.TrimSpace(overcommit) == "2" {
		return false
	}
	for kv := range strings.SplitSeq(godebug, ",") {
		if strings.TrimSpace(kv) == "disablethp=1" {
			return false
		}
	}
	return true
}

// addressSpaceLimited reports whether the process runs under a finite
// address-space limit (RLIMIT_AS, ulimit -v). The ballast costs address
// space beyond what the heap would use when the estimate is generous, and
// the runtime dies with a fatal "out of memory" when a mapping is refused,
// so a process that rations its address space asks for no advice.
func addressSpaceLimited() bool {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &lim); err != nil {
		return true
	}
	return lim.Cur != ^uint64(0)
}

// readSmall reads a one-line system file, or returns "" when it cannot.
func readSmall(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	return string(b)
}

// adviseRange advises the whole huge pages of r, which must be live heap
// memory, and returns how many bytes that was, 0 if the kernel refused.
func adviseRange(r span) int64 {
	p, n := hugePages(r)
	if n == 0 {
		return 0
	}
	if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, p, n, madvHugepage); errno != 0 {
		return 0
	}
	return int64(n)
}
