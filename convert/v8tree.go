package convert

import (
	"errors"
	"fmt"

	"github.com/google/pprof/profile"
)

// V8 CPU profiles, as .cpuprofile files and inside Chrome traces, share one
// shape: a top-down call tree of nodes plus a list of sampled node ids with
// time deltas. This file holds the tree; v8samples.go turns samples into
// pprof. Facts and sources: docs/formats-devtools.md (b) and (c).

// v8CallFrame is CDP's Runtime.CallFrame. lineNumber and columnNumber are
// 0-based; -1 or absent means unknown. scriptId is not kept: it is per
// isolate, so it cannot identify a function across runs.
type v8CallFrame struct {
	FunctionName string   `json:"functionName"`
	URL          string   `json:"url"`
	LineNumber   *float64 `json:"lineNumber"`
	ColumnNumber *float64 `json:"columnNumber"`
}

// v8Node is a Profiler.ProfileNode. It names its parent, its children, or
// both: DevTools accepts either (CPUProfileDataModel.translateProfileTree).
// positionTicks (per-line hit counts of the node) and deoptReason are not
// read: they cannot be tied to individual timestamped samples.
type v8Node struct {
	ID        *int64       `json:"id"`
	CallFrame *v8CallFrame `json:"callFrame"`
	Parent    *int64       `json:"parent"`
	Children  []int64      `json:"children"`
	HitCount  *int64       `json:"hitCount"`
}

// v8LegacyNode is a node of the legacy nested format ({"head": ...}, Node
// <= 8's v8-profiler). Its call frame is inline and 1-based, as V8's
// CpuProfileNode::GetLineNumber returns it; DevTools subtracts 1 when it
// converts such nodes (CPUProfileNode constructor).
type v8LegacyNode struct {
	ID           *int64          `json:"id"`
	FunctionName string          `json:"functionName"`
	URL          string          `json:"url"`
	LineNumber   *float64        `json:"lineNumber"`
	ColumnNumber *float64        `json:"columnNumber"`
	HitCount     *int64          `json:"hitCount"`
	Children     []*v8LegacyNode `json:"children"`
}

// v8Frame converts a call frame. base is the numbering of its line and
// column: 0 for CDP call frames, 1 for legacy nodes. A call frame's
// position is where its function is defined (V8 records no call sites), so
// it is the function's StartLine too: same-named functions of one script
// ("(anonymous)", minified names) are told apart by it.
func v8Frame(name, url string, line, col *float64, base int64) stackFrame {
	if name == "" {
		name = "(anonymous)"
	}
	l := oneBased(line, base)
	return stackFrame{Name: name, File: url, Line: l, Column: oneBased(col, base), StartLine: l}
}

// oneBased converts a position numbered from base to 1-based, 0 if unknown.
func oneBased(v *float64, base int64) int64 {
	if v == nil || *v < float64(base) || *v > 1<<40 {
		return 0
	}
	return int64(*v) - base + 1
}

// rootName is the synthetic root V8 puts above every stack; pprof stacks
// start at the outermost real frame (docs/formats.md, "The interchange").
const rootName = "(root)"

// A v8Tree is a profile's call tree. Nodes are added in any order, with
// parent links, child lists or both; finish resolves and checks them.
type v8Tree struct {
	index  nodeIndex
	nodes  []v8TreeNode
	frames map[stackFrame]*v8TreeFrame // the nodes' frames, shared
	// at positions errors: a byte offset or an event index.
	at func(pos int64, format string, args ...any) error
	// missing counts node ids that are referenced (as a parent or by a
	// sample) but never defined, and refs the references to them.
	missing, refs int
	// above[i]-1 is how many frames node i and its ancestors put in the
	// stack of a node below it; 0 means not computed (see stackDepth).
	above []int32
	path  []int32 // scratch for stackDepth
	// stacks are the sampled nodes' stacks, once laid out (layout).
	stacks []stackRef
}

type v8TreeNode struct {
	id        int64
	parentID  int64
	hasParent bool
	parent    int32        // index in nodes, -1 for a root; set by finish
	pos       int64        // where the node was defined, for errors
	frame     *v8TreeFrame // shared by the tree's nodes of one frame (insert)
	hits      int64        // hitCount as written, -1 if absent
	children  []int64      // child ids as written, until finish
}

// A v8TreeFrame is a node's frame and, once a stack holds it, its
// location. Nodes share them: a deep recursion repeats a few frames
// in a million nodes.
type v8TreeFrame struct {
	stackFrame
	loc *profile.Location
}

func newV8Tree(at func(pos int64, format string, args ...any) error) *v8Tree {
	return &v8Tree{frames: map[stackFrame]*v8TreeFrame{}, at: at}
}

// A nodeIndex maps node ids to indexes in v8Tree.nodes. V8 numbers the
// nodes of a profile 1, 2, 3...: such ids are looked up in a slice, which
// for a trace's 28.8 M samples is a second of CPU less than a map and a
// tenth of its memory; others (negative, or far above the node count) in a
// map.
type nodeIndex struct {
	dense []int32 // index+1 by id, 0 for none
	other map[int64]int32
}

func (x *nodeIndex) get(id int64) (int32, bool) {
	if uint64(id) < uint64(len(x.dense)) && x.dense[id] > 0 {
		return x.dense[id] - 1, true
	}
	// The slice may have grown past an id set in the map before.
	i, ok := x.other[id]
	return i, ok
}

// set maps id to i, the (i+1)-th node.
func (x *nodeIndex) set(id int64, i int32) {
	if id >= 0 && id < denseBound(int(i)+1) {
		if int(id) >= len(x.dense) {
			x.dense = append(x.dense, make([]int32, int(id)+1-len(x.dense))...)
		}
		x.dense[id] = i + 1
		return
	}
	if x.other == nil {
		x.other = map[int64]int32{}
	}
	x.other[id] = i
}

// denseBound is the bound below which the ids of n nodes go in the slice:
// it stays within a few times the nodes' own memory.
func denseBound(n int) int64 { return 2*int64(n) + 1024 }

// compact moves to the slice the ids of the map that fit it now that the
// tree has all its n nodes: nodes arrive in the order they are first
// sampled (devtrace's trace sends ids up to 150,000 in any order), so an
// id set early may be far above the nodes there were then.
func (x *nodeIndex) compact(n int) {
	top := int64(len(x.dense))
	for id := range x.other {
		if id >= top && id < denseBound(n) {
			top = id + 1
		}
	}
	if top == int64(len(x.dense)) && len(x.other) == 0 {
		return
	}
	x.dense = append(x.dense, make([]int32, int(top)-len(x.dense))...)
	for id, i := range x.other {
		if id >= 0 && id < top {
			x.dense[id] = i + 1
			delete(x.other, id)
		}
	}
}

// add adds a CDP node defined at pos.
func (t *v8Tree) add(n *v8Node, pos int64) error {
	nd, err := newTreeNode(n, pos, nil)
	if err != nil {
		return t.at(pos, "%v", err)
	}
	return t.insert(nd)
}

// newTreeNode converts a decoded node to the tree's compact form, interning
// its strings when intern is not nil (a trace repeats each URL in thousands
// of nodes).
func newTreeNode(n *v8Node, pos int64, intern func(string) string) (v8TreeNode, error) {
	if n.ID == nil {
		return v8TreeNode{}, errors.New(`profile node without an "id"`)
	}
	var cf v8CallFrame
	if n.CallFrame != nil {
		cf = *n.CallFrame
	}
	if intern != nil {
		cf.FunctionName, cf.URL = intern(cf.FunctionName), intern(cf.URL)
	}
	nd := v8TreeNode{
		id:       *n.ID,
		pos:      pos,
		frame:    &v8TreeFrame{stackFrame: v8Frame(cf.FunctionName, cf.URL, cf.LineNumber, cf.ColumnNumber, 0)},
		hits:     -1,
		children: n.Children,
	}
	if n.Parent != nil {
		nd.parentID, nd.hasParent = *n.Parent, true
	}
	if n.HitCount != nil {
		nd.hits = *n.HitCount
	}
	return nd, nil
}

func (t *v8Tree) insert(nd v8TreeNode) error {
	if _, dup := t.index.get(nd.id); dup {
		return t.at(nd.pos, "profile node id %d is defined twice", nd.id)
	}
	t.index.set(nd.id, int32(len(t.nodes)))
	if f, ok := t.frames[nd.frame.stackFrame]; ok {
		nd.frame = f
	} else {
		t.frames[nd.frame.stackFrame] = nd.frame
	}
	t.nodes = append(t.nodes, nd)
	return nil
}

// addLegacy adds a legacy nested tree, iteratively: real trees are deep.
func (t *v8Tree) addLegacy(head *v8LegacyNode, pos int64) error {
	type item struct {
		n      *v8LegacyNode
		parent int64
		has    bool
	}
	todo := []item{{n: head}}
	for len(todo) > 0 {
		it := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		n := it.n
		if n == nil {
			return t.at(pos, "null node in the legacy \"head\" tree")
		}
		if n.ID == nil {
			return t.at(pos, "legacy profile node %q without an \"id\"", n.FunctionName)
		}
		nd := v8TreeNode{
			id:        *n.ID,
			pos:       pos,
			parentID:  it.parent,
			hasParent: it.has,
			frame:     &v8TreeFrame{stackFrame: v8Frame(n.FunctionName, n.URL, n.LineNumber, n.ColumnNumber, 1)},
			hits:      -1,
		}
		if n.HitCount != nil {
			nd.hits = *n.HitCount
		}
		if err := t.insert(nd); err != nil {
			return err
		}
		for i := len(n.Children) - 1; i >= 0; i-- {
			todo = append(todo, item{n: n.Children[i], parent: nd.id, has: true})
		}
	}
	return nil
}

// finish resolves parent links and rejects nodes with two parents and
// cycles. A child list naming an undefined node is ignored (no sample can
// reach that node); a parent link to one is kept as a placeholder node.
func (t *v8Tree) finish() error {
	t.index.compact(len(t.nodes))
	for i := range t.nodes {
		p := &t.nodes[i]
		for _, child := range p.children {
			ci, ok := t.index.get(child)
			if !ok {
				continue
			}
			c := &t.nodes[ci]
			if c.hasParent && c.parentID != p.id {
				return t.at(p.pos, "node %d has two parents, %d and %d", child, c.parentID, p.id)
			}
			c.parentID, c.hasParent = p.id, true
		}
		p.children = nil
	}
	for i := range len(t.nodes) { // placeholders appended here need no resolving
		n := &t.nodes[i]
		n.parent = -1
		if n.hasParent {
			n.parent = t.resolve(n.parentID)
		}
	}
	return t.checkAcyclic()
}

// resolve returns the index of node id. An id no node has gets a
// placeholder root node "(missing node ID)", so that the samples below it
// keep their weight and the gap shows. It happens in traces that lost
// chunks (speedscope's Chrome_141 sample); callers warn about t.missing.
func (t *v8Tree) resolve(id int64) int32 {
	t.refs++
	if i, ok := t.index.get(id); ok {
		t.refs--
		return i
	}
	t.missing++
	i := int32(len(t.nodes))
	t.index.set(id, i)
	t.nodes = append(t.nodes, v8TreeNode{id: id, parent: -1, hits: -1,
		frame: &v8TreeFrame{stackFrame: stackFrame{Name: fmt.Sprintf("(missing node %d)", id)}}})
	return i
}

// checkAcyclic walks every parent chain once (colouring nodes), so a loop of
// parent links is an error rather than an endless walk later.
func (t *v8Tree) checkAcyclic() error {
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]uint8, len(t.nodes))
	var path []int32
	for i := range t.nodes {
		path = path[:0]
		j := int32(i)
		for j >= 0 && state[j] == unseen {
			state[j] = onPath
			path = append(path, j)
			j = t.nodes[j].parent
		}
		if j >= 0 && state[j] == onPath {
			return t.at(t.nodes[j].pos, "the parent links of node %d form a loop", t.nodes[j].id)
		}
		for _, k := range path {
			state[k] = done
		}
	}
	return nil
}

// walk appends node i's stack, leaf first, without the synthetic (root)
// unless the sample is on (root) itself (never seen in practice; keeping
// the frame keeps the sample's weight visible); it is a stackWalker. Every
// node on the stack owns the stack's tail from its frame on.
func (t *v8Tree) walk(i int32, b *profileBuilder, frames, owners []int32) ([]int32, []int32) {
	for j := i; j >= 0; j = t.nodes[j].parent {
		n := &t.nodes[j]
		if n.parent < 0 && n.frame.Name == rootName && j != i {
			break
		}
		if n.frame.loc == nil {
			n.frame.loc = b.Location(n.frame.stackFrame)
		}
		frames, owners = append(frames, int32(n.frame.loc.ID-1)), append(owners, j)
	}
	return frames, owners
}

// layout lays out the stacks of the sampled nodes (each once) in sp.
func (t *v8Tree) layout(sp *stackPool, b *profileBuilder, sampled []int32) error {
	t.stacks = make([]stackRef, len(t.nodes))
	return sp.layout(sampled, func(n int32) int { return t.stackDepth(n) }, t.stacks,
		func(n int32, frames, owners []int32) ([]int32, []int32) { return t.walk(n, b, frames, owners) })
}

// release drops what only finish and layout need, once the sampled
// nodes' stacks are laid out: samples then need only the index and stacks.
func (t *v8Tree) release() {
	t.nodes, t.frames, t.above, t.path = nil, nil, nil, nil
}

// stackDepth returns how many frames walk(i) gives, without walking, in
// time linear in the nodes over all calls: depths are memoized top down.
func (t *v8Tree) stackDepth(i int32) int {
	n := &t.nodes[i]
	if n.parent < 0 {
		return 1 // a root is a one-frame stack, even (root) itself
	}
	if len(t.above) < len(t.nodes) {
		t.above = append(t.above, make([]int32, len(t.nodes)-len(t.above))...)
	}
	path := t.path[:0]
	j := n.parent
	for j >= 0 && t.above[j] == 0 {
		path = append(path, j)
		j = t.nodes[j].parent
	}
	frames := int32(0)
	if j >= 0 {
		frames = t.above[j] - 1
	}
	for k := len(path) - 1; k >= 0; k-- {
		if a := &t.nodes[path[k]]; a.parent >= 0 || a.frame.Name != rootName {
			frames++ // stack skips only a top-level (root)
		}
		t.above[path[k]] = frames + 1
	}
	t.path = path
	return 1 + int(t.above[n.parent]-1)
}
