package diff

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/tools/synth"
)

// addRun matches in node id order and adds in depth-first order (two
// passes): the union it builds, node for node, and each run's toU and the
// matcher's counts must be what one depth-first walk (addRunDFS, the
// former addRun) gives, on runs that differ (evolved programs, sampling
// noise), renames and call sites, in every matching mode.
func TestAddRunTwoPasses(t *testing.T) {
	for _, c := range addRunCases(t) {
		for _, mode := range []Matching{ZAM, PARCS, strict} {
			t.Run(c.name+"/"+string(mode), func(t *testing.T) {
				m, err := SampleMetric("", c.trees...)
				if err != nil {
					t.Fatal(err)
				}
				nb := len(c.trees) / 2
				kt := newKeyTable(c.trees[:nb], c.trees[nb:])
				b := unionBuild{t: t, trees: c.trees, nb: nb, kt: kt, mode: mode, m: m}
				got, gotToU, gotCounts := b.build((*matcher).addRun, false, false)
				want, wantToU, wantCounts := b.build((*matcher).addRunDFS, false, false)
				// The last run (buildUnion) keeps no weights and releases
				// them: the rest is the same union.
				gotLast, gotLastToU, _ := b.build((*matcher).addRun, true, false)
				if !reflect.DeepEqual(gotLastToU, wantToU) {
					t.Errorf("last: toU differs")
				}
				if gotLast.weight != nil || gotLast.kidCap != nil || gotLast.keys != nil {
					t.Errorf("last: weight, kidCap or keys kept")
				}
				sameUnion(t, "last: ", gotLast, want, "parent", "key", "depth", "callSite")
				// A split run (splitRun): the same union, node for node,
				// toU and counts.
				gotSplit, gotSplitToU, gotSplitCounts := b.build((*matcher).addRun, false, true)
				if !reflect.DeepEqual(gotSplitToU, wantToU) {
					t.Errorf("split: toU differs")
				}
				if gotSplitCounts != wantCounts {
					t.Errorf("split: counts %+v, want %+v", gotSplitCounts, wantCounts)
				}
				sameUnion(t, "split: ", gotSplit, want, "parent", "key", "depth", "callSite", "weight", "keys", "rekeys")
				if want.len() <= len(wantToU[0]) {
					t.Fatalf("the later runs added no node to the union: the case tests nothing")
				}
				if !reflect.DeepEqual(gotToU, wantToU) {
					t.Errorf("toU differs")
				}
				if gotCounts != wantCounts {
					t.Errorf("counts %+v, want %+v", gotCounts, wantCounts)
				}
				sameUnion(t, "", got, want, "parent", "key", "depth", "callSite", "weight", "keys")
			})
		}
	}
}

// A runsCase is runs TestAddRunTwoPasses adds to a union, the first half
// base.
type runsCase struct {
	name  string
	trees []*cct.Tree
}

// addRunCases are TestAddRunTwoPasses's runs: evolved programs, renames,
// and synth's sampling noise with and without call sites.
func addRunCases(t *testing.T) []runsCase {
	var cases []runsCase
	// 30,000 nodes: copyRun copies in parallel ranges of 10,000 or more.
	for _, nodes := range []int{300, 3000, 30_000} {
		base, nw := benchRuns(t, nodes, 3)
		cases = append(cases, runsCase{fmt.Sprintf("evolved-%d", nodes), append(base, nw...)})
	}
	cases = append(cases, runsCase{"renamed", trees(t,
		"m;render;layout 100\nm;render;paint 50\nm;parse 80",
		"m;renderPage;layout 100\nm;renderPage;paint 50\nm;parse 80\nm;parse;lex 5",
		"m;fB@app.min.js 100\nm;x@app.min.js 5\nm;render;paint 7",
		"m;_G@app.min.js 104\nm;x@app.min.js 5\nm;renderPage;layout 9")})
	for seed := range 2 {
		pair := synth.Generate(synth.Config{Seed: uint64(4 + seed), Stacks: 2000, Functions: 150, Runs: 2})
		for _, opts := range []cct.Options{{Prune: true}, {CallSites: true}} {
			var ts []*cct.Tree
			for _, p := range append(slices.Clone(pair.BaseRuns), pair.NewRuns...) {
				tr, err := cct.FromProfile(p, opts)
				if err != nil {
					t.Fatal(err)
				}
				ts = append(ts, tr)
			}
			cases = append(cases, runsCase{fmt.Sprintf("synth-%d-%+v", seed, opts), ts})
		}
	}
	return cases
}

// A unionBuild adds a case's runs to a union in one matching mode.
type unionBuild struct {
	t     *testing.T
	trees []*cct.Tree
	nb    int // base runs
	kt    *keyTable
	mode  Matching
	m     Metric
}

// build adds every run with add, the last one as buildUnion's last
// (last) and every run after the first on two goroutines (split), and
// returns the union, each run's toU and the matcher's counts.
func (b unionBuild) build(add func(*matcher, *union, *run, Matching), last, split bool) (*union, [][]int32, MatcherCounts) {
	runs := newRuns(b.trees, b.nb, b.kt, b.m)
	um := newMatcher(b.mode, DefaultBudget)
	um.kt, um.renameMin = b.kt, 1
	if split {
		um.splitMin = 1 // every run after the first on two goroutines
		defer func() {
			if um.twin == nil {
				b.t.Fatalf("no run was split")
			}
		}()
	}
	u := newUnion()
	var toU [][]int32
	for i, r := range runs {
		u.last = last && i == len(runs)-1
		add(um, u, r, b.mode)
		toU = append(toU, r.toU)
	}
	return u, toU, um.counts
}

// unionFields are the union's arrays sameUnion compares, by name.
var unionFields = map[string]func(u *union) any{
	"parent": func(u *union) any { return u.parent }, "key": func(u *union) any { return u.key },
	"depth": func(u *union) any { return u.depth }, "callSite": func(u *union) any { return u.callSite },
	"weight": func(u *union) any { return u.weight }, "keys": func(u *union) any { return u.keys },
	"rekeys": func(u *union) any { return u.rekeys },
}

// sameUnion checks that got has want's nodes, with the same children, and
// the same named arrays (unionFields); prefix starts each message.
func sameUnion(t *testing.T, prefix string, got, want *union, fields ...string) {
	t.Helper()
	for x := range int32(want.len()) {
		if !slices.Equal(got.children(x), want.children(x)) || !slices.Equal(got.childKeys(x), want.childKeys(x)) {
			t.Fatalf("%snode %d's children %v %v, want %v %v", prefix, x, got.children(x), got.childKeys(x), want.children(x), want.childKeys(x))
		}
	}
	for _, name := range fields {
		if !reflect.DeepEqual(unionFields[name](got), unionFields[name](want)) {
			t.Errorf("%sunion %s differs", prefix, name)
		}
	}
}

// addRunDFS is addRun as it was, one depth-first walk: it matches r onto the union tree and sets r.toU. The union node keeps
// the call site of the first run that created it (PARCS rule 4 needs one;
// other modes keep none).
func (m *matcher) addRunDFS(u *union, r *run, mode Matching) {
	r.toU = make([]int32, r.nodes())
	r.toU[0] = 0
	// The identities on both sides before this run: the union's keys
	// change as the run adds nodes, and a rename must be judged against
	// what existed before.
	var runKeys, unionKeys keySet
	if mode == ZAM && m.kt != nil {
		runKeys, unionKeys = keysOf(r), slices.Clone(u.keys)
	}
	callSites := mode == PARCS
	if u.len() == 1 {
		u.callSites = callSites
		u.copyRun(r)
		return
	}
	var cu, cr []int64
	var matched []bool
	stack := []pair{{0, 0}} // (union node, run node)
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		chU, chR := u.children(p.a), r.children(p.b)
		if len(chR) == 0 {
			continue
		}
		kr, cr := r.childKeys(p.b, cr, callSites)
		if len(chU) == 0 {
			// Nothing to match against (all of the first run; new
			// subtrees later): every child is a new union node, added as
			// the matching below would add it.
			u.reserveKids(p.a, len(chR))
			for j, c := range chR {
				rc := int32(c)
				cs := int64(0) // only PARCS reads call sites
				if callSites {
					cs = cr[j]
				}
				uc := u.add(p.a, kr[j], cs, r.total[rc])
				r.toU[rc] = uc
				stack = append(stack, pair{uc, rc})
			}
			continue
		}
		ku := u.childKeys(p.a)
		cu = cu[:0]
		if callSites {
			for _, c := range chU {
				cu = append(cu, u.callSite[c])
			}
		}
		if m.same(ku, kr, cu, cr, u.depth[p.a], mode) {
			// The run's list is the union's (siblings would pair them
			// position for position): no renames, no new nodes.
			for j, c := range chR {
				rc, uc := int32(c), chU[j]
				r.toU[rc] = uc
				stack = append(stack, pair{uc, rc})
			}
			continue
		}
		matched = resetBools(matched, len(chR))
		pairs := m.siblings(ku, kr, cu, cr, u.depth[p.a], mode)
		if m.renaming(mode, u.depth[p.a], len(chU), len(chR), len(pairs)) {
			lo, ln := leftovers(len(chU), len(chR), pairs)
			pairs = m.renames(m.unionCands(u, chU, lo), m.runCands(r, chR, ln), unionKeys, runKeys, pairs)
		}
		for _, q := range pairs {
			rc, uc := int32(chR[q.b]), chU[q.a]
			if k := kr[q.b]; ku[q.a] != k {
				// Renamed: the node takes the newer name, under which
				// later runs match it directly and reports show it.
				u.rekey(p.a, int(q.a), uc, k)
			}
			r.toU[rc] = uc
			matched[q.b] = true
			stack = append(stack, pair{uc, rc})
		}
		for j, c := range chR {
			if !matched[j] {
				rc := int32(c)
				cs := int64(0) // only PARCS reads call sites
				if callSites {
					cs = cr[j]
				}
				uc := u.add(p.a, kr[j], cs, r.total[rc])
				r.toU[rc] = uc
				stack = append(stack, pair{uc, rc})
			}
		}
	}
}
