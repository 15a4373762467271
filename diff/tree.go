package diff

// A TreeNode is one calling context of the matched union tree (Result.Tree):
// every run of both sides is matched onto it, so a node stands for the same
// context in all runs, under its newest name when it was renamed. Reports
// that redraw the whole comparison (the pprof diff, the HTML flame graph)
// read it; everything else in a Result is derived from it.
type TreeNode struct {
	// Parent indexes Result.Tree, or is -1 for the synthetic root (index
	// 0). Children come after their parents.
	Parent int32
	// Graph indexes Result.Graph when the node is in the critical graph,
	// else it is -1.
	Graph int32
	// Frame is the function; for thread nodes (IsThread) Function holds
	// the thread's label (cct.ThreadLabel) and File is empty. The root's
	// Frame is empty.
	Frame    Frame
	IsThread bool
	// BaseRuns and NewRuns count the runs of each side that have the node.
	BaseRuns, NewRuns int32
	// Base and New are the mean inclusive values, BaseSelf and NewSelf the
	// mean own values, over all runs of a side (0 for runs without the
	// node). They are not rounded, so sums over nodes stay exact. As in
	// Side.Total, the inclusive values of threads and the root leave out
	// "(idle)", whose own values are still listed.
	Base, New         float64
	BaseSelf, NewSelf float64
}

// exportTree returns the union tree as TreeNodes, with the critical graph's
// nodes marked.
func exportTree(u *union, kt *keyTable, graph []GraphNode, ids []int32) []TreeNode {
	out := make([]TreeNode, u.len())
	for x := range out {
		n := TreeNode{
			Parent:   u.parent[x],
			Graph:    -1,
			BaseRuns: u.baseRuns(int32(x)), NewRuns: u.newRuns(int32(x)),
			Base: u.meanBase[x], New: u.meanNew[x],
			BaseSelf: u.selfBase[x], NewSelf: u.selfNew[x],
		}
		switch d := u.depth[x]; {
		case d == 1:
			n.IsThread = true
			n.Frame.Function = threadLabel(kt.frames[u.key[x]])
		case d > 1:
			kf := kt.frames[u.key[x]]
			n.Frame = kf.frame()
		}
		out[x] = n
	}
	for i := range graph {
		out[ids[i]].Graph = int32(i)
	}
	return out
}
