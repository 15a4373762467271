package convert

import (
	"errors"
	"fmt"

	"github.com/ctdiff/ctdiff/internal/hashindex"
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

// newV8Frame converts a call frame. base is the numbering of its line and
// column: 0 for CDP call frames, 1 for legacy nodes. A call frame's
// position is where its function is defined (V8 records no call sites), so
// it is the function's StartLine too (v8Frame.stackFrame): same-named
// functions of one script ("(anonymous)", minified names) are told apart
// by it.
func newV8Frame(name, url string, line, col *float64, base int64) v8Frame {
	if name == "" {
		name = "(anonymous)"
	}
	return v8Frame{name: name, url: url, line: oneBased(line, base), column: oneBased(col, base)}
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
	index nodeIndex
	nodes []v8TreeNode
	// kids are the child lists of the nodes that have them, until finish.
	kids []v8Kids
	// frames are the nodes' frames, shared: a deep recursion repeats a
	// few frames in a million nodes. locs holds, per frame, its location
	// (profileBuilder.locLater) plus one once a stack holds it, else 0;
	// later the frames locLater left for release to add.
	frames hashindex.Table[v8Frame]
	locs   []int32
	later  []int32
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

// A v8TreeNode is a node of a tree: 48 bytes, since a hostile tree has a
// million.
type v8TreeNode struct {
	id       int64
	parentID int64
	pos      int64 // where the node was defined, for errors
	hits     int64 // hitCount as written, -1 if absent
	parent   int32 // index in nodes, -1 for a root; set by finish
	frame    int32 // in the tree's frames
	// hasParent says parentID is set.
	hasParent bool
}

// v8Kids are a node's children as written (ids), until finish.
type v8Kids struct {
	node int32
	ids  []int64
}

// A v8NewNode is a node, its frame and its children, before a tree holds
// them.
type v8NewNode struct {
	node     v8TreeNode
	frame    v8Frame
	children []int64
}

// A v8Frame is a call frame: its function's name and script, and its
// position, which is the function's (V8 records no call sites).
type v8Frame struct {
	name, url    string
	line, column int64 // 1-based, 0 when unknown
}

// stackFrame is the frame as readers make them: the position is the
// function's start too.
func (f v8Frame) stackFrame() stackFrame {
	return stackFrame{Name: f.name, File: f.url, Line: f.line, Column: f.column, StartLine: f.line}
}

func newV8Tree(at func(pos int64, format string, args ...any) error) *v8Tree {
	return &v8Tree{at: at}
}

// frameOf returns the frame of node n.
func (t *v8Tree) frameOf(n *v8TreeNode) *v8Frame { return &t.frames.Values[n.frame] }

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
func newTreeNode(n *v8Node, pos int64, intern func(string) string) (v8NewNode, error) {
	if n.ID == nil {
		return v8NewNode{}, errors.New(`profile node without an "id"`)
	}
	var cf v8CallFrame
	if n.CallFrame != nil {
		cf = *n.CallFrame
	}
	if intern != nil {
		cf.FunctionName, cf.URL = intern(cf.FunctionName), intern(cf.URL)
	}
	nd := v8TreeNode{
		id:   *n.ID,
		pos:  pos,
		hits: -1,
	}
	if n.Parent != nil {
		nd.parentID, nd.hasParent = *n.Parent, true
	}
	if n.HitCount != nil {
		nd.hits = *n.HitCount
	}
	return v8NewNode{nd, newV8Frame(cf.FunctionName, cf.URL, cf.LineNumber, cf.ColumnNumber, 0), n.Children}, nil
}

func (t *v8Tree) insert(nn v8NewNode) error {
	nd := nn.node
	if _, dup := t.index.get(nd.id); dup {
		return t.at(nd.pos, "profile node id %d is defined twice", nd.id)
	}
	x := int32(len(t.nodes))
	t.index.set(nd.id, x)
	nd.frame = t.frame(nn.frame)
	t.nodes = append(t.nodes, nd)
	if len(nn.children) > 0 {
		t.kids = append(t.kids, v8Kids{x, nn.children})
	}
	return nil
}

// frame returns the index of a frame in the tree's frames.
func (t *v8Tree) frame(f v8Frame) int32 {
	x, added := t.frames.Intern(f)
	if added {
		t.locs = append(t.locs, 0)
	}
	return x
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
			hits:      -1,
		}
		if n.HitCount != nil {
			nd.hits = *n.HitCount
		}
		if err := t.insert(v8NewNode{node: nd, frame: newV8Frame(n.FunctionName, n.URL, n.LineNumber, n.ColumnNumber, 1)}); err != nil {
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
	for _, k := range t.kids {
		p := &t.nodes[k.node]
		for _, child := range k.ids {
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
	}
	t.kids = nil
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
		frame: t.frame(v8Frame{name: fmt.Sprintf("(missing node %d)", id)})})
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
		if n.parent < 0 && t.frameOf(n).name == rootName && j != i {
			break
		}
		if t.locs[n.frame] == 0 {
			x, later := b.locLater(t.frameOf(n).stackFrame())
			t.locs[n.frame] = x + 1
			if later {
				t.later = append(t.later, n.frame)
			}
		}
		frames, owners = append(frames, t.locs[n.frame]-1), append(owners, j)
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
// The frames the layout left for later go to the builder once the nodes
// are gone.
func (t *v8Tree) release(b *profileBuilder) {
	t.nodes, t.above, t.path = nil, nil, nil
	b.addLater(len(t.later), func(k int) stackFrame { return t.frames.Values[t.later[k]].stackFrame() })
	t.frames, t.locs, t.later = hashindex.Table[v8Frame]{}, nil, nil
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
		if a := &t.nodes[path[k]]; a.parent >= 0 || t.frameOf(a).name != rootName {
			frames++ // stack skips only a top-level (root)
		}
		t.above[path[k]] = frames + 1
	}
	t.path = path
	return 1 + int(t.above[n.parent]-1)
}
