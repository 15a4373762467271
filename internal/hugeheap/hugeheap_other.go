//go:build !linux

package hugeheap

// Only Linux has transparent huge pages to ask for.
func sysLimit() int64 { return 0 }

func adviseRange(span) int64 { return 0 }
