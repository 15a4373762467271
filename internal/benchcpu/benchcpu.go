// Package benchcpu reports a benchmark's CPU time per operation (user plus
// system, all threads: the garbage collector's too) beside the wall time the
// testing package reports. On a shared machine wall time measures the
// neighbours as much as the code; CPU time much less so.
//
//	stop := benchcpu.Start(b)
//	for b.Loop() { ... }
//	stop()
package benchcpu

import (
	"syscall"
	"testing"
	"time"
)

// Start notes the process's CPU time; the returned function reports the
// CPU time used since, divided by b.N, as "cpu-ns/op".
func Start(b *testing.B) (stop func()) {
	start := cpu()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64((cpu()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpu() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
