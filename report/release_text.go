package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/ctdiff/ctdiff/diff"
)

// impactDefinition is how every release report explains its ranking
// (NewRelease).
const impactDefinition = "Impact is relative to each component's own base total, so components in different units compare: " +
	"for a regressed component the larger of the total's change and the largest cause's delta, " +
	"for an improved one the total's change, and 0 for changes within noise."

// ReleaseOptions control the release reports.
type ReleaseOptions struct {
	// MaxCauses caps the application causes listed per component (0
	// means 10); the rest are counted.
	MaxCauses int
}

func (o ReleaseOptions) maxCauses() int {
	if o.MaxCauses <= 0 {
		return 10
	}
	return o.MaxCauses
}

// writeReleaseText writes a release report for people: the ranking, then
// each component's verdict, totals and causes with their paths, runtime and
// VM causes grouped after the application's.
func writeReleaseText(w io.Writer, rel *Release, o ReleaseOptions) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "ctdiff report: %s\n", releaseHeadline(rel))
	fmt.Fprintf(bw, "%s\n\n", impactDefinition)
	for i, c := range rel.Components {
		res := c.Result
		fmt.Fprintf(bw, "%2d. %-9s %s [%s]  %s  impact %s\n", i+1, c.Verdict, textName(c.Name), c.Ecosystem.Title(),
			totalsLine(res), signedPct(c.Impact))
	}
	for i, c := range rel.Components {
		res := c.Result
		fmt.Fprintf(bw, "\n== %d. %s: %s\n", i+1, textName(c.Name), c.Verdict)
		fmt.Fprintf(bw, "%s.\n", textName(c.Why))
		if c.Source != "" {
			fmt.Fprintf(bw, "Compared: %s\n", textName(c.Source))
		}
		fmt.Fprintf(bw, "Total %s: %s, %s vs %s; min delta %s; normalization %s\n", textName(res.Metric), totalsLine(res),
			runs(res.Base.Runs, "base"), runs(res.New.Runs, "new"), FormatValue(res.MinDelta, res.Unit), textName(normalizationSummary(res)))
		shown := c.Causes[:min(len(c.Causes), o.maxCauses())]
		for _, cr := range shown {
			fmt.Fprintf(bw, "  #%d %s %s  %s → %s%s\n", cr.N, causeDelta(res, cr.Cause), cr.Kind,
				FormatValue(cr.Base, res.Unit), FormatValue(cr.New, res.Unit), causeStats(res, cr.Cause))
			fmt.Fprintf(bw, "     %s\n     [%s] %s\n", textName(cr.Full), textName(cr.Thread), textName(partsPath(cr.parts)))
		}
		if n := len(c.Causes) - len(shown); n > 0 {
			fmt.Fprintf(bw, "  ... %s more (ctdiff diff lists them)\n", plural(n, "cause"))
		}
		for _, g := range c.runtime {
			fmt.Fprintf(bw, "  runtime/VM: %s %s in %s\n", textName(g.Group), signed(FormatValue(g.Delta, res.Unit), g.Delta), plural(len(g.Causes), "cause"))
			for _, cr := range g.Causes {
				fmt.Fprintf(bw, "    #%d %s %s%s\n", cr.N, causeDelta(res, cr.Cause), textName(cr.Full), textName(chargedTo(cr)))
			}
		}
		for _, w := range res.Warnings {
			fmt.Fprintf(bw, "  warning: %s\n", textName(w))
		}
	}
	return bw.Flush()
}

// releaseHeadline says how many components regressed, improved or did not
// change.
func releaseHeadline(rel *Release) string {
	n := len(rel.Components)
	head := fmt.Sprintf("%d of %s regressed", rel.Regressed, plural(n, "component"))
	if rel.Regressed == 0 {
		head = fmt.Sprintf("no regression in %s", plural(n, "component"))
	}
	return fmt.Sprintf("%s (%d improved, %d unchanged within noise)", head, rel.Improved, rel.Unchanged)
}

// totalsLine is "1.59s → 1.75s (+156.7ms, +9.85%)" in the result's unit.
func totalsLine(res *diff.Result) string {
	ch := res.New.Total - res.Base.Total
	return fmt.Sprintf("%s → %s (%s, %s)", FormatValue(res.Base.Total, res.Unit), FormatValue(res.New.Total, res.Unit),
		signed(FormatValue(ch, res.Unit), ch), signedPercent(ch, res.Base.Total))
}

func signedPct(f float64) string {
	if f == 0 {
		return "0%"
	}
	return fmt.Sprintf("%+.2f%%", 100*f)
}

func causeDelta(res *diff.Result, c diff.Cause) string {
	return signed(FormatValue(c.Delta, res.Unit), c.Delta)
}

// causeStats is the test's interval and adjusted p-value, when there is one.
func causeStats(res *diff.Result, c diff.Cause) string {
	s := c.Stats
	if s == nil {
		return ""
	}
	return fmt.Sprintf("  95%% CI %s..%s, adjusted p %.2g", signed(FormatValue(s.Low, res.Unit), s.Low), signed(FormatValue(s.High, res.Unit), s.High), s.Q)
}

func chargedTo(cr CauseReport) string {
	if cr.Charged == "" {
		return ""
	}
	return " (under " + cr.Charged + ")"
}

// partsPath joins a folded path's labels.
func partsPath(parts []pathPart) string {
	if len(parts) == 0 {
		return "(the thread itself)"
	}
	labels := make([]string, len(parts))
	for i, p := range parts {
		labels[i] = p.Label
	}
	return strings.Join(labels, " → ")
}
