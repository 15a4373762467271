package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/ctdiff/ctdiff/diff"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// A Component is one part of a release compared on its own: a service, a
// front end, a client, each with its own profiles, format and unit.
type Component struct {
	Name   string
	Result *diff.Result
	// Ecosystem names frames (FrameStyle); DetectEcosystem's answer when
	// UnknownEcosystem.
	Ecosystem Ecosystem
	// Lines are the frames' function lines, when the profiles were read
	// (FrameStyle.Lines); nil for results read from JSON.
	Lines map[diff.Frame]int64
	// Source says where the result came from: the inputs compared, or the
	// JSON file.
	Source string
}

// A Verdict is a component's outcome.
type Verdict string

const (
	// VerdictRegressed: ctdiff diff found at least one regression cause.
	VerdictRegressed Verdict = "regressed"
	// VerdictImproved: no cause, and the total fell by at least μ, significantly
	// when there are two or more runs per side (improvement).
	VerdictImproved Verdict = "improved"
	// VerdictUnchanged: neither; any change is within noise.
	VerdictUnchanged Verdict = "unchanged"
)

// A Release is the release-level report: every component's verdict and
// causes, ranked by impact.
type Release struct {
	// Components are ranked: by Impact, largest first, ties by name.
	Components []ComponentReport
	// Counts of the verdicts.
	Regressed, Improved, Unchanged int
}

// A ComponentReport is one component with its verdict.
type ComponentReport struct {
	Component
	Style   FrameStyle
	Verdict Verdict
	// Why explains the verdict in one sentence.
	Why string
	// Change is New.Total − Base.Total; TotalChange is Change relative to
	// the base total, CauseChange the largest cause's delta relative to it.
	Change                   int64
	TotalChange, CauseChange float64
	// Impact ranks components across units (see NewRelease).
	Impact float64
	// Causes are the application's causes, in the Result's order;
	// Runtime the causes in runtime or VM frames, by group.
	Causes  []CauseReport
	Runtime []RuntimeCauses
}

// A CauseReport is one cause ready to show.
type CauseReport struct {
	diff.Cause
	// N is the cause's number in ctdiff diff's report of the component.
	N int
	// Label names the cause's frame the ecosystem's way; Full in full.
	Label, Full string
	// Parts is the path with runtime frames folded (FrameStyle.Parts).
	Parts []PathPart
	// Group is the runtime group of a runtime cause; Charged names the
	// application frame it is charged to (Attribution), if any.
	Group, Charged string
}

// RuntimeCauses are the causes in one runtime group of a component.
type RuntimeCauses struct {
	Group  string
	Delta  int64
	Causes []CauseReport
}

// NewRelease judges each component and ranks them.
//
// The verdict: regressed when ctdiff diff found a cause; improved when it
// found none and the total fell by at least μ (the component's min delta)
// and, with two or more runs per side, Welch's one-sided t-test of the
// logarithms of the per-run totals gives p ≤ α (the component's alpha);
// unchanged otherwise. Logarithms, because the noise of run times is
// multiplicative (a loaded machine slows a run by a factor), so a slow
// outlier run does not swamp a consistent fall.
//
// Impact is relative, so components in different units and of different
// sizes compare: a regressed component's impact is the larger of its total's
// relative change and its largest cause's delta relative to its base total
// (a cause can be real while the total hides it in noise or under an
// improvement elsewhere, and a total can grow over many paths too small to
// be causes); an improved component's is its total's relative change
// (negative); an unchanged component's is 0, since its change is within
// noise. Components are ranked by impact, largest first, ties by name: the
// largest regression heads the report and the largest improvement ends it.
func NewRelease(components []Component) *Release {
	rel := &Release{}
	for _, c := range components {
		r := judge(c)
		switch r.Verdict {
		case VerdictRegressed:
			rel.Regressed++
		case VerdictImproved:
			rel.Improved++
		default:
			rel.Unchanged++
		}
		rel.Components = append(rel.Components, r)
	}
	slices.SortStableFunc(rel.Components, func(a, b ComponentReport) int {
		if c := cmp.Compare(b.Impact, a.Impact); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	return rel
}

// Failed reports whether any component regressed: --fail-on-regression.
func (r *Release) Failed() bool { return r.Regressed > 0 }

func judge(c Component) ComponentReport {
	res := c.Result
	if c.Ecosystem == UnknownEcosystem {
		c.Ecosystem = DetectEcosystem(res)
	}
	r := ComponentReport{Component: c, Style: FrameStyle{Ecosystem: c.Ecosystem, Lines: c.Lines}}
	r.Change = res.New.Total - res.Base.Total
	r.TotalChange = relative(r.Change, res.Base.Total, res.New.Total)
	if len(res.Causes) > 0 {
		r.CauseChange = relative(res.Causes[0].Delta, res.Base.Total, res.New.Total)
	}
	val := func(v int64) string { return FormatValue(v, res.Unit) }
	switch {
	case len(res.Causes) > 0:
		r.Verdict = VerdictRegressed
		r.Impact = max(r.TotalChange, r.CauseChange)
		top := res.Causes[0]
		r.Why = fmt.Sprintf("%s, the largest %s in %s", plural(len(res.Causes), "regression cause"),
			signed(val(top.Delta), top.Delta), r.Style.Label(causeFrame(top)))
	default:
		ok, why := improvement(res)
		r.Why = why
		if ok {
			r.Verdict = VerdictImproved
			r.Impact = r.TotalChange
		} else {
			r.Verdict = VerdictUnchanged
		}
	}
	groups := map[string]int{}
	for i, cause := range res.Causes {
		cr := CauseReport{Cause: cause, N: i + 1, Label: r.Style.Label(causeFrame(cause)), Full: r.Style.Full(causeFrame(cause)), Parts: r.Style.Parts(cause.Path)}
		if n := len(cause.Path); n > 0 {
			cr.Group = RuntimeGroup(cause.Path[n-1])
			if cr.Group != "" {
				if a := Attribution(cause.Path); a != nil {
					cr.Charged = r.Style.Label(*a)
				}
			}
		} else {
			cr.Label, cr.Full = "thread "+cause.Thread, "thread "+cause.Thread
		}
		if cr.Group == "" && cr.Charged == "" {
			cr.Group = ThreadGroup(cause.Thread)
		}
		if cr.Group == "" {
			r.Causes = append(r.Causes, cr)
			continue
		}
		g, ok := groups[cr.Group]
		if !ok {
			g = len(r.Runtime)
			groups[cr.Group] = g
			r.Runtime = append(r.Runtime, RuntimeCauses{Group: cr.Group})
		}
		r.Runtime[g].Delta += cause.Delta
		r.Runtime[g].Causes = append(r.Runtime[g].Causes, cr)
	}
	slices.SortStableFunc(r.Runtime, func(a, b RuntimeCauses) int {
		if c := cmp.Compare(b.Delta, a.Delta); c != 0 {
			return c
		}
		return cmp.Compare(a.Group, b.Group)
	})
	return r
}

// causeFrame is the frame a cause names: its lowest.
func causeFrame(c diff.Cause) diff.Frame {
	if n := len(c.Path); n > 0 {
		return c.Path[n-1]
	}
	return diff.Frame{Function: "thread " + c.Thread}
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

// improvement decides whether a component without causes improved, and
// says why in a sentence.
func improvement(res *diff.Result) (bool, string) {
	val := func(v int64) string { return FormatValue(v, res.Unit) }
	fall := res.Base.Total - res.New.Total
	none := "No function grew by " + val(res.MinDelta) + " or more"
	if res.Aggregate == diff.Stats && res.Base.Runs >= 2 && res.New.Runs >= 2 {
		none += " with significance"
	}
	if fall < res.MinDelta || fall <= 0 {
		return false, fmt.Sprintf("%s; the total changed by %s, less than a fall of %s", none, signed(val(-fall), -fall), val(res.MinDelta))
	}
	if len(res.Base.Totals) < 2 || len(res.New.Totals) < 2 {
		return true, fmt.Sprintf("%s; the total fell by %s, at least %s (one run per side: no test)", none, val(fall), val(res.MinDelta))
	}
	alpha := res.Alpha
	if alpha <= 0 {
		alpha = diff.DefaultAlpha
	}
	p := welchLess(logs(res.New.Totals), logs(res.Base.Totals))
	if p > alpha {
		return false, fmt.Sprintf("%s; the total fell by %s, within noise (Welch's t-test of the log run totals: p %.2g > α %g)", none, val(fall), p, alpha)
	}
	return true, fmt.Sprintf("%s; the total fell by %s (Welch's t-test of the log run totals: p %.2g ≤ α %g)", none, val(fall), p, alpha)
}

// welchLess is the one-sided p-value of Welch's t-test that the mean of a
// is less than the mean of b. Equal samples without variance give 1, or 0
// when their means differ in the tested direction.
func welchLess(fa, fb []float64) float64 {
	ma, va := stat.MeanVariance(fa, nil)
	mb, vb := stat.MeanVariance(fb, nil)
	na, nb := float64(len(fa)), float64(len(fb))
	se2 := va/na + vb/nb
	if se2 == 0 {
		if ma < mb {
			return 0
		}
		return 1
	}
	t := (ma - mb) / math.Sqrt(se2)
	df := se2 * se2 / ((va/na)*(va/na)/(na-1) + (vb/nb)*(vb/nb)/(nb-1))
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.CDF(t)
}

// logs returns the natural logarithms of totals, or the totals themselves
// when one is not positive (normalized deltas can be).
func logs(v []int64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		if x <= 0 {
			for j, y := range v {
				out[j] = float64(y)
			}
			return out
		}
		out[i] = math.Log(float64(x))
	}
	return out
}
