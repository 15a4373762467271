package diff

import (
	"math"

	"github.com/ctdiff/ctdiff/diff/stats"
)

// The verdict: one answer to "did it get slower, and how sure are you",
// with Chromium Pinpoint's three outcomes (same, different, unknown) and
// the direction of a difference. Reports lead with it and gates act on it.

// A Status is a comparison's outcome.
type Status string

const (
	// StatusRegressed: at least one cause (Result.Causes).
	StatusRegressed Status = "regressed"
	// StatusImproved: no cause and nothing untested, and an improvement
	// (Result.Improvements) or a fall of the total by at least μ,
	// significant where there are two runs or more a side (Judge).
	StatusImproved Status = "improved"
	// StatusUnchanged: no significant change of at least μ, and nothing
	// above μ left untested.
	StatusUnchanged Status = "unchanged"
	// StatusInconclusive: no cause, but something grew by μ or more that
	// no test could judge (Result.Untested), improvements or not.
	StatusInconclusive Status = "inconclusive"
)

// An Outcome is a comparison's verdict and what it rests on.
type Outcome struct {
	Status Status
	// Detectable is the smallest change of the total these runs would
	// have detected 80% of the time (a one-sided test at Alpha), in Unit;
	// 0 when no noise estimate exists. With two runs or more a side it
	// comes from the runs' totals, else from the tests' noise model at
	// the total's size.
	Detectable int64
	// Runs is, for StatusInconclusive, how many runs a side would test the
	// largest untested change as the tests do (80% power at Alpha / 10),
	// from the noise model at its size; 0 when more than maxSuggestedRuns
	// or unknown.
	Runs int
	// Swapped says every new run was recorded before every base run
	// (profiles' own recording times): the sides may be given the wrong
	// way round.
	Swapped bool
}

// maxSuggestedRuns caps Outcome.Runs: beyond it, more runs is not the
// answer.
const maxSuggestedRuns = 30

// decide gives a comparison its verdict once causes, improvements and
// untested nodes are known. noise is the tests' noise model (nil when
// none), period the runs' mean value per sample.
func decide(res *Result, noise *stats.Prior, period float64, bRuns, nRuns []*run) Outcome {
	v := Outcome{Status: StatusOf(res), Swapped: recordedBefore(nRuns, bRuns)}
	v.Detectable = detectable(res, noise)
	if v.Status == StatusInconclusive {
		v.Runs = runsToTest(res.Untested[0], res.Alpha, noise, period)
	}
	return v
}

// StatusOf is the status a result's causes, improvements, untested nodes
// and totals give it (Outcome.Status): for results read from a file that
// has no verdict.
func StatusOf(res *Result) Status {
	// What grew untested outweighs what was found faster: a gate must
	// not read "improved" over a +540 ms call no test could judge.
	switch {
	case len(res.Causes) > 0:
		return StatusRegressed
	case len(res.Untested) > 0:
		return StatusInconclusive
	case len(res.Improvements) > 0 || Judge(res).Verdict == VerdictImproved:
		return StatusImproved
	}
	return StatusUnchanged
}

// recordedBefore reports whether every run of a was recorded before
// every run of b, all times known.
func recordedBefore(a, b []*run) bool {
	last, first := int64(math.MinInt64), int64(math.MaxInt64)
	for _, r := range a {
		if r.info.timeNanos <= 0 {
			return false
		}
		last = max(last, r.info.timeNanos)
	}
	for _, r := range b {
		if r.info.timeNanos <= 0 {
			return false
		}
		first = min(first, r.info.timeNanos)
	}
	return len(a) > 0 && len(b) > 0 && last < first
}

// power is the power the detectable change and the suggested runs are
// computed for.
const power = 0.8

// detectable is Outcome.Detectable.
func detectable(res *Result, noise *stats.Prior) int64 {
	alpha := cmpOr(res.Alpha, DefaultAlpha)
	nb, nn := len(res.Base.Totals), len(res.New.Totals)
	if nb >= 2 && nn >= 2 {
		x, y := stats.Floats(res.Base.Totals), stats.Floats(res.New.Totals)
		se, df := stats.WelchSE(x, y)
		if se == 0 || math.IsNaN(se) {
			return 0
		}
		return round(needed(alpha, df) * se)
	}
	if noise == nil || nb == 0 || nn == 0 {
		return 0
	}
	size := float64(max(res.Base.Total, res.New.Total))
	se := math.Sqrt(noise.S0(size) * (1/float64(nb) + 1/float64(nn)))
	return round(needed(alpha, noise.DF()) * se)
}

// needed is how many standard errors a difference must be for a one-sided
// test at alpha to find it with the given power: t(1−α) + t(power).
func needed(alpha, df float64) float64 {
	if !(df > 0) {
		df = math.Inf(1)
	}
	t := stats.StudentsT(df)
	return t.Quantile(1-alpha) + t.Quantile(power)
}

// runsToTest is Outcome.Runs for the untested node c: the fewest runs a
// side at which its change is needed() standard errors of a node its
// size, the per-run variance from the noise model, or without one from
// sampling (a node of N samples varies by √N) and maxPairJitter.
func runsToTest(c Cause, alpha float64, noise *stats.Prior, period float64) int {
	size := float64(max(c.Base, c.New))
	var v float64
	switch {
	case noise != nil:
		v = noise.S0(size)
	case period > 0:
		v = size*period + math.Pow(maxPairJitter*size, 2)
	default:
		return 0
	}
	level := cmpOr(alpha, DefaultAlpha) / 10
	for n := 2; n <= maxSuggestedRuns; n++ {
		if needed(level, float64(2*n-2))*math.Sqrt(2*v/float64(n)) <= float64(c.Delta) {
			return n
		}
	}
	return 0
}

func cmpOr(a, b float64) float64 {
	if a > 0 {
		return a
	}
	return b
}
