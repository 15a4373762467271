package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/ctdiff/ctdiff/diff"
)

// DiffTextOptions control the text report of a comparison.
type DiffTextOptions struct {
	// MaxCauses, MaxTopology and MaxWeights cap the causes, added/removed
	// subtrees and weight differences listed (0 means 20); the header says
	// how many more there are. Ranked paths are already Options.Top long.
	MaxCauses, MaxTopology, MaxWeights int
}

// maxPathFrames is how many frames a path shows before eliding its middle.
const maxPathFrames = 12

// WriteDiffText writes a comparison for people: a header with the inputs,
// the totals and the similarity of the runs, the regression causes with
// their root-first paths, IntroPerf's ranked paths with the hottest node
// marked, PARCS's topology changes and weight differences, how the
// siblings were matched, and the warnings. Everything is in a stable order.
func WriteDiffText(w io.Writer, res *diff.Result, o DiffTextOptions) error {
	for _, p := range []*int{&o.MaxCauses, &o.MaxTopology, &o.MaxWeights} {
		if *p <= 0 {
			*p = 20
		}
	}
	bw := bufio.NewWriter(w)
	u := res.Unit
	val := func(v int64) string { return FormatValue(v, u) }
	sval := func(v int64) string { return signed(FormatValue(v, u), v) }

	fmt.Fprintf(bw, "ctdiff diff: %s, %s vs %s\n", res.Metric, runs(res.Base.Runs, "base"), runs(res.New.Runs, "new"))
	writeInputs(bw, "Base", res.Base.Profiles)
	writeInputs(bw, "New", res.New.Profiles)
	change := res.New.Total - res.Base.Total
	fmt.Fprintf(bw, "Normalization: %s\n", NormalizationSummary(res))
	fmt.Fprintf(bw, "Total: %s → %s (%s, %s)%s\n", val(res.Base.Total), val(res.New.Total), sval(change), signedPercent(change, res.Base.Total), TotalExcludes(res))
	if g := GoRuntimeSummary(res); g != "" {
		fmt.Fprintf(bw, "GC/runtime: %s\n", g)
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
	ov := res.Overlap
	noise := "no noise floor: one base run"
	if ov.NoiseFloor != nil {
		noise = fmt.Sprintf("noise floor %.2f%%", *ov.NoiseFloor)
	}
	fmt.Fprintf(bw, "Similarity: overlap %.2f%% (%s), common tree %.2f%% (strict %.2f%%), matching score %.2f%%\n",
		ov.Percent, noise, ov.CommonTree, ov.StrictCommonTree, ov.Score)
	fmt.Fprintf(bw, "Critical graph: %d of %d nodes\n", res.CriticalGraphNodes, res.TreeNodes)

	if lines := BenchmarkSummary(res); len(lines) > 0 {
		fmt.Fprintf(bw, "\n%s\n", strings.Join(lines, "\n"))
	}
	fmt.Fprintf(bw, "\nRegression causes: %d%s\n", len(res.Causes), more(len(res.Causes), o.MaxCauses))
	if len(res.Causes) == 0 {
		fmt.Fprintf(bw, "  none: no function grew by %s or more", val(res.MinDelta))
		if res.Aggregate == diff.Stats && res.Base.Runs >= 2 && res.New.Runs >= 2 {
			fmt.Fprint(bw, " with significance")
		}
		fmt.Fprintln(bw)
	}
	for i, c := range res.Causes[:min(len(res.Causes), o.MaxCauses)] {
		fmt.Fprintf(bw, "%3d. %s %s  %s → %s", i+1, sval(c.Delta), c.Kind, val(c.Base), val(c.New))
		if s := c.Stats; s != nil {
			fmt.Fprintf(bw, "  95%% CI %s..%s, adjusted p %.2g (%s)", sval(s.Low), sval(s.High), s.Q, s.Name)
		}
		fmt.Fprintf(bw, "\n     [%s] %s\n", c.Thread, framePath(c.Path, -1))
		if n := len(c.Path); n > 0 && c.Path[n-1].File != "" {
			fmt.Fprintf(bw, "     in %s\n", c.Path[n-1].File)
		}
	}

	fmt.Fprintf(bw, "\nTop paths (IntroPerf differential ranking; * marks the costliest node): %d\n", len(res.RankedPaths))
	if len(res.RankedPaths) == 0 {
		fmt.Fprintln(bw, "  none: no path of the new runs costs more than in the base runs")
	}
	for _, p := range res.RankedPaths {
		frames := make([]diff.Frame, len(p.Path))
		hot := -1
		for i, n := range p.Path {
			frames[i] = n.Frame
			if n.Rank == 1 {
				hot = i
			}
		}
		fmt.Fprintf(bw, "%3d. %s  [%s] %s", p.Rank, sval(p.Cost), p.Thread, framePath(frames, hot))
		if hot >= 0 {
			fmt.Fprintf(bw, "  (hottest %s %s)", p.Path[hot].Function, sval(p.Path[hot].Cost))
		}
		fmt.Fprintln(bw)
	}

	topo := res.Topology
	fmt.Fprintf(bw, "\nTopology (in every run pair): %d added, %d removed subtrees\n", topo.AddedCount, topo.RemovedCount)
	for _, l := range []struct {
		sign string
		list []diff.Subtree
		n    int
	}{{"+", topo.Added, topo.AddedCount}, {"-", topo.Removed, topo.RemovedCount}} {
		for _, s := range l.list[:min(len(l.list), o.MaxTopology)] {
			fmt.Fprintf(bw, "  %s %s  [%s] %s (%s)\n", l.sign, val(s.Weight), s.Thread, framePath(s.Path, -1), plural(s.Nodes, "node"))
		}
		if l.n > o.MaxTopology {
			fmt.Fprintf(bw, "  %s ... %d more\n", l.sign, l.n-o.MaxTopology)
		}
	}

	wm := res.WeightMatching
	target := "largest first; no noise floor"
	if ov.NoiseFloor != nil {
		target = fmt.Sprintf("until the overlap reaches the noise floor: %.2f%% → %.2f%%", ov.Percent, wm.Adjusted)
		if !wm.Reached {
			target += ", not reached"
		}
	}
	fmt.Fprintf(bw, "\nWeight differences (PARCS weight matching, %s): %d\n", target, len(wm.Nodes))
	for _, d := range wm.Nodes[:min(len(wm.Nodes), o.MaxWeights)] {
		fmt.Fprintf(bw, "  %+.2f pts (%.2f%% → %.2f%%)  [%s] %s\n", d.Diff, d.Base, d.New, d.Thread, framePath(d.Path, -1))
	}

	m := res.Matchers
	fmt.Fprintf(bw, "\nMatching: %d LCS, %d alternate (threads and top level), %d over the LCS budget, %d residual (reordered calls), %d renamed",
		m.LCS, m.Alternate, m.Fallback, m.Residual, m.Renamed)
	if m.Relaxed > 0 {
		fmt.Fprintf(bw, ", %d PARCS relaxed", m.Relaxed)
	}
	fmt.Fprintln(bw)
	if len(res.Warnings) > 0 {
		fmt.Fprintln(bw, "\nWarnings:")
		for _, w := range res.Warnings {
			fmt.Fprintf(bw, "  - %s\n", w)
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

func writeInputs(w io.Writer, label string, paths []string) {
	if len(paths) > 0 {
		fmt.Fprintf(w, "%s: %s\n", label, strings.Join(paths, ", "))
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

// framePath renders a root-first path as "a → b → c", eliding the middle of
// long paths, and marking frame hot (if ≥ 0) with "*".
func framePath(p []diff.Frame, hot int) string {
	if len(p) == 0 {
		return "(thread itself)"
	}
	names := make([]string, 0, maxPathFrames+1)
	add := func(i int) {
		name := p[i].Function
		if name == "" {
			name = "(unknown)"
		}
		if i == hot {
			name = "*" + name
		}
		names = append(names, name)
	}
	if len(p) <= maxPathFrames {
		for i := range p {
			add(i)
		}
		return strings.Join(names, " → ")
	}
	head, tail := 4, maxPathFrames-4
	for i := range head {
		add(i)
	}
	skipped := len(p) - head - tail
	mark := fmt.Sprintf("… %d frames …", skipped)
	if hot >= head && hot < len(p)-tail {
		mark = fmt.Sprintf("… %d frames, *%s among them …", skipped, p[hot].Function)
	}
	names = append(names, mark)
	for i := len(p) - tail; i < len(p); i++ {
		add(i)
	}
	return strings.Join(names, " → ")
}
