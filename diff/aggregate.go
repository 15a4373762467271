package diff

import "github.com/ctdiff/ctdiff/cct"

// intersect is ZAM's critical graph aggregation (Section 3.2): a node stays
// when it is in every pair's critical graph; its values are averaged (the
// paper's footnote 5). ZAM matches the graphs level by level by (component,
// name) with its alternate matching; here a node is identified by its
// union-tree id, which is the same thing when siblings have distinct
// identities (always, without call sites) and order-aware when they do not.
//
// A node is "added" when it had no base match in any pair, "regressed"
// otherwise. A graph is closed under ancestors, so the intersection is too.
func intersect(gs []*graph) *graph {
	out := newGraph(0)
	if len(gs) == 0 {
		return out
	}
next:
	for i, x := range gs[0].xs {
		v := gs[0].vals[i]
		// Context in any pair (normalize_graph.go): it did not grow by μ
		// in that pair.
		agg := gval{base: v.base, new: v.new, added: v.added, context: v.context}
		for _, g := range gs[1:] {
			w, ok := g.get(x)
			if !ok {
				continue next
			}
			agg.base += w.base
			agg.new += w.new
			agg.context = agg.context || w.context
			agg.added = agg.added && w.added
		}
		n := float64(len(gs))
		agg.base /= n
		agg.new /= n
		out.set(x, agg)
	}
	return out
}

// statsGraph is Stats mode's critical graph over the union tree, for at
// least two runs per side.
//
// Every node is a hypothesis "new > base" on its inclusive value, one value
// per run (0 for runs without the node), tested with test (moderated t with
// the variance prior fitted here, or Mann–Whitney U from 8 runs per side).
// Only nodes that could be kept are tested: those whose values summed over
// all runs reach μ × (new runs), a necessary condition for a mean delta of
// μ. That filter uses the pooled sum, which does not favour large deltas, so
// it keeps the tests valid (independent filtering, Bourgon et al. 2010)
// while sparing the correction thousands of nodes too small to matter.
// p-values are corrected with Holm's method (see holm for why not BH).
//
// A node is kept when its mean delta is ≥ μ and its adjusted p-value ≤ α;
// the graph is the kept nodes plus their ancestors ("context" nodes unless
// kept themselves), and its leaves are the causes. Two departures from ZAM's
// Definition 2, both for noisy, sampled profiles:
//
//   - Ancestors need not pass the test themselves (condition 2). An
//     ancestor's value also carries the noise of all its other descendants,
//     so with few runs a large caller's delta is rarely significant even when
//     one callee regressed clearly; requiring every ancestor to pass
//     multiplies those misses along the path. A significant descendant is
//     evidence enough that its context regressed.
//   - A node missing from every base run ("added") is explored like any
//     other, where Algorithm 2 stops at it. In sampled profiles "absent from
//     the base" mostly means "too small to be sampled", and the injected
//     callee below it is the cause; a new function that does the work itself
//     stays the cause, since none of its callees reaches μ.
func statsGraph(u *union, kt *keyTable, nBase int, mu int64, alpha float64) (g *graph, tested int) {
	n := u.len()
	nNew := u.runs - nBase
	m := float64(mu)
	// The variance prior is fitted on every node large enough to carry
	// information about noise near the sizes that are tested: a tenth of μ.
	var means, vars []float64
	row := make([]float64, u.runs) // one node's values, base runs first
	for x := int32(1); int(x) < n; x++ {
		b, nw := u.sample(x, nBase)
		floatsInto(row[:nBase], b)
		floatsInto(row[nBase:], nw)
		if mean, v := pooledStatsFloats(row[:nBase], row[nBase:]); mean >= m/10 {
			means = append(means, mean)
			vars = append(vars, v)
		}
	}
	var pr *prior
	if moderate {
		pr = fitPrior(means, vars, float64(u.runs-2))
	}
	// The family (the nodes tested, in node order), and per node its test
	// (nil: not tested). The tests are independent and their p-values cost
	// an incomplete beta function each: they are computed on every core.
	var members []int32
	testOf := make([]int32, n) // 1 + index in family, 0 when untested
	for x := int32(1); int(x) < n; x++ {
		sum := u.meanBase[x]*float64(nBase) + u.meanNew[x]*float64(nNew)
		if sum < m*float64(nNew) || idle(u, kt, x) {
			continue
		}
		members = append(members, x)
		testOf[x] = int32(len(members))
	}
	family := make([]Test, len(members))
	parallel(len(members), func(from, to int) {
		row := make([]float64, u.runs)
		for i := from; i < to; i++ {
			b, nw := u.sample(members[i], nBase)
			family[i] = testFloats(floatsInto(row[:nBase], b), floatsInto(row[nBase:], nw), pr)
		}
	})
	ps := make([]float64, len(family))
	for i := range family {
		ps[i] = family[i].P
	}
	for i, q := range correct(ps) {
		family[i].Q = q
	}
	g = newGraph(n)
	g.tests = family
	for x := int32(1); int(x) < n; x++ {
		p := u.parent[x]
		t := testOf[x]
		if t == 0 || u.meanNew[x]-u.meanBase[x] < m || family[t-1].Q > alpha {
			continue
		}
		g.set(x, gval{base: u.meanBase[x], new: u.meanNew[x], added: u.inBase[x] == 0, test: t})
		for a := p; a > 0; a = u.parent[a] {
			if g.has(a) {
				break
			}
			g.set(a, gval{base: u.meanBase[a], new: u.meanNew[a], added: u.inBase[a] == 0, context: true, test: testOf[a]})
		}
	}
	for i, x := range g.xs {
		if t := g.test(&g.vals[i]); t != nil {
			b, nw := u.sample(x, nBase)
			t.setInterval(b, nw, pr)
		}
	}
	return g, len(family)
}

// idle reports a union node of V8's "(idle)" frame (see isIdle).
func idle(u *union, kt *keyTable, x int32) bool {
	kf := kt.frames[u.key[x]]
	return u.depth[x] >= 2 && isIdle(cct.Frame{Function: kf.Function, Kind: kf.Kind})
}

// moderate enables the variance prior; a variable so the accuracy
// simulation can measure plain Welch tests against it.
var moderate = true
