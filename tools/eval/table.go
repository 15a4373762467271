package eval

import (
	"fmt"
	"io"
	"math"
	"path"
	"slices"
	"strings"
	"time"
)

// profileName is a profile's file name without directories and extensions.
func profileName(p string) string {
	p = path.Base(p)
	for _, ext := range []string{".gz", ".json", ".cpuprofile", ".trace"} {
		p = strings.TrimSuffix(p, ext)
	}
	return p
}

func pct(f float64) string { return fmt.Sprintf("%.2f", 100*f) }

type table struct {
	head []string
	rows [][]string
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write prints t as a Markdown table, which reads as aligned text too.
func (t *table) write(w io.Writer) {
	width := make([]int, len(t.head))
	for _, r := range append([][]string{t.head}, t.rows...) {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	line := func(r []string) {
		var b strings.Builder
		b.WriteString("|")
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i == 0 {
				b.WriteString(" " + c + pad + " |")
			} else {
				b.WriteString(" " + pad + c + " |")
			}
		}
		fmt.Fprintln(w, b.String())
	}
	line(t.head)
	sep := make([]string, len(t.head))
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
		if i > 0 {
			sep[i] = sep[i][1:] + ":"
		}
	}
	line(sep)
	for _, r := range t.rows {
		line(r)
	}
}

func standard(c *Case) bool { return c.Family == Standard }

// WriteTable2 prints engine e's results on the Standard family (ZAM's
// kinds under ZAM's noise) in the layout of ZAM's Table 2, one
// row per profile and an "All" row, then the compression (ZAM Table 5) and
// IntroPerf's p_min per profile, then Table 2's columns per injection kind.
func (r *Result) WriteTable2(w io.Writer, e int) {
	t2 := table{head: []string{"Profile", "Node recall (%)", "Path recall (%)", "Node precision (%)", "Path precision (%)", "Average Distance to Cause", "Average Longest Path", "Total Paths in Base Comparison"}}
	t5 := table{head: []string{"Profile", "Tree nodes", "Critical-graph nodes", "Compression (%)", "p_min ≤ 3 (%)", "Mean p_min", "Not in top paths"}}
	row := func(name string, s Summary) {
		t2.add(name, pct(s.NodeRecall()), pct(s.PathRecall()), pct(s.NodePrecision()), pct(s.PathPrecision()),
			fmt.Sprintf("%.2f", s.AvgDistance()), fmt.Sprintf("%.2f", s.AvgLongest()), fmt.Sprint(s.FalsePaths))
		t5.add(name, fmt.Sprint(s.TreeNodes), fmt.Sprint(s.CriticalNodes), pct(s.Compression()), pct(s.PMinTop3Share()),
			fmt.Sprintf("%.2f", ratio(s.PMinSum, s.PMinFound)), fmt.Sprint(s.Cases-s.PMinFound))
	}
	for _, p := range r.Config.Profiles {
		row(profileName(p), r.Summary(e, func(c *Case) bool { return c.Family == Standard && c.Profile == p }))
	}
	row("All", r.Summary(e, standard))
	t2.write(w)
	fmt.Fprintln(w)
	t5.write(w)
	fmt.Fprintln(w)
	tk := table{head: []string{"Injection", "Cases", "Node recall (%)", "Path recall (%)", "Node precision (%)", "Path precision (%)", "Average Distance to Cause", "p_min ≤ 3 (%)"}}
	for _, k := range Kinds {
		s := r.Summary(e, func(c *Case) bool { return c.Family == Standard && !c.Baseline && c.Kind == k })
		tk.add(k.String(), fmt.Sprint(s.Cases), pct(s.NodeRecall()), pct(s.PathRecall()), pct(s.NodePrecision()), pct(s.PathPrecision()),
			fmt.Sprintf("%.2f", s.AvgDistance()), pct(s.PMinTop3Share()))
	}
	tk.write(w)
}

// WriteEngines prints one summary row per engine on the Standard family,
// with the standard bar's verdict.
func (r *Result) WriteEngines(w io.Writer) { WriteSeeds(w, []*Result{r}) }

// WriteSeeds prints one summary row per engine and result (the same
// benchmark with other seeds) on the Standard family, then, with several
// results, the engine's cases of all of them pooled.
func WriteSeeds(w io.Writer, rs []*Result) {
	head := []string{"Engine", "Node recall (%)", "Path recall (%)", "Node precision (%)", "Path precision (%)", "False paths", "Compression (%)", "p_min ≤ 3 (%)", "Meets the bar"}
	if len(rs) > 1 {
		head = slices.Insert(head, 1, "Seed")
	}
	t := table{head: head}
	row := func(name, seed string, s Summary) {
		verdict := "yes"
		if miss := s.Check(DoneWhen); len(miss) > 0 {
			verdict = fmt.Sprintf("no (%d)", len(miss))
		}
		cells := []string{name, pct(s.NodeRecall()), pct(s.PathRecall()), pct(s.NodePrecision()), pct(s.PathPrecision()),
			fmt.Sprint(s.FalsePaths), pct(s.Compression()), pct(s.PMinTop3Share()), verdict}
		if len(rs) > 1 {
			cells = slices.Insert(cells, 1, seed)
		}
		t.add(cells...)
	}
	for i, e := range rs[0].Config.Engines {
		var all Summary
		for _, r := range rs {
			s := r.Summary(i, standard)
			all.Merge(s)
			row(e.Name, fmt.Sprint(r.Config.Seed), s)
		}
		if len(rs) > 1 {
			row(e.Name, "all", all)
		}
	}
	t.write(w)
}

// WriteFailures lists, for engine e, every case that is not a clean hit:
// injected cases whose cause was missed or that output other leaves, or
// whose p_min is above 3, and baselines with any leaf. Each shows the
// ground truth and what the engine output.
func (r *Result) WriteFailures(w io.Writer, e int) {
	for _, c := range r.Cases {
		if c.Skipped != "" {
			fmt.Fprintf(w, "- %s, %s: skipped: %s\n", profileName(c.Profile), c.label(), c.Skipped)
			continue
		}
		out := c.Outputs[e]
		if c.Baseline {
			if len(out.Causes) == 0 {
				continue
			}
			fmt.Fprintf(w, "- %s, %s: %d false path(s)\n", profileName(c.Profile), c.label(), len(out.Causes))
			for _, p := range out.Causes {
				fmt.Fprintf(w, "    leaf   %s\n", c.describe(p))
			}
			continue
		}
		s := c.Scores[e]
		if s.NodeHit && s.NodeLeaves == s.Leaves && s.PMin >= 1 && s.PMin <= 3 {
			continue
		}
		var what []string
		if !s.NodeHit {
			what = append(what, "node missed")
		}
		if !s.PathHit {
			what = append(what, "path missed")
		}
		if s.Leaves > s.PathLeaves {
			what = append(what, fmt.Sprintf("%d false leaves", s.Leaves-s.PathLeaves))
		}
		if s.PathLeaves > s.NodeLeaves {
			what = append(what, fmt.Sprintf("%d partial-path leaves", s.PathLeaves-s.NodeLeaves))
		}
		if s.PMin == 0 {
			what = append(what, "not in the ranked paths")
		} else if s.PMin > 3 {
			what = append(what, fmt.Sprintf("p_min %d", s.PMin))
		}
		fmt.Fprintf(w, "- %s, %s (+%v): %s\n    truth: %s\n", profileName(c.Profile), c.label(), c.Injection.Delta, strings.Join(what, ", "), c.Truth())
		if !s.NodeHit {
			fmt.Fprintf(w, "    %s\n", c.weakest())
		}
		for _, p := range out.Causes {
			mark := "  "
			switch node, path, _ := c.Injection.Truth().classify(p.Path); {
			case node:
				mark = "= "
			case path:
				mark = "≤ "
			}
			fmt.Fprintf(w, "    leaf %s%s\n", mark, c.describe(p))
		}
		if s.PMin != 1 {
			for i, p := range out.Ranked[:min(len(out.Ranked), 3)] {
				if i+1 == s.PMin {
					break
				}
				fmt.Fprintf(w, "    ranked #%d %s\n", i+1, p)
			}
		}
	}
}

func (p Path) String() string {
	var b strings.Builder
	b.WriteString("[" + p.Thread + "]")
	for _, f := range p.Frames {
		b.WriteString(" → " + f.Function)
	}
	return b.String()
}

// origin says what in the harness a false leaf comes from: a function it
// renamed or made up on the leaf's path, a thread-only leaf (growth no
// function explains: idle time, the recording's length), or noise.
func (c *Case) origin(l Cause) string {
	if len(l.Frames) == 0 {
		return "a thread, no function (idle time, recording length)"
	}
	for _, f := range l.Frames {
		if _, ok := c.renamedFrom[f]; ok {
			return "a function renamed by the new version"
		}
		if why, ok := c.made[f]; ok {
			return article(why) + " " + why
		}
	}
	if f := l.Frames[len(l.Frames)-1]; f.Function == gcFrame {
		return "the GC frame"
	}
	return "noise in an unchanged function"
}

// WriteFalseLeaves counts engine e's false leaves (leaves that are neither
// the cause nor on its path, and every leaf of a baseline) by origin.
func (r *Result) WriteFalseLeaves(w io.Writer, e int) {
	type count struct{ injected, baseline int }
	counts := map[string]*count{}
	var order []string
	for _, c := range r.Cases {
		if c.Skipped != "" {
			continue
		}
		for _, l := range c.Outputs[e].Causes {
			if !c.Baseline && l.prefixOf(c.Truth()) {
				continue
			}
			o := c.origin(l)
			if counts[o] == nil {
				counts[o] = &count{}
				order = append(order, o)
			}
			if c.Baseline {
				counts[o].baseline++
			} else {
				counts[o].injected++
			}
		}
	}
	slices.Sort(order)
	t := table{head: []string{"False leaf on", "Injected cases", "Base-vs-base cases"}}
	for _, o := range order {
		t.add(o, fmt.Sprint(counts[o].injected), fmt.Sprint(counts[o].baseline))
	}
	if len(order) == 0 {
		t.add("(none)", "0", "0")
	}
	t.write(w)
}

// describe shows a leaf with its kind and delta, and says which of its
// frames the harness renamed in the new version.
func (c *Case) describe(l Cause) string {
	s := fmt.Sprintf("%s (%s, %+v)", l.Path, l.Kind, time.Duration(l.Delta).Round(10*time.Microsecond))
	var ren []string
	for _, f := range l.Frames {
		if old, ok := c.renamedFrom[f]; ok {
			ren = append(ren, old+" → "+f.Function)
		}
		if why, ok := c.made[f]; ok {
			ren = append(ren, f.Function+" is "+article(why)+" "+why)
		}
	}
	if len(ren) > 0 {
		s += " [harness: " + strings.Join(ren, ", ") + "]"
	}
	return s
}

// weakest says where along the cause's path the growth is smallest, per
// run pair (base i against new i) and on average, and how much the thread
// grew (idle time included): where Definition 2's condition 2 is most
// likely to break.
func (c *Case) weakest() string {
	base, nw := c.Along[0], c.Along[1]
	if len(base) == 0 || len(nw) == 0 {
		return "no path data"
	}
	pairs := min(len(base), len(nw))
	minPair := func(d int) (int64, int) {
		m, at := int64(math.MaxInt64), 0
		for i := range pairs {
			if x := nw[i][d] - base[i][d]; x < m {
				m, at = x, i
			}
		}
		return m, at
	}
	n := len(c.Injection.Path)
	bestPair, bestPairAt, pairAt := int64(math.MaxInt64), 1, 0
	minMean, minMeanAt := math.Inf(1), 1
	for d := 1; d <= n; d++ {
		var sb, sn float64
		for i := range base {
			sb += float64(base[i][d])
		}
		for i := range nw {
			sn += float64(nw[i][d])
		}
		if m := sn/float64(len(nw)) - sb/float64(len(base)); m < minMean {
			minMean, minMeanAt = m, d
		}
		if x, i := minPair(d); x < bestPair {
			bestPair, bestPairAt, pairAt = x, d, i
		}
	}
	name := func(d int) string { return fmt.Sprintf("%s (depth %d of %d)", c.Injection.Path[d-1].Function, d, n) }
	r := func(x int64) time.Duration { return time.Duration(x).Round(10 * time.Microsecond) }
	th, thAt := minPair(0)
	return fmt.Sprintf("smallest growth on the path: pair %d at %s %+v; mean over runs at %s %+v; thread (idle included): pair %d %+v",
		pairAt+1, name(bestPairAt), r(bestPair), name(minMeanAt), r(int64(minMean)), thAt+1, r(th))
}

// article is "an" before a vowel, else "a".
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// WriteFamilies prints engine e's results per case family, one block of
// rows per result (the same benchmark at another K), each family against
// the per-family bar: FamilyBar from K = 2 on (it is stated at K = 3),
// FamilyBarK1 at K = 1. "Baselines with a cause" counts the base-vs-base
// pairs with any leaf, "False causes" all their leaves.
func WriteFamilies(w io.Writer, rs []*Result, e int) {
	t := table{head: []string{"K", "Family", "Cases", "Node recall (%)", "Path recall (%)", "Node precision (%)", "Path precision (%)", "Found by name (%)", "Baselines with a cause", "False causes", "Meets the bar"}}
	for _, r := range rs {
		bar := FamilyBar
		if r.Config.Runs == 1 {
			bar = FamilyBarK1
		}
		row := func(name string, s Summary) {
			verdict := "yes"
			if miss := s.Check(bar); len(miss) > 0 {
				verdict = fmt.Sprintf("no (%d)", len(miss))
			} else if r.Config.Runs == 1 && s.Baselines == 0 {
				verdict = "–" // the bar at K = 1 is about baselines only
			}
			named := "–"
			if s.NameCases > 0 {
				named = pct(s.NameRecall())
			}
			rec := func(f float64) string {
				if s.Cases == 0 {
					return "–"
				}
				return pct(f)
			}
			t.add(fmt.Sprint(r.Config.Runs), name, fmt.Sprint(s.Cases), rec(s.NodeRecall()), rec(s.PathRecall()), rec(s.NodePrecision()), rec(s.PathPrecision()),
				named, fmt.Sprintf("%d/%d", s.FalseBaselines, s.Baselines), fmt.Sprint(s.FalsePaths), verdict)
		}
		for _, f := range r.Config.families() {
			row(f.String(), r.Summary(e, func(c *Case) bool { return c.Family == f }))
		}
		if len(r.Config.families()) > 1 {
			row("all", r.Summary(e, nil))
		}
	}
	t.write(w)
}
