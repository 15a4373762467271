package diff

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveRecursion is recursionMoves written the simple way: each
// node's entry by walking up, each sum by walking the entry's subtree.
// It is the oracle of TestRecursionMovesMatchesWalk.

// naiveRecursion tells a node's growth that only moved between the depths
// of a recursion from growth of the recursion: a recursive walk
// whose depth varies run to run (the data's shape, not the code) has,
// at K = 3, a context 44 calls deep in no base run and in all three new
// ones, "added" at p 0.002 while the walk's outermost call did not grow.
// A node inside a recursion is growth only when its function, summed over
// the recursion (its outermost nodes below the recursion's outermost
// call), grew by μ too. The maps hold only the nodes asked about and their
// ancestors: most comparisons ask about a few causes' paths.
type naiveRecursion struct {
	u *union
	m float64
	// outer[x]: the outermost proper ancestor of x of x's function, 0 for
	// none; entry[x]: the outermost node of x's path whose function recurs
	// on the path down to x, 0 for none.
	outer, entry map[int32]int32
	sums         map[[2]int32]float64
}

func newNaiveRecursion(u *union, m float64) *naiveRecursion {
	return &naiveRecursion{u: u, m: m, outer: map[int32]int32{}, entry: map[int32]int32{}, sums: map[[2]int32]float64{}}
}

// moved reports whether x lies inside a recursion in which x's function
// did not grow by μ.
func (r *naiveRecursion) moved(x int32) bool {
	e := r.entryOf(x)
	if e == 0 || e == x {
		return false
	}
	return r.sum(e, r.u.key[x]) < r.m
}

// outerOf is outer[x], by the chain of nearest namesakes (x's nearest
// proper ancestor of its function, that one's, ...), iteratively: stacks
// may be 100,000 frames deep.
func (r *naiveRecursion) outerOf(x int32) int32 {
	u := r.u
	var chain []int32 // nodes whose outer is not known yet, deepest first
	top := int32(0)
	for a := x; ; {
		if v, ok := r.outer[a]; ok {
			top = v
			if top == 0 {
				top = a
			}
			break
		}
		chain = append(chain, a)
		n := int32(0)
		for p := u.parent[a]; p > 0 && u.depth[p] >= 2; p = u.parent[p] {
			if u.key[p] == u.key[a] {
				n = p
				break
			}
		}
		if n == 0 {
			top = a
			break
		}
		a = n
	}
	for _, c := range chain {
		if c == top {
			r.outer[c] = 0
		} else {
			r.outer[c] = top
		}
	}
	return r.outer[x]
}

// entryOf is entry[x]: the shallower of the parent's entry and x's
// outermost namesake. The ancestors not yet known are filled root first.
func (r *naiveRecursion) entryOf(x int32) int32 {
	u := r.u
	var todo []int32
	for a := x; a > 0 && u.depth[a] >= 2; a = u.parent[a] {
		if _, ok := r.entry[a]; ok {
			break
		}
		todo = append(todo, a)
	}
	for i := len(todo) - 1; i >= 0; i-- {
		a := todo[i]
		e := r.entry[u.parent[a]] // 0 above depth 2
		if o := r.outerOf(a); o != 0 && (e == 0 || u.depth[o] < u.depth[e]) {
			e = o
		}
		r.entry[a] = e
	}
	return r.entry[x]
}

// sum is the mean growth of function k's outermost nodes in e's subtree
// (e itself when it is k's).
func (r *naiveRecursion) sum(e int32, k key) float64 {
	u := r.u
	if u.key[e] == k {
		return u.meanNew[e] - u.meanBase[e]
	}
	if s, ok := r.sums[[2]int32{e, k}]; ok {
		return s
	}
	s := 0.0
	stack := []int32{e}
	for len(stack) > 0 {
		y := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range u.children(y) {
			if u.key[c] == k {
				s += u.meanNew[c] - u.meanBase[c]
				continue
			}
			stack = append(stack, c)
		}
	}
	r.sums[[2]int32{e, k}] = s
	return s
}

// recursionMoves answers as walking each node's path and its entry's
// subtree does, on random unions where recursion is common (few keys),
// asking about every node or every seventh.
func TestRecursionMovesMatchesWalk(t *testing.T) {
	for _, tc := range []struct {
		seed    uint64
		n, keys int
		every   int
	}{
		{1, 200, 3, 1}, {2, 5000, 5, 1}, {3, 20_000, 8, 7}, {4, 20_000, 200, 1}, {5, 50_000, 12, 3},
	} {
		t.Run(fmt.Sprint(tc.seed), func(t *testing.T) {
			u := randomUnion(tc.seed, tc.n, tc.keys, false)
			u.depth = make([]int32, u.len())
			for x := 1; x < u.len(); x++ {
				u.depth[x] = u.depth[u.parent[x]] + 1
			}
			rng := rand.New(rand.NewPCG(tc.seed, 9))
			m := float64(rng.IntN(400))
			var xs []int32
			for x := int32(1); int(x) < u.len(); x += int32(tc.every) {
				xs = append(xs, x)
			}
			rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
			got := recursionMoves(u, tc.keys+1, m, xs, outermostContexts(u, make([]bool, u.len()), tc.keys+1))
			r := newNaiveRecursion(u, m)
			want := make([]bool, len(xs))
			for i, x := range xs {
				want[i] = r.moved(x)
			}
			if !slices.Equal(got, want) {
				n := 0
				for i := range got {
					if got[i] != want[i] {
						n++
					}
				}
				t.Errorf("%d of %d nodes differ from the walk", n, len(xs))
			}
			if !slices.Contains(want, true) {
				t.Error("no node moved: the case tests nothing")
			}
		})
	}
}

// A path of 200,000 frames, every node asked: the entries and sums stay
// linear in the depth (the walk up from each ancestor was quadratic).
func TestRecursionMovesDeepPath(t *testing.T) {
	const depth = 200_000
	u := newUnion()
	u.add(0, 0, 0, 0)
	u.add(0, 1, 0, 0) // a thread
	for d := range depth {
		u.add(int32(u.len()-1), key(2+d%(depth/2)), 0, 0) // each function twice, half the path apart
	}
	n := u.len()
	u.depth = make([]int32, n)
	u.meanBase, u.meanNew = make([]float64, n), make([]float64, n)
	xs := make([]int32, 0, n)
	for x := 1; x < n; x++ {
		u.depth[x] = u.depth[u.parent[x]] + 1
		u.meanNew[x] = 1
		xs = append(xs, int32(x))
	}
	moved := recursionMoves(u, depth/2+2, 2, xs, outermostContexts(u, make([]bool, n), depth/2+2))
	// The second half's nodes are inside the recursion entered at depth 2,
	// and each function's outermost node there grew by 1 < 2.
	for i, x := range xs {
		if want := u.depth[x] >= 2+depth/2; moved[i] != want {
			t.Fatalf("node at depth %d: moved %v, want %v", u.depth[x], moved[i], want)
		}
	}
}

// TestAncestorMemo checks the memo against a plain climb, in both of its
// forms: a few questions (a map) and a question at every node (an array
// once the map holds a sixteenth of the nodes).
func TestAncestorMemo(t *testing.T) {
	for _, tc := range []struct {
		name  string
		every int
		dense bool
	}{{"few", 997, false}, {"every", 1, true}} {
		t.Run(tc.name, func(t *testing.T) {
			u := randomUnion(11, 20_000, 30, false)
			u.depth = make([]int32, u.len())
			for x := 1; x < u.len(); x++ {
				u.depth[x] = u.depth[u.parent[x]] + 1
			}
			stop := func(a int32) bool { return u.depth[a] <= 1 || u.key[a] == 3 }
			m := newAncestorMemo(u, stop)
			for x := int32(1); int(x) < u.len(); x += int32(tc.every) {
				want := int32(0)
				for a := x; a > 0; a = u.parent[a] {
					if stop(a) {
						want = a
						break
					}
				}
				if got := m.first(x); got != want {
					t.Fatalf("first(%d) = %d, want %d", x, got, want)
				}
			}
			if (m.dense != nil) != tc.dense {
				t.Errorf("dense memo %v, want %v", m.dense != nil, tc.dense)
			}
		})
	}
}
