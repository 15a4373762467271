package diff

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/cctest"
)

// ZAM's running example (Section 2.1, Figures 1, 3 and 4), reconstructed from
// the text: the figures' numbers are not in it. Old: four top-level calls
// evHandler, queryRenderedFeatures, hover, promiseHandler; qRF calls f and b,
// f → rendered → query → layer, b → d → layer. New: hover is gone, the
// top-level order changed, and layer makes new calls to utf (70 ms and
// 65 ms), so qRF slows down by 130 ms (its own time shrank by 5 ms) and d
// and layer by about 70 ms.
var (
	zamOld = []string{
		"evHandler;handle 40",
		"queryRenderedFeatures 10",
		"queryRenderedFeatures;f;rendered;query 100",
		"queryRenderedFeatures;f;rendered;query;layer;parse 150",
		"queryRenderedFeatures;b;d;layer 100",
		"hover 30",
		"promiseHandler;then 40",
	}
	zamNew = []string{
		"promiseHandler;then 45",
		"queryRenderedFeatures 5",
		"queryRenderedFeatures;f;rendered;query 100",
		"queryRenderedFeatures;f;rendered;query;layer;parse 150",
		"queryRenderedFeatures;f;rendered;query;layer;utf 70",
		"queryRenderedFeatures;b;d;layer 100",
		"queryRenderedFeatures;b;d;layer;utf 65",
		"evHandler;handle 42",
	}
)

// msTree builds a pruned tree (ZAM's pruneTree, as diff runs by default)
// from folded lines with values in milliseconds.
func msTree(tb testing.TB, prune bool, lines []string) *cct.Tree {
	tb.Helper()
	conv := make([]string, len(lines))
	for i, l := range lines {
		stack, v, _ := strings.Cut(l, " ")
		var n int64
		fmt.Sscan(v, &n)
		conv[i] = fmt.Sprintf("%s %d", stack, n*ms)
	}
	return cctest.Tree(tb, cct.Options{Prune: prune}, conv...)
}

// Figure 3: pruning drops the one-letter f, b and d and re-parents their
// children.
func TestZAMFigure3Pruning(t *testing.T) {
	want := `(all threads) 0 577000000
  promiseHandler 0 45000000
    then 45000000 45000000
  queryRenderedFeatures 5000000 490000000
    rendered 0 320000000
      query 100000000 320000000
        layer 0 220000000
          parse 150000000 150000000
          utf 70000000 70000000
    layer 100000000 165000000
      utf 65000000 65000000
  evHandler 0 42000000
    handle 42000000 42000000
`
	if got := cctest.Dump(msTree(t, true, zamNew), 0); got != want {
		t.Errorf("pruned new timeline:\n%s\nwant:\n%s", got, want)
	}
}

// Figures 1 and 4: the critical graph with μ = 50 ms is root →
// queryRenderedFeatures → rendered → query → layer → utf, plus the second
// layer → utf; the two utf calls are the causes. The top-level calls
// executed in another order, which the alternate matching absorbs.
func TestZAMFigure4CriticalGraph(t *testing.T) {
	wantCauses := []string{
		"added 70 queryRenderedFeatures;rendered;query;layer;utf",
		"added 65 queryRenderedFeatures;layer;utf",
	}
	wantGraph := []string{
		"(all threads) +107",
		"queryRenderedFeatures +130",
		"rendered +70",
		"query +70",
		"layer +70",
		"utf +70 cause",
		"layer +65",
		"utf +65 cause",
	}
	for _, tt := range []struct {
		name  string
		pairs int
		agg   Aggregate
		warn  string
	}{
		{"one pair, intersect", 1, Intersect, "one run per side"},
		{"three identical pairs, intersect", 3, Intersect, ""},
		{"three identical pairs, stats", 3, Stats, ""},
		{"one pair, stats falls back to the threshold", 1, Stats, "the nodes above μ are untested"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var base, nw []*cct.Tree
			for range tt.pairs {
				base = append(base, msTree(t, true, zamOld))
				nw = append(nw, msTree(t, true, zamNew))
			}
			res := compare(t, base, nw, Options{Aggregate: tt.agg, MinDelta: Threshold{Value: 50 * ms}})
			// One pair of 12 nodes cannot be tested: the same leaves
			// are untested, not causes.
			untested := tt.pairs == 1
			if got := leafLines(res); !slices.Equal(got, wantCauses) || untested != (len(res.Causes) == 0) {
				t.Errorf("causes %d, untested %d:\n%s\nwant:\n%s", len(res.Causes), len(res.Untested), strings.Join(got, "\n"), strings.Join(wantCauses, "\n"))
			}
			var graph []string
			for _, g := range res.Graph {
				s := fmt.Sprintf("%s %+d", g.Frame.Function, g.Delta/ms)
				if g.IsThread {
					s = fmt.Sprintf("%s %+d", g.Thread, g.Delta/ms)
				}
				if g.Cause || untested && strings.HasPrefix(s, "utf ") {
					s += " cause"
				}
				graph = append(graph, s)
			}
			if !slices.Equal(graph, wantGraph) {
				t.Errorf("graph:\n%s\nwant:\n%s", strings.Join(graph, "\n"), strings.Join(wantGraph, "\n"))
			}
			if res.CriticalGraphNodes != 8 || res.TreeNodes != 12 {
				t.Errorf("critical graph %d nodes of %d, want 8 of 12", res.CriticalGraphNodes, res.TreeNodes)
			}
			if got := strings.Join(res.Warnings, "\n"); tt.warn == "" && got != "" || !strings.Contains(got, tt.warn) {
				t.Errorf("warnings %q, want %q", got, tt.warn)
			}
			// The top level used the alternate matching (once per pair in
			// intersect mode, once per run onto the union tree in stats).
			if res.Matchers.Alternate == 0 || res.Matchers.LCS == 0 {
				t.Errorf("matchers %+v: want both LCS and alternate uses", res.Matchers)
			}
		})
	}
}

// Without pruning, f, b and d stay, and the causes' paths go through them.
func TestZAMWithoutPruning(t *testing.T) {
	res := compare(t, []*cct.Tree{msTree(t, false, zamOld)}, []*cct.Tree{msTree(t, false, zamNew)}, Options{Aggregate: Intersect})
	want := []string{
		"added 70 queryRenderedFeatures;f;rendered;query;layer;utf",
		"added 65 queryRenderedFeatures;b;d;layer;utf",
	}
	if got := leafLines(res); !slices.Equal(got, want) {
		t.Errorf("causes %q, want %q", got, want)
	}
}

// Definition 2 and Algorithm 2 case by case.
func TestCriticalGraphDefinition2(t *testing.T) {
	for _, tt := range []struct {
		name     string
		old, new string
		minDelta Threshold
		want     []string
	}{
		{
			name: "a regressed node whose children changed less than μ is the cause",
			old:  "main;work 100\nmain;work;a 40\nmain;work;b 40",
			new:  "main;work 190\nmain;work;a 60\nmain;work;b 40",
			want: []string{"regressed 110 main;work"},
		},
		{
			name: "the lowest regressed node is the cause, even when a sibling improved",
			old:  "main;p;x 100\nmain;p;y 100",
			new:  "main;p;x 180\nmain;p;y 70",
			want: []string{"regressed 80 main;p;x"},
		},
		{
			name: "an added node costing μ is a cause and is not explored",
			old:  "main;a 10",
			new:  "main;a 10\nmain;n;m 100",
			want: []string{"added 100 main;n"},
		},
		{
			name: "an added node below μ is not",
			old:  "main;a 100",
			new:  "main;a 100\nmain;n 40",
			want: nil,
		},
		{
			name:     "μ as a share of the base total",
			old:      "main;a 900\nmain;b 100",
			new:      "main;a 900\nmain;b 115",
			minDelta: Threshold{Share: 0.01},
			want:     []string{"regressed 15 main;b"},
		},
		{
			name: "the root is not tested (Algorithm 2): a regression in one thread is reported although another got faster",
			old:  "thread=ui main;a 100\nthread=worker job 500",
			new:  "thread=ui main;a 200\nthread=worker job 300",
			want: []string{"regressed 100 main;a"},
		},
		{
			name: "a caller whose callees each grew by less than μ is the cause",
			old:  "main;a 100\nmain;b 100\nmain;c 100",
			new:  "main;a 130\nmain;b 130\nmain;c 130",
			want: []string{"regressed 90 main"},
		},
		{
			name: "a thread that grew with no function growing by μ is a cause with an empty path",
			old:  "a 100\nb 100\nc 100",
			new:  "a 130\nb 130\nc 130",
			want: []string{"regressed 90 "},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{Aggregate: Intersect, MinDelta: tt.minDelta}
			res := compare(t, trees(t, tt.old), trees(t, tt.new), o)
			if got := leafLines(res); !slices.Equal(got, tt.want) {
				t.Errorf("leaves %q, want %q", got, tt.want)
			}
			if len(res.Causes) != 0 {
				t.Errorf("one pair in intersect mode: causes %q, want them untested", causeLines(res))
			}
		})
	}
}
