package cct_test

import (
	"math"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/google/pprof/profile"
)

func maxProfile(v int64) *profile.Profile {
	fn := &profile.Function{ID: 1, Name: "f"}
	loc := &profile.Location{ID: 1, Line: []profile.Line{{Function: fn}}}
	return &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		Function:   []*profile.Function{fn},
		Location:   []*profile.Location{loc},
		Sample:     []*profile.Sample{{Location: []*profile.Location{loc}, Value: []int64{v}}},
	}
}

// Profiles whose merged totals would wrap around are refused; a total of
// exactly 2^63-1 is kept exactly.
func TestBuilderRefusesOverflowingTotals(t *testing.T) {
	b := cct.NewBuilder(cct.Options{})
	if err := b.Add(maxProfile(math.MaxInt64 - 1)); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(maxProfile(1)); err != nil {
		t.Fatal(err)
	}
	err := b.Add(maxProfile(1))
	if err == nil || !strings.HasPrefix(err.Error(), "the cpu/nanoseconds values add up to more than 9223372036854775807") {
		t.Fatalf("error %v, want the overflow", err)
	}
	tr := b.Finish()
	if got := tr.Total(cct.RootID)[0]; got != math.MaxInt64 {
		t.Fatalf("root total %d, want %d", got, int64(math.MaxInt64))
	}
}
