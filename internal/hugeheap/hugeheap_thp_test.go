//go:build linux && (amd64 || arm64)

package hugeheap

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

func TestCanAdvise(t *testing.T) {
	for _, tc := range []struct {
		thp, overcommit, godebug string
		want                     bool
	}{
		{"always [madvise] never\n", "0\n", "", true},
		{"always [madvise] never\n", "1\n", "gctrace=1", true},
		{"[always] madvise never\n", "0\n", "", false},
		{"always madvise [never]\n", "0\n", "", false},
		{"", "0\n", "", false}, // no sysfs file: a kernel without THP
		{"always [madvise] never\n", "2\n", "", false},
		{"always [madvise] never\n", "0\n", "madvdontneed=1, disablethp=1", false},
		{"always [madvise] never\n", "0\n", "disablethp=0", true},
	} {
		if got := canAdvise(tc.thp, tc.overcommit, tc.godebug); got != tc.want {
			t.Errorf("canAdvise(%q, %q, %q) = %v, want %v", tc.thp, tc.overcommit, tc.godebug, got, tc.want)
		}
	}
}

// TestAdviseBacksNextAllocations checks the claim the package rests on: what
// the program allocates after Advise lies in memory the kernel was asked to
// back with huge pages (the "hg" flag of its mapping in /proc/self/smaps).
func TestAdviseBacksNextAllocations(t *testing.T) {
	if sysLimit() <= 0 {
		t.Skip("this system takes no huge-page advice (transparent_hugepage not in madvise mode, or strict overcommit)")
	}
	if got := Advise(64 << 20); got < 60<<20 {
		t.Fatalf("Advise(64 MiB) advised %d bytes, want at least 60 MiB", got)
	}
	if got := Advise(64 << 20); got != 0 {
		t.Errorf("a second Advise(64 MiB) advised %d bytes, want 0: the room was advised already", got)
	}
	b := make([]int64, 4<<20) // 32 MiB
	for i := range b {
		b[i] = int64(i)
	}
	// The ballast's first and last huge page may be partial, and unadvised.
	p := uintptr(unsafe.Pointer(&b[0]))
	start, _ := hugePages(span{p, p + 8*uintptr(len(b))})
	flags, err := vmFlags(start)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Fatalf("the mapping of an allocation made after Advise has VmFlags %q, without hg (MADV_HUGEPAGE)", flags)
	}
}

// vmFlags returns the VmFlags line of the mapping in /proc/self/smaps that
// holds address p.
func vmFlags(p uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = lo <= p && p < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmFlags:")), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", fmt.Errorf("no mapping in /proc/self/smaps holds %#x", p)
}

// TestAdviseUnderAddressSpaceLimit runs Advise in a child process whose
// address space is limited (ulimit -v), as users ration memory: the
// ballast's mapping must not make the runtime die with "out of memory" and
// a goroutine dump; under a finite RLIMIT_AS no advice is asked for.
func TestAdviseUnderAddressSpaceLimit(t *testing.T) {
	if os.Getenv("HUGEHEAP_CHILD") == "1" {
		// 2 GiB: room for the test binary, not for a 4 GiB ballast. The
		// child exits at once, before the test framework allocates more.
		lim := syscall.Rlimit{Cur: 2 << 30, Max: 2 << 30}
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &lim); err != nil {
			t.Skip("cannot limit the address space:", err)
		}
		fmt.Println("advised", Advise(4<<30))
		os.Exit(0)
	}
	if sysLimit() <= 0 {
		t.Skip("this system takes no huge-page advice")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAdviseUnderAddressSpaceLimit$", "-test.v")
	cmd.Env = append(os.Environ(), "HUGEHEAP_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("Advise under a 2 GiB address-space limit: %v\n%.600s", err, out)
	}
	if !strings.Contains(string(out), "advised 0\n") {
		t.Errorf("Advise under a 2 GiB address-space limit advised memory, want none:\n%.600s", out)
	}
}
