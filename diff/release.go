package diff

import (
	"math"

	"github.com/ctdiff/ctdiff/diff/stats"
)

// A Verdict is a compared component's outcome in a release report.
type Verdict string

const (
	// VerdictRegressed: the comparison found at least one regression cause.
	VerdictRegressed Verdict = "regressed"
	// VerdictImproved: no cause, and the total fell by at least μ,
	// significantly when there are two or more runs per side.
	VerdictImproved Verdict = "improved"
	// VerdictUnchanged: neither; any change is within noise.
	VerdictUnchanged Verdict = "unchanged"
)

// A Judgement is the verdict on one comparison and what it rests on.
type Judgement struct {
	Verdict Verdict
	// Change is New.Total − Base.Total; TotalChange is Change relative to
	// the base total, CauseChange the largest cause's delta relative to it.
	Change                   int64
	TotalChange, CauseChange float64
	// Impact ranks comparisons across units and sizes (see Judge).
	Impact float64
	// Tested says a Welch test of the per-run totals decided an improvement
	// (the total fell by μ or more, with two runs or more per side); P is
	// its p-value and Alpha the level it was held to.
	Tested   bool
	P, Alpha float64
}

// Judge gives a comparison its release verdict.
//
// Regressed when the comparison found a cause; improved when it found none
// and the total fell by at least μ (the min delta) and, with two or more
// runs per side, Welch's one-sided t-test of the logarithms of the per-run
// totals gives p ≤ α (the result's alpha); unchanged otherwise. Logarithms,
// because the noise of run times is multiplicative (a loaded machine slows
// a run by a factor), so a slow outlier run does not swamp a consistent
// fall.
//
// Impact is relative, so comparisons in different units and of different
// sizes compare: a regression's impact is the larger of its total's
// relative change and its largest cause's delta relative to its base total
// (a cause can be real while the total hides it in noise or under an
// improvement elsewhere, and a total can grow over many paths too small to
// be causes); an improvement's is its total's relative change (negative);
// an unchanged comparison's is 0, since its change is within noise.
func Judge(res *Result) Judgement {
	j := Judgement{Change: res.New.Total - res.Base.Total}
	j.TotalChange = relative(j.Change, res.Base.Total, res.New.Total)
	if len(res.Causes) > 0 {
		j.CauseChange = relative(res.Causes[0].Delta, res.Base.Total, res.New.Total)
		j.Verdict, j.Impact = VerdictRegressed, max(j.TotalChange, j.CauseChange)
		return j
	}
	j.Verdict = VerdictUnchanged
	if len(res.Improvements) > 0 {
		// Functions that got faster, tested as causes are.
		j.Verdict, j.Impact = VerdictImproved, min(j.TotalChange, relative(res.Improvements[0].Delta, res.Base.Total, res.New.Total))
		return j
	}
	fall := -j.Change
	if fall < res.MinDelta || fall <= 0 {
		return j
	}
	if len(res.Base.Totals) < 2 || len(res.New.Totals) < 2 {
		j.Verdict, j.Impact = VerdictImproved, j.TotalChange // one run per side: no test
		return j
	}
	j.Tested, j.Alpha = true, res.Alpha
	if j.Alpha <= 0 {
		j.Alpha = DefaultAlpha
	}
	base, nw := logTotals(res.Base.Totals, res.New.Totals)
	// Welch's test of "new < base" is the test of "base > new".
	j.P = stats.WelchGreater(nw, base)
	if j.P <= j.Alpha {
		j.Verdict, j.Impact = VerdictImproved, j.TotalChange
	}
	return j
}

// relative is v relative to the base total, or to the new total when the
// base has none (something new from nothing: 100%).
func relative(v, base, nw int64) float64 {
	switch {
	case base > 0:
		return float64(v) / float64(base)
	case nw > 0:
		return float64(v) / float64(nw)
	}
	return 0
}

// logTotals returns the natural logarithms of both sides' per-run totals,
// or the totals themselves when any of either side is not positive
// (normalized totals can be): the two sides are always on one scale.
func logTotals(base, nw []int64) (lb, ln []float64) {
	lb, ln = stats.Floats(base), stats.Floats(nw)
	for _, v := range [][]float64{lb, ln} {
		for _, x := range v {
			if x <= 0 {
				return lb, ln
			}
		}
	}
	for _, v := range [][]float64{lb, ln} {
		for i, x := range v {
			v[i] = math.Log(x)
		}
	}
	return lb, ln
}
