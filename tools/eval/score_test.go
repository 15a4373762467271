package eval

import (
	"reflect"
	"strings"
	"testing"
)

// mainPath builds a Path on thread "main" from function names (file "m.js").
func mainPath(names ...string) Path {
	p := Path{Thread: "main"}
	for _, n := range names {
		p.Frames = append(p.Frames, Frame{Function: n, File: "m.js"})
	}
	return p
}

func leaves(ps ...Path) []Cause {
	var cs []Cause
	for _, p := range ps {
		cs = append(cs, Cause{Path: p, Kind: "regressed"})
	}
	return cs
}

// TestScore uses the path of ZAM's Figure 4: root → queryRenderedFeatures →
// rendered → query → layer → utf, where utf is the regression-cause.
func TestScore(t *testing.T) {
	truth := mainPath("queryRenderedFeatures", "rendered", "query", "layer", "utf")
	other := mainPath("evHandler", "fire")
	for _, tc := range []struct {
		name string
		out  Output
		want Score
	}{
		{"exact", Output{Causes: leaves(truth)},
			Score{NodeHit: true, PathHit: true, Leaves: 1, NodeLeaves: 1, PathLeaves: 1}},
		{"partial path", Output{Causes: leaves(mainPath("queryRenderedFeatures", "rendered", "query", "layer"))},
			Score{PathHit: true, Leaves: 1, PathLeaves: 1, Distance: 1}},
		{"cause and a false leaf", Output{Causes: leaves(other, truth)},
			Score{NodeHit: true, PathHit: true, Leaves: 2, NodeLeaves: 1, PathLeaves: 1}},
		{"two partial paths", Output{Causes: leaves(mainPath("queryRenderedFeatures"), mainPath("queryRenderedFeatures", "rendered", "query"))},
			Score{PathHit: true, Leaves: 2, PathLeaves: 2, Distance: 4 + 2}},
		{"below the cause is not on its path", Output{Causes: leaves(mainPath("queryRenderedFeatures", "rendered", "query", "layer", "utf", "charAt"))},
			Score{Leaves: 1}},
		{"another thread", Output{Causes: []Cause{{Path: Path{Thread: "worker", Frames: truth.Frames}}}},
			Score{Leaves: 1}},
		{"a thread-only leaf names no function", Output{Causes: leaves(mainPath())},
			Score{Leaves: 1}},
		{"same names, another file", Output{Causes: []Cause{{Path: Path{Thread: "main", Frames: append(truth.Frames[:4:4], Frame{Function: "utf", File: "other.js"})}}}},
			Score{PathHit: false, Leaves: 1}},
		{"nothing", Output{}, Score{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.Longest = 5
			if got := score(tc.out, truth); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("score = %+v\nwant    %+v", got, tc.want)
			}
		})
	}
}

func TestPMin(t *testing.T) {
	truth := mainPath("a", "b", "c")
	for _, tc := range []struct {
		ranked []Path
		want   int
	}{
		{[]Path{mainPath("a", "b", "c")}, 1},
		{[]Path{mainPath("x"), mainPath("a", "b"), mainPath("a", "b", "c", "d"), mainPath("a", "b", "c")}, 3},
		{[]Path{mainPath("a", "b")}, 0}, // a path that stops above the cause does not include it
		{nil, 0},
	} {
		if got := score(Output{Ranked: tc.ranked}, truth).PMin; got != tc.want {
			t.Errorf("ranked %v: p_min %d, want %d", tc.ranked, got, tc.want)
		}
	}
}

func TestSummary(t *testing.T) {
	var s Summary
	s.add(Score{NodeHit: true, PathHit: true, Leaves: 1, NodeLeaves: 1, PathLeaves: 1, Longest: 4, PMin: 1, CriticalNodes: 5, TreeNodes: 1000})
	s.add(Score{PathHit: true, Leaves: 3, PathLeaves: 2, Distance: 3, Longest: 6, PMin: 5, CriticalNodes: 15, TreeNodes: 1000})
	s.addBaseline(Output{})
	s.addBaseline(Output{Causes: leaves(mainPath("idle"))})
	for name, c := range map[string][2]float64{
		"node recall":    {s.NodeRecall(), 0.5},
		"path recall":    {s.PathRecall(), 1},
		"node precision": {s.NodePrecision(), 0.25},
		"path precision": {s.PathPrecision(), 0.75},
		"distance":       {s.AvgDistance(), 1},
		"longest":        {s.AvgLongest(), 5},
		"compression":    {s.Compression(), 0.01},
		"p_min ≤ 3":      {s.PMinTop3Share(), 0.5},
	} {
		if c[0] != c[1] {
			t.Errorf("%s = %g, want %g", name, c[0], c[1])
		}
	}
	if s.FalsePaths != 1 || s.Baselines != 2 {
		t.Errorf("false paths %d in %d baselines, want 1 in 2", s.FalsePaths, s.Baselines)
	}
	miss := s.Check(DoneWhen)
	want := []string{
		"path precision 75.00% < 97.00%",
		"node recall 50.00% < 95.00%",
		"node precision 25.00% < 70.00%",
		"1 false paths on base-vs-base cases > 0",
		"p_min ≤ 3 in 50.00% of cases < 90.00%",
	}
	if !reflect.DeepEqual(miss, want) {
		t.Errorf("Check:\n%s\nwant:\n%s", strings.Join(miss, "\n"), strings.Join(want, "\n"))
	}
	var empty Summary
	if empty.NodePrecision() != 1 || empty.PathPrecision() != 1 || empty.NodeRecall() != 0 {
		t.Error("an empty summary has precision 1 and recall 0")
	}
}
