package diff

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

// TestPairFromUnionMatchesMatchTrees: with one run per side, the pair's
// matching read off the union tree is the matching matchTrees computes,
// renames included, in every matching mode.
func TestPairFromUnionMatchesMatchTrees(t *testing.T) {
	var cases []treePair
	for _, nodes := range []int{300, 3000} {
		for seed := range 3 {
			base, nw := benchRuns(t, nodes+seed, 1)
			cases = append(cases, treePair{fmt.Sprintf("evolved-%d-%d", nodes, seed), base[0], nw[0]})
		}
	}
	for i, r := range [][2]string{ // renames (TestRenames)
		{"m;render;layout 100\nm;render;paint 50\nm;parse 80", "m;renderPage;layout 100\nm;renderPage;paint 50\nm;parse 80"},
		{"m;fB@app.min.js 100\nm;x@app.min.js 5", "m;_G@app.min.js 104\nm;x@app.min.js 5"},
	} {
		ts := trees(t, r[0], r[1])
		cases = append(cases, treePair{fmt.Sprintf("renamed-%d", i), ts[0], ts[1]})
	}
	cases = append(cases, synthTreePairs(t)...)
	for _, c := range cases {
		for _, mode := range []Matching{ZAM, PARCS} {
			t.Run(c.name+"/"+string(mode), func(t *testing.T) {
				m, err := SampleMetric("", c.base, c.nw)
				if err != nil {
					t.Fatal(err)
				}
				kt := newKeyTable([]*cct.Tree{c.base}, []*cct.Tree{c.nw})
				runs := newRuns([]*cct.Tree{c.base, c.nw}, 1, kt, m)
				um := newMatcher(mode, DefaultBudget)
				um.kt, um.renameMin = kt, 1
				u := newUnion()
				um.addRun(u, runs[0], mode)
				um.addRun(u, runs[1], mode)
				pm := newMatcher(mode, DefaultBudget)
				pm.kt, pm.renameMin = kt, 1
				want := pm.matchTrees(runs[0], runs[1], mode)
				if got := pairFromUnion(runs[0], runs[1]); !slices.Equal(got, want) {
					t.Fatalf("pair from the union differs from matchTrees")
				}
				if um.counts != pm.counts {
					t.Fatalf("matcher counts %+v, want %+v", um.counts, pm.counts)
				}
			})
		}
	}
}
