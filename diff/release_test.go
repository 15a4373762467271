package diff

import "testing"

// runSide is a side of a comparison with per-run totals in milliseconds.
func runSide(totals ...int64) Side {
	s := Side{Runs: len(totals)}
	for _, v := range totals {
		s.Totals = append(s.Totals, v*ms)
		s.Total += v * ms
	}
	s.Total /= int64(len(totals))
	return s
}

func TestJudge(t *testing.T) {
	cause := Cause{Thread: "main", Path: []Frame{{Function: "main.f"}}, Delta: 60 * ms}
	for _, tt := range []struct {
		name       string
		base, nw   Side
		causes     []Cause
		verdict    Verdict
		tested     bool
		pBelow     float64 // P < pBelow when tested
		impact     float64
		wantImpact bool
	}{
		{name: "cause", base: runSide(1000, 1010), nw: runSide(1000, 1005), causes: []Cause{cause}, verdict: VerdictRegressed,
			impact: 60.0 / 1005, wantImpact: true},
		{name: "consistent fall", base: runSide(1000, 1020, 990), nw: runSide(800, 810, 805), verdict: VerdictImproved, tested: true, pBelow: 0.001},
		{name: "noisy fall", base: runSide(1000, 2000, 700), nw: runSide(800, 1900, 650), verdict: VerdictUnchanged, tested: true, pBelow: 1},
		{name: "small fall", base: runSide(1000, 1000), nw: runSide(960, 960), verdict: VerdictUnchanged},
		{name: "growth without cause", base: runSide(1000, 1000), nw: runSide(1100, 1100), verdict: VerdictUnchanged},
		{name: "one run", base: runSide(1000), nw: runSide(900), verdict: VerdictImproved, impact: -0.1, wantImpact: true},
		// Without variance on either side the fall is exact: p = 0.
		{name: "exact fall", base: runSide(1000, 1000), nw: runSide(900, 900), verdict: VerdictImproved, tested: true, pBelow: 1e-300},
		// A run total of 0 (normalized totals can be) puts both sides on the
		// raw scale. Before, only the side with the 0 stayed raw and was
		// compared with the other side's logarithms (about 6.9 for 1000ms),
		// so this fall of 99% read as a rise.
		{name: "non-positive run total", base: runSide(1000, 1010, 990), nw: runSide(0, 10, 20), verdict: VerdictImproved, tested: true, pBelow: 0.001,
			impact: -0.99, wantImpact: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := &Result{MinDelta: 50 * ms, Alpha: 0.05, Base: tt.base, New: tt.nw, Causes: tt.causes}
			j := Judge(res)
			if j.Verdict != tt.verdict || j.Tested != tt.tested {
				t.Fatalf("verdict %s, tested %v (p %g), want %s, tested %v", j.Verdict, j.Tested, j.P, tt.verdict, tt.tested)
			}
			if tt.tested && !(j.P < tt.pBelow) {
				t.Errorf("p %g, want below %g", j.P, tt.pBelow)
			}
			if tt.wantImpact && (j.Impact < tt.impact-1e-9 || j.Impact > tt.impact+1e-9) {
				t.Errorf("impact %g, want %g", j.Impact, tt.impact)
			}
			if j.Change != res.New.Total-res.Base.Total {
				t.Errorf("change %d, want %d", j.Change, res.New.Total-res.Base.Total)
			}
		})
	}
}

// Both sides are on one scale: logarithms when every total is positive,
// the totals themselves otherwise.
func TestLogTotals(t *testing.T) {
	b, n := logTotals([]int64{1, 1}, []int64{0, 3})
	if b[0] != 1 || n[1] != 3 {
		t.Errorf("with a 0 total: %v %v, want the totals", b, n)
	}
	b, n = logTotals([]int64{1, 1}, []int64{1, 1})
	if b[0] != 0 || n[1] != 0 {
		t.Errorf("positive totals: %v %v, want their logarithms (0)", b, n)
	}
}
