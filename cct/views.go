package cct

// The views of the profile-views note (papers/profiling-views-call-graph-
// trees.txt): the tree itself is the top-down view; BottomUp and Flat are
// derived from it.

// BottomUp returns the bottom-up (inverted) tree: under each thread, the
// functions that had self time, and under each of them its callers. A node's
// Total is the weight of the stacks that end in the top-level function and
// pass through this chain of callers; its Self is the weight of the stacks
// whose outermost frame it is, so Total = Self + Σ children still holds.
// As the note says, no recursion detection is done in tree views.
func BottomUp(t *Tree) *Tree {
	u := New(t.SampleTypes)
	u.DefaultSampleType, u.PeriodType, u.Period = t.DefaultSampleType, t.PeriodType, t.Period
	u.DurationNanos, u.TimeNanos, u.Profiles = t.DurationNanos, t.TimeNanos, t.Profiles
	// Thread nodes first, in the original order, so threads keep their place.
	threadOf := map[NodeID]NodeID{}
	for _, th := range t.Children(RootID) {
		threadOf[th] = u.AddChild(RootID, u.Intern(t.FrameOf(th), t.FrameInfo[t.Nodes[th].Frame]))
	}
	for _, id := range t.PreOrder() {
		n := &t.Nodes[id]
		if n.Depth < 1 || allZero(t.Self(id)) {
			continue
		}
		if n.Depth == 1 { // self time on a thread node: samples with no frames
			addTo(u.Self(threadOf[id]), t.Self(id))
			continue
		}
		cur := threadOf[t.ThreadOf(id)]
		for a := id; t.Nodes[a].Depth > 1; a = t.Nodes[a].Parent {
			fid := t.Nodes[a].Frame
			cur = u.AddChild(cur, u.Intern(t.Frames[fid], t.FrameInfo[fid]))
		}
		addTo(u.Self(cur), t.Self(id))
	}
	u.ComputeTotals()
	return u
}

// A FlatEntry is one function of the flat view.
type FlatEntry struct {
	Function, File string
	// Self sums the function's self values; Total sums, over all stacks, the
	// values of stacks that contain the function, counting a stack once
	// however often a recursive function appears in it.
	Self, Total []int64
	// Line is the first line seen for the function.
	Line int64
}

// Flat returns the flat view, one entry per (function, file), in order of
// first appearance in a pre-order walk. Thread nodes are not functions and
// are left out.
func Flat(t *Tree) []FlatEntry {
	type key struct{ fn, file string }
	idx := map[key]int{}
	var out []FlatEntry
	onPath := map[int]int{} // entry index → occurrences on the current path
	// Iterative DFS with explicit enter/exit events: stacks are deep.
	type item struct {
		id   NodeID
		exit bool
	}
	stack := []item{{id: RootID}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := &t.Nodes[it.id]
		e := -1
		if n.Depth > 1 {
			f := t.Frames[n.Frame]
			k := key{f.Function, f.File}
			i, ok := idx[k]
			if !ok {
				i = len(out)
				idx[k] = i
				out = append(out, FlatEntry{
					Function: f.Function, File: f.File, Line: t.FrameInfo[n.Frame].Line,
					Self: make([]int64, len(t.SampleTypes)), Total: make([]int64, len(t.SampleTypes)),
				})
			}
			e = i
		}
		if it.exit {
			onPath[e]--
			continue
		}
		if e >= 0 {
			addTo(out[e].Self, t.Self(it.id))
			if onPath[e] == 0 {
				addTo(out[e].Total, t.Total(it.id))
			}
			onPath[e]++
			stack = append(stack, item{id: it.id, exit: true})
		}
		ch := t.Children(it.id)
		for i := len(ch) - 1; i >= 0; i-- {
			stack = append(stack, item{id: ch[i]})
		}
	}
	return out
}

func addTo(dst, src []int64) {
	for i, v := range src {
		dst[i] += v
	}
}

func allZero(v []int64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
