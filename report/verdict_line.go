package report

import (
	"fmt"
	"strings"

	"github.com/ctdiff/ctdiff/diff"
)

// The verdict in one line (diff.Outcome): what every format leads with,
// the JSON's "verdict.summary" and the summary format's line. Names go
// through the format's own escaping (name); the words are the same
// everywhere.

// VerdictLine is res's verdict in one line, as the text report's first
// line says it (names short, control characters escaped).
func VerdictLine(res *diff.Result) string { return verdictLine(res, false, textName) }

// verdictLine is res's verdict: "regressed: F +X, of which G +Y (95% CI
// …, adjusted p …)", "improved: …", "no significant change: …" or
// "inconclusive: …".
func verdictLine(res *diff.Result, full bool, name func(string) string) string {
	val := func(v int64) string { return FormatValue(v, res.Unit) }
	switch statusOf(res) {
	case diff.StatusRegressed:
		s := "regressed: " + causeSentence(res.Causes[0], full, name, val)
		s += moreCauses(res.Causes, "cause", full)
		if n := len(res.Improvements); n > 0 {
			s += fmt.Sprintf("; %s improved", plural(n, "path"))
		}
		return s
	case diff.StatusImproved:
		if len(res.Improvements) > 0 {
			return "improved: " + causeSentence(res.Improvements[0], full, name, val) + moreCauses(res.Improvements, "improvement", full)
		}
		change := res.New.Total - res.Base.Total
		return fmt.Sprintf("improved: the total fell by %s (%s), spread over calls none of which shrank by %s alone",
			val(-change), signedPercent(change, res.Base.Total), val(res.MinDelta))
	case diff.StatusInconclusive:
		c := res.Untested[0]
		s := fmt.Sprintf("inconclusive: %s grew by %s or more where no test could judge them (%s); the largest is %s %s",
			plural(len(res.Untested), "call path"), val(res.MinDelta), untestedReason(res), name(blameName(c, full)), signed(val(c.Delta), c.Delta))
		if n := res.Outcome.Runs; n > 0 {
			s += fmt.Sprintf("; %d runs a side would test it", n)
		}
		return s
	}
	s := "no significant change: no function changed by " + val(res.MinDelta) + " or more"
	if tested(res) {
		s += " with significance"
	}
	if d := res.Outcome.Detectable; d > 0 {
		s += fmt.Sprintf("; a change of %s (%s) in the total would have been detected 80%% of the time",
			val(d), strings.TrimPrefix(signedPercent(d, res.Base.Total), "+"))
	}
	return s
}

// statusOf is res's verdict status, from its lists for a Result made
// without one.
func statusOf(res *diff.Result) diff.Status {
	if res.Outcome.Status != "" {
		return res.Outcome.Status
	}
	return diff.StatusOf(res)
}

// causeSentence says a cause by its blame: "F +X, of which G +Y (95% CI
// lo..hi, adjusted p q)", "F +X (…)" when the cause is F itself, and for
// the runtime's work charged by evidence "background GC +X (…), charged
// to F, whose allocation grew most (+Z)".
func causeSentence(c diff.Cause, full bool, name func(string) string, val func(int64) string) string {
	sval := func(v int64) string { return signed(val(v), v) }
	stats := ""
	if t := c.Stats; t != nil {
		// The interval to three significant digits, as JSON keeps it,
		// so that a result read back says the same.
		lo, hi := int64(sig3(float64(t.Low))), int64(sig3(float64(t.High)))
		stats = fmt.Sprintf(" (95%% CI %s..%s, adjusted p %.2g)", sval(lo), sval(hi), t.Q)
	}
	b := c.Blame
	switch {
	case b == nil:
		return name(causeName(c, full)) + " " + sval(c.Delta) + stats
	case b.By != "":
		return fmt.Sprintf("%s %s%s, charged to %s, %s", b.Work, sval(c.Delta), stats, name(frameName(b.Frame, full)), evidence(b, val))
	case len(b.Breakdown) == 0:
		return name(frameName(b.Frame, full)) + " " + sval(c.Delta) + stats
	}
	what := name(causeName(c, full)) + " " + sval(c.Delta)
	if c.Kind == diff.Added || c.Kind == diff.Removed {
		what += " (" + map[diff.Kind]string{diff.Added: "new call", diff.Removed: "call removed"}[c.Kind] + ")"
	}
	if (b.Delta > 0) != (c.Delta > 0) {
		// The function changed the other way as a whole (a call
		// removed from a function that grew): its delta would read as
		// the cause's.
		return fmt.Sprintf("%s in %s%s", what, name(frameName(b.Frame, full)), stats)
	}
	return fmt.Sprintf("%s %s, of which %s%s", name(frameName(b.Frame, full)), sval(b.Delta), what, stats)
}

// evidence says why runtime work was charged to b: "whose allocation grew
// most (+10ms)".
func evidence(b *diff.Blame, val func(int64) string) string {
	what := "allocation"
	if b.By == diff.ByOwnTime {
		what = "own time"
	}
	how := "grew"
	if b.Delta < 0 {
		how = "fell" // an improvement's evidence
	}
	return fmt.Sprintf("whose %s %s most (%s)", what, how, signed(val(b.Delta), b.Delta))
}

// blameName names a cause by its blame, or by its own node without one.
func blameName(c diff.Cause, full bool) string {
	if c.Blame != nil {
		return frameName(c.Blame.Frame, full)
	}
	return causeName(c, full)
}

// blameLabel names a cause in one cell, led by its blame: "F › G" for G
// grown below F, "background GC › F" for work charged to F, the cause's
// own function otherwise.
func blameLabel(c diff.Cause) string {
	switch b := c.Blame; {
	case b == nil:
		return causeName(c, false)
	case b.By != "":
		return b.Work + " › " + frameName(b.Frame, false)
	case len(b.Breakdown) == 0:
		return frameName(b.Frame, false)
	}
	return frameName(c.Blame.Frame, false) + " › " + causeName(c, false)
}

// moreCauses says how many causes follow the first, and in how many
// functions: "; 3 more causes in 2 functions".
func moreCauses(cs []diff.Cause, what string, full bool) string {
	if len(cs) < 2 {
		return ""
	}
	fns := map[string]bool{}
	for _, c := range cs[1:] {
		fns[blameName(c, full)] = true
	}
	delete(fns, blameName(cs[0], full))
	s := fmt.Sprintf("; %s", plural(len(cs)-1, "more "+what))
	if n := len(fns); n > 0 {
		s += " in " + plural(n, "other function")
	}
	return s
}
