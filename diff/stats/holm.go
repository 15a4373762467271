package stats

import (
	"cmp"
	"math"
	"slices"
)

// Holm returns Holm-adjusted p-values: a node is significant when its
// adjusted p-value is ≤ α, and the chance that any node of a comparison is
// falsely significant stays ≤ α (family-wise error rate).
//
// Why Holm and not Benjamini–Hochberg: the tested nodes are nested (a
// caller's value contains its callees'), so one real regression makes every
// node on its path a true discovery — ten or more. BH lets the number of
// false discoveries grow with the number of true ones, so each real
// regression buys about half a false cause elsewhere; the accuracy
// simulation (BENCHMARKS.md, "diff: speed and design measurements")
// measured node precision 89% and 87% with BH against 96% and 96% with
// Holm, at equal recall. Holm's
// usual cost, power, is small here: moderated t-tests give real regressions
// p-values far below α divided by the number of nodes tested.
func Holm(p []float64) []float64 {
	n := len(p)
	order := ascending(p)
	q := make([]float64, n)
	maxQ := 0.0
	for r, i := range order {
		maxQ = math.Max(maxQ, math.Min(1, p[i]*float64(n-r)))
		q[i] = maxQ
	}
	return q
}

// An ascendingCursor reads the indexes of p in ascending's order, where
// the p[i] with exact[i] false (nil: none) all hold one value c: only the
// others are sorted, and the bounded ones merged in index order as they
// are read, without a list of them. In a family of a million tests nearly
// all are bounded (5.6 M of 5.6 M less 3,795 at 1.6 M stacks): listing
// them, and the order, was most of TreeHolm's time.
type ascendingCursor struct {
	p      []float64
	exact  []bool
	c      float64
	sorted []int // the exact ones, ascending
	e, l   int   // next in sorted; the next index that may be bounded
}

func newAscendingCursor(p []float64, exact []bool) *ascendingCursor {
	cur := &ascendingCursor{p: p, exact: exact, c: math.NaN(), l: len(p)}
	if exact == nil {
		cur.sorted = ascending(p)
		return cur
	}
	n := 0
	for i, e := range exact {
		if e {
			n++
		} else if cur.l == len(p) {
			cur.l, cur.c = i, p[i]
		}
	}
	xs, at := make([]float64, 0, n), make([]int, 0, n)
	for i, e := range exact {
		if e {
			xs, at = append(xs, p[i]), append(at, i)
		}
	}
	cur.sorted = ascending(xs)
	for r, i := range cur.sorted {
		cur.sorted[r] = at[i]
	}
	return cur
}

// peek returns the next index, -1 after the last.
func (cur *ascendingCursor) peek() int {
	for cur.l < len(cur.p) && cur.exact[cur.l] {
		cur.l++
	}
	if cur.e < len(cur.sorted) {
		i := cur.sorted[cur.e]
		if cur.l < len(cur.p) && (cur.c < cur.p[i] || cur.c == cur.p[i] && cur.l < i) {
			return cur.l
		}
		return i
	}
	if cur.l < len(cur.p) {
		return cur.l
	}
	return -1
}

// advance passes the index peek returned.
func (cur *ascendingCursor) advance() {
	if i := cur.peek(); i >= 0 && i == cur.l {
		cur.l++
	} else if i >= 0 {
		cur.e++
	}
}

// ascending returns the indexes of p in increasing order of value (stable,
// so equal p-values keep node order and the adjustment is deterministic).
func ascending(p []float64) []int {
	// Sorting (value, index) pairs, ties by index, is the stable sort
	// without its merging, and reads each p-value once.
	type item struct {
		p float64
		i int
	}
	items := make([]item, len(p))
	for i, v := range p {
		items[i] = item{v, i}
	}
	slices.SortFunc(items, func(a, b item) int {
		switch {
		case a.p < b.p:
			return -1
		case a.p > b.p:
			return 1
		}
		return a.i - b.i
	})
	order := make([]int, len(p))
	for r, it := range items {
		order[r] = it.i
	}
	return order
}

// TreeHolm returns adjusted p-values of a family whose hypotheses form a
// forest (parent[i] is i's parent hypothesis, -1 for a root): Holm's
// procedure, except that the level a rejected hypothesis held goes to its
// children, not to everyone.
//
// It is a sequential rejection procedure (Goeman and Solari 2010, "The
// sequential rejection principle of familywise error control"), the
// graphical kind of Bretz et al. (2009) with a tree for the graph: every
// hypothesis starts with weight 1/m, as in Holm's; when one is rejected
// its weight (its own and what it received) is split equally among its
// children, passing on through children already rejected, and a rejected
// hypothesis without children puts it in a pool shared equally by all
// hypotheses not rejected. A hypothesis is rejected when p ≤ α × its
// weight. The weights of the hypotheses not rejected sum to at most 1
// whatever has been rejected (weight moves, it is never made), and no
// rejection lowers any weight (monotonicity): the two conditions under
// which the principle bounds the family-wise error by α under any
// dependence, as Holm's is (Goeman and Solari, Theorem 1, with
// Bonferroni's inequality for the single step).
//
// Why: a family of a whole tree (10^5 hypotheses) makes Holm ask p ≤ α/10^5
// of every node, and the nodes under a regression, which more runs resolve
// one level further down each, do not reach that (on the synthetic pair, 10
// runs a side lost causes 3 runs found). Here the α spent on a regressed
// caller is passed to its callees, where the next rejection is likely, and
// the nodes no rejection reaches keep Holm's level up to the share their
// rejected neighbours keep in the tree (1/m + the pool's share against
// Holm's 1/(m − rejected)). Unlike ZAM's Definition 2 and Meinshausen's
// (2008) hierarchical test, a node is tested whether or not its ancestors
// were rejected (see statsGraph for why).
//
// The adjusted p-value of a hypothesis is the smallest α at which the
// procedure rejects it; rejecting one hypothesis at a time, the one of
// least p/weight, gives them all (Bretz et al., Algorithm 1). Once that
// reaches 1 the others are 1.
func TreeHolm(p []float64, parent []int32, size []float64) []float64 {
	return TreeHolmBounded(p, nil, parent, size)
}

// TreeHolmBounded is TreeHolm where p[i] is only a lower bound of the
// p-value for the i with exact[i] false (nil: all exact). Adjusted
// p-values only grow with the p-values, so a bounded hypothesis adjusted
// to 1 is 1; one adjusted below 1 makes the result unreliable, and the
// caller finishes its p-value and calls again. Until then the bounded
// ones, all at one bound, need no sorting.
func TreeHolmBounded(p []float64, exact []bool, parent []int32, size []float64) []float64 {
	m := len(p)
	q := make([]float64, m)
	if m == 0 {
		return q
	}
	for i := range q {
		q[i] = 1
	}
	th := newTreeHolmState(p, exact, parent, size)
	qmax := 0.0
	for th.left > 0 {
		best, bestR := th.next()
		qmax = math.Max(qmax, math.Min(1, bestR))
		if qmax >= 1 {
			break
		}
		q[best] = qmax
		th.reject(best)
	}
	return q
}

// treeHolmState is TreeHolmBounded's procedure between rejections.
type treeHolmState struct {
	p           []float64
	size        []float64
	start, kids []int32   // children in CSR form
	own         float64   // 1/m
	w           []float64 // own weight plus what was passed down
	rejected    []bool
	heir        []bool // received weight: in raised until rejected
	// raised holds the heirs not rejected in descending order of p (ties
	// by index), and wmax bounds their weights: p[j]/(wmax+share) is then
	// a lower bound of j's ratio, rising from the end of raised to its
	// start, and the scan for the least ratio, from the end, stops where
	// it passes the best so far. Scanning every heir at every rejection
	// was quadratic (30 + 30 runs of the 20k synth: 1 s of 5). Descending,
	// the heirs rejected, of least p, mostly leave from the end, and the
	// heirs of least p join near it, where few move: ascending, every
	// rejection moved all the others (runs without variance, p = 0 for
	// every node that grew: 3 of 3.1 s).
	raised []int32
	wmax   float64
	pool   float64
	left   int
	order  *ascendingCursor // from the hypotheses still at weight 1/m
	stack  []int32
	pass   []float64
}

func newTreeHolmState(p []float64, exact []bool, parent []int32, size []float64) *treeHolmState {
	m := len(p)
	th := &treeHolmState{p: p, size: size, own: 1 / float64(m), left: m,
		w: make([]float64, m), rejected: make([]bool, m), heir: make([]bool, m),
		order: newAscendingCursor(p, exact)}
	th.start, th.kids = childrenCSR(parent)
	for i := range th.w {
		th.w[i] = th.own
	}
	return th
}

// childrenCSR returns the children of each node of the forest parent
// (-1 for a root) in CSR form: node i's are kids[start[i]:start[i+1]].
func childrenCSR(parent []int32) (start, kids []int32) {
	m := len(parent)
	start = make([]int32, m+1)
	for _, pa := range parent {
		if pa >= 0 {
			start[pa+1]++
		}
	}
	for i := range m {
		start[i+1] += start[i]
	}
	kids = make([]int32, start[m])
	fill := slices.Clone(start[:m])
	for i, pa := range parent {
		if pa >= 0 {
			kids[fill[pa]] = int32(i)
			fill[pa]++
		}
	}
	return start, kids
}

// heirMore orders raised: descending p, ties by descending index.
func (th *treeHolmState) heirMore(a, b int32) int {
	if c := cmp.Compare(th.p[b], th.p[a]); c != 0 {
		return c
	}
	return cmp.Compare(b, a)
}

// next returns the hypothesis not rejected of least ratio p/weight, and
// that ratio.
func (th *treeHolmState) next() (best int32, bestR float64) {
	p := th.p
	share := th.pool / float64(th.left)
	best, bestR = int32(-1), math.Inf(1)
	j := th.order.peek()
	for j >= 0 && (th.rejected[j] || th.heir[j]) {
		th.order.advance()
		j = th.order.peek()
	}
	if j >= 0 {
		best = int32(j)
		bestR = p[best] / (th.own + share)
	}
	for k := len(th.raised) - 1; k >= 0; k-- {
		j := th.raised[k]
		// Division and addition round monotonically, so the bound
		// is never above j's ratio; a tie may still win by index.
		if bound := p[j] / (th.wmax + share); bound > bestR || p[j] == 0 && bestR == 0 && j > best {
			// Past j every ratio is above the best, or (p = 0, which
			// only p = 0 ties) a larger index loses the tie: without
			// the second case, runs without variance (p = 0 for every
			// node that grew) scanned every heir at every rejection.
			break
		}
		if r := p[j] / (th.w[j] + share); r < bestR || r == bestR && j < best {
			best, bestR = j, r
		}
	}
	return best, bestR
}

// reject rejects hypothesis best and passes its weight on: split among
// its children by size, through those already rejected, and into the
// pool from a rejected hypothesis without children.
func (th *treeHolmState) reject(best int32) {
	th.rejected[best] = true
	if th.heir[best] {
		k, _ := slices.BinarySearchFunc(th.raised, best, th.heirMore)
		th.raised = slices.Delete(th.raised, k, k+1)
	}
	th.left--
	th.stack, th.pass = append(th.stack[:0], best), append(th.pass[:0], th.w[best])
	for len(th.stack) > 0 {
		h, mass := th.stack[len(th.stack)-1], th.pass[len(th.pass)-1]
		th.stack, th.pass = th.stack[:len(th.stack)-1], th.pass[:len(th.pass)-1]
		ks := th.kids[th.start[h]:th.start[h+1]]
		if len(ks) == 0 {
			th.pool += mass
			continue
		}
		th.split(ks, mass)
	}
}

// split divides mass among the children ks by size (equally when they
// have none), passing on the shares of those already rejected.
func (th *treeHolmState) split(ks []int32, mass float64) {
	total := 0.0
	for _, c := range ks {
		total += th.size[c]
	}
	for _, c := range ks {
		part := mass / float64(len(ks))
		if total > 0 {
			part = mass * th.size[c] / total
		}
		if th.rejected[c] {
			th.stack, th.pass = append(th.stack, c), append(th.pass, part)
			continue
		}
		th.w[c] += part
		th.wmax = math.Max(th.wmax, th.w[c])
		if !th.heir[c] {
			th.heir[c] = true
			k, _ := slices.BinarySearchFunc(th.raised, c, th.heirMore)
			th.raised = slices.Insert(th.raised, k, c)
		}
	}
}
