package report

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/ctdiff/ctdiff/diff"
)

// How a verdict is worded wherever causes are listed: which value a test
// judged, what a spread cause folds, and what no test could judge
// (diff.Result.Untested). One place, so that text, Markdown and HTML say
// the same thing.

// testLabel names a cause's test and the value it tested, with a self
// value's base and new (val formats them): the cause's own headline
// values are inclusive, and a self test's interval is not about them.
func testLabel(t *diff.Test, val func(int64) string) string {
	switch t.Of {
	case diff.OfSelf:
		if t.SelfBase != 0 || t.SelfNew != 0 {
			return t.Name + " on self time, " + val(t.SelfBase) + " → " + val(t.SelfNew)
		}
		return t.Name + " on self time"
	case diff.OfFunction:
		return t.Name + " on the function's total"
	}
	return t.Name
}

// spreadSummary says what a spread cause folds: "isStaleState grew in 11
// of its 11 calling contexts, in 4 threads, …, called from F" (full names
// when full). The threads are said because the cause's own thread label is
// its largest context's.
func spreadSummary(sp *diff.Spread, full bool) string {
	s := fmt.Sprintf("%s grew in %d of its %d calling contexts", frameName(sp.Function, full), sp.Grew, sp.ContextCount)
	if sp.Threads > 1 {
		s += fmt.Sprintf(" in %d threads", sp.Threads)
	}
	s += ", none by the threshold alone"
	if n := len(sp.Callers); n > 0 {
		names := make([]string, 0, min(n, 4))
		for _, c := range sp.Callers[:min(n, 4)] {
			names = append(names, frameName(c, full))
		}
		s += "; called from " + strings.Join(names, ", ")
		if n > 4 {
			s += fmt.Sprintf(" and %d more", n-4)
		}
	}
	return s
}

// maxSpreadLines is how many of a spread cause's contexts text lists.
const maxSpreadLines = 5

// writeSpreadText lists a spread cause's contexts under it, the last
// frames of each.
func writeSpreadText(bw *bufio.Writer, c diff.Cause, full bool, sval func(int64) string) {
	sp := c.Spread
	writeWrapped(bw, "     spread: ", "       ", spreadSummary(sp, full))
	for _, x := range sp.Contexts[:min(len(sp.Contexts), maxSpreadLines)] {
		p := x.Path
		if len(p) > 3 {
			p = p[len(p)-3:]
		}
		names := framePath(p, -1, full)
		if len(x.Path) > 3 {
			names[0] = "… → " + names[0]
		}
		writePath(bw, "       "+sval(x.Delta)+"  ", "         ", x.Thread, names, "")
	}
	if n := sp.Grew - min(len(sp.Contexts), maxSpreadLines); n > 0 {
		fmt.Fprintf(bw, "       and %s more (JSON lists up to 20)\n", plural(n, "context"))
	}
}

// untestedReason says why res.Untested could not be tested.
func untestedReason(res *diff.Result) string {
	if res.Aggregate == diff.Intersect {
		return "one run pair: intersecting one critical graph filters no noise"
	}
	if len(res.Causes) == 0 && res.CriticalGraphNodes > 0 {
		return "one run on a side and too few calling contexts to model its noise"
	}
	return "one run on a side cannot tell a call that ran in one run only, or a garbage collector's swing, from a regression"
}

// writeUntestedText lists the nodes above μ that no test could judge.
func writeUntestedText(bw *bufio.Writer, res *diff.Result, max int, path func([]diff.Frame, int) []string, val, sval func(int64) string) {
	if len(res.Untested) == 0 {
		return
	}
	fmt.Fprintf(bw, "\nAbove %s but untested (not regressions): %d%s\n", val(res.MinDelta), len(res.Untested), more(len(res.Untested), max))
	writeWrapped(bw, "  ", "  ", untestedReason(res)+"; record 3 or more runs per side to test them.")
	for i, c := range res.Untested[:min(len(res.Untested), max)] {
		head := fmt.Sprintf("%3d. %s %s  %s → %s", i+1, sval(c.Delta), c.Kind, val(c.Base), val(c.New))
		bw.WriteString(head + "\n")
		writePath(bw, "     ", "", c.Thread, path(c.Path, -1), "")
	}
}

// untestedMarkdown is the Markdown summary of res.Untested, "" without
// any.
func untestedMarkdown(res *diff.Result, full bool) string {
	if len(res.Untested) == 0 {
		return ""
	}
	names := make([]string, 0, 3)
	for _, c := range res.Untested[:min(len(res.Untested), 3)] {
		names = append(names, mdCode(causeName(c, full), false)+" "+signed(FormatValue(c.Delta, res.Unit), c.Delta))
	}
	s := fmt.Sprintf("%s above %s untested, not regressions (%s): %s", plural(len(res.Untested), "node"),
		FormatValue(res.MinDelta, res.Unit), mdText(untestedReason(res)), strings.Join(names, ", "))
	if len(res.Untested) > 3 {
		s += ", …"
	}
	return s + ".\n\n"
}

// tested reports whether a comparison's causes come from significance
// tests: Stats mode, unless nothing at all could be tested.
func tested(res *diff.Result) bool {
	return res.Aggregate == diff.Stats && !(len(res.Causes) == 0 && len(res.Untested) > 0 && res.CriticalGraphNodes > 0)
}
