package diff

import (
	"slices"

	"github.com/ctdiff/ctdiff/diff/stats"
)

// A graph is a critical graph over union-tree nodes: every node it holds has
// its parent in it too (the root, 0, is implicit).
//
// It is three arrays rather than a map of pointers: a one-run graph of a
// million-node tree holds a quarter of a million nodes, and a map with an
// allocation per node made building and reading it a third of a
// comparison's time.
type graph struct {
	at   []int32 // per union node: 1 + its index in xs, 0 when absent
	xs   []int32 // the nodes, in the order they were added
	vals []gval
	// tests holds the Stats tests that gval.test indexes, and spreads the
	// spread causes that gval.spread indexes (spread.go).
	tests   []Test
	spreads []spreadInfo
	// pairJitter is the run-to-run jitter one pair's noise fit read above
	// maxPairJitter, which its tests assume instead (statsGraph); 0 when
	// the fit read less, or none was made.
	pairJitter float64
	// fitted is the noise prior statsGraph fitted on the union (nil when
	// none could be), which the mirrored union's tests reuse: the fit is
	// symmetric in the sides.
	fitted *stats.Prior
	// noise is what the tests of statsGraph's graph read (the prior they
	// used, fitted or the sampling model): the per-function table tests
	// with it too, and the verdict's detectable change reads it; nil for
	// other graphs.
	noise *nodeNoise
}

// gval is a critical-graph node's data. It holds no pointers, so the
// quarter of a million of a one-run graph is one block the garbage
// collector does not scan, at half the size with a Kind and a *Test.
type gval struct {
	base, new float64
	// test is 1 + the index of the node's test in graph.tests, 0 without.
	test int32
	// added: the node has no base match (Added), else Regressed.
	added bool
	// context: in the graph only as an ancestor of a kept node.
	context bool
	// spread is 1 + the index in graph.spreads of the spread cause the node
	// is a context of, 0 for none.
	spread int32
}

func (v *gval) kind() Kind {
	if v.added {
		return Added
	}
	return Regressed
}

// test returns v's test, or nil.
func (g *graph) test(v *gval) *Test {
	if v.test == 0 {
		return nil
	}
	return &g.tests[v.test-1]
}

// newGraph returns an empty graph over a union tree of n nodes (n is a
// hint: the graph grows to any node id).
func newGraph(n int) *graph { return &graph{at: make([]int32, n)} }

func (g *graph) len() int { return len(g.xs) }

// get returns node x's data, if x is in the graph. The pointer is valid
// until the next set.
func (g *graph) get(x int32) (*gval, bool) {
	if int(x) >= len(g.at) || g.at[x] == 0 {
		return nil, false
	}
	return &g.vals[g.at[x]-1], true
}

func (g *graph) has(x int32) bool { return int(x) < len(g.at) && g.at[x] != 0 }

// set adds x with v, or replaces its data.
func (g *graph) set(x int32, v gval) {
	if int(x) >= len(g.at) {
		g.at = append(g.at, make([]int32, int(x)+1-len(g.at))...)
	}
	if i := g.at[x]; i != 0 {
		g.vals[i-1] = v
		return
	}
	if len(g.xs) == cap(g.xs) {
		// Doubling: append grows large slices by a quarter, which
		// copied a quarter-million-node graph five times over.
		n := max(len(g.xs), 1024)
		g.xs, g.vals = slices.Grow(g.xs, n), slices.Grow(g.vals, n)
	}
	g.xs = append(g.xs, x)
	g.vals = append(g.vals, v)
	g.at[x] = int32(len(g.xs))
}
