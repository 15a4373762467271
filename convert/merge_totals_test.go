package convert

import (
	"bytes"
	"testing"

	"github.com/ctdiff/ctdiff/tools/hostile"
	"github.com/google/pprof/profile"
)

// Inputs whose merged totals would wrap around are refused, naming the
// input at which they do.
func TestCheckMergeTotals(t *testing.T) {
	read := func(v int64) *profile.Profile {
		var b bytes.Buffer
		if err := hostile.Pprof(&b, v); err != nil {
			t.Fatal(err)
		}
		res, err := Read(&b, "p.pb", Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res.Profile
	}
	const max = 1<<63 - 1
	if bad, err := CheckMergeTotals([]*profile.Profile{read(max - 5), read(5)}); err != nil {
		t.Fatalf("a sum of exactly 2^63-1: input %d: %v", bad, err)
	}
	bad, err := CheckMergeTotals([]*profile.Profile{read(3), read(max - 5), read(3)})
	if bad != 2 || err == nil || err.Error() != "the cpu/nanoseconds values of this input and the 2 before it add up to more than 9223372036854775807" {
		t.Fatalf("input %d: %v", bad, err)
	}
}
