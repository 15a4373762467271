package diff

import (
	"math"
)

// pweights are each node's percentage weight in its tree (PARCS Section
// 3.4: "the percentage that the weight of node n constitutes out of the
// total weight of all nodes"). The weight is the self value: with inclusive
// values the percentages of nested nodes would sum to far more than 100 and
// the overlap would not range from 0 to 100% as the paper says it does.
// They are computed when read rather than stored: an array of them per run
// was as large as the run's values.
type pweights struct {
	self []int64
	// fself are the self values as float64 instead, when the run's are
	// dropped (run.uSelf).
	fself []float64
	sum   float64
}

func pweightsOf(r *run) pweights {
	sum := 0.0
	if r.self == nil {
		// The same values in the same order: the same sum.
		for _, v := range r.uSelf {
			sum += v
		}
		return pweights{fself: r.uSelf, sum: sum}
	}
	for _, v := range r.self {
		sum += float64(v)
	}
	return pweights{self: r.self, sum: sum}
}

// value returns node i's self value.
func (p pweights) value(i int32) float64 {
	if p.fself != nil {
		return p.fself[i]
	}
	return float64(p.self[i])
}

// at returns node i's percentage weight.
func (p pweights) at(i int32) float64 {
	if p.sum <= 0 {
		return 0
	}
	return 100 * p.value(i) / p.sum
}

// overlapOf is PARCS's overlap of one pair: Σ over matched nodes of
// min(pweight_a, pweight_b). It also returns |CT|, the matched nodes without
// the root.
func overlapOf(pwA, pwB pweights, baseOf []int32) (overlap float64, common int) {
	// One loop per type of values, read as they are: no call or branch
	// per node (a stream adds hundreds of pairs).
	switch {
	case pwA.fself != nil && pwB.fself != nil:
		return overlapIn(pwA.fself, pwB.fself, pwA, pwB, baseOf)
	case pwA.fself != nil:
		return overlapIn(pwA.fself, pwB.self, pwA, pwB, baseOf)
	case pwB.fself != nil:
		return overlapIn(pwA.self, pwB.fself, pwA, pwB, baseOf)
	}
	return overlapIn(pwA.self, pwB.self, pwA, pwB, baseOf)
}

// overlapIn is overlapOf with the runs' self values a and b (pwA's and
// pwB's, int64 or, dropped, float64).
func overlapIn[A, B int64 | float64](a []A, b []B, pwA, pwB pweights, baseOf []int32) (overlap float64, common int) {
	for nb, na := range baseOf {
		if na < 0 {
			continue
		}
		if nb != 0 {
			common++
		}
		// Most nodes have no self value (a CPU profile's inner
		// nodes): their term is min(a ≥ 0, 0) = 0, and adding 0
		// changes no bit of the sum.
		if b[nb] == 0 && a[na] >= 0 {
			continue
		}
		overlap += math.Min(pwA.at(na), pwB.at(int32(nb)))
	}
	return math.Min(overlap, 100), common
}

// A pairResult is what one run pair contributes to the PARCS numbers.
type pairResult struct {
	a, b   *run
	baseOf []int32
}

// parcs computes Overlap, Topology and WeightMatching from the run pairs
// (base_i, new_i), their matchings with the chosen algorithm, the strict
// common-tree sizes, and the base-vs-base overlaps for the noise floor.
func parcs(pairs []pairResult, strictCommon []int, noise []float64, u *union, kt *keyTable, o Options) (Overlap, Topology, WeightMatching) {
	pa := newParcsAcc(len(pairs), u.len())
	for i, p := range pairs {
		pa.add(i, p, strictCommon[i], u.len())
	}
	return pa.finish(noise, nil, u, kt, o)
}

// A parcsAcc sums what each run pair contributes to the PARCS numbers, pair
// by pair in order, so that a Fold that releases runs as it goes (stream.go)
// adds each pair once its runs are matched and drops them.
type parcsAcc struct {
	pairs int // how many pairs there will be
	ov    Overlap
	// The mean weights of matched nodes over the pairs: union node x's
	// sums and count are at at[x]-1 (0: matched in no pair yet). Runs that
	// share little match few of the union's nodes in any pair (16 + 16
	// independent 200k-stack Go profiles: 490k of 3.7M), and sums for
	// every node cost 20 bytes each where the index costs 4. With one pair
	// they are the pair's weights, read off the matching (weightMatching),
	// and nothing is summed.
	at         []int32
	sumB, sumN []float64
	cnt        []int32
	one        pairResult
	added      map[int32]*subtreeAcc
	removed    map[int32]*subtreeAcc
	// With one pair (and weights not deferred) the subtrees are listed,
	// not accumulated: each is in the pair (collectRoots).
	addedOne, removedOne []subtreeRoot
	size                 []int32 // collectSubtrees' scratch
	// deferred: the runs are not yet normalized (a streamed Fold scales
	// the union's values when every run is in), so subtree weights are
	// kept per run and scaled by finish.
	deferred bool
}

func newParcsAcc(pairs, unionLen int) *parcsAcc {
	pa := &parcsAcc{pairs: pairs, added: map[int32]*subtreeAcc{}, removed: map[int32]*subtreeAcc{}}
	if pairs > 1 {
		pa.grow(unionLen)
	}
	return pa
}

// grow makes room for union nodes up to n.
func (pa *parcsAcc) grow(n int) { pa.at = growZeroed(pa.at, n) }

// accOf returns union node x's accumulator, adding it.
func (pa *parcsAcc) accOf(x int32) int32 {
	k := pa.at[x]
	if k == 0 {
		pa.sumB = append(pa.sumB, 0)
		pa.sumN = append(pa.sumN, 0)
		pa.cnt = append(pa.cnt, 0)
		k = int32(len(pa.cnt))
		pa.at[x] = k
	}
	return k - 1
}

// add adds pair i (its runs matched onto the union, which has unionLen
// nodes) with its strict common-tree size.
func (pa *parcsAcc) add(i int, p pairResult, strictCommon, unionLen int) {
	pwA, pwB := pweightsOf(p.a), pweightsOf(p.b)
	o, common := overlapOf(pwA, pwB, p.baseOf)
	nA, nB := float64(p.a.nodes()-1), float64(p.b.nodes()-1)
	ov := &pa.ov
	ov.Percent += o
	if nA > 0 && nB > 0 {
		ov.CommonTree += 100 * float64(common) / nA
		ov.StrictCommonTree += 100 * float64(strictCommon) / nA
		ov.Score += o / 100 * float64(common) / nA * float64(common) / nB * 100
	}
	if pa.pairs > 1 {
		pa.grow(unionLen)
		for nb, na := range p.baseOf {
			if na <= 0 {
				continue
			}
			k := pa.accOf(p.b.toU[nb])
			pa.cnt[k]++
			// A zero weight adds 0, which changes no bit of a sum.
			// (Runs of several pairs keep their values.)
			if pwA.self[na] != 0 {
				pa.sumB[k] += pwA.at(na)
			}
			if pwB.self[nb] != 0 {
				pa.sumN[k] += pwB.at(int32(nb))
			}
		}
	} else {
		pa.one = p
	}
	if pa.pairs == 1 && !pa.deferred {
		pa.addedOne, pa.size = collectRoots(p.b, p.baseOf, pa.size)
		pa.removedOne, pa.size = collectRoots(p.a, inverse(p.baseOf, p.a.nodes()), pa.size)
		return
	}
	pa.added, pa.size = collectSubtrees(p.b, p.baseOf, i, pa.added, pa.deferred, pa.size)
	if i == 0 || len(pa.removed) > 0 {
		pa.removed, pa.size = collectSubtrees(p.a, inverse(p.baseOf, p.a.nodes()), i, pa.removed, pa.deferred, pa.size)
	}
}

// finish returns the numbers of the pairs added. scale, when the weights
// were deferred, normalizes pair i's subtree weights: scale(i, isNew, v).
func (pa *parcsAcc) finish(noise []float64, scale func(pair int, isNew bool, v int64) int64, u *union, kt *keyTable, o Options) (Overlap, Topology, WeightMatching) {
	ov := pa.ov
	ov.Pairs = pa.pairs
	if len(noise) > 0 {
		nf := mean(noise)
		ov.NoiseFloor = &nf
	}
	if n := float64(pa.pairs); n > 0 {
		ov.Percent /= n
		ov.CommonTree /= n
		ov.StrictCommonTree /= n
		ov.Score /= n
	}
	if pa.deferred {
		for isNew, acc := range [2]map[int32]*subtreeAcc{pa.removed, pa.added} {
			for _, s := range acc {
				for _, w := range s.raw {
					s.weight += scale(int(w.pair), isNew == 1, w.v)
				}
				s.raw = nil
			}
		}
	}
	var topo Topology
	if pa.pairs == 1 && !pa.deferred {
		topo.Added, topo.AddedCount = subtrees(rootSubtrees(pa.addedOne), 1, u, kt, o.TopologyLimit)
		topo.Removed, topo.RemovedCount = subtrees(rootSubtrees(pa.removedOne), 1, u, kt, o.TopologyLimit)
	} else {
		topo.Added, topo.AddedCount = subtrees(accSubtrees(pa.added), pa.pairs, u, kt, o.TopologyLimit)
		topo.Removed, topo.RemovedCount = subtrees(accSubtrees(pa.removed), pa.pairs, u, kt, o.TopologyLimit)
	}
	var wm WeightMatching
	if pa.pairs == 1 {
		wm = weightMatching(func(yield func(x int32, b, n float64)) {
			p := pa.one
			pwA, pwB := pweightsOf(p.a), pweightsOf(p.b)
			for nb, na := range p.baseOf {
				if na > 0 {
					yield(p.b.toU[nb], pwA.at(na), pwB.at(int32(nb)))
				}
			}
		}, ov, u, kt, o.Top)
	} else {
		wm = weightMatching(func(yield func(x int32, b, n float64)) {
			for x, k := range pa.at {
				if k > 0 {
					c := float64(pa.cnt[k-1])
					yield(int32(x), pa.sumB[k-1]/c, pa.sumN[k-1]/c)
				}
			}
		}, ov, u, kt, o.Top)
	}
	return ov, topo, wm
}

// weightMatching is PARCS's iterative weight matching (Section 3.4, after
// PerfDiff): matched nodes are taken by decreasing difference of their mean
// percentage weights, and each one "adjusted" — its smaller weight raised to
// the larger, so the overlap grows by the difference — until the adjusted
// overlap reaches the noise floor. The paper does not define the adjustment;
// raising the minimum makes one node that grew from 10% to 33% (and squeezed
// every other node's share) account for the whole gap by itself, instead of
// also listing the squeezed nodes, which did not change at all.
//
// means yields each matched node's (union node's) mean weights, each node
// once, in any order.
func weightMatching(means func(yield func(x int32, b, n float64)), ov Overlap, u *union, kt *keyTable, top int) WeightMatching {
	type cand struct {
		x    int32
		b, n float64
	}
	// At most top nodes are taken, so only the top first candidates are
	// ordered.
	cands := newBest(top, func(p, q cand) int {
		dp, dq := math.Abs(p.n-p.b), math.Abs(q.n-q.b)
		switch {
		case dp > dq:
			return -1
		case dp < dq:
			return 1
		}
		return u.compareCheap(kt, p.x, q.x)
	})
	means(func(x int32, b, n float64) {
		if b != n {
			cands.add(cand{x, b, n})
		}
	})
	wm := WeightMatching{Nodes: []WeightDiff{}, Adjusted: ov.Percent}
	for _, c := range cands.sorted() {
		if len(wm.Nodes) >= top || (ov.NoiseFloor != nil && wm.Adjusted >= *ov.NoiseFloor) {
			break
		}
		thread, path := u.describe(kt, c.x)
		wm.Nodes = append(wm.Nodes, WeightDiff{Thread: thread, Path: path, Base: c.b, New: c.n, Diff: c.n - c.b})
		wm.Adjusted = math.Min(100, wm.Adjusted+math.Abs(c.n-c.b))
	}
	wm.Reached = ov.NoiseFloor != nil && wm.Adjusted >= *ov.NoiseFloor
	return wm
}

// subtreeAcc accumulates one unmatched subtree over the pairs it occurs in.
type subtreeAcc struct {
	pairs  int
	last   int
	nodes  int64
	weight int64
	// raw are the subtrees' weights before normalization, per pair, when
	// parcsAcc defers it.
	raw []pairWeight
}

type pairWeight struct {
	pair int32
	v    int64
}

// collectSubtrees records the maximal unmatched subtrees of r (nodes without
// a match whose parent has one: PARCS's topological differences), keyed by
// union node, in acc, and returns acc (made anew, sized, when it was
// empty). size is scratch for the subtrees' sizes, returned for reuse.
//
// The sizes are taken in one pass from the last node to the first (a
// child's id is larger than its parent's), not by walking each subtree:
// an independent pair of 200k-stack Go profiles has 1.1M nodes in 97k
// such subtrees a run, where the walks
// read the child lists in no order.
//
// Only subtrees found in every pair are reported (subtrees), so pairs are
// collected in order from 0, and a subtree is accumulated from the first
// pair only, and dropped once a pair lacks it: runs that share little kept
// every run's subtrees, most of them in one pair (83 MB at 50 + 50 such
// runs).
func collectSubtrees(r *run, match []int32, pairIdx int, acc map[int32]*subtreeAcc, deferred bool, size []int32) (map[int32]*subtreeAcc, []int32) {
	if pairIdx > 0 && len(acc) == 0 {
		return acc, size // none can be in every pair
	}
	roots := 0
	for n, m := range match {
		if m < 0 && n != 0 && match[r.parent[n]] >= 0 {
			roots++
		}
	}
	if roots == 0 {
		if pairIdx > 0 {
			acc = nil
		}
		return acc, size
	}
	// Only unmatched nodes: a matched node's size is never read (that
	// pair: 22% of the new run's nodes).
	size = resetInt32s(size, len(match))
	for n := len(match) - 1; n > 0; n-- {
		if match[n] < 0 {
			size[n]++
			size[r.parent[n]] += size[n]
		}
	}
	// An empty acc has none of this run's subtrees, and the run's union
	// nodes are distinct (toU): each is added without a lookup (that
	// pair: 97k subtrees a side).
	fresh := len(acc) == 0
	if fresh {
		acc = make(map[int32]*subtreeAcc, roots)
	}
	// The new accumulators come in chunks: one allocation per subtree
	// was 195k of them for that pair.
	var chunk []subtreeAcc
	found := 0 // accumulators found in this pair
	for n, m := range match {
		if m >= 0 || n == 0 || match[r.parent[n]] < 0 {
			continue
		}
		roots--
		x := r.unionNode(int32(n))
		var s *subtreeAcc
		if !fresh {
			s = acc[x]
		}
		if s == nil {
			if pairIdx > 0 {
				continue
			}
			if len(chunk) == 0 {
				chunk = make([]subtreeAcc, min(roots+1, 4096))
			}
			s, chunk = &chunk[0], chunk[1:]
			s.last = -1
			acc[x] = s
		}
		if s.last != pairIdx {
			s.pairs++
			s.last = pairIdx
			found++
		}
		s.nodes += int64(size[n])
		if deferred {
			s.raw = append(s.raw, pairWeight{int32(pairIdx), r.totalOf(int32(n))})
		} else {
			s.weight += r.totalOf(int32(n))
		}
	}
	if found < len(acc) {
		for x, s := range acc {
			if s.last != pairIdx {
				delete(acc, x)
			}
		}
	}
	return acc, size
}

// A subtreeRoot is a maximal unmatched subtree of one pair's run: its
// union node, its node count and its weight.
type subtreeRoot struct {
	x      int32
	nodes  int32
	weight int64
}

// collectRoots is collectSubtrees for a comparison of one pair: the
// subtrees, listed. The sizes are summed and the roots found in one pass
// from the last node (a subtree's size is complete when its root is
// reached), where accumulating them in a map took three passes, a map
// insertion per subtree and, to report them, a walk of the map (that
// pair: 97k subtrees a side, 48 of its 112 ms of PARCS).
func collectRoots(r *run, match []int32, size []int32) ([]subtreeRoot, []int32) {
	size = resetInt32s(size, len(match))
	var roots []subtreeRoot
	for n := len(match) - 1; n > 0; n-- {
		if match[n] >= 0 {
			continue
		}
		size[n]++
		if p := r.parent[n]; match[p] >= 0 {
			roots = append(roots, subtreeRoot{r.unionNode(int32(n)), size[n], r.totalOf(int32(n))})
		} else {
			size[p] += size[n]
		}
	}
	return roots, size
}

// A subtreeSeq yields subtrees: the union node of each, its node count
// and weight summed over the pairs it occurs in, and how many pairs.
type subtreeSeq func(yield func(x int32, nodes, weight int64, pairs int))

// accSubtrees yields the subtrees accumulated in acc.
func accSubtrees(acc map[int32]*subtreeAcc) subtreeSeq {
	return func(yield func(x int32, nodes, weight int64, pairs int)) {
		for x, s := range acc {
			yield(x, s.nodes, s.weight, s.pairs)
		}
	}
}

// rootSubtrees yields one pair's subtrees (collectRoots).
func rootSubtrees(roots []subtreeRoot) subtreeSeq {
	return func(yield func(x int32, nodes, weight int64, pairs int)) {
		for _, r := range roots {
			yield(r.x, int64(r.nodes), r.weight, 1)
		}
	}
}

// resetInt32s returns b with length n, zeroed, reusing its array.
func resetInt32s(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// subtrees keeps the subtrees found in every pair — a handler triggered in
// one run only is noise, not a change of topology (ZAM Section 2.3) — and
// returns the heaviest limit of them with the total count.
func subtrees(seq subtreeSeq, pairs int, u *union, kt *keyTable, limit int) ([]Subtree, int) {
	type item struct {
		x             int32
		nodes, weight int64
	}
	items := newBest(limit, func(p, q item) int {
		switch {
		case p.weight > q.weight:
			return -1
		case p.weight < q.weight:
			return 1
		}
		return u.compareCheap(kt, p.x, q.x)
	})
	count := 0
	seq(func(x int32, nodes, weight int64, in int) {
		if in == pairs {
			items.add(item{x, nodes, weight})
			count++
		}
	})
	out := []Subtree{}
	for _, it := range items.sorted() {
		thread, path := u.describe(kt, it.x)
		n := float64(pairs)
		out = append(out, Subtree{
			Thread: thread, Path: path,
			Nodes:  int(math.Round(float64(it.nodes) / n)),
			Weight: round(float64(it.weight) / n),
		})
	}
	return out, count
}

// inverse turns new→base into base→new.
func inverse(baseOf []int32, nBase int) []int32 {
	inv := make([]int32, nBase)
	for i := range inv {
		inv[i] = -1
	}
	for nb, na := range baseOf {
		if na >= 0 {
			inv[na] = int32(nb)
		}
	}
	return inv
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
