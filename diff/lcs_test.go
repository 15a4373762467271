package diff

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// lcsLen is the textbook O(nm) dynamic program, as an oracle.
func lcsLen(a, b []key) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func checkCommonSubsequence(t *testing.T, a, b []key, pairs []pair) {
	t.Helper()
	for i, p := range pairs {
		if a[p.a] != b[p.b] {
			t.Fatalf("pair %v matches %d with %d", p, a[p.a], b[p.b])
		}
		if i > 0 && (p.a <= pairs[i-1].a || p.b <= pairs[i-1].b) {
			t.Fatalf("pairs not increasing: %v", pairs)
		}
	}
}

func TestLCSIsLongest(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var s lcsScratch
	for range 2000 {
		n, m, alpha := rng.IntN(40), rng.IntN(40), 1+rng.IntN(8)
		a, b := make([]key, n), make([]key, m)
		for i := range a {
			a[i] = key(rng.IntN(alpha))
		}
		for i := range b {
			b[i] = key(rng.IntN(alpha))
		}
		pairs, ok := s.lcs(a, b, 1<<30, nil)
		if !ok {
			t.Fatalf("unlimited budget exceeded for %v %v", a, b)
		}
		checkCommonSubsequence(t, a, b, pairs)
		if want := lcsLen(a, b); len(pairs) != want {
			t.Fatalf("lcs(%v, %v) has %d pairs, want %d", a, b, len(pairs), want)
		}
	}
}

func TestLCSBudget(t *testing.T) {
	var s lcsScratch
	a := make([]key, 500)
	b := make([]key, 500)
	for i := range a {
		a[i], b[i] = key(i), key(1000+i) // nothing in common: D = n + m
	}
	if _, ok := s.lcs(a, b, 10_000, nil); ok {
		t.Error("disjoint sequences of 500 finished within 10,000 steps")
	}
	// Similar sequences finish within a budget linear in their length: one
	// insertion and one deletion in 500 elements.
	c := slices.Clone(a)
	c = slices.Insert(c, 300, 9999)
	c = slices.Delete(c, 400, 401)
	pairs, ok := s.lcs(a, c, DefaultBudget.limit(len(a), len(c)), nil)
	if !ok || len(pairs) != 499 {
		t.Errorf("similar sequences: ok=%v, %d pairs, want 499", ok, len(pairs))
	}
	// The same input always gives the same answer (no wall clock).
	p1, ok1 := s.lcs(a, b, 300_000, nil)
	p2, ok2 := s.lcs(a, b, 300_000, nil)
	if ok1 != ok2 || !slices.Equal(p1, p2) {
		t.Error("lcs is not deterministic")
	}
}

func TestIncreasing(t *testing.T) {
	for _, tt := range []struct {
		in, want []pair
	}{
		{nil, nil},
		{[]pair{{3, 0}}, []pair{{3, 0}}},
		{[]pair{{2, 0}, {0, 1}, {1, 2}, {3, 3}}, []pair{{0, 1}, {1, 2}, {3, 3}}},
		{[]pair{{4, 0}, {3, 1}, {2, 2}, {1, 3}}, []pair{{1, 3}}},
	} {
		if got := increasing(slices.Clone(tt.in)); !slices.Equal(got, tt.want) {
			t.Errorf("increasing(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestSiblings(t *testing.T) {
	for _, tt := range []struct {
		name        string
		a, b        []key
		parentDepth int32
		budget      Budget
		want        []pair
		counts      MatcherCounts
	}{
		{
			name: "LCS keeps order", a: []key{1, 2, 3}, b: []key{1, 9, 2, 3}, parentDepth: 2,
			want: []pair{{0, 0}, {1, 2}, {2, 3}}, counts: MatcherCounts{LCS: 1},
		},
		{
			// ZAM Section 5.3: swapped calls; LCS keeps one, the residual
			// pass pairs the other instead of calling it "added".
			name: "reordered calls are paired after the LCS", a: []key{1, 2, 3}, b: []key{3, 1, 2}, parentDepth: 2,
			want: []pair{{0, 1}, {1, 2}, {2, 0}}, counts: MatcherCounts{LCS: 1, Residual: 1},
		},
		{
			name: "top-level functions use the alternate matching", a: []key{1, 2, 3}, b: []key{3, 2, 1}, parentDepth: 1,
			want: []pair{{2, 0}, {1, 1}, {0, 2}}, counts: MatcherCounts{Alternate: 1},
		},
		{
			name: "threads match by identity", a: []key{7, 8}, b: []key{8, 9}, parentDepth: 0,
			want: []pair{{1, 0}},
		},
		{
			name: "repeated identities match in order", a: []key{5, 5, 6}, b: []key{5, 6, 5}, parentDepth: 1,
			want: []pair{{0, 0}, {2, 1}, {1, 2}}, counts: MatcherCounts{Alternate: 1},
		},
		{
			name: "a budget of 0 falls back to the alternate matching", a: []key{1, 2, 3}, b: []key{3, 9, 1}, parentDepth: 2,
			budget: Budget{Base: 0, PerItem: 0},
			want:   []pair{{2, 0}, {0, 2}}, counts: MatcherCounts{Fallback: 1},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			budget := tt.budget
			if tt.name != "a budget of 0 falls back to the alternate matching" {
				budget = DefaultBudget
			}
			m := newMatcher(ZAM, budget)
			got := slices.Clone(m.siblings(tt.a, tt.b, nil, nil, tt.parentDepth, ZAM))
			slices.SortFunc(got, func(x, y pair) int { return int(x.b - y.b) })
			want := slices.Clone(tt.want)
			slices.SortFunc(want, func(x, y pair) int { return int(x.b - y.b) })
			if !slices.Equal(got, want) {
				t.Errorf("pairs %v, want %v", got, want)
			}
			if m.counts != tt.counts {
				t.Errorf("counts %+v, want %+v", m.counts, tt.counts)
			}
		})
	}
}

// The alternate matching on long lists (the map path) agrees with the
// short-list path.
func TestAlternateLongLists(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m := newMatcher(ZAM, DefaultBudget)
	for range 200 {
		a, b := make([]key, 9+rng.IntN(30)), make([]key, rng.IntN(40))
		for i := range a {
			a[i] = key(rng.IntN(12))
		}
		for i := range b {
			b[i] = key(rng.IntN(12))
		}
		got := m.alternate(a, b, nil)
		// Oracle: each new element takes the first unused old one.
		used := make([]bool, len(a))
		var want []pair
		for j, k := range b {
			for i, k2 := range a {
				if k2 == k && !used[i] {
					used[i] = true
					want = append(want, pair{int32(i), int32(j)})
					break
				}
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("alternate(%v, %v) = %v, want %v", a, b, got, want)
		}
	}
}

// Renamed functions match instead of showing up as removed and added.
func TestRenames(t *testing.T) {
	for _, tt := range []struct {
		name     string
		old, new string
		match    Matching
		causes   []string
		renamed  int
	}{
		{
			name:    "a renamed caller matches by its callees",
			old:     "m;render;layout 100\nm;render;paint 50\nm;parse 80",
			new:     "m;renderPage;layout 100\nm;renderPage;paint 50\nm;parse 80",
			renamed: 1,
		},
		{
			name:    "a renamed minified leaf matches as the only leftover leaf of its file",
			old:     "m;fB@app.min.js 100\nm;x@app.min.js 5",
			new:     "m;_G@app.min.js 104\nm;x@app.min.js 5",
			renamed: 1,
		},
		{
			name:   "leaves of different files do not",
			old:    "m;fB@a.js 70",
			new:    "m;_G@b.js 130",
			causes: []string{"added 130 m;_G"},
		},
		{
			name:   "leaves of very different values do not",
			old:    "m;fB@app.min.js 100",
			new:    "m;_G@app.min.js 300",
			causes: []string{"added 300 m;_G"},
		},
		{
			name:   "callers with different callees do not",
			old:    "m;render;layout 40",
			new:    "m;draw;paint 100",
			causes: []string{"added 100 m;draw"},
		},
		{
			name:   "PARCS keeps its published matching",
			old:    "m;render;layout 40\nm;render;paint 20",
			new:    "m;renderPage;layout 100\nm;renderPage;paint 50",
			match:  PARCS,
			causes: []string{"added 150 m;renderPage"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := compare(t, trees(t, tt.old), trees(t, tt.new), Options{Aggregate: Intersect, Match: tt.match})
			if got := leafLines(res); !slices.Equal(got, tt.causes) {
				t.Errorf("causes %q, want %q", got, tt.causes)
			}
			if res.Matchers.Renamed != tt.renamed {
				t.Errorf("renamed %d, want %d", res.Matchers.Renamed, tt.renamed)
			}
		})
	}
}
