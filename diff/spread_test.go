package diff

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ctdiff/ctdiff/internal/benchcpu"
)

// randomUnion is a union of n nodes under one thread, its keys drawn from
// keys (few keys: recursion is common), with one run a side whose values
// are integers, or fractions when frac.
func randomUnion(seed uint64, n, keys int, frac bool) *union {
	rng := rand.New(rand.NewPCG(seed, 7))
	u := newUnion()
	u.add(0, 0, 0, 0)
	for u.len() < n {
		// Mostly a chain below the last node, as stacks are added.
		p := int32(u.len() - 1)
		if rng.IntN(4) == 0 {
			p = int32(1 + rng.IntN(u.len()-1))
		}
		u.add(p, key(1+rng.IntN(keys)), 0, 0)
	}
	u.runs = 2
	u.meanBase, u.meanNew = make([]float64, n), make([]float64, n)
	for x := range n {
		u.meanBase[x] = float64(rng.IntN(1000))
		u.meanNew[x] = float64(rng.IntN(1000))
		if frac {
			u.meanNew[x] += 0.1
		}
	}
	return u
}

// TestTallyShared checks the marks in preorder and the tallies in id order
// against the walk in child order: the same contexts, and tallies equal to the bit where the terms
// are integers; where they are not, tallyShared declines.
func TestTallyShared(t *testing.T) {
	for _, tc := range []struct {
		name     string
		seed     uint64
		n, keys  int
		skipEach int // every skipEach-th node skipped, 0 for none
		frac     bool
	}{
		{"small", 1, 50, 5, 0, false},
		{"recursive", 2, 30_000, 8, 0, false},
		{"many keys", 3, 50_000, 5000, 0, false},
		{"skips", 4, 30_000, 20, 97, false},
		{"fractions", 5, 30_000, 20, 0, true},
		{"recursive skips", 6, 30_000, 8, 13, false},
		{"skips everywhere", 7, 30_000, 20, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := randomUnion(tc.seed, tc.n, tc.keys, tc.frac)
			skip := make([]bool, u.len())
			if tc.skipEach > 0 {
				for x := tc.skipEach; x < u.len(); x += tc.skipEach {
					skip[x] = true
				}
			}
			nk := tc.keys + 1
			want, wantTop := tallyOrdered(u, skip, 1, nk)
			got, gotTop := tallyShared(u, skip, nk)
			if tc.frac {
				if got != nil {
					t.Fatal("tallyShared summed fractions")
				}
				return
			}
			if got == nil {
				t.Fatal("tallyShared declined integer values")
			}
			if !slices.Equal(gotTop, wantTop) {
				t.Fatal("topmost differs")
			}
			contexts := 0
			for k := range want {
				if got[k] != want[k] {
					t.Fatalf("key %d: got %+v, want %+v", k, got[k], want[k])
				}
				contexts += int(want[k].count)
			}
			if contexts == 0 {
				t.Fatal("no contexts tallied")
			}
		})
	}
}

// BenchmarkSpreadGroups is the spread causes' candidates on the synthetic
// pair's union, one run a side (the walk on every core) and three (the
// walk in child order).
func BenchmarkSpreadGroups(b *testing.B) {
	for _, runs := range []int{1, 3} {
		p := prepare(b, runs)
		skip := make([]bool, p.u.len())
		b.Run(fmt.Sprintf("%d+%d", runs, runs), func(b *testing.B) {
			b.ReportAllocs()
			stop := benchcpu.Start(b)
			for b.Loop() {
				spreadGroups(p.u, p.kt, skip, p.nBase, float64(p.mu))
			}
			stop()
		})
	}
}

// BenchmarkStatsGraphOneRun is Stats mode's critical graph of the
// synthetic pair, one run a side (BenchmarkCriticalGraph's stats case has
// three).
func BenchmarkStatsGraphOneRun(b *testing.B) {
	p := prepare(b, 1)
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	for b.Loop() {
		statsGraph(statsInput{u: p.u, kt: p.kt, nBase: p.nBase, mu: p.mu, alpha: DefaultAlpha})
	}
	stop()
}

// outermostByDepth is outermostContexts as it was before the threads were
// marked in the preorder: its last pass read every node's depth.
func outermostByDepth(u *union, skip []bool, nk int) []bool {
	n := u.len()
	topmost := make([]bool, n)
	size, reached := reachedSizes(u, skip)
	next, order := make([]int32, n), make([]int32, reached)
	next[0] = 1
	for x := int32(1); int(x) < n; x++ {
		if size[x] == 0 {
			continue
		}
		p := u.parent[x]
		at := next[p]
		next[p] += size[x]
		order[at], next[x] = x, at+1
	}
	end := make([]int32, nk)
	for i, x := range order[1:] {
		if u.depth[x] >= 2 {
			if k, i := u.key[x], int32(i+1); i >= end[k] {
				topmost[x], end[k] = true, i+size[x]
			}
		}
	}
	return topmost
}

// TestOutermostThreads checks outermostContexts, which tells the root's
// children from the rest by their parent, against the pass that read each
// node's depth: unions of many threads (a thread's key recurs below other
// threads, where it is a context), with and without skipped nodes, and the
// synthetic pair's union.
func TestOutermostThreads(t *testing.T) {
	threaded := func(seed uint64, n, keys, threads int) *union {
		rng := rand.New(rand.NewPCG(seed, 11))
		u := newUnion()
		for u.len() < n {
			p := int32(u.len() - 1)
			switch {
			case u.len() <= threads || rng.IntN(50) == 0:
				p = 0
			case rng.IntN(4) == 0:
				p = int32(1 + rng.IntN(u.len()-1))
			}
			u.add(p, key(1+rng.IntN(keys)), 0, 0)
		}
		return u
	}
	synth := prepare(t, 1).u
	for _, tc := range []struct {
		name     string
		u        *union
		nk       int
		skipEach int
	}{
		{"one thread", randomUnion(1, 20_000, 8, false), 9, 0},
		{"threads", threaded(2, 30_000, 8, 5), 9, 0},
		{"threads and skips", threaded(3, 30_000, 20, 40), 21, 7},
		{"many keys", threaded(4, 30_000, 3000, 200), 3001, 0},
		{"synth", synth, 1 + int(slices.Max(synth.key)), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			skip := make([]bool, tc.u.len())
			if tc.skipEach > 0 {
				for x := tc.skipEach; x < len(skip); x += tc.skipEach {
					skip[x] = true
				}
			}
			want := outermostByDepth(tc.u, skip, tc.nk)
			got := outermostContexts(tc.u, skip, tc.nk)
			n, threads := 0, 0
			for x, top := range want {
				if top {
					n++
				}
				if x > 0 && tc.u.parent[x] == 0 {
					threads++
				}
			}
			if n == 0 || threads == 0 {
				t.Fatalf("%d contexts under %d threads: the case tests nothing", n, threads)
			}
			if i := slices.Index(got, true); !slices.Equal(got, want) {
				for x := range got {
					if got[x] != want[x] {
						i = x
						break
					}
				}
				t.Fatalf("node %d (depth %d): topmost %v, want %v", i, tc.u.depth[i], got[i], want[i])
			}
		})
	}
}
