// Package benchcpu reports a benchmark's CPU time per operation (user plus
// system, all threads: the garbage collector's too) beside the wall time the
// testing package reports. On a shared machine wall time measures the
// neighbours as much as the code; CPU time much less so.
//
//	stop := benchcpu.Start(b)
//	for b.Loop() { ... }
//	stop()
package benchcpu

import "testing"

// Start notes the process's CPU time; the returned function reports the
// CPU time used since, divided by b.N, as "cpu-ns/op".
func Start(b *testing.B) (stop func()) {
	start, ok := cpu()
	if !ok {
		return func() {} // no CPU clock on this platform: wall time only
	}
	return func() {
		if now, _ := cpu(); b.N > 0 {
			b.ReportMetric(float64((now-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	}
}
