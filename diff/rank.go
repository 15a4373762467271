package diff

import (
	"container/heap"
	"slices"
)

// rankPaths is IntroPerf's differential path ranking (Algorithm 3,
// DiffRankPaths) over the union tree. The paths are the root-to-leaf paths
// of the new runs; a path's cost is the sum over its nodes of the node's own
// value delta, new − base, where the base is 0 for nodes the base runs lack.
// The top paths by cost are returned, and within each path the nodes are
// ranked by their own delta.
//
// Departures from the paper, each for a reason:
//   - Equivalent paths come from the matching (union tree), not from equal
//     function names along the whole path (Section 3.4.2): a path with one
//     renamed frame would otherwise count as entirely new, with its whole
//     cost. Node by node, matched nodes contribute their delta and unmatched
//     ones their full new value, which is the paper's rule applied per node.
//   - Costs use own values (normalized, Algorithm 3 lines 1-6), summed as
//     totals over all calls, not per-call means μ: when the number of calls
//     changes, a difference of means misses the regression entirely (twice
//     the calls at the same mean latency is twice the time).
//   - Nodes within a path are ranked by their own delta, not by their raw
//     latency v.μ (line 26): the hottest node of a differential ranking is
//     the one that changed most, not one that was always expensive — the
//     paper's own argument for differential ranking (Section 3.4.2).
//   - Only paths with a positive cost are ranked: a path that got cheaper
//     is not a candidate cause; nor is "(idle)" (isIdle).
//
// Costs are means over the runs of each side, so several runs per side
// smooth the ranking too. The cost of all paths is computed in one pass over
// the nodes (children have larger ids than parents), and the top N are kept
// in a heap, so ranking is O(n log N).
func rankPaths(u *union, kt *keyTable, top int) []RankedPath {
	n := u.len()
	cost := make([]float64, n)
	leaf := make([]bool, n)
	for x := 1; x < n; x++ {
		if u.depth[x] >= 2 {
			cost[x] = cost[u.parent[x]] + u.selfNew[x] - u.selfBase[x]
		}
		// "(idle)" is no work (isIdle): its paths are not ranked.
		leaf[x] = u.inNew[x] > 0 && !idle(u, kt, int32(x))
	}
	for x := 1; x < n; x++ {
		if u.inNew[x] > 0 {
			leaf[u.parent[x]] = false
		}
	}
	h := &pathHeap{u: u, kt: kt, cost: cost}
	for x := int32(1); int(x) < n; x++ {
		if !leaf[x] || u.depth[x] < 2 || round(cost[x]) <= 0 {
			continue
		}
		if h.Len() < top {
			heap.Push(h, x)
		} else if top > 0 && h.less(h.ids[0], x) {
			h.ids[0] = x
			heap.Fix(h, 0)
		}
	}
	best := slices.Clone(h.ids)
	slices.SortFunc(best, func(a, b int32) int {
		switch {
		case h.less(b, a):
			return -1
		case h.less(a, b):
			return 1
		}
		return 0
	})
	out := make([]RankedPath, 0, len(best))
	for i, x := range best {
		thread, frames := u.describe(kt, x)
		nodes := make([]PathNode, len(frames))
		for y, j := x, len(frames)-1; j >= 0; y, j = u.parent[y], j-1 {
			nodes[j] = PathNode{Frame: frames[j], Cost: round(u.selfNew[y] - u.selfBase[y])}
		}
		order := make([]int, len(nodes))
		for j := range order {
			order[j] = j
		}
		slices.SortStableFunc(order, func(a, b int) int {
			switch {
			case nodes[a].Cost > nodes[b].Cost:
				return -1
			case nodes[a].Cost < nodes[b].Cost:
				return 1
			}
			return 0
		})
		for r, j := range order {
			nodes[j].Rank = r + 1
		}
		out = append(out, RankedPath{Rank: i + 1, Thread: thread, Cost: round(cost[x]), Path: nodes})
	}
	return out
}

// pathHeap is a min-heap of path leaves: the root is the weakest of the best
// paths so far. "Weaker" means a lower cost, or an equal cost and a path
// that sorts later by name.
type pathHeap struct {
	u    *union
	kt   *keyTable
	cost []float64
	ids  []int32
}

// less reports whether path a ranks below path b.
func (h *pathHeap) less(a, b int32) bool {
	ca, cb := round(h.cost[a]), round(h.cost[b])
	if ca != cb {
		return ca < cb
	}
	return h.u.comparePaths(h.kt, a, b) > 0
}

func (h *pathHeap) Len() int           { return len(h.ids) }
func (h *pathHeap) Less(i, j int) bool { return h.less(h.ids[i], h.ids[j]) }
func (h *pathHeap) Swap(i, j int)      { h.ids[i], h.ids[j] = h.ids[j], h.ids[i] }
func (h *pathHeap) Push(x any)         { h.ids = append(h.ids, x.(int32)) }
func (h *pathHeap) Pop() any {
	x := h.ids[len(h.ids)-1]
	h.ids = h.ids[:len(h.ids)-1]
	return x
}
