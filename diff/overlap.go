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
	sum  float64
}

func pweightsOf(r *run) pweights {
	sum := 0.0
	for _, v := range r.self {
		sum += float64(v)
	}
	return pweights{r.self, sum}
}

// at returns node i's percentage weight.
func (p pweights) at(i int32) float64 {
	if p.sum <= 0 {
		return 0
	}
	return 100 * float64(p.self[i]) / p.sum
}

// overlapOf is PARCS's overlap of one pair: Σ over matched nodes of
// min(pweight_a, pweight_b). It also returns |CT|, the matched nodes without
// the root.
func overlapOf(pwA, pwB pweights, baseOf []int32) (overlap float64, common int) {
	for nb, na := range baseOf {
		if na < 0 {
			continue
		}
		overlap += math.Min(pwA.at(na), pwB.at(int32(nb)))
		if nb != 0 {
			common++
		}
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
	var ov Overlap
	ov.Pairs = len(pairs)
	if len(noise) > 0 {
		nf := mean(noise)
		ov.NoiseFloor = &nf
	}
	// The mean weights of matched nodes over the pairs, by union node.
	// With one pair they are the pair's weights, read off the matching
	// (weightMatching), and nothing is summed.
	var sumB, sumN []float64
	var cnt []int32
	if len(pairs) > 1 {
		sumB = make([]float64, u.len())
		sumN = make([]float64, u.len())
		cnt = make([]int32, u.len())
	}
	added := map[int32]*subtreeAcc{}
	removed := map[int32]*subtreeAcc{}
	for i, p := range pairs {
		pwA, pwB := pweightsOf(p.a), pweightsOf(p.b)
		o, common := overlapOf(pwA, pwB, p.baseOf)
		nA, nB := float64(p.a.nodes()-1), float64(p.b.nodes()-1)
		ov.Percent += o
		if nA > 0 && nB > 0 {
			ov.CommonTree += 100 * float64(common) / nA
			ov.StrictCommonTree += 100 * float64(strictCommon[i]) / nA
			ov.Score += o / 100 * float64(common) / nA * float64(common) / nB * 100
		}
		for nb, na := range p.baseOf {
			if na <= 0 || cnt == nil {
				continue
			}
			x := p.b.toU[nb]
			sumB[x] += pwA.at(na)
			sumN[x] += pwB.at(int32(nb))
			cnt[x]++
		}
		collectSubtrees(p.b, p.baseOf, i, added)
		collectSubtrees(p.a, inverse(p.baseOf, p.a.nodes()), i, removed)
	}
	if n := float64(len(pairs)); n > 0 {
		ov.Percent /= n
		ov.CommonTree /= n
		ov.StrictCommonTree /= n
		ov.Score /= n
	}
	var topo Topology
	topo.Added, topo.AddedCount = subtrees(added, len(pairs), u, kt, o.TopologyLimit)
	topo.Removed, topo.RemovedCount = subtrees(removed, len(pairs), u, kt, o.TopologyLimit)
	var wm WeightMatching
	if cnt == nil && len(pairs) == 1 {
		wm = weightMatching(func(yield func(x int32, b, n float64)) {
			p := pairs[0]
			pwA, pwB := pweightsOf(p.a), pweightsOf(p.b)
			for nb, na := range p.baseOf {
				if na > 0 {
					yield(p.b.toU[nb], pwA.at(na), pwB.at(int32(nb)))
				}
			}
		}, ov, u, kt, o.Top)
	} else {
		wm = weightMatching(func(yield func(x int32, b, n float64)) {
			for x, c := range cnt {
				if c > 0 {
					yield(int32(x), sumB[x]/float64(c), sumN[x]/float64(c))
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
}

// collectSubtrees records the maximal unmatched subtrees of r (nodes without
// a match whose parent has one: PARCS's topological differences), keyed by
// union node.
func collectSubtrees(r *run, match []int32, pairIdx int, acc map[int32]*subtreeAcc) {
	var stack []int32
	for n, m := range match {
		if m >= 0 || n == 0 || match[r.parent[n]] < 0 {
			continue
		}
		x := r.toU[n]
		s := acc[x]
		if s == nil {
			s = &subtreeAcc{last: -1}
			acc[x] = s
		}
		if s.last != pairIdx {
			s.pairs++
			s.last = pairIdx
		}
		// The subtree's size: it is walked here, which costs its size,
		// and the subtrees are disjoint.
		stack = append(stack[:0], int32(n))
		for len(stack) > 0 {
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			s.nodes++
			for _, k := range r.children(c) {
				stack = append(stack, int32(k))
			}
		}
		s.weight += r.total[n]
	}
}

// subtrees keeps the subtrees found in every pair — a handler triggered in
// one run only is noise, not a change of topology (ZAM Section 2.3) — and
// returns the heaviest limit of them with the total count.
func subtrees(acc map[int32]*subtreeAcc, pairs int, u *union, kt *keyTable, limit int) ([]Subtree, int) {
	type item struct {
		x int32
		s *subtreeAcc
	}
	items := newBest(limit, func(p, q item) int {
		switch {
		case p.s.weight > q.s.weight:
			return -1
		case p.s.weight < q.s.weight:
			return 1
		}
		return u.compareCheap(kt, p.x, q.x)
	})
	count := 0
	for x, s := range acc {
		if s.pairs == pairs {
			items.add(item{x, s})
			count++
		}
	}
	out := []Subtree{}
	for _, it := range items.sorted() {
		thread, path := u.describe(kt, it.x)
		n := float64(pairs)
		out = append(out, Subtree{
			Thread: thread, Path: path,
			Nodes:  int(math.Round(float64(it.s.nodes) / n)),
			Weight: round(float64(it.s.weight) / n),
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
