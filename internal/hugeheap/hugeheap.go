// Package hugeheap asks the kernel to back the part of the Go heap a
// command is about to fill with transparent huge pages.
//
// ctdiff fills hundreds of megabytes of fresh heap within a second (trees,
// unions, per-node statistics), and on Linux each 4 KiB page costs a page
// fault the first time it is written. On virtual machines whose guest page
// tables are shadowed by the hypervisor a fault costs 8-12 µs, not 1-2:
// ctdiff diff of a 200,000-stack pair spent half of its CPU time faulting
// in 130,000 pages (measured on such a machine; BENCHMARKS.md). Linux
// distributions mostly ship transparent huge pages in "madvise" mode, where
// only memory a process asks for gets 2 MiB pages, and the Go runtime no
// longer asks (Go 1.21.1 dropped its MADV_HUGEPAGE calls). Advise asks for
// the heap ctdiff is about to use.
//
// The Go heap cannot be advised before the runtime maps it, and a mapping
// made later starts without the advice. Advise therefore makes the runtime
// map the room first: it allocates a ballast of the size asked, advises the
// ballast's pages, and frees it; the runtime then serves the next
// allocations from those pages (its page allocator takes the lowest free
// address first), which keep the advice. Pages never written are never
// backed: an estimate larger than what is used costs address space only.
package hugeheap

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"unsafe"
)

const (
	// hugePage is the size of a transparent huge page on amd64 and arm64
	// with 4 KiB base pages; advice covers whole huge pages only.
	hugePage = 2 << 20
	// minAdvice is the least room worth a ballast and a collection.
	minAdvice = 32 << 20
	// maxAdvice bounds one ballast: the runtime writes a span entry per
	// 8 KiB page of it (4 GiB: 4 MiB of entries, ~25 ms here).
	maxAdvice = 4 << 30
)

var (
	mu sync.Mutex
	// advised is the heap advised so far in this process: a later call
	// adds only what it asks for beyond it.
	advised int64
)

// Advise asks that the next n bytes the heap grows by be backed by
// transparent huge pages, where the system lets a process ask (Linux with
// transparent_hugepage "madvise"), and returns how many bytes it advised:
// 0 where nothing was needed (mode "always"), possible (mode "never", other
// systems, GODEBUG=disablethp=1, strict overcommit accounting) or worth it
// (less than 32 MiB beyond what this process advised before). n is capped
// at 4 GiB and at a quarter of physical memory.
func Advise(n int64) int64 {
	mu.Lock()
	defer mu.Unlock()
	limit := sysLimit()
	if limit <= 0 {
		return 0
	}
	n = min(n, limit, maxAdvice) - advised
	if n < minAdvice {
		return 0
	}
	// The ballast is made of chunks, not one object: free holes of the heap
	// below the ballast would be filled first, and one object bigger than
	// a hole goes above it, leaving the hole unadvised (a test saw the next
	// 32 MiB allocated there, 1 run in 200). Chunks fill the holes first.
	chunks := make([][]byte, 0, (n+chunk-1)/chunk)
	for left := n; left > 0; left -= chunk {
		chunks = append(chunks, make([]byte, min(left, chunk)))
	}
	var got int64
	for _, r := range runs(chunks) {
		got += adviseRange(r)
	}
	runtime.KeepAlive(chunks)
	chunks = nil
	// Freed now rather than at the next collection: until then the runtime
	// would serve every allocation from other, unadvised, pages.
	runtime.GC()
	if got > 0 {
		advised += n
	}
	return got
}

// chunk is the size of a ballast's objects.
const chunk = 4 << 20

// A span is an address range: start and end.
type span struct{ start, end uintptr }

// runs returns the address ranges the chunks cover, adjacent chunks joined,
// in address order.
func runs(chunks [][]byte) []span {
	s := make([]span, 0, len(chunks))
	for _, c := range chunks {
		if len(c) > 0 {
			p := uintptr(unsafe.Pointer(unsafe.SliceData(c)))
			s = append(s, span{p, p + uintptr(len(c))})
		}
	}
	slices.SortFunc(s, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	out := s[:0]
	for _, r := range s {
		if n := len(out); n > 0 && out[n-1].end == r.start {
			out[n-1].end = r.end
			continue
		}
		out = append(out, r)
	}
	return out
}

// hugePages returns the whole huge pages within r: start and length, 0 if
// none.
func hugePages(r span) (start, n uintptr) {
	beg := (r.start + hugePage - 1) &^ (hugePage - 1)
	end := r.end &^ (hugePage - 1)
	if end <= beg {
		return 0, 0
	}
	return beg, end - beg
}
