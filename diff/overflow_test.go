package diff

import (
	"math"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

func totalTree(v int64) *cct.Tree {
	t := cct.New([]cct.ValueType{{Type: "cpu", Unit: "nanoseconds"}})
	id := t.AddChild(cct.RootID, t.Intern(cct.Frame{Kind: cct.KindThread}, cct.FrameInfo{}))
	id = t.AddChild(id, t.Intern(cct.Frame{Function: "f"}, cct.FrameInfo{}))
	t.Self(id)[0] = v
	t.ComputeTotals()
	return t
}

// Runs whose totals add up to more than an int64 holds are refused; a
// total of 2^63-1 compares exactly (float64 rounded it to 2^63, which
// converted back wrapped to -2^63).
func TestCompareTotalsNearTheLimit(t *testing.T) {
	opts := Options{Normalize: Normalize{Mode: NormalizeNone}}
	res, err := Compare([]*cct.Tree{totalTree(math.MaxInt64)}, []*cct.Tree{totalTree(1000)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.Base.Total != math.MaxInt64 || res.New.Total != 1000 {
		t.Fatalf("totals %d → %d, want %d → 1000", res.Base.Total, res.New.Total, int64(math.MaxInt64))
	}
	for _, c := range res.Causes {
		if c.Delta > 0 {
			t.Fatalf("a regression of %d from a shrinking profile", c.Delta)
		}
	}
	_, err = Compare([]*cct.Tree{totalTree(1000)}, []*cct.Tree{totalTree(math.MaxInt64), totalTree(math.MaxInt64)}, opts)
	if err == nil || !strings.HasPrefix(err.Error(), "the cpu/nanoseconds totals of the 2 new runs add up to more than 9223372036854775807") {
		t.Fatalf("error %v, want the overflow", err)
	}
	if round(math.MaxInt64) != math.MaxInt64 || round(-math.MaxFloat64) != math.MinInt64 || round(math.NaN()) != 0 {
		t.Fatal("round does not saturate")
	}
}
