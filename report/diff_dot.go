package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/ctdiff/ctdiff/diff"
)

// diffDOTOptions control the DOT report.
type diffDOTOptions struct {
	// MaxCauses caps the causes drawn, the largest first, with their
	// ancestors (0 means 50): Graphviz cannot lay out, nor a reader
	// follow, the hundred thousand nodes of a large comparison's graph.
	MaxCauses int
}

// writeDiffDOT writes the critical graph of a comparison as a Graphviz
// digraph, ZAM's output form (Section 3.1, Figure 4): one box per node with
// the function, base → new and the delta, filled by the delta (red grew,
// blue shrank), the regression causes drawn with a thick dark border and
// numbered as in the text report, added functions dashed, and ancestors
// kept only as context of a cause dotted. Edge widths follow the callee's
// delta. Every name from a profile is escaped. The 50 largest causes are
// drawn (see diffDOTOptions), and the title says when there are more.
func writeDiffDOT(w io.Writer, res *diff.Result, o diffDOTOptions) error {
	if o.MaxCauses <= 0 {
		o.MaxCauses = 50
	}
	bw := bufio.NewWriter(w)
	u := res.Unit
	val := func(v int64) string { return FormatValue(v, u) }
	sval := func(v int64) string { return signed(FormatValue(v, u), v) }
	change := res.New.Total - res.Base.Total
	title := []string{
		fmt.Sprintf("ctdiff critical graph: %s, %s vs %s", res.Metric, runs(res.Base.Runs, "base"), runs(res.New.Runs, "new")),
		fmt.Sprintf("total %s → %s (%s), min delta %s, %s", val(res.Base.Total), val(res.New.Total), sval(change), val(res.MinDelta), plural(len(res.Causes), "cause")),
		"thick border: regression cause; dashed: added; dotted: context only",
		"normalization: " + normalizationShort(res),
	}
	causeNo := causeNumbers(res)
	keep := make([]bool, len(res.Graph))
	drawn := 0
	for i, n := range causeNo {
		if n > 0 && n <= o.MaxCauses {
			for x := i; x >= 0 && !keep[x]; x = res.Graph[x].Parent {
				keep[x] = true
				drawn++
			}
		}
	}
	if len(res.Causes) > o.MaxCauses {
		title = append(title, fmt.Sprintf("showing the %d largest of %d causes (%d of %d nodes); the JSON report has all",
			o.MaxCauses, len(res.Causes), drawn, len(res.Graph)))
	}
	fmt.Fprintf(bw, "digraph critical {\n  graph [label=%s, labelloc=t, fontname=\"Helvetica\"];\n", dotLines(title...))
	bw.WriteString("  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n")
	bw.WriteString("  edge [color=\"#777777\"];\n")
	if len(res.Graph) == 0 {
		fmt.Fprintf(bw, "  none [label=%s, shape=plaintext, style=\"\"];\n}\n",
			dotQuote("no regression cause: no function grew by "+val(res.MinDelta)+" or more"))
		return bw.Flush()
	}
	var maxAbs int64
	for i, g := range res.Graph {
		if keep[i] && !g.IsThread {
			maxAbs = max(maxAbs, abs(g.Delta))
		}
	}
	for i, g := range res.Graph {
		if !keep[i] {
			continue
		}
		name, label := g.Frame.Function, frameName(g.Frame, false)
		if g.IsThread {
			name = "thread " + g.Thread
			label = name
		}
		var lines []string
		if n := causeNo[i]; n > 0 {
			lines = append(lines, fmt.Sprintf("cause %d (%s)", n, g.Kind))
		}
		lines = append(lines, shorten(label, 60))
		if g.Kind == diff.Added {
			lines = append(lines, "added: "+val(g.New))
		} else {
			lines = append(lines, fmt.Sprintf("%s → %s", val(g.Base), val(g.New)))
		}
		delta := sval(g.Delta)
		if g.Base != 0 {
			delta += " (" + signedPercent(g.Delta, g.Base) + ")"
		}
		lines = append(lines, delta)
		if s := g.Stats; s != nil && causeNo[i] > 0 {
			lines = append(lines, fmt.Sprintf("95%% CI %s..%s", sval(s.Low), sval(s.High)))
		}
		style := []string{"rounded", "filled"}
		switch {
		case g.Kind == diff.Added:
			style = append(style, "dashed")
		case g.Context:
			style = append(style, "dotted")
		}
		attrs := []string{
			"label=" + dotLines(lines...),
			"tooltip=" + dotQuote(strings.TrimSpace(name+" "+g.Frame.File)),
			"fillcolor=" + dotQuote(deltaColor(g.Delta, maxAbs)),
			"style=" + dotQuote(strings.Join(style, ",")),
		}
		if g.IsThread {
			attrs = append(attrs, "shape=box3d")
		}
		if causeNo[i] > 0 {
			attrs = append(attrs, `color="#5a0000"`, "penwidth=3")
		}
		fmt.Fprintf(bw, "  n%d [%s];\n", i, strings.Join(attrs, ", "))
		if g.Parent >= 0 {
			width := 1.0
			if maxAbs > 0 && g.Delta > 0 {
				width += 4 * float64(g.Delta) / float64(maxAbs)
			}
			fmt.Fprintf(bw, "  n%d -> n%d [penwidth=%.2f];\n", g.Parent, i, width)
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// deltaColor maps a delta to a fill colour: white at 0, red as it grows to
// maxAbs, blue as it shrinks (the colours of Gregg's differential flame
// graphs, which colour-blind readers tell apart better than pprof's
// red and green).
func deltaColor(delta, maxAbs int64) string {
	share := 0.0
	if maxAbs > 0 {
		share = float64(abs(delta)) / float64(maxAbs)
	}
	return blendColor(delta >= 0, share)
}
