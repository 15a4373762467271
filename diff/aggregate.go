package diff

import (
	"math"
	"slices"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff/stats"
)

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

// dropBareContexts returns g without the context nodes that no node
// kept for its own growth is below. A pair's graph under a normalization
// that lifts Algorithm 2's condition on ancestors (relaxedCriticalPair)
// holds every grown node's ancestors as context; when what grew below an
// ancestor differs from pair to pair, the intersection keeps the
// ancestor, in every pair as context, without any of it, and a leaf of
// the graph is a cause: a null comparison reported main.main at 0%.
// parent is the union tree's; g is closed under ancestors.
func dropBareContexts(g *graph, parent []int32) *graph {
	keep := make([]bool, len(g.xs))
	kept := 0
	for i, x := range g.xs {
		if g.vals[i].context || keep[i] {
			continue
		}
		keep[i] = true
		kept++
		for p := parent[x]; p > 0; p = parent[p] {
			if !g.has(p) || keep[g.at[p]-1] {
				break
			}
			keep[g.at[p]-1] = true
			kept++
		}
	}
	if kept == len(g.xs) {
		return g
	}
	out := newGraph(len(g.at))
	for i, x := range g.xs {
		if keep[i] {
			out.set(x, g.vals[i])
		}
	}
	out.tests, out.spreads = g.tests, g.spreads
	return out
}

// newCall reports whether a new context of value v of the function k
// that the base runs have elsewhere is a new call rather than moved work,
// from the function's totals fn (functionTotals): moved work leaves the
// total where it was and a new call grows it by the context's value — a
// row formatter that now builds its string with += per field grows
// runtime.concatstring3's total by all of its new context. So: the total
// grew by μ, by a third of the context, and by more than twice what one
// pair's jitter (maxPairJitter of the total, on each side) moves a total
// that size — a recursive JavaScript pipeline's functions of seconds moved
// 70 ms between contexts from run to run.
func newCall(fn [2][]float64, k key, v, m float64) bool {
	grew := fn[1][k] - fn[0][k]
	jitter := 2 * math.Sqrt2 * maxPairJitter * max(fn[0][k], fn[1][k])
	return grew >= m && grew >= v/3 && grew > jitter
}

// maxNewCallCandidates bounds the functions candidateTotals sums: a pass
// over the union per 64 of them.
const maxNewCallCandidates = 256

// candidateTotals sums, for each function that has a new context of μ or
// more and a context in the base runs (the candidates of newCall), the
// inclusive values of its outermost contexts, base and new: its time over
// its calling contexts, a recursion counted once (a recursive JavaScript
// pipeline read a new deep context as many times its value). Other keys
// stay 0; fn is nil when there are none or more than maxNewCallCandidates.
// One pass in id order per 64 candidates: a node's parent comes
// first, and a bit per candidate says whether it is on the path above.
func candidateTotals(u *union, inBase []bool, m float64) (fn [2][]float64) {
	n := u.len()
	slot := make([]int32, len(inBase)) // 1 + the key's place among the candidates, 0 for none
	cands := 0
	for x := int32(1); int(x) < n; x++ {
		if k := u.key[x]; u.depth[x] >= 2 && k >= 0 && inBase[k] && slot[k] == 0 && u.meanNew[x] >= m && u.baseRuns(x) == 0 {
			cands++
			slot[k] = int32(cands)
		}
	}
	if cands == 0 || cands > maxNewCallCandidates {
		// None, or so many that the sides are two programs more than
		// two versions (an independent pair): all are moved work.
		return fn
	}
	fn[0], fn[1] = make([]float64, len(inBase)), make([]float64, len(inBase))
	above := make([]uint64, n)
	for from := int32(0); from < int32(cands); from += 64 {
		clear(above)
		for x := int32(1); int(x) < n; x++ {
			mask := above[u.parent[x]]
			k := u.key[x]
			if k < 0 {
				above[x] = mask
				continue
			}
			if i := slot[k] - 1; i >= from && i < from+64 {
				bit := uint64(1) << (i - from)
				if mask&bit == 0 && u.depth[x] >= 2 {
					fn[0][k] += u.meanBase[x]
					fn[1][k] += u.meanNew[x]
				}
				mask |= bit
			}
			above[x] = mask
		}
	}
	return fn
}

// familyDeltas are the deltas of statsGraph's family, in its order: a
// node's inclusive or self delta (less what vanished callees moved into
// it, as the test's pass asks), then the spread groups'.
func familyDeltas(u *union, members []hyp, groups []spreadGroup) []float64 {
	deltas := make([]float64, len(members)+len(groups))
	for i, h := range members {
		x := h.node()
		if h.self() {
			d := u.selfNew[x] - u.selfBase[x]
			deltas[i] = min(d, d-vanishedCallees(u, x))
		} else {
			deltas[i] = u.meanNew[x] - u.meanBase[x]
		}
	}
	for i := range groups {
		deltas[len(members)+i] = groups[i].delta()
	}
	return deltas
}

// vanishedCallees is the mean base time of node x's callees that no new
// run has: a callee inlined in the new version (its frame gone, as
// without inline frames in the profile) moves its time into x's own. That
// growth of x's self time is no regression of x, whose inclusive time did
// not change (without this, when Encode's self time grew by Marshal's,
// Encode was reported regressed at -0.19% inclusive); a self cause is what its
// self time grew by beyond it.
func vanishedCallees(u *union, x int32) float64 {
	var v float64
	for _, c := range u.children(x) {
		if u.newRuns(c) == 0 {
			v += u.meanBase[c]
		}
	}
	return v
}

// movedFromCaller reports whether node x, which no base run has, is time
// its caller's own code had in the base: a function no longer inlined
// (its frame appears, with the time its caller's self time lost) is no
// new work (without this, Marshal was reported added at p 5e-33 where Encode's
// inclusive time did not change). x's subtree of new nodes starts at a,
// under a caller c the base has; it is moved when a's time, less what c's
// self time lost, is below μ. The mirror of vanishedCallees.
func movedFromCaller(u *union, x int32, m float64) bool {
	a := x
	for p := u.parent[a]; p > 0 && u.baseRuns(p) == 0; p = u.parent[a] {
		a = p
	}
	c := u.parent[a]
	if c <= 0 || u.depth[a] < 3 {
		return false // a thread or a top-level call: no caller's code
	}
	return u.meanNew[a]-max(0, u.selfBase[c]-u.selfNew[c]) < m
}

// familyParent is the parent of hypothesis h of statsGraph's family in
// stats.TreeHolm's forest, as an index in the family, or -1 for a root: a node's
// inclusive value is the child of its nearest tested ancestor's, its self
// value the child of its inclusive value; the functions' sums (after the
// members) are roots.
func familyParent(u *union, h hyp, testOf []int32) int32 {
	a := h.node()
	if !h.self() {
		a = u.parent[a]
	}
	for a > 0 && testOf[a] == 0 {
		a = u.parent[a]
	}
	if a > 0 {
		return testOf[a] - 1
	}
	return -1
}

// appendDoubling appends h to members, doubling the room when it is full
// (statsGraph's family: see there why).
func appendDoubling(members []hyp, h hyp) []hyp {
	if len(members) == cap(members) {
		members = slices.Grow(members, len(members))
	}
	return append(members, h)
}

// A hyp is one hypothesis of statsGraph's family on a node: its inclusive
// value, the node's id, or its self value, the id's complement (^id, < 0): 4
// bytes where a struct of both took 8, in room for a hypothesis per node (an
// independent pair of 200k-stack Go profiles: 2.5 M nodes, 258 tested).
type hyp int32

// selfHyp is the hypothesis on node x's self value.
func selfHyp(x int32) hyp { return hyp(^x) }

// node returns the hypothesis's node.
func (h hyp) node() int32 {
	if h < 0 {
		return int32(^h)
	}
	return int32(h)
}

// self reports a hypothesis on a self value.
func (h hyp) self() bool { return h < 0 }

// lazyShare sets statsGraph's bound on the p-values it leaves inexact:
// lazyShare/m in a family of m (m counted with the most spread groups
// there can be), reached by stats.TreeHolm's weight only where rejections pass
// a node the weight of 63 others (then the p-value is finished and the
// correction made again).
const lazyShare = 64

// A noiseModel says what statsGraph's tests took the noise from.
type noiseModel int

const (
	modelNone     noiseModel = iota // nothing: no test was made
	modelRuns                       // the runs' own variance, two or more a side
	modelPair                       // one pair's differences over all nodes
	modelSampling                   // sampling noise from the period, and 10% jitter
)

// untestedAbove keeps the nodes that grew by μ (or, absent from the base,
// cost μ) — the ones a threshold would have called causes.
func untestedAbove(u *union, xs []int32, m float64) []int32 {
	out := xs[:0]
	for _, x := range xs {
		if u.meanNew[x]-u.meanBase[x] >= m {
			out = append(out, x)
		}
	}
	return out
}

// markUntested returns statsGraph's skip (folded and idle nodes), the
// one-run-only roots (oneSide) and the self values with the artifacts
// folded into their callers; class is keyClasses's.
//
// Artifacts and everything below them are folded: their time becomes
// their caller's self time, and they are never tested. The union's self
// values stay as they are (path ranking reads them): the folded ones are
// copies of the callers' (foldedSelf).
func markUntested(u *union, class []uint8, oneSide, exact bool, m float64) (skip []bool, oneRun []int32, self foldedSelf) {
	n := u.len()
	folded := make([]bool, n)
	self = foldedSelf{u: u}
	var inBase []bool // per key, with one run on a side: see below
	var fn [2][]float64
	if oneSide {
		inBase = make([]bool, len(class))
		for x := int32(1); int(x) < n; x++ {
			if u.baseRuns(x) > 0 {
				inBase[u.key[x]] = true
			}
		}
		if exact {
			fn = candidateTotals(u, inBase, m)
		}
	}
	// skip is folded, or an idle node (idle): neither is tested, and the
	// spread groups leave both out. An idle node's callees are still
	// tested: unlike folded, skip is not inherited. One loop marks both,
	// and what the node's children inherit is in state, read once per
	// node at its parent: the parent's state was two reads out of order
	// in two passes over every node (7.6 M at 1.6 M stacks).
	skip = folded
	const (
		artifactBelow = 1 << iota // an artifact or under one: folded
		oneRunBelow               // oneRunOnly, or under one: folded
	)
	state := make([]uint8, n)
	isIdle := func(x int32) bool { return u.depth[x] >= 2 && class[u.key[x]]&classIdle != 0 }
	for x := int32(1); int(x) < n; x++ {
		p := u.parent[x]
		sp := state[p]
		if sp&artifactBelow != 0 || class[u.key[x]]&classArtifact != 0 {
			state[x], folded[x] = artifactBelow, true
			if sp&artifactBelow == 0 {
				self.addTotal(p, x)
			}
			continue
		}
		// With one run on a side, what a single pair cannot tell from
		// noise is left untested rather than called a regression: a
		// top-level call present on one side only (an event handler that
		// fired by accident in one run looks exactly like a new one; ZAM
		// Section 2.3), a new context of a function the base has
		// elsewhere, each with everything below it, and the collector's
		// frames, whose run-to-run spread no other node predicts
		// (isCollector).
		//
		// A function the base runs have somewhere (inBase): a context of
		// it that only the new runs have may be the same work attributed
		// to another caller (a reordered event, a call the matching
		// placed elsewhere), which one run cannot tell from a new call,
		// unless the stacks are call stacks as the program made them
		// (exact: Go, Java, native; not an event loop's, whose async
		// stacks and deep recursions move work between contexts from
		// run to run) and the function as a whole grew as a new call
		// grows it (newCall). A function the base runs lack entirely is
		// new code, tested.
		if oneSide {
			k := u.key[x]
			moved := u.baseRuns(x) == 0 && inBase[k] && u.depth[x] >= 2 && (fn[0] == nil || u.meanNew[x] < m || !newCall(fn, k, u.meanNew[x], m))

			if moved || u.depth[x] == 2 && (u.baseRuns(x) == 0 || u.newRuns(x) == 0) || class[k]&classCollector != 0 || sp&oneRunBelow != 0 {
				if sp&oneRunBelow == 0 {
					oneRun = append(oneRun, x)
				}
				state[x], folded[x] = oneRunBelow, true
				continue
			}
		}
		if isIdle(x) {
			skip[x] = true
		}
		// A callee no new run has, under a caller they do have, was
		// inlined or removed: its time is its caller's own in the base
		// as the inlined time is in the new runs, so the caller's self
		// test compares like with like (at run-to-run jitter
		// of 10% the moved time's noise alone passed the test in 18 of
		// 30 comparisons; vanishedCallees keeps the mean). A callee below
		// μ/10 moves too little to matter, and is not folded: in an
		// independent pair most base nodes are absent from the new run.
		if u.depth[x] >= 3 && u.newRuns(x) == 0 && u.newRuns(p) > 0 && u.meanBase[x] >= m/10 {
			self.addTotal(p, x)
		}
	}
	return skip, oneRun, self
}

// sum is floatSum(fs.row(x, dst)), without the copies of a row when the
// union keeps means (one run a side: statsGraph asks for a million).
func (fs *foldedSelf) sum(x int32, dst []float64) float64 {
	if len(fs.extra) > 0 {
		if ps, ok := fs.extra[x]; ok {
			return floatSum(ps)
		}
	}
	if fs.u.rowsAreMeans {
		// floatSum's order: from 0, base then new.
		return 0 + fs.u.selfBase[x] + fs.u.selfNew[x]
	}
	return floatSum(fs.u.selfRow(x, dst))
}

// fitNodePrior fits the variance prior on every node large enough to carry
// information about noise near the sizes that are tested: a tenth of μ.
// With two runs or more on a side, a node's variance is its pooled
// within-side variance of inclusive values.
//
// With one run on each side it is the pair's squared difference halved,
// with one degree of freedom (see statsGraph), fitted robustly (stats.FitPrior)
// so that the nodes that did change do not count, on inclusive and on self
// values, the larger variance taken at each size. Why both: a regression
// changes the inclusive value of every ancestor, and a large one (the
// synthetic benchmark's new callee is half the new profile) makes most
// large nodes differ; a self value changes only where the code did, and
// varies with size the way an inclusive value does (Poisson sampling ∝ v,
// a slower run or subtree ∝ v²), but self values rarely reach the sizes of
// large inclusive nodes, whose jitter a self fit then underestimates (the
// simulation: a 184 ms swing of a 1.5 s node called a regression).
//
// With several runs a side the fit reads only the nodes of at least
// minFitSamples samples when there are minSampledFitNodes of them (period
// is the value of one sample, 0 when not known).
func fitNodePrior(u *union, nBase int, m, period float64) *stats.Prior {
	runs := u.runs
	row := make([]float64, runs)
	if runs == 2 {
		// Both values: inclusive differences reach the sizes of large
		// nodes, where run-to-run jitter decides, but every ancestor of a
		// change differs too; self differences change only where code
		// did, but hardly reach those sizes. Each fit is robust, and the
		// larger variance at each size is used.
		//
		// A node's row is its two means (rowsAreMeans), read here from
		// the arrays rather than a row at a time (totalRow, selfRow): a
		// call per node and value was a third of the fit's CPU (200k-stack
		// pair: 1 M nodes, on the comparison's critical path).
		n := u.len()
		columns := func(rowOf func(x int32, dst []float64) []float64) (a, b []float64) {
			a, b = make([]float64, n), make([]float64, n)
			for x := int32(1); int(x) < n; x++ {
				rowOf(x, row)
				a[x], b[x] = row[0], row[1]
			}
			return a, b
		}
		//
		// Each fit is stats.FitPrior's on the nodes of mean m/10 or more, read
		// where they lie: one pass over the columns marks the valid nodes
		// (a bit each), and the 4,096 taken are read at their places,
		// where a second pass read both columns again up to the last one
		// taken (copying a million means and variances out first cost
		// more).
		valid := make([]uint64, (n+63)/64)
		fit := func(a, b []float64) *stats.Prior {
			a, b = a[:n], b[:n]
			lim := m / 10
			clear(valid)
			count := 0
			for x := 1; x < n; x++ {
				if mean := (a[x] + b[x]) / 2; mean >= lim {
					if diff := b[x] - a[x]; diff*diff/2 > 0 && mean > 0 {
						valid[x/64] |= 1 << (x % 64)
						count++
					}
				}
			}
			return stats.FitPair(valid, count, func(x int32) (float64, float64) {
				diff := b[x] - a[x]
				return (a[x] + b[x]) / 2, diff * diff / 2
			}, maxPairJitter)
		}
		tb, tn, sb, sn := u.meanBase, u.meanNew, u.selfBase, u.selfNew
		if !u.rowsAreMeans {
			tb, tn = columns(u.totalRow)
			sb, sn = columns(u.selfRow)
		}
		incl, self := fit(tb, tn), fit(sb, sn)
		switch {
		case incl == nil:
			return self
		case self != nil:
			incl.SetAlt(self)
		}
		return incl
	}
	// One buffer each, sized by a first count (nodes whose mean over all
	// runs reaches m/10, about what is kept): appended to, they grew a
	// million values by copies.
	keep := 0
	nNew := float64(runs - nBase)
	for x := 1; x < u.len(); x++ {
		if u.meanBase[x]*float64(nBase)+u.meanNew[x]*nNew >= float64(runs)*m/10 {
			keep++
		}
	}
	means, vars := make([]float64, 0, keep), make([]float64, 0, keep)
	sampled := 0 // nodes of minFitSamples or more that vary
	for x := int32(1); int(x) < u.len(); x++ {
		u.totalRow(x, row)
		if mean, v := stats.PooledStats(row[:nBase], row[nBase:]); mean >= m/10 {
			means = append(means, mean)
			vars = append(vars, v)
			if period > 0 && mean >= minFitSamples*period && v > 0 {
				sampled++
			}
		}
	}
	if sampled >= minSampledFitNodes {
		k := 0
		for i, mean := range means {
			if mean >= minFitSamples*period {
				means[k], vars[k] = mean, vars[i]
				k++
			}
		}
		means, vars = means[:k], vars[:k]
	}
	return stats.FitPrior(means, vars, float64(runs-2))
}

// minFitSamples is the least mean size, in samples, of the nodes the prior
// is fitted on with several runs a side. The fit reads log s² as a scaled
// χ²_d variate (Smyth 2004, Section 6.2), which holds for values roughly
// normal across runs, not for the count of a node of a few samples: it
// takes a handful of values, its s² is often 0 (such nodes are skipped, so
// only those that happened to vary enter) and otherwise lumpy. Most nodes
// of a profile are that small, and they bent the fit. On synth's 20k-stack
// pair (pure sampling noise, σ² = period·v) at 10 + 10 runs the fit on
// nodes down to μ/10 claimed run-to-run jitter from 0.58 s up and d0 = 6.6,
// inflating large nodes' variance: 10 + 10 runs missed 43 of the causes
// 3 + 3 found over ten disjoint replicates, 20 of them with a true effect
// 6 to 9 standard errors of 10 runs wide. Fitted on nodes of 10 samples or more it reads
// 0.95·period·v with d0 = 50, and the misses fall to 6 (BENCHMARKS.md,
// "More runs find what fewer find"). With one run a side the pair fit is
// robust and keeps μ/10: there the nodes' differences, not their spread,
// are fitted, and fewer samples took causes away (2 to 1 on each of five
// 20k synth pairs). minSampledFitNodes is how many such nodes a fit needs;
// a small profile (a 3 s Go profile has a few dozen) keeps the nodes down
// to μ/10 rather than a fit on a handful, and a "sample" whose value is
// whole seconds (collapsed stacks of weights) leaves too few to count.
const (
	minFitSamples      = 10
	minSampledFitNodes = 100
)

// maxPairJitter caps the run-to-run jitter (coefficient of variation of a
// large node) that one pair's fit may claim. Real runs of one build vary by
// 2-10% per call; a fit that says 40% is reading a change that reached most
// of the profile (a regression under the main loop) as noise, and would
// hide it and everything else. Above the cap the pair is treated as 10%
// noisy, and a change beyond that is tested as one.
const maxPairJitter = 0.10

// collectorCV is the least run-to-run variation taken for the time of
// garbage collector frames (isCollector) in a node's subtree, with several
// runs per side. Collector time follows the heap and when collections
// start, ±10% of seconds between runs of the same build, and three runs
// can show little of it by chance: the harness's noisy-gc baselines,
// drawn 2.2 standard errors apart, made their threads regressions at K = 3
// (their own three runs agreed within 1%).
const collectorCV = 0.10

// keyClasses is, per key of kt, what statsGraph asks of every node's frame
// (isArtifact, isCollector, isIdle): asked once per key, where per node it
// read a frame from all over the key table and compared its strings, for
// each of a million nodes and more than once.
func keyClasses(kt *keyTable) []uint8 {
	class := make([]uint8, len(kt.frames))
	for k, kf := range kt.frames {
		if isArtifact(kf) {
			class[k] |= classArtifact
		}
		if isCollector(kf) {
			class[k] |= classCollector
		}
		if isIdle(cct.Frame{Function: kf.Function, Kind: kf.Kind}) {
			class[k] |= classIdle
		}
	}
	return class
}

// The classes of keyClasses.
const (
	classArtifact = 1 << iota
	classCollector
	classIdle
)

// idle reports a union node of V8's "(idle)" frame (see isIdle).
func idle(u *union, kt *keyTable, x int32) bool {
	kf := kt.frames[u.key[x]]
	return u.depth[x] >= 2 && isIdle(cct.Frame{Function: kf.Function, Kind: kf.Kind})
}
