package diff

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff/stats"
)

// PARCS Figures 3 and 5, reconstructed from the text (subscripts are call
// sites): A calls B₁ and C₂, B calls D₃, C calls H₅ and I₁₀. In the new
// revision A first calls a new F, shifting C to call site 3, and C's calls
// become H₄ and I₂. The weights (self times, ms) are chosen so that the
// relaxed common trees overlap by the 76% the text reports for Figure 5.
var (
	parcsOld = "A 10\nA;B:1 10\nA;B:1;D:3 30\nA;C:2 10\nA;C:2;H:5 20\nA;C:2;I:10 20"
	parcsNew = "A 10\nA;B:1 10\nA;B:1;D:3 26\nA;F:2 2\nA;F:2;G:1 2\nA;C:3 10\nA;C:3;H:4 20\nA;C:3;I:2 20"
)

// matchedPaths matches two one-run trees with mode and lists the new tree's
// matched nodes as "thread/A/B" paths. callOrder says the trees list
// children in call order, as the figures' exhaustive CCTs do
// (Options.CallOrder).
func matchedPaths(t *testing.T, old, nw string, mode Matching, callOrder bool) []string {
	t.Helper()
	kt := newKeyTable()
	m, err := SampleMetric("cpu", trees(t, old, nw)...)
	if err != nil {
		t.Fatal(err)
	}
	ts := trees(t, old, nw)
	a, b := newRun(ts[0], kt, m), newRun(ts[1], kt, m)
	var out []string
	mt := newMatcher(mode, DefaultBudget)
	mt.callOrder = callOrder
	for nb, na := range mt.matchTrees(a, b, mode) {
		if na < 0 || nb == 0 {
			continue
		}
		var names []string
		for _, id := range ts[1].Path(cct.NodeID(nb)) {
			names = append(names, ts[1].Label(id))
		}
		out = append(out, strings.Join(names, "/"))
	}
	slices.Sort(out)
	return out
}

func TestPARCSFigure3(t *testing.T) {
	for _, tt := range []struct {
		name   string
		mode   Matching
		static bool // children not in call order (Options.CallOrder unset)
		want   []string
	}{
		{
			// Definition 1: C (position 2) meets F and mismatches; so does
			// the shifted C at position 3.
			name: "strict common tree (Figure 3a)",
			mode: strict,
			want: []string{"(all threads)", "(all threads)/A", "(all threads)/A/B", "(all threads)/A/B/D"},
		},
		{
			// Definition 2: C matches despite its new position; I₁₀ and I₂
			// do not, because I₁₀ is called after H₅ and I₂ before H₄.
			name: "relaxed common tree (Figure 3b)",
			mode: PARCS,
			want: []string{"(all threads)", "(all threads)/A", "(all threads)/A/B", "(all threads)/A/B/D", "(all threads)/A/C", "(all threads)/A/C/H"},
		},
		{
			// ZAM's LCS has no call-site rule: both I match.
			name: "ZAM hybrid matching",
			mode: ZAM,
			want: []string{"(all threads)", "(all threads)/A", "(all threads)/A/B", "(all threads)/A/B/D", "(all threads)/A/C", "(all threads)/A/C/H", "(all threads)/A/C/I"},
		},
		{
			// Without call order (sampled profiles), children are
			// ordered by call site: A's lists keep B and C in order
			// around the inserted F; C's new I is called from a line
			// before H's, where the old one was after it, so only one
			// of the two keeps its place (the LCS keeps I).
			name:   "relaxed common tree in call-site order",
			mode:   PARCS,
			static: true,
			want:   []string{"(all threads)", "(all threads)/A", "(all threads)/A/B", "(all threads)/A/B/D", "(all threads)/A/C", "(all threads)/A/C/I"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := matchedPaths(t, parcsOld, parcsNew, tt.mode, !tt.static); !slices.Equal(got, tt.want) {
				t.Errorf("matched\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestStrictCommon checks that counting the strict common tree gives the
// size of strict matchTrees's matching: on Figure 3 (4 nodes) and on
// generated runs of a program and its changed version, and of one run with
// itself (every node).
func TestStrictCommon(t *testing.T) {
	ts := trees(t, parcsOld, parcsNew)
	base, nw := benchRuns(t, 2000, 1)
	for _, tt := range []struct {
		name string
		a, b *cct.Tree
		want int // 0: only compared with matchTrees
	}{
		{"figure 3a", ts[0], ts[1], 4},
		{"generated base/new", base[0], nw[0], 0},
		{"generated, one tree twice", base[0], base[0], len(base[0].Nodes) - 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m, err := SampleMetric("", tt.a, tt.b)
			if err != nil {
				t.Fatal(err)
			}
			kt := newKeyTable()
			a, b := newRun(tt.a, kt, m), newRun(tt.b, kt, m)
			sm := newMatcher(strict, DefaultBudget)
			want := 0
			for nb, na := range sm.matchTrees(a, b, strict) {
				if na >= 0 && nb != 0 {
					want++
				}
			}
			if tt.want != 0 && want != tt.want {
				t.Fatalf("matchTrees matched %d nodes, want %d", want, tt.want)
			}
			if want < 2 {
				t.Fatalf("matchTrees matched %d nodes: the case tests nothing", want)
			}
			if got := sm.strictCommon(a, b); got != want {
				t.Errorf("strictCommon = %d, matchTrees matched %d", got, want)
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 0.01 }

// Figure 5: the relaxed common trees overlap by 76%; the topological
// differences are F's subtree and the two unmatched I.
func TestPARCSFigure5(t *testing.T) {
	res := compare(t, trees(t, parcsOld), trees(t, parcsNew), Options{Match: PARCS, CallOrder: true, Aggregate: Intersect})
	ov := res.Overlap
	// |CCT1| = 7 (thread, A, B, D, C, H, I), |CCT2| = 9, |CT| = 6 relaxed,
	// 4 strict.
	if !near(ov.Percent, 76) || !near(ov.CommonTree, 100*6.0/7) || !near(ov.StrictCommonTree, 100*4.0/7) ||
		!near(ov.Score, 0.76*6/7*6/9*100) || ov.NoiseFloor != nil || ov.Pairs != 1 {
		t.Errorf("overlap %+v, want 76%%, common tree 85.71%%, strict 57.14%%, score 43.43%%, no noise floor", ov)
	}
	var added, removed []string
	for _, s := range res.Topology.Added {
		added = append(added, pathString(s.Path)+" "+strconv.Itoa(s.Nodes)+" "+strconv.Itoa(int(s.Weight/ms)))
	}
	for _, s := range res.Topology.Removed {
		removed = append(removed, pathString(s.Path)+" "+strconv.Itoa(s.Nodes)+" "+strconv.Itoa(int(s.Weight/ms)))
	}
	if want := []string{"A;C;I 1 20", "A;F 2 4"}; !slices.Equal(added, want) {
		t.Errorf("added %q, want %q", added, want)
	}
	if want := []string{"A;C;I 1 20"}; !slices.Equal(removed, want) {
		t.Errorf("removed %q, want %q", removed, want)
	}
	// Only D's weight changed (30% → 26%); without a noise floor the
	// weight matching lists the changed nodes.
	wm := res.WeightMatching
	if len(wm.Nodes) != 1 || pathString(wm.Nodes[0].Path) != "A;B;D" || !near(wm.Nodes[0].Diff, -4) || !near(wm.Adjusted, 80) || wm.Reached {
		t.Errorf("weight matching %+v, want A;B;D −4 points, adjusted overlap 80%%", wm)
	}
	if res.Matchers.Relaxed == 0 || res.Matchers.LCS != 0 {
		t.Errorf("matchers %+v: want relaxed matching only", res.Matchers)
	}
}

// Weight matching stops at the noise floor (the base-vs-base overlap).
func TestWeightMatchingNoiseFloor(t *testing.T) {
	base := trees(t,
		"m;a 100\nm;b 100\nm;c 100\nm;d 100",
		"m;a 104\nm;b 98\nm;c 100\nm;d 98",
	)
	nw := trees(t,
		"m;a 300\nm;b 100\nm;c 60\nm;d 100",
		"m;a 290\nm;b 102\nm;c 64\nm;d 100",
	)
	res := compare(t, base, nw, Options{Aggregate: Intersect})
	nf := res.Overlap.NoiseFloor
	if nf == nil || !near(*nf, 99) {
		t.Fatalf("noise floor %v, want 99%%", nf)
	}
	wm := res.WeightMatching
	var got []string
	for _, n := range wm.Nodes {
		got = append(got, pathString(n.Path))
	}
	// a grew from 25% to 53%: adjusting it alone lifts the overlap above
	// the floor, so the nodes squeezed by it are not listed.
	if !slices.Equal(got, []string{"m;a"}) || !wm.Reached || wm.Adjusted < *nf {
		t.Errorf("weight matching %q (adjusted %.2f, reached %v), want [m;a] reaching the floor", got, wm.Adjusted, wm.Reached)
	}
}

// Topology lists only subtrees that differ in every pair: a handler
// triggered in one run is noise, and so is one missing from the first
// pair (late) or from a middle one (gap: dropped, then found again).
func TestTopologyAcrossPairs(t *testing.T) {
	base := trees(t, "m;a 100\nold 5", "m;a 100\nold 5\nlost 7", "m;a 100\nlost 7")
	nw := trees(t,
		"m;a 100\nm;new;x 30\nhover 20\ngap 10",
		"m;a 100\nm;new;x 30\nlate 10",
		"m;a 100\nm;new;x 33\nlate 10\ngap 10",
	)
	res := compare(t, base, nw, Options{})
	if len(res.Topology.Added) != 1 || pathString(res.Topology.Added[0].Path) != "m;new" ||
		res.Topology.Added[0].Nodes != 2 || res.Topology.Added[0].Weight != 31*ms || res.Topology.AddedCount != 1 {
		t.Errorf("added %+v (count %d), want m;new with 2 nodes, 31 ms", res.Topology.Added, res.Topology.AddedCount)
	}
	if len(res.Topology.Removed) != 0 {
		t.Errorf("removed %+v, want none", res.Topology.Removed)
	}
}

// overlapOf skips the terms of nodes without self value: the sum must be
// the full sum's, bit for bit, with zero, negative (a diff profile's) and
// unmatched nodes.
func TestOverlapOfSkipsZeros(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tt := range []struct {
		name     string
		negative bool
	}{{"non-negative", false}, {"negative values", true}} {
		t.Run(tt.name, func(t *testing.T) {
			const n = 2000
			var a, b []int64
			baseOf := make([]int32, n)
			for i := range n {
				val := func() int64 {
					switch v := rng.IntN(5); {
					case v < 3:
						return 0
					case tt.negative && v == 3:
						return -rng.Int64N(50)
					}
					return rng.Int64N(1000)
				}
				a, b = append(a, val()), append(b, val())
				baseOf[i] = int32(rng.IntN(n))
				if rng.IntN(4) == 0 {
					baseOf[i] = -1
				}
			}
			baseOf[0] = 0
			pwA, pwB := pweights{self: a, sum: floatSum(stats.Floats(a))}, pweights{self: b, sum: floatSum(stats.Floats(b))}
			want, wantCommon := 0.0, 0
			for nb, na := range baseOf {
				if na >= 0 {
					want += math.Min(pwA.at(na), pwB.at(int32(nb)))
					if nb != 0 {
						wantCommon++
					}
				}
			}
			want = math.Min(want, 100)
			got, common := overlapOf(pwA, pwB, baseOf)
			if math.Float64bits(got) != math.Float64bits(want) || common != wantCommon {
				t.Errorf("overlapOf = %v, %d, want %v, %d", got, common, want, wantCommon)
			}
		})
	}
}

// With one pair, PARCS lists the unmatched subtrees of each run
// (collectRoots) instead of accumulating them (collectSubtrees): the same
// subtrees, node counts and weights, and the same topology reported, on
// the real matching of two evolved runs and on random matchings (which
// need not be top-down: a matched node under an unmatched one).
func TestCollectRootsOnePair(t *testing.T) {
	base, nw := benchRuns(t, 3000, 1)
	m, err := SampleMetric("", base[0], nw[0])
	if err != nil {
		t.Fatal(err)
	}
	kt := newKeyTable(base, nw)
	runs := newRuns([]*cct.Tree{base[0], nw[0]}, 1, kt, m)
	u := newUnion()
	um := newMatcher(ZAM, DefaultBudget)
	um.kt, um.renameMin = kt, 1
	for _, r := range runs {
		um.addRun(u, r, ZAM)
	}
	a, b := runs[0], runs[1]
	rng := rand.New(rand.NewPCG(7, 7))
	matchings := map[string][]int32{"pair": pairFromUnion(a, b)}
	for _, p := range []float64{0.1, 0.5, 0.9} {
		match := make([]int32, b.nodes())
		for i := range match {
			match[i] = -1
			if i == 0 || rng.Float64() < p {
				match[i] = int32(rng.IntN(a.nodes()))
			}
		}
		matchings["random-"+strconv.FormatFloat(p, 'f', -1, 64)] = match
	}
	for name, match := range matchings {
		t.Run(name, func(t *testing.T) {
			acc, _ := collectSubtrees(b, match, 0, map[int32]*subtreeAcc{}, false, nil)
			roots, _ := collectRoots(b, match, nil)
			if len(roots) != len(acc) || len(roots) == 0 {
				t.Fatalf("%d subtrees listed, %d accumulated", len(roots), len(acc))
			}
			for _, r := range roots {
				s := acc[r.x]
				if s == nil || s.nodes != int64(r.nodes) || s.weight != r.weight || s.pairs != 1 {
					t.Fatalf("subtree at %d: listed %+v, accumulated %+v", r.x, r, s)
				}
			}
			for _, limit := range []int{0, 3, len(roots) + 1} {
				got, gotN := subtrees(rootSubtrees(roots), 1, u, kt, limit)
				want, wantN := subtrees(accSubtrees(acc), 1, u, kt, limit)
				if gotN != wantN || !slices.EqualFunc(got, want, func(p, q Subtree) bool {
					return p.Thread == q.Thread && slices.Equal(p.Path, q.Path) && p.Nodes == q.Nodes && p.Weight == q.Weight
				}) {
					t.Errorf("limit %d: topology %d %v, want %d %v", limit, gotN, got, wantN, want)
				}
			}
		})
	}
}

// relaxedStatic orders both lists by call site, then key, and matches
// them with Definition 2 in that order; the pairs come back in the lists'
// own positions, ascending in b.
func TestRelaxedStatic(t *testing.T) {
	for _, tt := range []struct {
		name   string
		ka, kb []key
		ca, cb []int64
		want   []pair
	}{
		{"listed in another order, no call sites", []key{1, 2, 3}, []key{3, 1, 2}, nil, nil,
			[]pair{{2, 0}, {0, 1}, {1, 2}}},
		{"only common callees", []key{1, 2, 4}, []key{5, 4, 1}, nil, nil,
			[]pair{{2, 1}, {0, 2}}},
		{"an inserted call shifts the lines after it", []key{1, 2}, []key{2, 9, 1}, []int64{1, 2}, []int64{3, 2, 1},
			[]pair{{1, 0}, {0, 2}}},
		// Figure 3b's C: H₅ I₁₀ → I₂ H₄. I moved before H: one keeps
		// its place.
		{"a call moved past another", []key{5, 6}, []key{6, 5}, []int64{5, 10}, []int64{2, 4},
			[]pair{{1, 0}}},
		// One function called from two lines, listed in another order
		// and shifted by a line: paired in line order.
		{"one function from two lines", []key{7, 7}, []key{7, 7}, []int64{3, 10}, []int64{11, 4},
			[]pair{{1, 0}, {0, 1}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newMatcher(PARCS, DefaultBudget)
			got := m.relaxedStatic(tt.ka, tt.kb, tt.ca, tt.cb, nil)
			if !slices.Equal(got, tt.want) {
				t.Errorf("pairs %v, want %v", got, tt.want)
			}
			// siblings takes the same path for lists that differ.
			if got := m.siblings(tt.ka, tt.kb, tt.ca, tt.cb, 2, PARCS); !slices.Equal(got, tt.want) {
				t.Errorf("siblings %v, want %v", got, tt.want)
			}
		})
	}
}
