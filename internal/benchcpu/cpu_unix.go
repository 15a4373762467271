//go:build unix

package benchcpu

import (
	"syscall"
	"time"
)

// cpu is the process's user plus system time so far.
func cpu() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// MinorFaults is the process's minor page faults so far (pages first
// touched, for the most part), and whether the platform counts them.
func MinorFaults() (int64, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return int64(ru.Minflt), true // int32 on 32-bit Linux
}
