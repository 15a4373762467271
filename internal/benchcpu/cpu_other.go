//go:build !unix && !windows

package benchcpu

import "time"

// cpu has no clock to read here (plan9, wasm): benchmarks report wall time
// only.
func cpu() (time.Duration, bool) { return 0, false }

// MinorFaults is not counted here.
func MinorFaults() (int64, bool) { return 0, false }
