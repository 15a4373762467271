//go:build !(linux && (amd64 || arm64))

package hugeheap

// Huge pages are asked for on Linux on amd64 and arm64 only: Linux alone
// has transparent huge pages to ask for, and on other architectures their
// size is not hugePage (1 MiB on s390x, 16 MiB on ppc64 with 64 KiB base
// pages, 32 MiB on loong64), nor was the gain measured there.
func sysLimit() int64 { return 0 }

func adviseRange(span) int64 { return 0 }
