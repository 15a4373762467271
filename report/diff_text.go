package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ctdiff/ctdiff/diff"
)

// diffTextOptions control the text report of a comparison.
type diffTextOptions struct {
	// MaxCauses, MaxTopology and MaxWeights cap the causes, added/removed
	// subtrees and weight differences listed (0 means 20); the header says
	// how many more there are. Ranked paths are already Options.Top long.
	MaxCauses, MaxTopology, MaxWeights int
	// FullNames names functions in full (Go import paths, Java packages);
	// by default they have their short names (frameName), as in pprof's
	// graphs, so a path's frames are not mostly the same import path.
	FullNames bool
	// AllPaths lists every ranked path; by default those that cost less
	// than the min delta, which is below what a cause must reach, are
	// only counted.
	AllPaths bool
}

// maxPathFrames is how many frames a path shows before eliding its middle.
const maxPathFrames = 12

// textWidth is the column text reports wrap at: paths break between frames
// and prose between words, so no line runs to hundreds of characters.
const textWidth = 100

// writeDiffText writes a comparison for people: a header with the inputs,
// the totals and the similarity of the runs, the regression causes with
// their root-first paths, IntroPerf's ranked paths with the hottest node
// marked, PARCS's topology changes and weight differences, how the
// siblings were matched, and the warnings. Everything is in a stable order.
func writeDiffText(w io.Writer, res *diff.Result, o diffTextOptions) error {
	for _, p := range []*int{&o.MaxCauses, &o.MaxTopology, &o.MaxWeights} {
		if *p <= 0 {
			*p = 20
		}
	}
	bw := bufio.NewWriter(w)
	u := res.Unit
	val := func(v int64) string { return FormatValue(v, u) }
	sval := func(v int64) string { return signed(FormatValue(v, u), v) }
	full := o.FullNames
	path := func(p []diff.Frame, hot int) []string { return framePath(p, hot, full) }

	fmt.Fprintf(bw, "ctdiff diff: %s, %s vs %s\n", textName(res.Metric), runs(res.Base.Runs, "base"), runs(res.New.Runs, "new"))
	writeInputs(bw, "Base", res.Base.Profiles)
	writeInputs(bw, "New", res.New.Profiles)
	change := res.New.Total - res.Base.Total
	writeWrapped(bw, "Normalization: ", "  ", textName(normalizationSummary(res)))
	if !equalTotals(res) {
		fmt.Fprintf(bw, "Total: %s → %s (%s, %s)%s\n", val(res.Base.Total), val(res.New.Total), sval(change), signedPercent(change, res.Base.Total), totalExcludes(res))
	}
	if g := goRuntimeSummary(res, full); g != "" {
		writeWrapped(bw, "GC/runtime: ", "  ", textName(g))
	}
	method := string(res.Aggregate)
	if res.Aggregate == diff.Stats {
		method += fmt.Sprintf(" (per-node tests, Holm α=%g)", res.Alpha)
	} else {
		method += " (ZAM: kept when in every run pair's critical graph)"
	}
	spec := ""
	if strings.HasSuffix(res.MinDeltaSpec, "%") {
		spec = " (" + res.MinDeltaSpec + " of the base total)"
	}
	fmt.Fprintf(bw, "Method: %s, %s matching; min delta %s%s\n", method, res.Match, val(res.MinDelta), spec)
	writeFiltersText(bw, res)
	ov := res.Overlap
	noise := "no noise floor: one base run"
	if ov.NoiseFloor != nil {
		noise = fmt.Sprintf("noise floor %.2f%%", *ov.NoiseFloor)
	}
	writeItems(bw, "Similarity: ", "  ", []string{fmt.Sprintf("overlap %.2f%% (%s)", ov.Percent, noise),
		fmt.Sprintf("common tree %.2f%% (strict %.2f%%)", ov.CommonTree, ov.StrictCommonTree),
		fmt.Sprintf("matching score %.2f%%", ov.Score)}, ", ")
	fmt.Fprintf(bw, "Critical graph: %d of %d nodes\n", res.CriticalGraphNodes, res.TreeNodes)

	if lines := textNames(benchmarkSummary(res)); len(lines) > 0 {
		bw.WriteString("\n")
		for _, l := range lines {
			indent := "  "
			if strings.HasPrefix(l, " ") {
				indent = "    "
			}
			writeWrapped(bw, "", indent, l)
		}
	}
	fmt.Fprintf(bw, "\nRegression causes: %d%s\n", len(res.Causes), more(len(res.Causes), o.MaxCauses))
	if len(res.Causes) == 0 {
		switch {
		case len(res.Untested) > 0 && !tested(res):
			fmt.Fprintf(bw, "  none tested: %s grew by %s or more, untested (below)", plural(len(res.Untested), "node"), val(res.MinDelta))
		case len(res.Untested) > 0:
			fmt.Fprintf(bw, "  none: no function grew by %s or more with significance; %s untested (below)", val(res.MinDelta), plural(len(res.Untested), "node"))
		default:
			fmt.Fprintf(bw, "  none: no function grew by %s or more", val(res.MinDelta))
		}
		if tested(res) && len(res.Untested) == 0 {
			fmt.Fprint(bw, " with significance")
		}
		fmt.Fprintln(bw)
	}
	for i, c := range res.Causes[:min(len(res.Causes), o.MaxCauses)] {
		head := []string{fmt.Sprintf("%3d. %s %s", i+1, sval(c.Delta), c.Kind), val(c.Base) + " → " + val(c.New)}
		if s := c.Stats; s != nil {
			head = append(head, fmt.Sprintf("95%% CI %s..%s, adjusted p %.2g (%s)", sval(s.Low), sval(s.High), s.Q, testLabel(s, val)))
		}
		writeItems(bw, "", "     ", head, "  ")
		writePath(bw, "     ", "", c.Thread, path(c.Path, -1), "")
		if n := len(c.Path); n > 0 && c.Path[n-1].File != "" {
			fmt.Fprintf(bw, "     in %s\n", textName(c.Path[n-1].File))
		}
		if c.Spread != nil {
			writeSpreadText(bw, c, full, sval)
		}
	}
	writeUntestedText(bw, res, o.MaxCauses, path, val, sval)

	shown := res.RankedPaths
	if !o.AllPaths {
		// Ranks follow the cost, so the paths below μ are the last ones.
		n := 0
		for n < len(shown) && shown[n].Cost >= res.MinDelta {
			n++
		}
		shown = shown[:n]
	}
	fmt.Fprintf(bw, "\nTop paths (IntroPerf differential ranking; * marks the costliest node): %d", len(res.RankedPaths))
	if hidden := len(res.RankedPaths) - len(shown); hidden > 0 {
		fmt.Fprintf(bw, ", %d below %s not shown", hidden, val(res.MinDelta))
	}
	bw.WriteString("\n")
	switch {
	case len(res.RankedPaths) == 0:
		fmt.Fprintln(bw, "  none: no path of the new runs costs more than in the base runs")
	case len(shown) == 0:
		fmt.Fprintf(bw, "  none: no path costs %s or more\n", val(res.MinDelta))
	}
	for _, p := range shown {
		frames := make([]diff.Frame, len(p.Path))
		hot := -1
		for i, n := range p.Path {
			frames[i] = n.Frame
			if n.Rank == 1 {
				hot = i
			}
		}
		fmt.Fprintf(bw, "%3d. %s", p.Rank, sval(p.Cost))
		if hot >= 0 {
			fmt.Fprintf(bw, "  (hottest %s %s)", textName(frameName(frames[hot], full)), sval(p.Path[hot].Cost))
		}
		bw.WriteString("\n")
		writePath(bw, "     ", "", p.Thread, path(frames, hot), "")
	}

	topo := res.Topology
	fmt.Fprintf(bw, "\nTopology (in every run pair): %d added, %d removed subtrees\n", topo.AddedCount, topo.RemovedCount)
	for _, l := range []struct {
		sign string
		list []diff.Subtree
		n    int
	}{{"+", topo.Added, topo.AddedCount}, {"-", topo.Removed, topo.RemovedCount}} {
		for _, s := range l.list[:min(len(l.list), o.MaxTopology)] {
			writePath(bw, fmt.Sprintf("  %s %s  ", l.sign, val(s.Weight)), "    ", s.Thread, path(s.Path, -1), " ("+plural(s.Nodes, "node")+")")
		}
		if l.n > o.MaxTopology {
			fmt.Fprintf(bw, "  %s ... %d more\n", l.sign, l.n-o.MaxTopology)
		}
	}

	wm := res.WeightMatching
	target := "largest first; no noise floor"
	if ov.NoiseFloor != nil {
		target = fmt.Sprintf("up to the noise floor: overlap %.2f%% → %.2f%%", ov.Percent, wm.Adjusted)
		if !wm.Reached {
			target += ", not reached"
		}
	}
	bw.WriteString("\n")
	writeWrapped(bw, "", "  ", fmt.Sprintf("Weight differences (PARCS weight matching, %s): %d", target, len(wm.Nodes)))
	for _, d := range wm.Nodes[:min(len(wm.Nodes), o.MaxWeights)] {
		writePath(bw, fmt.Sprintf("  %+.2f pts (%.2f%% → %.2f%%)  ", d.Diff, d.Base, d.New), "    ", d.Thread, path(d.Path, -1), "")
	}

	m := res.Matchers
	matching := []string{fmt.Sprintf("%d LCS", m.LCS), fmt.Sprintf("%d alternate (threads and top level)", m.Alternate),
		fmt.Sprintf("%d over the LCS budget", m.Fallback), fmt.Sprintf("%d residual (reordered calls)", m.Residual),
		fmt.Sprintf("%d renamed", m.Renamed)}
	if m.Relaxed > 0 {
		matching = append(matching, fmt.Sprintf("%d PARCS relaxed", m.Relaxed))
	}
	bw.WriteString("\n")
	writeItems(bw, "Matching: ", "  ", matching, ", ")
	if len(res.Warnings) > 0 {
		fmt.Fprintln(bw, "\nWarnings:")
		for _, w := range res.Warnings {
			writeWrapped(bw, "  - ", "    ", textName(w))
		}
	}
	return bw.Flush()
}

func runs(n int, side string) string { return plural(n, side+" run") }

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func writeInputs(w *bufio.Writer, label string, paths []string) {
	if len(paths) > 0 {
		writeItems(w, label+": ", "  ", textNames(paths), ", ")
	}
}

func more(n, max int) string {
	if n > max {
		return fmt.Sprintf(" (first %d shown)", max)
	}
	return ""
}

// signed adds "+" to the formatted value of a positive number.
func signed(s string, v int64) string {
	if v > 0 {
		return "+" + s
	}
	return s
}

func signedPercent(part, whole int64) string {
	if whole == 0 {
		return "-"
	}
	return fmt.Sprintf("%+.2f%%", 100*float64(part)/float64(whole))
}

// equalTotals reports normalizations that make the two sides' totals equal
// by construction (share: 100% each; total: the base scaled to the new
// runs' total), where the totals line would say nothing; the normalization
// line gives the absolute totals instead.
func equalTotals(res *diff.Result) bool {
	m := res.Normalization.Mode
	return m == diff.NormalizeShare || m == diff.NormalizeTotal
}

// framePath names a root-first path's frames (frameName), eliding the
// middle of long paths, and marking frame hot (if ≥ 0) with "*".
func framePath(p []diff.Frame, hot int, full bool) []string {
	if len(p) == 0 {
		return []string{"(thread itself)"}
	}
	names := make([]string, 0, maxPathFrames+1)
	add := func(i int) {
		name := frameName(p[i], full)
		if i == hot {
			name = "*" + name
		}
		names = append(names, name)
	}
	if len(p) <= maxPathFrames {
		for i := range p {
			add(i)
		}
		return names
	}
	head, tail := 4, maxPathFrames-4
	for i := range head {
		add(i)
	}
	skipped := len(p) - head - tail
	mark := "… " + plural(skipped, "frame") + " …"
	if hot >= head && hot < len(p)-tail {
		mark = fmt.Sprintf("… %s, *%s among them …", plural(skipped, "frame"), frameName(p[hot], full))
	}
	names = append(names, mark)
	for i := len(p) - tail; i < len(p); i++ {
		add(i)
	}
	return names
}

// writePath writes first and a thread's path, "[thread] a → b → c", and
// suffix. A path that does not fit on first's line starts on the next one
// at indent, or right after first when first is only spaces; it breaks
// before an arrow.
func writePath(w *bufio.Writer, first, indent, thread string, names []string, suffix string) {
	// textNames copies: the suffix goes on the copy.
	items := textNames(names)
	items[len(items)-1] += suffix
	head := "[" + textName(thread) + "] "
	switch {
	case strings.TrimSpace(first) == "":
		indent = first
	case utf8.RuneCountInString(first)+utf8.RuneCountInString(head)+itemsWidth(items, " → ") > textWidth:
		w.WriteString(strings.TrimRight(first, " ") + "\n")
		first = indent
	}
	writeItems(w, first+head, indent, items, " → ")
}

// itemsWidth is the width of items joined by sep.
func itemsWidth(items []string, sep string) int {
	n := utf8.RuneCountInString(sep) * max(len(items)-1, 0)
	for _, it := range items {
		n += utf8.RuneCountInString(it)
	}
	return n
}

// writeWrapped writes first and text broken between words where a line
// would pass textWidth, the following lines starting with indent.
func writeWrapped(w *bufio.Writer, first, indent, text string) {
	writeItems(w, first, indent, strings.Split(text, " "), " ")
}

// writeItems writes first and the items joined by sep, and a newline, in as
// few lines within textWidth as it can (an item wider than a line gets one
// of its own), of even lengths rather than a full line and a last word. The
// following lines start with indent. A break replaces sep: a separator
// that starts with a space ("→") begins the next line, as in "→ next";
// one that does not (",") ends the line.
func writeItems(w *bufio.Writer, first, indent string, items []string, sep string) {
	lead := strings.HasPrefix(sep, " ")
	mark := strings.TrimSpace(sep)
	width := utf8.RuneCountInString
	// Paths and sentences are short: their widths stay on the stack.
	var wbuf [32]int
	var abuf [32]bool
	l := layout{widths: wbuf[:0], first: width(first), sep: width(sep), indent: width(indent)}
	if len(items) > len(wbuf) {
		l.widths = make([]int, 0, len(items))
	}
	total := l.first + l.sep*max(len(items)-1, 0)
	for _, it := range items {
		l.widths = append(l.widths, width(it))
		total += l.widths[len(l.widths)-1]
	}
	if lead && mark != "" {
		l.cont = width(mark) + 1 // "→ " starts a continued line
	}
	var at []bool
	if total > textWidth {
		// The narrowest limit that needs no more lines evens them out; no
		// limit below an even share of the width does.
		need := l.lines(textWidth, nil)
		lo, hi := min(total/need, textWidth), textWidth
		for lo < hi {
			if mid := (lo + hi) / 2; l.lines(mid, nil) <= need {
				hi = mid
			} else {
				lo = mid + 1
			}
		}
		at = abuf[:0]
		if len(items) > len(abuf) {
			at = make([]bool, 0, len(items))
		}
		at = at[:len(items)]
		clear(at)
		l.lines(lo, at)
	}
	w.WriteString(first)
	for i, it := range items {
		switch {
		case at != nil && at[i]:
			if !lead {
				w.WriteString(mark)
			}
			w.WriteString("\n")
			w.WriteString(indent)
			if lead && mark != "" {
				w.WriteString(mark)
				w.WriteByte(' ')
			}
		case i > 0:
			w.WriteString(sep)
		}
		w.WriteString(it)
	}
	w.WriteString("\n")
}

// layout holds the widths writeItems fills lines with.
type layout struct {
	widths                   []int // of the items
	first, sep, indent, cont int   // cont: what a continued line adds ("→ ")
}

// lines counts the lines when they are filled up to limit columns and, with
// at set, records which items start one.
func (l *layout) lines(limit int, at []bool) int {
	lines, col := 1, l.first
	for i, n := range l.widths {
		if i > 0 {
			n += l.sep
		}
		if i > 0 && col+n > limit {
			lines++
			col, n = l.indent, l.widths[i]+l.cont
			if at != nil {
				at[i] = true
			}
		}
		col += n
	}
	return lines
}
