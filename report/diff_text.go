package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
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

// writeDiffText writes a comparison for people: the verdict on the first
// line and the warnings that say what it is worth right after it; the
// totals; the regression causes, each led by the function of the
// program's it is charged to (diff.Blame); the improvements; what grew
// but could not be tested; how the comparison was made; IntroPerf's ranked
// paths with the hottest node marked, PARCS's topology changes and weight
// differences, how the siblings were matched; and the inputs, summarised,
// last. Everything is in a stable order.
func writeDiffText(w io.Writer, res *diff.Result, o diffTextOptions) error {
	for _, p := range []*int{&o.MaxCauses, &o.MaxTopology, &o.MaxWeights} {
		if *p <= 0 {
			*p = 20
		}
	}
	bw := bufio.NewWriter(w)
	t := textReport{bw: bw, res: res, o: o}
	t.val = func(v int64) string { return FormatValue(v, res.Unit) }
	t.sval = func(v int64) string { return signed(FormatValue(v, res.Unit), v) }
	t.path = func(p []diff.Frame, hot int) []string { return framePath(p, hot, o.FullNames) }

	writeWrapped(bw, "", "  ", capitalize(verdictLine(res, o.FullNames, textName)))
	for _, w := range res.Warnings {
		writeWrapped(bw, "warning: ", "  ", textName(w))
	}
	bw.WriteString("\n")
	t.totals()
	t.causes("Regression causes", res.Causes)
	t.noCauses()
	if len(res.Improvements) > 0 {
		t.causes("Improvements", res.Improvements)
	}
	writeUntestedText(bw, res, o.MaxCauses, t.path, t.val, t.sval)
	t.method()
	t.ranked()
	t.topology()
	t.weights()
	t.matching()
	bw.WriteString("\n")
	writeInputs(bw, "Base", res.Base.Runs, res.Base.Profiles)
	writeInputs(bw, "New", res.New.Runs, res.New.Profiles)
	return bw.Flush()
}

// textReport holds what the sections of a text report share.
type textReport struct {
	bw        *bufio.Writer
	res       *diff.Result
	o         diffTextOptions
	val, sval func(int64) string
	path      func([]diff.Frame, int) []string
}

// capitalize upper-cases a sentence's first letter (an ASCII one).
func capitalize(s string) string {
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		return string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// totals writes the metric, the runs and the totals.
func (t *textReport) totals() {
	res, bw := t.res, t.bw
	fmt.Fprintf(bw, "ctdiff diff: %s, %s vs %s\n", textName(res.Metric), runs(res.Base.Runs, "base"), runs(res.New.Runs, "new"))
	if !equalTotals(res) {
		change := res.New.Total - res.Base.Total
		fmt.Fprintf(bw, "Total: %s → %s (%s, %s)%s\n", t.val(res.Base.Total), t.val(res.New.Total), t.sval(change), signedPercent(change, res.Base.Total), totalExcludes(res))
	}
	if g := goRuntimeSummary(res, t.o.FullNames); g != "" {
		writeWrapped(bw, "GC/runtime: ", "  ", textName(g))
	}
	if lines := textNames(benchmarkSummary(res)); len(lines) > 0 {
		for _, l := range lines {
			indent := "  "
			if strings.HasPrefix(l, " ") {
				indent = "    "
			}
			writeWrapped(bw, "", indent, l)
		}
	}
}

// method writes how the comparison was made: normalization, tests,
// matching and similarity.
func (t *textReport) method() {
	res, bw := t.res, t.bw
	bw.WriteString("\n")
	writeWrapped(bw, "Normalization: ", "  ", textName(normalizationSummary(res)))
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
	fmt.Fprintf(bw, "Method: %s, %s matching; min delta %s%s\n", method, res.Match, t.val(res.MinDelta), spec)
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
}

// noCauses says why there is no regression cause, when there is none.
func (t *textReport) noCauses() {
	res, bw := t.res, t.bw
	if len(res.Causes) > 0 {
		return
	}
	switch {
	case len(res.Untested) > 0 && !tested(res):
		fmt.Fprintf(bw, "  none tested: %s grew by %s or more, untested (below)", plural(len(res.Untested), "node"), t.val(res.MinDelta))
	case len(res.Untested) > 0:
		fmt.Fprintf(bw, "  none: no function grew by %s or more with significance; %s untested (below)", t.val(res.MinDelta), plural(len(res.Untested), "node"))
	default:
		fmt.Fprintf(bw, "  none: no function grew by %s or more", t.val(res.MinDelta))
	}
	if tested(res) && len(res.Untested) == 0 {
		fmt.Fprint(bw, " with significance")
	}
	fmt.Fprintln(bw)
}

// causes lists causes (or improvements) grouped by the function they are
// charged to: the function with its path and delta, then what grew below
// it, each with its test.
func (t *textReport) causes(title string, cs []diff.Cause) {
	bw, o := t.bw, t.o
	shown := cs[:min(len(cs), o.MaxCauses)]
	groups := blameGroups(shown)
	fmt.Fprintf(bw, "\n%s: %d", title, len(cs))
	if n := len(groups); n > 0 && n < len(shown) {
		fmt.Fprintf(bw, " in %s", plural(n, "function"))
	}
	fmt.Fprintf(bw, "%s\n", more(len(cs), o.MaxCauses))
	for i, g := range groups {
		t.group(i+1, g)
	}
}

// group writes one function's causes: numbered n.
func (t *textReport) group(n int, g []diff.Cause) {
	bw, full := t.bw, t.o.FullNames
	c := g[0]
	b := c.Blame
	switch {
	case b == nil:
		writeItems(bw, "", "     ", []string{fmt.Sprintf("%3d. %s %s", n, t.sval(c.Delta), c.Kind), t.val(c.Base) + " → " + t.val(c.New)}, "  ")
		writePath(bw, "     ", "", c.Thread, t.path(c.Path, -1), "")
		t.test(c, "     ")
		t.file(c.Path)
	case b.By != "":
		head := fmt.Sprintf("%3d. %s %s, charged to %s, %s", n, b.Work, t.sval(c.Delta), textName(frameName(b.Frame, full)), evidence(b, t.val))
		if len(b.Also) > 0 {
			also := make([]string, len(b.Also))
			for i, a := range b.Also {
				also[i] = textName(frameName(a.Frame, full)) + " " + t.sval(a.Delta)
			}
			head += "; then " + strings.Join(also, ", ")
		}
		writeWrapped(bw, "", "     ", head)
		writePath(bw, "     ", "", c.Thread, t.path(c.Path, -1), "")
		t.test(c, "     ")
	default:
		at := len(c.Path) - len(b.Breakdown)
		writeItems(bw, "", "     ", []string{fmt.Sprintf("%3d. %s %s", n, textName(frameName(b.Frame, full)), t.sval(b.Delta)), t.val(b.Base) + " → " + t.val(b.New)}, "  ")
		writePath(bw, "     ", "", c.Thread, t.path(c.Path[:max(at, 0)], -1), "")
		t.file(c.Path[:max(at, 0)])
		if len(b.Breakdown) == 0 {
			// The cause is the function itself (a cause is a leaf
			// of the critical graph: nothing below it is one).
			t.test(c, "     ")
			break
		}
		for _, c := range g {
			t.below(c)
		}
	}
	if c.Spread != nil {
		writeSpreadText(bw, c, full, t.sval)
	}
}

// below writes a cause under its blame: "of which F → G +Y (new call)",
// then its values and test.
func (t *textReport) below(c diff.Cause) {
	b := c.Blame
	values := t.val(c.Base) + " → " + t.val(c.New)
	if s := c.Stats; s != nil {
		values += "  " + t.testText(s)
	}
	frames := make([]diff.Frame, len(b.Breakdown))
	for i, s := range b.Breakdown {
		frames[i] = s.Frame
	}
	names := textNames(t.path(frames, -1))
	names[len(names)-1] += " " + t.sval(c.Delta)
	switch c.Kind {
	case diff.Added:
		names[len(names)-1] += " (new call)"
	case diff.Removed:
		names[len(names)-1] += " (call removed)"
	}
	writeItems(t.bw, "     of which ", "       ", names, " → ")
	writeWrapped(t.bw, "       ", "         ", values)
}

// test writes a cause's test on a line of its own.
func (t *textReport) test(c diff.Cause, indent string) {
	if s := c.Stats; s != nil {
		writeWrapped(t.bw, indent, indent+"  ", t.testText(s))
	}
}

// testText says a test: "95% CI lo..hi, adjusted p q (test)".
func (t *textReport) testText(s *diff.Test) string {
	return fmt.Sprintf("95%% CI %s..%s, adjusted p %.2g (%s)", t.sval(s.Low), t.sval(s.High), s.Q, testLabel(s, t.val))
}

// file writes where the last frame of p is defined, when known.
func (t *textReport) file(p []diff.Frame) {
	if n := len(p); n > 0 && p[n-1].File != "" {
		fmt.Fprintf(t.bw, "     in %s\n", textName(p[n-1].File))
	}
}

// blameGroups splits causes into runs charged to one function in one
// calling context (diff orders causes so), a cause without a blame alone.
func blameGroups(cs []diff.Cause) [][]diff.Cause {
	var out [][]diff.Cause
	for i := 0; i < len(cs); {
		j := i + 1
		for j < len(cs) && sameBlame(cs[i], cs[j]) {
			j++
		}
		out = append(out, cs[i:j])
		i = j
	}
	return out
}

// sameBlame reports causes charged to one function in one context (the
// same frame with the same values), through their paths.
func sameBlame(a, b diff.Cause) bool {
	x, y := a.Blame, b.Blame
	if x == nil || y == nil || x.By != "" || y.By != "" || x.Frame != y.Frame || x.Base != y.Base || x.New != y.New || a.Thread != b.Thread {
		return false
	}
	i, j := len(a.Path)-len(x.Breakdown), len(b.Path)-len(y.Breakdown)
	return i == j && i >= 0 && slices.Equal(a.Path[:i], b.Path[:j])
}

// ranked writes IntroPerf's ranked paths, those below μ counted only
// unless every path is asked for.
func (t *textReport) ranked() {
	res, bw, o := t.res, t.bw, t.o
	full := o.FullNames
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
		fmt.Fprintf(bw, ", %d below %s not shown", hidden, t.val(res.MinDelta))
	}
	bw.WriteString("\n")
	switch {
	case len(res.RankedPaths) == 0:
		fmt.Fprintln(bw, "  none: no path of the new runs costs more than in the base runs")
	case len(shown) == 0:
		fmt.Fprintf(bw, "  none: no path costs %s or more\n", t.val(res.MinDelta))
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
		fmt.Fprintf(bw, "%3d. %s", p.Rank, t.sval(p.Cost))
		if hot >= 0 {
			fmt.Fprintf(bw, "  (hottest %s %s)", textName(frameName(frames[hot], full)), t.sval(p.Path[hot].Cost))
		}
		bw.WriteString("\n")
		writePath(bw, "     ", "", p.Thread, t.path(frames, hot), "")
	}
}

// topology writes PARCS's added and removed subtrees.
func (t *textReport) topology() {
	bw, o := t.bw, t.o
	topo := t.res.Topology
	fmt.Fprintf(bw, "\nTopology (in every run pair): %d added, %d removed subtrees\n", topo.AddedCount, topo.RemovedCount)
	for _, l := range []struct {
		sign string
		list []diff.Subtree
		n    int
	}{{"+", topo.Added, topo.AddedCount}, {"-", topo.Removed, topo.RemovedCount}} {
		for _, s := range l.list[:min(len(l.list), o.MaxTopology)] {
			writePath(bw, fmt.Sprintf("  %s %s  ", l.sign, t.val(s.Weight)), "    ", s.Thread, t.path(s.Path, -1), " ("+plural(s.Nodes, "node")+")")
		}
		if l.n > o.MaxTopology {
			fmt.Fprintf(bw, "  %s ... %d more\n", l.sign, l.n-o.MaxTopology)
		}
	}
}

// weights writes PARCS's weight matching.
func (t *textReport) weights() {
	bw, ov := t.bw, t.res.Overlap
	wm := t.res.WeightMatching
	target := "largest first; no noise floor"
	if ov.NoiseFloor != nil {
		target = fmt.Sprintf("up to the noise floor: overlap %.2f%% → %.2f%%", ov.Percent, wm.Adjusted)
		if !wm.Reached {
			target += ", not reached"
		}
	}
	bw.WriteString("\n")
	writeWrapped(bw, "", "  ", fmt.Sprintf("Weight differences (PARCS weight matching, %s): %d", target, len(wm.Nodes)))
	for _, d := range wm.Nodes[:min(len(wm.Nodes), t.o.MaxWeights)] {
		writePath(bw, fmt.Sprintf("  %+.2f pts (%.2f%% → %.2f%%)  ", d.Diff, d.Base, d.New), "    ", d.Thread, t.path(d.Path, -1), "")
	}
}

// matching writes how the siblings were matched.
func (t *textReport) matching() {
	m := t.res.Matchers
	matching := []string{fmt.Sprintf("%d LCS", m.LCS), fmt.Sprintf("%d alternate (threads and top level)", m.Alternate),
		fmt.Sprintf("%d over the LCS budget", m.Fallback), fmt.Sprintf("%d residual (reordered calls)", m.Residual),
		fmt.Sprintf("%d renamed", m.Renamed)}
	if m.Relaxed > 0 {
		matching = append(matching, fmt.Sprintf("%d PARCS relaxed", m.Relaxed))
	}
	t.bw.WriteString("\n")
	writeItems(t.bw, "Matching: ", "  ", matching, ", ")
}

func runs(n int, side string) string { return plural(n, side+" run") }

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// writeInputs summarises a side's inputs: how many runs, the directory
// they share, and the first names ("3 runs in testdata/example/old/:
// run1.pb.gz, run2.pb.gz, run3.pb.gz").
func writeInputs(w *bufio.Writer, label string, runs int, paths []string) {
	if len(paths) == 0 {
		return
	}
	dir := commonDir(paths)
	names := make([]string, 0, min(len(paths), maxInputNames)+1)
	for _, p := range paths[:min(len(paths), maxInputNames)] {
		names = append(names, textName(strings.TrimPrefix(p, dir)))
	}
	if n := len(paths) - maxInputNames; n > 0 {
		names = append(names, fmt.Sprintf("and %d more", n))
	}
	head := label + ": " + plural(runs, "run")
	if dir != "" {
		head += " in " + textName(dir)
	}
	writeItems(w, head+": ", "  ", names, ", ")
}

// maxInputNames is how many inputs of a side the text names.
const maxInputNames = 4

// commonDir is the directory all paths are in ("dir/", with its slash),
// "" when they share none.
func commonDir(paths []string) string {
	dir := paths[0][:strings.LastIndexByte(paths[0], '/')+1]
	for _, p := range paths[1:] {
		for !strings.HasPrefix(p, dir) {
			dir = dir[:strings.LastIndexByte(strings.TrimSuffix(dir, "/"), '/')+1]
		}
	}
	return dir
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
