package diff

import (
	"cmp"
	"slices"

	"github.com/ctdiff/ctdiff/cct"
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
	// "(idle)" is no work (isIdle): its paths are not ranked. Asked per
	// key, not per node.
	idleKey := make([]bool, len(kt.frames))
	for k, kf := range kt.frames {
		idleKey[k] = isIdle(cct.Frame{Function: kf.Function, Kind: kf.Kind})
	}
	// One pass: a parent's id is below its children's, so its leaf mark
	// is set before any child clears it, and its cost is read where its
	// mark is cleared (a 1.6 M-stack union's 7.6 M nodes were read twice).
	// Only the new runs' nodes: the paths are theirs, and a node the new
	// runs lack has no descendant they have (the matching is top-down), so
	// no ranked path reads its cost (an independent pair of 200k-stack Go
	// profiles: 1.1 M of the union's 2.5 M nodes are the base run's only).
	for x := 1; x < n; x++ {
		if u.newRuns(int32(x)) == 0 {
			continue
		}
		p := u.parent[x]
		if u.depth[x] >= 2 {
			cost[x] = cost[p] + u.selfNew[x] - u.selfBase[x]
		}
		leaf[x] = !(u.depth[x] >= 2 && idleKey[u.key[x]])
		leaf[p] = false
	}
	// Higher cost first, then the path that sorts first by name.
	paths := newBest(top, func(a, b int32) int {
		if ca, cb := round(cost[a]), round(cost[b]); ca != cb {
			return cmp.Compare(cb, ca)
		}
		return u.comparePaths(kt, a, b)
	})
	for x := int32(1); int(x) < n; x++ {
		if leaf[x] && u.depth[x] >= 2 && round(cost[x]) > 0 {
			paths.add(x)
		}
	}
	best := paths.sorted()
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
