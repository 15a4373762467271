package cct

import (
	"fmt"
	"slices"

	"github.com/ctdiff/ctdiff/internal/hashindex"
)

// A FrameID indexes Tree.Frames.
type FrameID int32

// A NodeID indexes Tree.Nodes. It doubles as IntroPerf's path id.
type NodeID int32

// RootID is the synthetic root; NoNode marks "no node" (the root's parent).
const (
	RootID NodeID = 0
	NoNode NodeID = -1
)

// A Kind says what a node stands for.
type Kind uint8

const (
	KindFunction Kind = iota // a stack frame
	KindThread               // a thread (the root's children)
	KindRoot                 // the synthetic root
)

// A Frame is the identity of a node among its siblings: two nodes under
// matched parents are "the same" when their Frames are equal.
type Frame struct {
	// Function is the function name; empty for thread frames.
	Function string
	// File is the source file, script URL or module; empty for thread
	// frames.
	File string
	// CallSite is the caller's line at which this frame was called, in
	// call-site mode (PARCS Section 2.1); 0 otherwise.
	CallSite int64
	// StartLine and StartColumn are where the function is defined, when
	// the profile says so (pprof's Function.start_line; V8 call frames):
	// two functions of one script may share a name ("(anonymous)", a
	// minified "t") and are still two functions. 0 when unknown, and for
	// Go functions (.go and .s files), whose names are unique already, so
	// that a function that moved stays one node when profiles of two
	// builds are merged. Across versions lines shift: diff matches
	// same-named functions by their order, not by these numbers.
	StartLine, StartColumn int64
	// Thread and Process name a thread frame (KindThread): the thread and
	// process labels of its samples (either may be empty). Empty for other
	// frames.
	Thread, Process string
	// Ordinal numbers threads of the same name within one run (0, 1, ...).
	Ordinal int32
	Kind    Kind
}

// FrameInfo holds display attributes of a frame that are not part of its
// identity: the first line and column seen and the raw (system) name.
type FrameInfo struct {
	Line, Column int64
	SystemName   string
}

// A ValueType names a sample type the pprof way ("cpu", "nanoseconds").
type ValueType struct{ Type, Unit string }

func (v ValueType) String() string { return v.Type + "/" + v.Unit }

// A Node is one calling context. It holds no pointers (its children are a
// range of the tree's child array, read with Tree.Children), so a tree of a
// million nodes is one 24 MB block the garbage collector never scans and
// writes to it need no write barriers: with a Children slice per node it
// was 48 MB, and writing the nodes of a new tree was a third of building it.
type Node struct {
	Frame  FrameID
	Parent NodeID // NoNode for the root
	// Depth is 0 for the root, 1 for threads, 2 for top-level functions.
	Depth int32
	// The node's children, in order of first execution, are
	// Tree.kids[kidOff : kidOff+kidLen]; the list may grow in place up to
	// kidCap.
	kidOff, kidLen, kidCap int32
}

// A Tree is a calling-context tree. Build one with a Builder; after Finish
// it is read-only by convention.
type Tree struct {
	Header

	Frames    []Frame
	FrameInfo []FrameInfo
	Nodes     []Node

	// Timeline holds one entry per timestamped sample, sorted by thread then
	// time, when Options.Timeline was set and the input had timestamps.
	Timeline []TimedSample

	// Latency is the IntroPerf latency annotation (the PA-CCT, latency.go);
	// nil unless InferLatency ran.
	Latency *Latency

	// kids holds every node's child list (Node.kidOff).
	kids []NodeID
	// counts holds Tree.Count per node; nil when no count is known.
	counts []int64

	// self and total hold len(SampleTypes) values per node, node after
	// node (Tree.Self, Tree.Total): two flat arrays instead of two slices
	// per node halve a node's size and keep the garbage collector off them.
	// A tree that keeps one sample type's values (Options.OneSampleType)
	// holds that type's only, one per node, and the root's of every type
	// in rootSelf and rootTotal.
	self, total []int64
	// only is the sample type (+ 1) whose values alone self and total
	// hold; 0 when they hold every type's.
	only                int
	rootSelf, rootTotal []int64

	// frameIdx finds Frames by their hash: a million frames of distinct
	// functions took 150-250 MB in a map keyed by the frames.
	frameIdx  hashindex.Index
	frameSeed hashindex.Seed
	// childIdx indexes the children of wide nodes only (more than
	// wideChildren children); narrow nodes, almost all of them, are
	// searched in their Children list, which costs less than a map entry
	// per node in time and memory.
	childIdx map[edge]NodeID
}

// A Header is what a tree says of its profiles besides their stacks: the
// sample types, the period and when and how long they were recorded. It
// is what a caller keeps of a tree it has handed on (a diff.Fold reads the
// tree and drops it), to name the kind of profile the tree came from.
type Header struct {
	SampleTypes []ValueType
	// DefaultSampleType is the pprof default_sample_type, or "".
	DefaultSampleType string
	// Period and PeriodType come from the (first) profile.
	PeriodType ValueType
	Period     int64
	// DurationNanos sums the inputs' durations, when known.
	DurationNanos int64
	// TimeNanos is when the earliest input was recorded (pprof's
	// time_nanos, Unix nanoseconds), 0 when none says.
	TimeNanos int64
	// Profiles counts the profiles merged into the tree.
	Profiles int
}

// wideChildren is the number of children up to which a node's children are
// found by scanning rather than by childIdx.
const wideChildren = 8

// A TimedSample is one sample in time: its thread node, its leaf node
// (the full stack is the leaf's path) and its timestamp in nanoseconds.
type TimedSample struct {
	Thread NodeID
	Leaf   NodeID
	Time   int64
	// Profile is the index (in Add order) of the profile the sample came
	// from: timestamps of different profiles are not comparable.
	Profile int32
	// Event marks a sample that records an event rather than a stack
	// sample: 0 in a samples/count sample type, as JFR allocation events
	// beside CPU or wall-clock samples are. Latency inference leaves events
	// out: interleaved with a thread's stack samples they would cut and
	// stretch its function instances, and their bursts would shrink the
	// sampling interval it derives.
	Event bool
}

type edge struct {
	parent NodeID
	frame  FrameID
}

// New returns an empty tree (just the root) with the given sample types.
func New(sampleTypes []ValueType) *Tree {
	t := &Tree{
		Header:   Header{SampleTypes: slices.Clone(sampleTypes)},
		childIdx: map[edge]NodeID{},
	}
	root := t.Intern(Frame{Function: "(root)", Kind: KindRoot}, FrameInfo{})
	t.Nodes = append(t.Nodes, Node{Frame: root, Parent: NoNode})
	t.growValues(1)
	return t
}

// Children returns node id's children in order of first execution. The
// slice is the tree's: it must not be modified.
func (t *Tree) Children(id NodeID) []NodeID {
	n := &t.Nodes[id]
	return t.kids[n.kidOff : n.kidOff+n.kidLen : n.kidOff+n.kidLen]
}

// Count returns the number of instances (calls) of node id where known (a
// call-counting profiler, or IntroPerf's inference), 0 otherwise.
func (t *Tree) Count(id NodeID) int64 {
	if int(id) < len(t.counts) {
		return t.counts[id]
	}
	return 0
}

// SetCount sets node id's number of instances (Count).
func (t *Tree) SetCount(id NodeID, c int64) {
	if int(id) >= len(t.counts) {
		if c == 0 {
			return
		}
		t.counts = append(t.counts, make([]int64, len(t.Nodes)-len(t.counts))...)
	}
	t.counts[id] = c
}

// Self returns node id's self values, one per sample type. The slice is the
// tree's: writing to it changes the node. A tree that keeps one sample
// type's values (Options.OneSampleType) has them for its root only: Self of
// another node panics (Values reads the type kept).
func (t *Tree) Self(id NodeID) []int64 {
	if t.only > 0 {
		return t.rootOnly(id, t.rootSelf)
	}
	k := len(t.SampleTypes)
	i := int(id) * k
	return t.self[i : i+k : i+k]
}

// Total returns node id's total values, one per sample type: Self plus the
// children's totals, once ComputeTotals ran. The slice is the tree's. Of a
// tree that keeps one sample type's values, as Self.
func (t *Tree) Total(id NodeID) []int64 {
	if t.only > 0 {
		return t.rootOnly(id, t.rootTotal)
	}
	k := len(t.SampleTypes)
	i := int(id) * k
	return t.total[i : i+k : i+k]
}

func (t *Tree) rootOnly(id NodeID, v []int64) []int64 {
	if id != RootID {
		panic(fmt.Sprintf("cct: the values of node %d: the tree keeps those of %s only (Options.OneSampleType), which Tree.Values reads", id, t.SampleTypes[t.only-1]))
	}
	return v[:len(v):len(v)]
}

// Values returns sample type k's self and total values of every node:
// node id's are self[int(id)*stride] and total[int(id)*stride]. The
// slices are the tree's. It panics when the tree keeps another type's
// values only (Options.OneSampleType).
func (t *Tree) Values(k int) (self, total []int64, stride int) {
	if k < 0 || k >= len(t.SampleTypes) {
		panic(fmt.Sprintf("cct: the values of sample type %d of %d", k, len(t.SampleTypes)))
	}
	if t.only > 0 {
		if k != t.only-1 {
			panic(fmt.Sprintf("cct: the values of %s: the tree keeps those of %s only (Options.OneSampleType)", t.SampleTypes[k], t.SampleTypes[t.only-1]))
		}
		return t.self, t.total, 1
	}
	return t.self[k:], t.total[k:], len(t.SampleTypes)
}

// keepOnly makes a tree that holds its root alone keep the values of
// sample type k only (Options.OneSampleType).
func (t *Tree) keepOnly(k int) {
	t.rootSelf, t.rootTotal = slices.Clone(t.Self(RootID)), slices.Clone(t.Total(RootID))
	t.self, t.total = []int64{t.self[k]}, []int64{t.total[k]}
	t.only = k + 1
}

// width is the number of values self and total hold per node.
func (t *Tree) width() int {
	if t.only > 0 {
		return 1
	}
	return len(t.SampleTypes)
}

// addSelf adds a sample's values, one per sample type, to node id's self.
func (t *Tree) addSelf(id NodeID, values []int64) {
	if t.only == 0 {
		self := t.Self(id)
		for j, v := range values {
			self[j] += v
		}
		return
	}
	t.self[id] += values[t.only-1]
	// The root's total is the sum of every node's self; its own self
	// stays 0 (a sample's path starts at its thread).
	for j, v := range values {
		t.rootTotal[j] += v
	}
}

// growValues adds zero values for n more nodes (reserve made room).
func (t *Tree) growValues(n int) {
	k := t.width() * n
	if len(t.self)+k > cap(t.self) {
		t.self = grow(t.self, k, 0)
		t.total = grow(t.total, k, 0)
	}
	t.self = t.self[:len(t.self)+k]
	t.total = t.total[:len(t.total)+k]
}

// reserve makes room for n more nodes and their values; when the arrays
// must move, for about more nodes after them too (an estimate).
func (t *Tree) reserve(n, more int) {
	k := t.width()
	t.Nodes = grow(t.Nodes, n, more)
	t.self = grow(t.self, k*n, k*more)
	t.total = grow(t.total, k*n, k*more)
}

// grow returns s with room for n more elements, zeroed. When it must
// reallocate, it makes room for more elements beyond them and for at least
// half again its capacity, so that an array growing batch after batch or
// profile after profile is copied a bounded number of times in all (at
// most twice its final size). Growing the arrays to the exact size each
// batch needed copied every node and value once per batch: 3.29 s of
// building a 1.6M-stack tree, against 0.27 s at 400k stacks.
func grow[S ~[]E, E any](s S, n, more int) S {
	need := len(s) + n
	if need <= cap(s) {
		return s
	}
	out := make(S, len(s), max(need+more, cap(s)+cap(s)/2))
	copy(out, s)
	return out
}

// Intern returns the id of a frame, adding it (with its display info) if new.
func (t *Tree) Intern(f Frame, info FrameInfo) FrameID {
	h := hashindex.Hash(&t.frameSeed, f)
	if id, ok := t.frameIdx.Find(h, func(id int32) bool { return t.Frames[id] == f }); ok {
		return FrameID(id)
	}
	id := FrameID(len(t.Frames))
	t.Frames = append(t.Frames, f)
	t.FrameInfo = append(t.FrameInfo, info)
	t.frameIdx.Add(h, int32(id))
	return id
}

// FrameID returns the id of a frame, if the tree has it.
func (t *Tree) FrameID(f Frame) (FrameID, bool) {
	id, ok := t.frameIdx.Find(hashindex.Hash(&t.frameSeed, f), func(id int32) bool { return t.Frames[id] == f })
	return FrameID(id), ok
}

// Child returns the child of parent with the given frame, in O(1): a scan
// of at most wideChildren children, or an index lookup.
func (t *Tree) Child(parent NodeID, f FrameID) (NodeID, bool) {
	ch := t.Children(parent)
	if len(ch) > wideChildren {
		id, ok := t.childIdx[edge{parent, f}]
		return id, ok
	}
	for _, c := range ch {
		if t.Nodes[c].Frame == f {
			return c, true
		}
	}
	return 0, false
}

// AddChild returns the child of parent with frame f, appending a new child
// (last in execution order) when there is none.
func (t *Tree) AddChild(parent NodeID, f FrameID) NodeID {
	if id, ok := t.Child(parent, f); ok {
		return id
	}
	if len(t.Nodes) == cap(t.Nodes) {
		// Double: append grows large slices by 1.25x, which copies a
		// million-node tree several times over.
		t.reserve(1, len(t.Nodes)+1024)
	}
	id := NodeID(len(t.Nodes))
	t.Nodes = append(t.Nodes, Node{Frame: f, Parent: parent, Depth: t.Nodes[parent].Depth + 1})
	t.growValues(1)
	t.link(parent, id, f)
	return id
}

// link appends child id (of frame f) to parent's children and keeps the
// index of wide nodes' children. A full list moves to the end of t.kids
// with twice the room (or grows in place when it is there already), as
// append would: the room a move leaves behind is at most what the lists
// hold.
func (t *Tree) link(parent, id NodeID, f FrameID) {
	p := &t.Nodes[parent]
	if p.kidLen == p.kidCap {
		room := max(2*p.kidCap, 2)
		if int(p.kidOff+p.kidCap) == len(t.kids) {
			t.kids = grow(t.kids, int(room-p.kidCap), 0)
			t.kids = t.kids[:len(t.kids)+int(room-p.kidCap)]
		} else {
			off := len(t.kids)
			t.kids = grow(t.kids, int(room), 0)
			t.kids = t.kids[:off+int(room)]
			copy(t.kids[off:], t.kids[p.kidOff:p.kidOff+p.kidLen])
			p.kidOff = int32(off)
		}
		p.kidCap = room
	}
	t.kids[p.kidOff+p.kidLen] = id
	p.kidLen++
	switch n := p.kidLen; {
	case n == wideChildren+1: // parent just became wide: index all its children
		t.indexChildren(parent)
	case n > wideChildren+1:
		t.childIdx[edge{parent, f}] = id
	}
}

// indexChildren adds a node's children to the index of wide nodes.
func (t *Tree) indexChildren(parent NodeID) {
	for _, c := range t.Children(parent) {
		t.childIdx[edge{parent, t.Nodes[c].Frame}] = c
	}
}

// Node returns a pointer to node id.
func (t *Tree) Node(id NodeID) *Node { return &t.Nodes[id] }

// FrameOf returns the frame of node id.
func (t *Tree) FrameOf(id NodeID) Frame { return t.Frames[t.Nodes[id].Frame] }

// Path returns the nodes from the first node below the root down to id
// (IntroPerf Algorithm 1: path id → path). The root itself is not included.
func (t *Tree) Path(id NodeID) []NodeID {
	n := int(t.Nodes[id].Depth)
	p := make([]NodeID, n)
	for i := n - 1; i >= 0; i-- {
		p[i] = id
		id = t.Nodes[id].Parent
	}
	return p
}

// Lookup returns the node reached by following frames from the root
// (IntroPerf Algorithm 1: path → path id).
func (t *Tree) Lookup(path []FrameID) (NodeID, bool) {
	id := RootID
	for _, f := range path {
		c, ok := t.Child(id, f)
		if !ok {
			return NoNode, false
		}
		id = c
	}
	return id, true
}

// ThreadOf returns the thread node above id (id itself for a thread), or
// RootID for the root.
func (t *Tree) ThreadOf(id NodeID) NodeID {
	for id != RootID && t.Nodes[id].Depth > 1 {
		id = t.Nodes[id].Parent
	}
	return id
}

// SampleIndex returns the index of the sample type named by s, which may be
// "type", "type/unit" or "" for the default (DefaultSampleType if set, else
// the last type, as pprof does).
func (t *Header) SampleIndex(s string) (int, error) {
	if len(t.SampleTypes) == 0 {
		return 0, fmt.Errorf("the profile has no sample types")
	}
	if s == "" {
		s = t.DefaultSampleType
		if s == "" {
			return len(t.SampleTypes) - 1, nil
		}
	}
	for i, st := range t.SampleTypes {
		if st.Type == s || st.String() == s {
			return i, nil
		}
	}
	names := make([]string, len(t.SampleTypes))
	for i, st := range t.SampleTypes {
		names[i] = st.String()
	}
	return 0, fmt.Errorf("sample type %q not found: must be one of: %v", s, names)
}

// PreOrder returns all node ids in depth-first pre-order, children in
// execution order. It is iterative, so any depth is safe.
func (t *Tree) PreOrder() []NodeID {
	out := make([]NodeID, 0, len(t.Nodes))
	stack := []NodeID{RootID}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		out = append(out, id)
		ch := t.Children(id)
		for i := len(ch) - 1; i >= 0; i-- {
			stack = append(stack, ch[i])
		}
	}
	return out
}

// ComputeTotals sets every node's Total to its Self plus its children's
// totals. Children always have larger ids than their parents, so one
// backward pass suffices.
func (t *Tree) ComputeTotals() {
	clear(t.total)
	t.addTotals()
}

// addTotals adds every node's Self and its children's totals to its Total,
// all zero before (ComputeTotals). A new tree's are (zeroed when the
// arrays were allocated): Builder.Finish does not clear them again, and
// the pass writes each node's total as it reads its Self, where copying
// the Self values first wrote every total twice (121 MB at 7.6 M nodes).
func (t *Tree) addTotals() {
	k := t.width()
	if k == 1 { // one sample type, or one kept: no inner loop
		total, self := t.total, t.self
		for i := len(t.Nodes) - 1; i > 0; i-- {
			total[i] += self[i]
			total[t.Nodes[i].Parent] += total[i]
		}
		if len(t.Nodes) > 0 {
			total[0] += self[0]
		}
		return
	}
	if k == 2 { // the common case (samples and time): no inner loop
		total, self := t.total, t.self
		for i := len(t.Nodes) - 1; i > 0; i-- {
			c, p := 2*i, 2*int(t.Nodes[i].Parent)
			sc := self[c : c+2 : c+2]
			tc := total[c : c+2 : c+2]
			tc[0] += sc[0]
			tc[1] += sc[1]
			tp := total[p : p+2 : p+2]
			tp[0] += tc[0]
			tp[1] += tc[1]
		}
		if len(t.Nodes) > 0 {
			total[0] += self[0]
			total[1] += self[1]
		}
		return
	}
	for i := len(t.Nodes) - 1; i >= 0; i-- {
		c := i * k
		for j := range k {
			t.total[c+j] += t.self[c+j]
		}
		if i == 0 {
			break
		}
		p := int(t.Nodes[i].Parent) * k
		for j := range k {
			t.total[p+j] += t.total[c+j]
		}
	}
}

// Validate checks the tree's invariants: parent/child links agree, ids
// increase from parent to child, depths are consistent, totals add up and
// the child index is complete. It is meant for tests and debugging.
func (t *Tree) Validate() error {
	if len(t.Nodes) == 0 || t.Nodes[0].Parent != NoNode {
		return fmt.Errorf("tree has no root")
	}
	w := t.width()
	if len(t.self) != len(t.Nodes)*w || len(t.total) != len(t.self) {
		return fmt.Errorf("%d self and %d total values for %d nodes of %d sample types", len(t.self), len(t.total), len(t.Nodes), w)
	}
	if t.only > 0 {
		k := t.only - 1
		if len(t.rootSelf) != len(t.SampleTypes) || len(t.rootTotal) != len(t.SampleTypes) || t.rootSelf[k] != t.self[0] || t.rootTotal[k] != t.total[0] {
			return fmt.Errorf("root values %v, %v differ from the kept %s's %d, %d", t.rootSelf, t.rootTotal, t.SampleTypes[k], t.self[0], t.total[0])
		}
	}
	sum := make([]int64, w)
	for i := range t.Nodes {
		n := &t.Nodes[i]
		id := NodeID(i)
		copy(sum, t.self[i*w:])
		for _, c := range t.Children(id) {
			cn := &t.Nodes[c]
			if cn.Parent != id || c <= id || cn.Depth != n.Depth+1 {
				return fmt.Errorf("node %d: child %d has parent %d, depth %d", i, c, cn.Parent, cn.Depth)
			}
			if got, ok := t.Child(id, cn.Frame); !ok || got != c {
				return fmt.Errorf("node %d: child %d missing from the index", i, c)
			}
			for k, v := range t.total[int(c)*w : int(c+1)*w] {
				sum[k] += v
			}
		}
		if total := t.total[i*w : (i+1)*w]; !slices.Equal(sum, total) {
			return fmt.Errorf("node %d (%s): total %v != self + children %v", i, t.Frames[n.Frame].Function, total, sum)
		}
	}
	return nil
}
