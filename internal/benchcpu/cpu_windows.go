package benchcpu

import (
	"syscall"
	"time"
)

// cpu is the process's user plus kernel time so far.
func cpu() (time.Duration, bool) {
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0, false
	}
	var creation, exit, kernel, user syscall.Filetime
	if err := syscall.GetProcessTimes(h, &creation, &exit, &kernel, &user); err != nil {
		return 0, false
	}
	// A Filetime counts 100-ns intervals.
	ticks := func(f syscall.Filetime) int64 { return int64(f.HighDateTime)<<32 | int64(f.LowDateTime) }
	return time.Duration((ticks(kernel) + ticks(user)) * 100), true
}

// MinorFaults is not counted on Windows.
func MinorFaults() (int64, bool) { return 0, false }
