package diff

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

// TestDropUnionCopies: with one run a side, PARCS's numbers read from the
// union's values once dropUnionCopies dropped the runs' (and the base run's
// toU) are the numbers read from the runs; a total beyond ±2⁵³, which would
// not come back from float64, keeps the runs' values.
func TestDropUnionCopies(t *testing.T) {
	type pairCase struct {
		name     string
		base, nw *cct.Tree
		big      bool // a total beyond maxExact: nothing is dropped
	}
	var cases []pairCase
	for seed := range 3 {
		base, nw := benchRuns(t, 2000+seed, 1)
		cases = append(cases, pairCase{name: fmt.Sprintf("evolved-%d", seed), base: base[0], nw: nw[0]})
	}
	for _, p := range synthTreePairs(t) {
		cases = append(cases, pairCase{name: p.name, base: p.base, nw: p.nw})
	}
	big := trees(t, "m;a 100\nm;b 50", "m;a 120\nm;c 10000000001")
	cases = append(cases, pairCase{name: "beyond 2^53", base: big[0], nw: big[1], big: true})
	for _, c := range cases {
		for _, mode := range []Matching{ZAM, PARCS} {
			t.Run(c.name+"/"+string(mode), func(t *testing.T) {
				m, err := SampleMetric("", c.base, c.nw)
				if err != nil {
					t.Fatal(err)
				}
				o := Options{Match: mode, TopologyLimit: 1000, Top: 1000}
				parcsOf := func(drop bool) (Overlap, Topology, WeightMatching) {
					kt := newKeyTable([]*cct.Tree{c.base}, []*cct.Tree{c.nw})
					runs := newRuns([]*cct.Tree{c.base, c.nw}, 1, kt, m)
					um := newMatcher(mode, DefaultBudget)
					um.kt, um.renameMin = kt, 1
					u := newUnion()
					um.addRun(u, runs[0], mode)
					u.last = true
					um.addRun(u, runs[1], mode)
					u.values(runs[:1], runs[1:], true)
					common := newMatcher(strict, DefaultBudget).strictCommon(runs[0], runs[1])
					ps := []pairResult{{a: runs[0], b: runs[1], baseOf: pairFromUnion(runs[0], runs[1])}}
					if drop {
						for _, r := range runs {
							r.dropMatching()
						}
						u.dropUnionCopies(runs[0], runs[1])
						if dropped := runs[0].total == nil; dropped == c.big {
							t.Fatalf("base run's values dropped: %v, want %v", dropped, !c.big)
						}
					}
					return parcs(ps, []int{common}, nil, u, kt, o)
				}
				ov, topo, wm := parcsOf(false)
				ov2, topo2, wm2 := parcsOf(true)
				if !reflect.DeepEqual(ov, ov2) || !reflect.DeepEqual(topo, topo2) || !reflect.DeepEqual(wm, wm2) {
					t.Errorf("PARCS from the union's values:\n%+v\n%+v\n%+v\nfrom the runs':\n%+v\n%+v\n%+v", ov2, topo2, wm2, ov, topo, wm)
				}
				if len(topo.Added)+len(topo.Removed) == 0 && !c.big {
					t.Errorf("no subtrees: the case reads no totals")
				}
			})
		}
	}
}
