package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ctdiff/ctdiff/diff"
)

// A Component is one part of a release compared on its own: a service, a
// front end, a client, each with its own profiles, format and unit.
type Component struct {
	Name   string
	Result *diff.Result
	// Ecosystem names frames (frameStyle); detectEcosystem's answer when
	// UnknownEcosystem.
	Ecosystem Ecosystem
	// Lines are the frames' function lines, when the profiles were read
	// (frameStyle.Lines); nil for results read from JSON.
	Lines map[diff.Frame]int64
	// Source says where the result came from: the inputs compared, or the
	// JSON file.
	Source string
}

// A Release is the release-level report: every component's verdict and
// causes, ranked by impact.
type Release struct {
	// Components are ranked: by Impact, largest first, ties by name.
	Components []ComponentReport
	// Counts of the verdicts.
	Regressed, Improved, Unchanged int
}

// A ComponentReport is one component with its verdict (diff.Judge).
type ComponentReport struct {
	Component
	diff.Judgement
	// Why explains the verdict in one sentence.
	Why string

	// Causes are the application's causes, in the Result's order.
	Causes []CauseReport

	style frameStyle
	// runtime are the causes in runtime or VM frames, by group.
	runtime []runtimeGroup
}

// A CauseReport is one cause ready to show.
type CauseReport struct {
	diff.Cause
	// N is the cause's number in ctdiff diff's report of the component.
	N int
	// Label names the cause's frame the ecosystem's way; Full in full.
	Label, Full string
	// parts is the path with runtime frames folded (frameStyle.Parts).
	parts []pathPart
	// Group is the runtime group of a runtime cause; Charged names the
	// application frame it is charged to (diff.Attribution), if any.
	Group, Charged string
}

// runtimeGroup are the causes in one runtime group of a component.
type runtimeGroup struct {
	Group  string
	Delta  int64
	Causes []CauseReport
}

// NewRelease judges each component (diff.Judge) and ranks them by impact,
// largest first, ties by name: the largest regression heads the report and
// the largest improvement ends it.
func NewRelease(components []Component) *Release {
	rel := &Release{}
	for _, c := range components {
		r := judge(c)
		switch r.Verdict {
		case diff.VerdictRegressed:
			rel.Regressed++
		case diff.VerdictImproved:
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
		c.Ecosystem = detectEcosystem(res)
	}
	r := ComponentReport{Component: c, Judgement: diff.Judge(res), style: frameStyle{Ecosystem: c.Ecosystem, Lines: c.Lines, Placed: true}}
	if r.Verdict == diff.VerdictRegressed {
		// The verdict as ctdiff diff says it, led by the function the
		// top cause is charged to.
		r.Why = plural(len(res.Causes), "regression cause") + ": " + strings.TrimPrefix(verdictLine(res, false, func(s string) string { return s }), "regressed: ")
	} else {
		r.Why = whyNoCause(res, r.Judgement)
	}
	groups := map[string]int{}
	for i, cause := range res.Causes {
		cr := CauseReport{Cause: cause, N: i + 1, Label: r.style.Label(causeFrame(cause)), Full: r.style.Full(causeFrame(cause)), parts: r.style.Parts(cause.Path)}
		if n := len(cause.Path); n > 0 {
			cr.Group = diff.RuntimeGroup(cause.Path[n-1])
			if cr.Group != "" {
				if b := cause.Blame; b != nil {
					cr.Charged = r.style.Label(b.Frame)
				} else if a := diff.Attribution(cause.Path); a != nil {
					cr.Charged = r.style.Label(*a)
				}
			}
		} else {
			cr.Label, cr.Full = "thread "+cause.Thread, "thread "+cause.Thread
		}
		if cr.Group == "" && cr.Charged == "" {
			cr.Group = diff.ThreadGroup(cause.Thread)
		}
		if cr.Group == "" {
			r.Causes = append(r.Causes, cr)
			continue
		}
		g, ok := groups[cr.Group]
		if !ok {
			g = len(r.runtime)
			groups[cr.Group] = g
			r.runtime = append(r.runtime, runtimeGroup{Group: cr.Group})
		}
		r.runtime[g].Delta += cause.Delta
		r.runtime[g].Causes = append(r.runtime[g].Causes, cr)
	}
	slices.SortStableFunc(r.runtime, func(a, b runtimeGroup) int {
		if c := cmp.Compare(b.Delta, a.Delta); c != 0 {
			return c
		}
		return cmp.Compare(a.Group, b.Group)
	})
	return r
}

// causeFrame is the frame a cause names: the function of the program's it
// is charged to on its path (diff.Blame), else its lowest.
func causeFrame(c diff.Cause) diff.Frame {
	if b := c.Blame; b != nil && b.By == "" {
		return b.Frame
	}
	if n := len(c.Path); n > 0 {
		return c.Path[n-1]
	}
	return diff.Frame{Function: "thread " + c.Thread}
}

// whyNoCause says in a sentence why a component without causes improved
// or did not.
func whyNoCause(res *diff.Result, j diff.Judgement) string {
	val := func(v int64) string { return FormatValue(v, res.Unit) }
	fall := -j.Change
	none := "No function grew by " + val(res.MinDelta) + " or more"
	if res.Aggregate == diff.Stats && res.Base.Runs >= 2 && res.New.Runs >= 2 {
		none += " with significance"
	}
	if len(res.Improvements) > 0 {
		return none + "; " + plural(len(res.Improvements), "improvement") + ": " + strings.TrimPrefix(verdictLine(res, false, func(s string) string { return s }), "improved: ")
	}
	switch {
	case j.Tested && j.Verdict == diff.VerdictImproved:
		return fmt.Sprintf("%s; the total fell by %s (Welch's t-test of the log run totals: p %.2g ≤ α %g)", none, val(fall), j.P, j.Alpha)
	case j.Tested:
		return fmt.Sprintf("%s; the total fell by %s, within noise (Welch's t-test of the log run totals: p %.2g > α %g)", none, val(fall), j.P, j.Alpha)
	case j.Verdict == diff.VerdictImproved:
		return fmt.Sprintf("%s; the total fell by %s, at least %s (one run per side: no test)", none, val(fall), val(res.MinDelta))
	}
	return fmt.Sprintf("%s; the total changed by %s, less than a fall of %s", none, signed(val(-fall), -fall), val(res.MinDelta))
}
