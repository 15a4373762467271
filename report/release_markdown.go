package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/ctdiff/ctdiff/diff"
)

// writeReleaseMarkdown writes a release report as GitHub-flavoured
// Markdown: the ranking table, then per component its verdict, totals, a
// table of the application's causes with the lowest frames of their paths,
// the runtime and VM causes grouped, and the full paths in a collapsed
// section. Every name from a profile is in a code span (mdCode).
func writeReleaseMarkdown(w io.Writer, rel *Release, o ReleaseOptions) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## ctdiff release report: %s\n\n", releaseHeadline(rel))
	bw.WriteString("| Rank | Component | Language | Verdict | Total before → after | Change | Largest cause | Impact |\n")
	bw.WriteString("|--:|---|---|---|--:|--:|---|--:|\n")
	for i, c := range rel.Components {
		res := c.Result
		ch := c.Change
		largest := "–"
		if len(res.Causes) > 0 {
			top := res.Causes[0]
			largest = mdCode(c.style.Label(causeFrame(top)), true) + " " + causeDelta(res, top)
		}
		verdict := string(c.Verdict)
		if c.Verdict == diff.VerdictRegressed {
			verdict = "**" + verdict + "**"
		}
		fmt.Fprintf(bw, "| %d | %s | %s | %s | %s → %s | %s (%s) | %s | %s |\n", i+1, mdCode(c.Name, true), c.Ecosystem.Title(), verdict,
			FormatValue(res.Base.Total, res.Unit), FormatValue(res.New.Total, res.Unit), signed(FormatValue(ch, res.Unit), ch),
			signedPercent(ch, res.Base.Total), largest, signedPct(c.Impact))
	}
	fmt.Fprintf(bw, "\n%s\n", impactDefinition)

	for i, c := range rel.Components {
		res := c.Result
		fmt.Fprintf(bw, "\n### %d. %s: %s\n\n", i+1, mdCode(c.Name, false), c.Verdict)
		fmt.Fprintf(bw, "%s. Total %s: %s, %s vs %s; min delta %s; normalization: %s.\n", mdText(c.Why), mdCode(res.Metric, false),
			totalsLine(res), runs(res.Base.Runs, "base"), runs(res.New.Runs, "new"), FormatValue(res.MinDelta, res.Unit),
			mdText(normalizationSummary(res)))
		if c.Source != "" {
			fmt.Fprintf(bw, "Compared: %s.\n", mdCode(c.Source, false))
		}
		shown := c.Causes[:min(len(c.Causes), o.maxCauses())]
		if len(shown) > 0 {
			bw.WriteString("\n| # | Cause | Delta | Before → After | Kind | 95% CI | adj. p | Path (lowest frames) |\n|--:|---|--:|---|---|---|--:|---|\n")
			for _, cr := range shown {
				ci, p := "–", "–"
				if s := cr.Stats; s != nil {
					ci = signed(FormatValue(s.Low, res.Unit), s.Low) + ".." + signed(FormatValue(s.High, res.Unit), s.High)
					p = fmt.Sprintf("%.2g", s.Q)
				}
				fmt.Fprintf(bw, "| %d | %s | %s | %s → %s | %s | %s | %s | %s |\n", cr.N, mdCode(cr.Label, true), causeDelta(res, cr.Cause),
					FormatValue(cr.Base, res.Unit), FormatValue(cr.New, res.Unit), cr.Kind, ci, p, mdCode(lastParts(cr.parts, 4), true))
			}
			if n := len(c.Causes) - len(shown); n > 0 {
				fmt.Fprintf(bw, "\n%s more in `ctdiff diff`'s report.\n", plural(n, "cause"))
			}
		}
		if len(c.runtime) > 0 {
			bw.WriteString("\nRuntime and VM (grouped, not application code):\n\n")
			for _, g := range c.runtime {
				var names []string
				for _, cr := range g.Causes {
					names = append(names, fmt.Sprintf("#%d %s %s%s", cr.N, mdCode(cr.Label, false), causeDelta(res, cr.Cause), mdText(chargedTo(cr))))
				}
				fmt.Fprintf(bw, "- **%s** %s: %s\n", mdText(g.Group), signed(FormatValue(g.Delta, res.Unit), g.Delta), strings.Join(names, ", "))
			}
		}
		if len(res.Causes) > 0 {
			bw.WriteString("\n<details><summary>Full call paths</summary>\n\n")
			for _, cr := range append(shown, runtimeCauses(c)...) {
				fmt.Fprintf(bw, "%d. %s %s\n", cr.N, mdCode("["+cr.Thread+"]", false), mdCode(partsPath(cr.parts), false))
			}
			bw.WriteString("\n</details>\n")
		}
		if len(res.Warnings) > 0 {
			bw.WriteString("\nWarnings:\n\n")
			for _, w := range res.Warnings {
				fmt.Fprintf(bw, "- %s\n", mdText(w))
			}
		}
	}
	return bw.Flush()
}

// runtimeCauses lists a component's runtime causes in group order.
func runtimeCauses(c ComponentReport) []CauseReport {
	var out []CauseReport
	for _, g := range c.runtime {
		out = append(out, g.Causes...)
	}
	return out
}

// lastParts joins the last k parts of a folded path, led by "… → " when
// some were left out.
func lastParts(parts []pathPart, k int) string {
	labels := make([]string, len(parts))
	for i, p := range parts {
		labels[i] = p.Label
	}
	if len(labels) == 0 {
		return "(the thread itself)"
	}
	return lastFrames(labels, k)
}
