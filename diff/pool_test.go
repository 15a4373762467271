package diff

import (
	"fmt"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

// A pool of threads of one name that split the same work differently in
// every run: each thread ordinal's context of q moves by μ from the split
// alone, none significantly, while q's sum grew by 200 ms in every run.
// That is a spread cause of q (audit R2), where the rule "no context grew
// by μ alone" dropped it.
func TestPoolSplitSpread(t *testing.T) {
	pool := func(loads []int, rot int) *cct.Tree {
		tr := cct.New([]cct.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}})
		tr.DefaultSampleType = "cpu"
		add := func(th cct.Frame, stack []string, v int) {
			id := tr.AddChild(cct.RootID, tr.Intern(th, cct.FrameInfo{}))
			for _, f := range stack {
				id = tr.AddChild(id, tr.Intern(cct.Frame{Function: f}, cct.FrameInfo{}))
			}
			tr.Self(id)[0]++
			tr.Self(id)[1] += int64(v) * ms
		}
		for j := range loads {
			th := cct.Frame{Thread: "worker", Ordinal: int32(j), Kind: cct.KindThread}
			add(th, []string{"goexit", "work", "q"}, loads[(j+rot)%len(loads)])
		}
		main := cct.Frame{Kind: cct.KindThread}
		for i, f := range []string{"a", "b", "c", "d"} {
			add(main, []string{"main", f}, 300+50*i+3*rot)
		}
		tr.ComputeTotals()
		if err := tr.Validate(); err != nil {
			t.Fatal(err)
		}
		return tr
	}
	var base, nw []*cct.Tree
	for i := range 4 {
		base = append(base, pool([]int{400, 200, 100, 100}, i))
		nw = append(nw, pool([]int{450, 250, 150, 150}, i+1))
	}
	res := compare(t, base, nw, Options{MinDelta: Threshold{Value: 40 * ms}, Normalize: Normalize{Mode: NormalizeNone}})
	if len(res.Causes) != 1 || res.Causes[0].Spread == nil || res.Causes[0].Spread.Function.Function != "q" {
		t.Fatalf("causes %q, want a spread cause of q", causeLines(res))
	}
	if d := res.Causes[0].Delta; d != 200*ms {
		t.Errorf("delta %v, want 200ms", fmt.Sprint(d))
	}
}
