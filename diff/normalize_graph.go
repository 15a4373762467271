package diff

// ZAM's Algorithm 2 explores a node only when it grew by μ, so a cause needs
// every ancestor to have grown by μ too. Normalized values break that: under
// share and total the root's value is the same on both sides by
// construction, and a fixed-duration profile caps every ancestor that holds
// most of the time (the request loop, the handler), so a slower function
// deep below them would never be reached. With any normalization but none,
// the one-run threshold graph and the per-pair graphs of Intersect mode
// therefore keep every node that grew by μ and add its ancestors as
// context, as Stats mode does (aggregate.go, "departures").

// relaxesAncestors reports whether nz lifts Algorithm 2's condition on
// ancestors.
func (nz *Normalization) relaxesAncestors() bool { return nz.Mode != NormalizeNone }

// relaxedThresholdGraph is thresholdGraph without the condition on
// ancestors: every union node whose mean grew by mu (or, absent from the
// base, costs mu), with its ancestors as context.
func relaxedThresholdGraph(u *union, kt *keyTable, mu int64) *graph {
	g := newGraph(u.len())
	m := float64(mu)
	for x := int32(1); int(x) < u.len(); x++ {
		if idle(u, kt, x) {
			continue
		}
		b, n := u.meanBase[x], u.meanNew[x]
		if u.baseRuns(x) > 0 && n-b < m || u.baseRuns(x) == 0 && n < m {
			continue
		}
		g.set(x, gval{base: b, new: n, added: u.baseRuns(x) == 0})
		addContext(g, u.parent[x], func(a int32) gval {
			return gval{base: u.meanBase[a], new: u.meanNew[a], added: u.baseRuns(a) == 0, context: true}
		}, u.parent)
	}
	return g
}

// relaxedCriticalPair is criticalPair without the condition on ancestors,
// for one run pair: every node of the new run that grew by mu over its base
// match, or costs mu without one, with its ancestors as context.
func relaxedCriticalPair(a, b *run, baseOf []int32, mu int64) *graph {
	g := newGraph(0)
	for c := int32(1); int(c) < b.nodes(); c++ {
		if isIdle(b.frameOf(c)) || b.depth(c) < 1 {
			continue
		}
		nv := b.total[c]
		o := baseOf[c]
		var v gval
		switch {
		case o >= 0 && nv-a.total[o] >= mu:
			v = gval{base: float64(a.total[o]), new: float64(nv)}
		case o < 0 && nv >= mu:
			v = gval{new: float64(nv), added: true}
		default:
			continue
		}
		g.set(b.toU[c], v)
		for p := b.parent[c]; p > 0; p = b.parent[p] {
			x := b.toU[p]
			if g.has(x) {
				break
			}
			w := gval{new: float64(b.total[p]), added: true, context: true}
			if o := baseOf[p]; o >= 0 {
				w.base, w.added = float64(a.total[o]), false
			}
			g.set(x, w)
		}
	}
	return g
}

// addContext adds x and its ancestors up to the first one already in g.
func addContext(g *graph, x int32, val func(int32) gval, parent []int32) {
	for ; x > 0; x = parent[x] {
		if g.has(x) {
			return
		}
		g.set(x, val(x))
	}
}
