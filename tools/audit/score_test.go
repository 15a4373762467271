package audit

import (
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/diff"
)

// TestScore checks the audit scorer's rules on single causes: an
// injection at a;b;c (function c) that grew by 200 ns against μ = 100.
func TestScore(t *testing.T) {
	truth := Truth{
		Injected:    []Injection{{Context: []string{"a", "b", "c"}, Func: "c"}},
		Before:      map[string]float64{"a": 1000, "a;b": 600, "a;b;c": 300, "a;b;c;d": 100, "a;x": 400, "a;x;c": 100, "a;y": 0, "a;z": 0},
		After:       map[string]float64{"a": 1300, "a;b": 800, "a;b;c": 500, "a;b;c;d": 100, "a;x": 400, "a;x;c": 160, "a;y": 150, "a;z": 40},
		TotalBefore: 1000, TotalAfter: 1300,
		Renames: map[string]string{"zTo": "z"},
		Threads: map[string]int{"w": 16},
	}
	for _, tc := range []struct {
		name   string
		mode   diff.NormalizeMode
		abs    bool
		thread string
		path   string
		want   Verdict
		found  bool
	}{
		{"the context", diff.NormalizeNone, false, "", "a;b;c", TruePositive, true},
		{"below it", diff.NormalizeNone, false, "", "a;b;c;d", TruePositive, true},
		{"its function elsewhere, grew μ/2", diff.NormalizeNone, false, "", "a;x;c", TruePositive, true},
		{"an ancestor", diff.NormalizeNone, false, "", "a;b", TrueAncestor, true},
		{"another context that grew μ", diff.NormalizeNone, false, "", "a;y", Grew, false},
		{"another that grew less", diff.NormalizeNone, false, "", "a;z", FalseAlarm, false},
		{"renamed, unchanged", diff.NormalizeNone, false, "", "a;zTo", FalseAlarm, false},
		// one of 16 pool threads has a sixteenth of a;y's 150 ns
		{"on one thread of a pool", diff.NormalizeNone, false, "w #3", "a;y", FalseAlarm, false},
		// a;x kept its 400 ns while the total grew: its share shrank
		{"share that shrank", diff.NormalizeShare, false, "", "a;x", FalseAlarm, false},
		// a;x;c grew by 60% while the total grew by 30%
		{"share that grew", diff.NormalizeShare, false, "", "a;x;c", TruePositive, true},
		{"absolute, share result", diff.NormalizeShare, true, "", "a;y", Grew, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := &diff.Result{MinDelta: 100, Normalization: diff.Normalization{Mode: tc.mode}}
			if tc.mode == diff.NormalizeShare && !tc.abs {
				res.MinDelta = 1e7 // 1%
			} else if tc.mode == diff.NormalizeShare {
				res.MinDelta = 1e8 // 10%: 100 ns of the base total
			}
			c := diff.Cause{Thread: tc.thread, Kind: diff.Regressed}
			for _, f := range strings.Split(tc.path, ";") {
				if f != "" {
					c.Path = append(c.Path, diff.Frame{Function: f})
				}
			}
			res.Causes = []diff.Cause{c}
			o := Score(res, truth, tc.abs)
			if got := o.Causes[0].Verdict; got != tc.want || o.Found() != tc.found {
				t.Errorf("%s: %s, found %v; want %s, found %v (true growth %g)", tc.path, got, o.Found(), tc.want, tc.found, o.Causes[0].Growth)
			}
			if fa := tc.want == FalseAlarm; (o.FalseAlarms == 1) != fa {
				t.Errorf("%d false alarms", o.FalseAlarms)
			}
		})
	}
}
