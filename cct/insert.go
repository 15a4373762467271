package cct

import (
	"slices"
	"sync"
	"unsafe"
)

// batchFrames bounds the frames an inserter holds before it inserts them:
// 128 MB of frame ids, the frames of paths not shared with the path before
// (inserter.cols), which holds a profile of 1.6 M stacks of depth 30 at
// once (23 M frames of 48 M): one batch makes its 7.6 M nodes with no
// lookup in the tree of an earlier batch, where three took 0.6 s of 2.6 s
// in Tree.Child (cache misses in 300 MB of nodes and child lists).
// Options.batchFrames overrides it, so tests can force many batches.
const batchFrames = 1 << 25

// A profile's batches are no larger than the frames its samples hold, nor
// smaller than minBatchFrames: a call tree reader's samples share stacks
// (their frames held once), whose paths would otherwise fill the largest
// batch from a small file.
const minBatchFrames = 1 << 22

// An inserter adds the stacks of one profile to a tree in batches.
//
// Looking every frame up among its parent's children, sample after sample,
// costs a lookup in a table of all nodes per frame: 6 million lookups in a
// table of a million for a 200,000-stack profile, each a cache miss, and
// most of the time of building its tree. Instead a batch is inserted one
// depth at a time: at depth d every path's frame d is looked up under its
// node at depth d-1 among that depth's nodes only (lookup: a new parent's
// short child list, or a table of the depth's wide parents' children),
// which stay in cache far better, and the frames of one depth are read
// sequentially.
//
// Processing by depth creates nodes in another order than processing by
// sample, and children must keep the order of first execution. A new node
// is first reached by some path (paths are groups of consecutive samples
// with the same stack, numbered in sample order, and visited in that order
// at every depth), and inserting the samples one by one would create it at
// that group's first sample, after the group's shallower new nodes. So the
// new nodes are renumbered by (first group, depth), which gives exactly
// the ids, and by appending in that order the child order, of one-by-one
// insertion.
type inserter struct {
	t        *Tree
	timeline bool
	byDepth  bool // Options.byDepth
	// samplesIdx is the index of the samples/count sample type, -1 if
	// none: samples with 0 there are events (TimedSample.Event).
	samplesIdx int
	profile    int32
	// last marks the profile's last batch, after which the frame buffer
	// is not reused.
	last bool
	// done counts the profile's samples in the batches inserted so far.
	done int
	// batch is the profile's batch size in frames.
	batch int

	// The batch's paths below the root (thread frame first), one per group
	// of consecutive samples with the same path, are held by depth: cols[d]
	// holds frame d of the paths longer than d, in group order, except
	// those that share it with the path before: a group's path is glen[g]
	// frames long, of which the first glcp[g] are those of the path group
	// before it (the previous group that is not preset; 0 for the first),
	// which are not stored again. Time-ordered samples share half their
	// frames with the sample before (51% in the synthetic 1.6 M-stack
	// profile), so a batch holds its frames about half as large, and once:
	// it held them twice before, as paths and as columns copied from them,
	// which took 128 MB for the 16 M frames of the largest batch.
	// A column is a list of chunks (column), so that it grows without
	// being copied and touches no more memory than it holds.
	cols       []column
	glen, glcp []int32
	// byGroup says the batch goes to insertByGroup, which reads the
	// paths in group order: their stored frames are then in flat, in
	// that order, instead of cols.
	byGroup bool
	flat    []FrameID
	// stored counts the frames in cols; path is the path being read and
	// prev the path of group prevGroup (-1 for none in this batch).
	stored     int
	path, prev []FrameID
	prevGroup  int32
	src        *sampleReader
	samples    []int   // the batch's samples (indexes in src), in order
	group      []int32 // per sample of the batch
	// paths numbers the paths of keyed samples (sampleReader.pathKey) and
	// holds their groups in this batch: samples of a shared stack add no
	// frames. For the profile's keys inserted by earlier batches it holds
	// their end and thread nodes; a sample of one is a group with no path
	// (preset, its nodes in presetEnd and presetThread). batchNo numbers
	// the profile's batches, batchPaths lists the paths of this one, and
	// lastPath is the path repeat looked up last.
	paths        pathTable
	batchNo      int32
	batchPaths   []int32
	lastPath     int32
	preset       []bool
	presetEnd    []NodeID
	presetThread []NodeID

	// Per group, after insertion: the end node and the thread node.
	end, thread []NodeID
	// live holds the paths longer than the depth being inserted, in group
	// order; cur is insertByGroup's path of nodes.
	live    []livePath
	cur     []NodeID
	level   levelTable
	claimed *NodeID // the level table's slot a failed lookup claimed

	// The new nodes, by temporary id: parent (an id below base is an
	// existing node, else base + temporary id) and first group (made),
	// frame and next sibling (kid).
	made []newNode
	kid  []kidLink
	// A new node's children, while its depth's children are inserted:
	// head is its first child (-1 for none, wideList once they are in
	// level), kid[c].sib a child's next sibling. Temporary ids.
	head []int32
	// levels[d] is the first temporary id of depth d (new nodes are made
	// depth by depth), and after the last depth the number of new nodes.
	levels []int32
	// placed holds, by temporary id, a new node's final id and where its
	// next child goes in its list: a child reads both of its parent's in
	// one random access. It is kid's array (placements), the frames
	// moved to made.
	placed []placement
	// groupAt is, per group, the final id and child list of its next new
	// node while they are placed.
	groupAt []placement
	// nodesPerFrame is the new nodes per frame of the last batch, for the
	// first room roomFor makes.
	nodesPerFrame float64
	// lend says the batch's new-node arrays become the tree's values
	// once read (lendValues).
	lend bool
}

// A livePath is a path of the batch that goes deeper than the depth being
// inserted: its group, its node at the depth before, and its group's glen
// and glcp copied, so that a step of flush's depth loop reads and writes
// one record in order. Four arrays, two of them read by group, took 1.3 M L1
// misses (half as many as the lookups) and 100 M more instructions for the
// 4.7 M steps of an independent pair of 200k-stack Go profiles. lcp is
// madeNode instead once the path made its node at the depth before: the
// first path to reach a node, which it is then the first to leave, so the
// node has no children yet (no lookup).
type livePath struct {
	g        int32
	cur      NodeID
	len, lcp int32
}

// madeNode is livePath.lcp of a path that made its node at the depth
// before (below every depth, as a glcp that is no longer shared).
const madeNode = -1

// A kidLink is a new node's frame and its next sibling (-1 for none):
// a lookup among a new parent's children reads both for each, one cache
// line where two arrays took two (in a 1.6 M-stack batch, depths of
// 700,000 nodes do not stay in cache).
type kidLink struct {
	frame FrameID
	sib   int32
}

// A placement is a new node's final id and where its next child goes.
type placement struct {
	id NodeID
	at int32
}

// A newNode is a new node's parent and the first group that reaches it,
// replaced by its frame once it is placed (kid's array then holds its
// placement): the write of the nodes reads both in one record.
type newNode struct {
	parent NodeID
	first  int32
}

// placements returns the first n new nodes' placements, in kid's array:
// once the lookups are done, a new node's sibling is not needed, and its
// frame is moved to made, whose group it replaces. An array of their own
// was 11 MB more of fresh memory for that pair's 1.4 M new nodes, faulted in
// beside the tree's.
func (in *inserter) placements(n int) []placement {
	return unsafe.Slice((*placement)(unsafe.Pointer(unsafe.SliceData(in.kid))), n)[:n:n]
}

// A kidLink and a placement are two int32 each (placements), and so is a
// newNode: an int64 (lendValues).
var _ [unsafe.Sizeof(kidLink{}) - unsafe.Sizeof(placement{})]struct{}
var _ [unsafe.Sizeof(placement{}) - unsafe.Sizeof(kidLink{})]struct{}
var _ [unsafe.Sizeof(kidLink{}) - unsafe.Sizeof(int64(0))]struct{}
var _ [unsafe.Sizeof(int64(0)) - unsafe.Sizeof(kidLink{})]struct{}
var _ [unsafe.Sizeof(newNode{}) - unsafe.Sizeof(int64(0))]struct{}
var _ [unsafe.Sizeof(int64(0)) - unsafe.Sizeof(newNode{})]struct{}

// lendValues makes the batch's new-node arrays, read by now, the tree's
// values, one per node (Tree.width): kid's (placements) its self and made's
// its total, cleared, after the root's. Allocated anew, the values were 16
// bytes a node of fresh memory (22 MB for one side of that pair), taken
// while both arrays were still held, at the build's largest; the scratch
// makes new ones for its next batch.
func (in *inserter) lendValues(n int) {
	t := in.t
	self, total := asValues(in.kid, n+1), asValues(in.made, n+1)
	self[0], total[0] = t.self[0], t.total[0]
	t.self, t.total = self, total
	in.kid, in.made, in.placed, in.lend = nil, nil, nil, false
}

// asValues returns the first n elements of s's array as int64s (s's
// elements are 8 bytes, and hold no pointers), cleared. Their capacity is
// n: a tree's values grow into zeroed room (grow), which the rest is not.
func asValues[T kidLink | newNode](s []T, n int) []int64 {
	v := unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(s[:n]))), n)
	clear(v)
	return v
}

// lends says the batch, of n new nodes and more estimated after it, lends
// its new-node arrays to the tree (lendValues): its first and last, in a
// tree of one value a node.
func (in *inserter) lends(n, more int) bool {
	t := in.t
	return t.width() == 1 && len(t.Nodes) == 1 && more == 0 && cap(in.kid) > n && cap(in.made) > n
}

// start starts a profile.
func (in *inserter) start(t *Tree, opts Options, profile int32, src *sampleReader) {
	in.t, in.timeline, in.byDepth, in.profile, in.src = t, opts.Timeline, opts.byDepth, profile, src
	in.samplesIdx = slices.Index(t.SampleTypes, ValueType{"samples", "count"})
	in.done = 0
	in.batchNo = 1
	in.reset()
	in.numberPaths(src)
	limit := batchFrames
	if opts.batchFrames > 0 {
		limit = opts.batchFrames
	}
	held := heldFrames(src)
	in.batch = min(limit, max(minBatchFrames, held))
	in.byGroup = len(t.Nodes) == 1 && held <= maxByGroupFrames && !in.byDepth
	in.samples = withRoom(in.samples, min(src.len(), in.batch))
	in.glen = withRoom(in.glen, min(src.len(), in.batch))
	in.glcp = withRoom(in.glcp, min(src.len(), in.batch))
	in.group = withRoom(in.group, min(src.len(), in.batch))
}

// heldFrames counts the frames a profile's samples hold in memory.
func heldFrames(src *sampleReader) int {
	if s := src.compact; s != nil {
		return len(s.Locations) + s.Len()
	}
	return sampleFrames(src)
}

// sampleFrames counts the frames of the samples' stacks and threads.
func sampleFrames(src *sampleReader) int {
	frames := src.len()
	for i := range src.len() {
		frames += src.src.Depth(i)
	}
	return frames
}

// numberPaths numbers the paths of a profile's keyed samples in in.paths.
func (in *inserter) numberPaths(src *sampleReader) {
	in.paths.reset()
	if _, ok := src.pathKey(0); ok && src.len() > 0 {
		for i := range src.len() {
			k, _ := src.pathKey(i)
			in.paths.index(k)
		}
	}
}

func (in *inserter) reset() {
	for d := range in.cols {
		in.cols[d].reset()
	}
	in.glen, in.glcp, in.samples, in.group = in.glen[:0], in.glcp[:0], in.samples[:0], in.group[:0]
	in.stored, in.prevGroup = 0, -1
	in.flat = in.flat[:0]
	in.preset, in.presetEnd, in.presetThread = in.preset[:0], in.presetEnd[:0], in.presetThread[:0]
	in.batchPaths = in.batchPaths[:0]
}

// repeat adds sample s to the group of its key's path if the batch has
// one, or to a new preset group if an earlier batch inserted the path.
// Mapping a sample to an earlier group than the last is exact: its path's
// nodes were all made by that group (or exist), so the order of new nodes
// is that of one-by-one insertion still.
func (in *inserter) repeat(key pathKey, s int) bool {
	p, _ := in.paths.index(key)
	in.lastPath = p
	e := &in.paths.entries[p]
	if e.batch != in.batchNo {
		if e.end == NoNode {
			return false
		}
		g := int32(len(in.glen))
		in.glen, in.glcp = append(in.glen, 0), append(in.glcp, 0) // no path
		in.growPreset()
		in.preset[g], in.presetEnd[g], in.presetThread[g] = true, e.end, e.thread
		e.group, e.batch = g, in.batchNo
		in.batchPaths = append(in.batchPaths, p)
	}
	in.samples = append(in.samples, s)
	in.group = append(in.group, e.group)
	return true
}

// growPreset extends the preset slices to the groups.
func (in *inserter) growPreset() {
	for len(in.preset) < len(in.glen) {
		in.preset = append(in.preset, false)
		in.presetEnd, in.presetThread = append(in.presetEnd, NoNode), append(in.presetThread, NoNode)
	}
}

// keyed records the path of the sample endSample just ended (the one
// repeat looked up last).
func (in *inserter) keyed() {
	if len(in.samples) == 0 {
		return // endSample flushed the batch: the key is not in it
	}
	e := &in.paths.entries[in.lastPath]
	e.group, e.batch = in.group[len(in.group)-1], in.batchNo
	in.batchPaths = append(in.batchPaths, in.lastPath)
}

// endSample ends the path of sample s (an index in in.src), which the
// caller read into in.path, its first known frames copied from in.prev,
// and inserts the batch when it is full.
func (in *inserter) endSample(s, known int) {
	g := int32(len(in.glen))
	path, lcp := in.path, 0
	if in.prevGroup >= 0 {
		prev := in.prev
		lcp = known
		n := min(len(prev), len(path))
		for lcp < n && prev[lcp] == path[lcp] {
			lcp++
		}
		if lcp == len(path) && lcp == len(prev) && in.prevGroup == g-1 {
			in.samples = append(in.samples, s)
			in.group = append(in.group, g-1)
			return
		}
	}
	if in.byGroup {
		in.flat = append(in.flat, path[lcp:]...)
	} else {
		for len(in.cols) < len(path) {
			in.cols = append(in.cols, column{ci: -1})
		}
		for d := lcp; d < len(path); d++ {
			col := &in.cols[d]
			if col.off == len(col.cur) {
				col.next()
			}
			col.cur[col.off] = path[d]
			col.off++
		}
	}
	in.stored += len(path) - lcp
	in.glen, in.glcp = append(in.glen, int32(len(path))), append(in.glcp, int32(lcp))
	in.prev, in.path, in.prevGroup = path, in.prev, g
	in.samples = append(in.samples, s)
	in.group = append(in.group, g)
	if in.stored >= in.batch && !in.tailFits() {
		in.flush()
	}
}

// tailFits says a full batch can take the rest of the profile's samples
// as well, within a quarter over its size at its frames per sample so
// far. A last batch of a few samples would look its paths up in the
// nodes of the batch before, at random, and grow the tree's arrays: a
// 200,000-stack Go profile, whose inlined frames outnumber the locations
// its batch is sized by (heldFrames), filled it at 97% of its samples.
func (in *inserter) tailFits() bool {
	most := in.batch + in.batch/4
	left := in.src.len() - in.done - len(in.samples)
	return in.stored < most && int64(left)*int64(in.stored) <= int64(most-in.stored)*int64(len(in.samples))
}

// A column holds frame d of a batch's paths (inserter.cols) in chunks:
// chunks[ci] is being written (cur, up to off). A chunk is as large as the
// column before it, from minChunk to maxChunk frames, so that a column
// grows without copying what it holds: doubling one array at a time
// allocated 290 MB for the 92 MB of frames of a 1.6 M-stack profile, most
// of it touched for the first time. A column keeps its chunks for the
// next batch or profile (scratchPool).
type column struct {
	chunks [][]FrameID
	cur    []FrameID
	ci     int
	off    int
}

const (
	minChunk = 1 << 10
	maxChunk = 1 << 16
)

// next makes the next chunk current, allocating it when the column has no
// spare one.
func (c *column) next() {
	c.ci++
	if c.ci == len(c.chunks) {
		held := 0
		for _, ch := range c.chunks {
			held += len(ch)
		}
		c.chunks = append(c.chunks, make([]FrameID, min(maxChunk, max(minChunk, held))))
	}
	c.cur, c.off = c.chunks[c.ci], 0
}

// len returns the number of frames in the column.
func (c *column) len() int {
	n := c.off
	for _, ch := range c.chunks[:max(c.ci, 0)] {
		n += len(ch)
	}
	return n
}

// reset empties the column, keeping its chunks.
func (c *column) reset() { c.cur, c.ci, c.off = nil, -1, 0 }

// A columnReader reads a column's frames in order.
type columnReader struct {
	chunks [][]FrameID
	cur    []FrameID
	ci, i  int
}

// read returns the next frame.
func (r *columnReader) read() FrameID {
	if r.i == len(r.cur) {
		r.cur, r.ci, r.i = r.chunks[r.ci], r.ci+1, 0
	}
	f := r.cur[r.i]
	r.i++
	return f
}

// flush inserts the batch into the tree.
func (in *inserter) flush() {
	if len(in.samples) == 0 {
		return
	}
	t := in.t
	groups := len(in.glen)
	base := NodeID(len(t.Nodes))
	in.made, in.kid, in.head = in.made[:0], in.kid[:0], in.head[:0]
	in.end = resize(in.end, groups)
	in.thread = resize(in.thread, groups)

	if in.byGroup {
		in.insertByGroup(base, groups)
		in.writeInOrder(base)
		in.finishBatch(base, groups)
		in.byGroup = false // the tree holds more than its root now
		return
	}

	// Every path starts at depth 0 (it holds its thread).
	live := resize(in.live, groups)[:0]
	for g := range groups {
		// preset is as long as the groups up to the last preset one
		// (none without keyed samples).
		if g < len(in.preset) && in.preset[g] {
			in.end[g], in.thread[g] = in.presetEnd[g], in.presetThread[g]
			continue
		}
		live = append(live, livePath{int32(g), RootID, in.glen[g], in.glcp[g]})
	}
	in.levels = in.levels[:0]
	for d := int32(0); len(live) > 0; d++ {
		in.levels = append(in.levels, int32(len(in.made)))
		in.roomFor(int(d))
		in.level.reset()
		col := columnReader{chunks: in.cols[d].chunks}
		next := 0 // live is filtered in place
		lastParent, lastFrame, lastID := NoNode, FrameID(-1), NoNode
		for i := range live {
			p := live[i]
			// A path that shares this depth's frame with the path group
			// before it (the live path before it, then) reaches its node
			// (glcp); neighbouring paths often share this step otherwise
			// too (shallow depths): no lookup then. A path that made its
			// parent makes the child: a chain of new nodes, most of them,
			// costs no lookup.
			if p.lcp <= d {
				f := col.read()
				switch {
				case p.lcp == madeNode:
					lastID = in.addFirst(p.cur, f, p.g, base)
					lastParent, lastFrame = p.cur, f
				case p.cur != lastParent || f != lastFrame:
					// The first child of a new parent's list, where two
					// lookups in three of that pair's find theirs, is
					// taken without the call.
					id, found := NoNode, false
					if pt := p.cur - base; pt >= 0 {
						if h := in.head[pt]; h >= 0 && in.kid[h].frame == f {
							id, found = base+NodeID(h), true
						}
					}
					if !found {
						if id, found = in.lookup(p.cur, f, base); !found {
							id, p.lcp = in.add(p.cur, f, p.g, base), madeNode
						}
					}
					lastParent, lastFrame, lastID = p.cur, f, id
				}
			}
			if d == 0 {
				in.thread[p.g] = lastID
			}
			if p.len == d+1 {
				in.end[p.g] = lastID
				continue
			}
			p.cur = lastID
			live[next] = p
			next++
		}
		live = live[:next]
	}
	in.live = live
	in.levels = append(in.levels, int32(len(in.made)))

	n := len(in.made)
	if in.stored > 0 {
		in.nodesPerFrame = float64(n) / float64(in.stored)
	}
	// The new nodes' final ids are their ranks by (first group, depth):
	// a group's new nodes are the deepest of its path (a path that makes
	// a node makes every deeper one), one per depth, so its first rank is
	// the new nodes of the groups before it, and its nodes, whose
	// temporary ids grow with their depth, take the ranks after it one
	// by one. Their child lists (of exact length, filled as their
	// children come) are in one slab in rank order: a new node's children
	// come after it. A cursor per group gives both in one pass in
	// temporary order, where a counting sort into rank order wrote an
	// array of ranks and the placements at random (1 M more L1 write
	// misses for the 1.4 M new nodes of that pair's new profile).
	nkids, links := in.countKids(in.head[:n], base) // the lookups are done
	at := resize(in.groupAt, groups)
	in.groupAt = at
	clear(at)
	for i, m := range in.made {
		at[m.first].id++
		at[m.first].at += nkids[i]
	}
	id, off := base, int32(0)
	for g, c := range at {
		at[g] = placement{id, off}
		id += c.id
		off += c.at
	}
	placed := in.placements(n)
	in.placed = placed
	made, kid := in.made[:n], in.kid[:n]
	for i := range made {
		c := &at[made[i].first]
		made[i].first = int32(kid[i].frame) // before placed[i] takes its place
		placed[i] = *c
		c.id++
		c.at += nkids[i]
	}
	kidBase := in.roomForNew(n, off, links)
	// The nodes are written in temporary order, depth by depth, which
	// reads the new-node arrays in order (in rank order each node read
	// five of them at random) and gives each node its level's depth. A
	// parent's children come in rank order still: they are of one depth,
	// whose temporary order is the order of their first groups. Only the
	// node and its parent's child list are written at random.
	for d := range len(in.levels) - 1 {
		depth := int32(d + 1)
		for i := in.levels[d]; i < in.levels[d+1]; i++ {
			pi := placed[i]
			p, f := made[i].parent, FrameID(made[i].first)
			if p >= base {
				pl := &placed[p-base]
				p = pl.id
				t.kids[kidBase+pl.at] = pi.id
				pl.at++
			}
			k := nkids[i]
			t.Nodes[pi.id] = Node{Frame: f, Parent: p, Depth: depth, kidOff: kidBase + pi.at, kidCap: k, kidLen: k}
			if p < base {
				t.link(p, pi.id, f)
			}
		}
	}
	for i, k := range nkids {
		if k > wideChildren {
			t.indexChildren(placed[i].id)
		}
	}
	in.finishBatch(base, groups)
}

// finishBatch maps the groups' end and thread nodes to final ids, adds the
// samples' values to their end nodes and readies the inserter for the
// next batch.
func (in *inserter) finishBatch(base NodeID, groups int) {
	t, placed := in.t, in.placed
	end, thread := in.end[:groups], in.thread[:groups]
	for g := range groups {
		if e := end[g]; e >= base {
			end[g] = placed[e-base].id
		}
		if th := thread[g]; th >= base {
			thread[g] = placed[th-base].id
		}
	}
	for _, p := range in.batchPaths {
		e := &in.paths.entries[p]
		e.end, e.thread = end[e.group], thread[e.group]
	}
	if in.lend { // placed is read
		in.lendValues(len(t.Nodes) - int(base))
	}
	group := in.group
	for k, s := range in.samples {
		g := group[k]
		id := end[g]
		values := in.src.values(s)
		t.addSelf(id, values)
		if in.timeline {
			if ts, ok := in.src.time(s); ok {
				event := in.samplesIdx >= 0 && values[in.samplesIdx] == 0
				t.Timeline = append(t.Timeline, TimedSample{Thread: thread[g], Leaf: id, Time: ts, Profile: in.profile, Event: event})
			}
		}
	}
	in.done += len(in.samples)
	in.batchNo++
	in.reset()
}

// maxByGroupFrames is the most frames a profile's samples may hold
// (heldFrames) for its first batch into a fresh tree to go to
// insertByGroup: a 20,000-stack run holds 611,000, stores 265,000 and
// makes 108,000 nodes, whose child lists stay in the processor's caches,
// where a depth at a time paid for every path alive at each depth (611,000
// steps) and a sort into rank order. Larger profiles go depth by depth,
// for the locality the inserter's comment describes (a 200,000-stack
// profile built no faster by group).
const maxByGroupFrames = 1 << 20

// insertByGroup inserts a batch into a tree that holds only its root, path
// group after path group, as inserting the samples one by one would: the
// frames a path shares with the path before it take that path's nodes
// (cur, per depth), and the rest are looked up (lookup: a new parent's
// short child list, or the level table, here one table for every depth)
// or made. New nodes are made in final order, so the temporary id of a
// node is its rank (writeInOrder).
func (in *inserter) insertByGroup(base NodeID, groups int) {
	// Room as roomFor's first; add and addFirst append beyond it. A node
	// per stored frame held 5 MB more per scratch for a 20,000-stack run.
	perFrame := in.nodesPerFrame
	if perFrame == 0 {
		perFrame = firstNodesPerFrame
	}
	in.growNew(max(1<<12, int(float64(in.stored)*perFrame*1.1)))
	in.level.reset()
	depth := 0
	for _, n := range in.glen {
		depth = max(depth, int(n))
	}
	cur := resize(in.cur, depth)
	in.cur = cur
	flat, k := in.flat, 0
	for g := range groups {
		if g < len(in.preset) && in.preset[g] {
			in.end[g], in.thread[g] = in.presetEnd[g], in.presetThread[g]
			continue
		}
		n := int(in.glen[g])
		d := int(in.glcp[g])
		parent := RootID
		if d > 0 {
			parent = cur[d-1]
		}
		for ; d < n; d++ {
			f := flat[k]
			k++
			id, found := in.lookup(parent, f, base)
			if !found {
				id = in.add(parent, f, int32(g), base)
				cur[d], parent = id, id
				// The rest of the path is new: each node the first
				// child of the one before, made without a lookup.
				for d++; d < n; d++ {
					id = in.addFirst(parent, flat[k], int32(g), base)
					k++
					cur[d], parent = id, id
				}
				break
			}
			cur[d], parent = id, id
		}
		in.thread[g], in.end[g] = cur[0], cur[n-1]
	}
	in.levels = append(in.levels[:0], 0, int32(len(in.made)))
}

// countKids counts, in nkids (one per new node), the children each new
// node of the batch has among the new nodes, and the new nodes that hang
// under existing ones (links).
func (in *inserter) countKids(nkids []int32, base NodeID) (_ []int32, links int) {
	clear(nkids)
	for _, m := range in.made {
		if p := m.parent; p >= base {
			nkids[p-base]++
		} else {
			links++
		}
	}
	return nkids, links
}

// roomForNew makes room for n new nodes whose child lists take kids
// slots, and returns where those lists start: at the end of the tree's
// child array (which linking a new node to an existing one may move:
// index it afresh).
func (in *inserter) roomForNew(n int, kids int32, links int) (kidBase int32) {
	t := in.t
	base := len(t.Nodes)
	kidBase = int32(len(t.kids))
	more := in.more(n)
	// Linking appends to t.kids too: room for an existing parent's list
	// to move (twice over when it doubles) is the common case of a new
	// tree, whose threads link to the root.
	t.kids = grow(t.kids, int(kids), more+4*links)[:int(kidBase+kids)]
	if in.lend = in.lends(n, more); in.lend {
		t.Nodes = grow(t.Nodes, n, more)
	} else {
		t.reserve(n, more)
		t.growValues(n)
	}
	t.Nodes = t.Nodes[:base+n]
	return kidBase
}

// writeInOrder writes the new nodes insertByGroup made, in the order it
// made them (their final ids), with their child lists in one slab as flush
// writes them.
func (in *inserter) writeInOrder(base NodeID) {
	t := in.t
	n := len(in.made)
	if in.stored > 0 {
		in.nodesPerFrame = float64(n) / float64(in.stored)
	}
	nkids, links := in.countKids(in.head[:n], base) // the lookups are done
	placed := in.placements(n)
	in.placed = placed
	off := int32(0)
	for i := range n {
		in.made[i].first = int32(in.kid[i].frame) // (ids are ranks: no first group)
		placed[i] = placement{base + NodeID(i), off}
		off += nkids[i]
	}
	kidBase := in.roomForNew(n, off, links)
	for i := range n {
		id := base + NodeID(i)
		p, f := in.made[i].parent, FrameID(in.made[i].first)
		if p >= base {
			pl := &placed[p-base]
			t.kids[kidBase+pl.at] = id
			pl.at++
		}
		k := nkids[i]
		t.Nodes[id] = Node{Frame: f, Parent: p, Depth: t.Nodes[p].Depth + 1, kidOff: kidBase + placed[i].at, kidCap: k, kidLen: k}
		if p < base {
			t.link(p, id, f)
		}
	}
	for i := range n {
		if nkids[i] > wideChildren {
			t.indexChildren(base + NodeID(i))
		}
	}
}

// more estimates how many nodes the profile's batches after this one,
// which made n, will add: as many per sample as this one. The tree's
// arrays, when they must grow, are sized for them, so that a profile of
// several batches moves its nodes once. The estimate is at most twice
// the nodes the tree holds after this batch: the first samples of a
// profile make more new nodes than the later ones.
func (in *inserter) more(n int) int {
	left := in.src.len() - in.done - len(in.samples)
	if left <= 0 {
		return 0
	}
	est := int64(n) * int64(left) / int64(len(in.samples))
	return int(min(est, 2*int64(len(in.t.Nodes)+n)))
}

// lookup finds the child of parent with frame f among the nodes made so
// far. A new parent's children are found in its list, a short one: most
// nodes have one or two children, and the list's reads stay in the arrays
// of the current and the previous depth, where a table of a whole depth's
// nodes, a hundred thousand at the widest, misses the cache on most
// lookups. A child found moves to the front of its list: the paths after
// it often take the same step (100 runs of 20,000 stacks built 3-6%
// faster). A parent whose list grows longer than wideChildren has its
// children moved to the level table, as have existing parents always.
func (in *inserter) lookup(parent NodeID, f FrameID, base NodeID) (NodeID, bool) {
	if parent >= base {
		pt := parent - base
		if h := in.head[pt]; h != wideList {
			hops := 0
			prev := int32(-1)
			for c := h; c >= 0; prev, c = c, in.kid[c].sib {
				if in.kid[c].frame == f {
					if prev >= 0 {
						in.kid[prev].sib = in.kid[c].sib
						in.kid[c].sib = h
						in.head[pt] = c
					}
					return base + NodeID(c), true
				}
				hops++
			}
			if hops < wideChildren {
				return NoNode, false
			}
			in.widen(pt, base)
		}
	}
	slot, found := in.level.find(parent, f)
	if found {
		return *slot, true
	}
	// find claimed the slot: it is filled here or by add.
	if parent < base {
		if id, ok := in.t.Child(parent, f); ok {
			*slot = id
			in.level.added()
			return id, true
		}
	}
	in.claimed = slot
	return NoNode, false
}

// wideList marks a new parent whose children are in the level table.
const wideList = -2

// widen moves new parent pt's children from its list to the level table.
func (in *inserter) widen(pt NodeID, base NodeID) {
	for c := in.head[pt]; c >= 0; c = in.kid[c].sib {
		slot, _ := in.level.find(base+pt, in.kid[c].frame)
		*slot = base + NodeID(c)
		in.level.added()
	}
	in.head[pt] = wideList
}

// add makes a new node, child of parent with frame f, first reached by
// group g, after a lookup that did not find it.
func (in *inserter) add(parent NodeID, f FrameID, g int32, base NodeID) NodeID {
	tmp := int32(len(in.made))
	id := base + NodeID(tmp)
	in.made = append(in.made, newNode{parent, g})
	in.head = append(in.head, -1)
	if parent >= base && in.head[parent-base] != wideList {
		pt := parent - base
		in.kid = append(in.kid, kidLink{f, in.head[pt]})
		in.head[pt] = tmp
	} else {
		in.kid = append(in.kid, kidLink{f, -1})
		*in.claimed = id
		in.level.added()
	}
	in.claimed = nil
	return id
}

// addFirst makes the first child of new node parent, a path's next node
// after the one it made (livePath.lcp).
func (in *inserter) addFirst(parent NodeID, f FrameID, g int32, base NodeID) NodeID {
	tmp := int32(len(in.made))
	in.made = append(in.made, newNode{parent, g})
	in.kid = append(in.kid, kidLink{f, -1})
	in.head = append(in.head, -1)
	in.head[parent-base] = tmp
	return base + NodeID(tmp)
}

// roomFor makes room for the new nodes of depth d, at most one per frame
// of its column, before they are made (add and addFirst do not check).
// Room, when it must grow, is made for every frame of the batch's deeper
// columns, so a batch grows its arrays at most once after the first room:
// its frames times the new nodes per frame of the batch before (this
// profile's or the tree's before), or firstNodesPerFrame. Doubling from
// 4,096 allocated a 200,000-stack profile's arrays twice over; doubling
// from the first room allocated a 1.6 M-stack profile's 7.6 M nodes' room
// for 11 M and copied 3.2 M.
func (in *inserter) roomFor(d int) {
	if d == 0 && len(in.made) == 0 {
		perFrame := in.nodesPerFrame
		if perFrame == 0 {
			perFrame = firstNodesPerFrame
		}
		in.growNew(max(1<<12, int(float64(in.stored)*perFrame*1.1)))
	}
	if cap(in.made)-len(in.made) >= in.cols[d].len() {
		return
	}
	rest := 0
	for e := d; e < len(in.cols); e++ {
		rest += in.cols[e].len()
	}
	in.growNew(len(in.made) + rest)
}

// firstNodesPerFrame is the new nodes per stored frame (inserter.cols)
// roomFor expects of a profile's first batch: 0.27-0.41 in the synthetic
// profiles of 20,000 to 1.6 M stacks and that pair's. At 1/8 (nodes per frame
// of a whole path, before a path's prefix shared with the path before was
// stored once) the first room of a 1.6 M-stack profile was 3.2 M nodes,
// 64 MB touched and copied when it grew; room beyond what is made is
// fresh memory never touched.
const firstNodesPerFrame = 0.4

// growNew makes room for n new nodes.
func (in *inserter) growNew(n int) {
	in.made = withRoom(in.made, n)
	in.kid = withRoom(in.kid, n)
	in.head = withRoom(in.head, n)
}

// withRoom returns s with room for n elements in all, its contents kept.
// slices.Grow clears the room it adds, which touched, and faulted in, the
// pages of room that is written later or never (a fifth of the new-node
// arrays of a 1.6 M-stack profile); make clears only reused memory, not
// fresh pages from the system.
func withRoom[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s
	}
	out := make([]T, len(s), n)
	copy(out, s)
	return out
}

// resize returns s with length n, reallocated when too small; the contents
// are not kept.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// A levelTable maps (parent, frame) to the child node for the nodes of one
// depth: open addressing with linear probing, cleared per depth. It holds
// one depth's nodes, a few ten thousand, and stays in cache; a key and its
// value share a slot, so a lookup touches one cache line. Its slots are a
// prefix of buf, sized for the depth before (the next is usually about as
// wide), so that a narrow depth after a wide one probes a small table, and
// no depth allocates once the widest has been seen.
type levelTable struct {
	slots      []levelSlot
	buf, spare []levelSlot // spare: where a growing table's slots are rehashed from
	n          int
	// used lists the slots taken since the last reset, unless more than
	// maxUsed were or the table grew (many): a deep, narrow batch (a node
	// per depth) then clears what it took per depth, not a thousand slots.
	used []int32
	many bool
}

const maxUsed = 64

type levelSlot struct {
	key uint64 // emptyKey marks a free slot
	val NodeID
}

const emptyKey = ^uint64(0) // parent ids are below 1<<31: never a key

func (lt *levelTable) reset() {
	if lt.n == 0 && lt.slots != nil {
		return
	}
	size := 1024
	for size < 4*lt.n {
		size <<= 1
	}
	if size == len(lt.slots) && !lt.many {
		for _, i := range lt.used {
			lt.slots[i].key = emptyKey
		}
	} else {
		lt.slots = lt.table(size)
	}
	lt.n, lt.used, lt.many = 0, lt.used[:0], false
}

// table returns size empty slots, from buf when it is large enough.
func (lt *levelTable) table(size int) []levelSlot {
	if len(lt.buf) < size {
		lt.buf = make([]levelSlot, size)
	}
	s := lt.buf[:size]
	for i := range s {
		s[i].key = emptyKey
	}
	return s
}

func levelHash(k uint64, mask uint64) uint64 { return (k * 0x9e3779b97f4a7c15) >> 32 & mask }

// find returns the value slot of (parent, f) and whether it was there; a
// missing key's slot must be set and then added called.
func (lt *levelTable) find(parent NodeID, f FrameID) (*NodeID, bool) {
	k := uint64(uint32(parent))<<32 | uint64(uint32(f))
	mask := uint64(len(lt.slots) - 1)
	for i := levelHash(k, mask); ; i = (i + 1) & mask {
		s := &lt.slots[i]
		switch s.key {
		case k:
			return &s.val, true
		case emptyKey:
			s.key = k
			if len(lt.used) < maxUsed {
				lt.used = append(lt.used, int32(i))
			} else {
				lt.many = true
			}
			return &s.val, false
		}
	}
}

// added counts the key the last find inserted; the table doubles when
// half full.
func (lt *levelTable) added() {
	lt.n++
	if 2*lt.n <= len(lt.slots) {
		return
	}
	// The slots move to spare, and buf (grown if need be) takes twice as
	// many.
	lt.spare = append(lt.spare[:0], lt.slots...)
	lt.slots, lt.many = lt.table(2*len(lt.slots)), true
	mask := uint64(len(lt.slots) - 1)
	for _, s := range lt.spare {
		if s.key == emptyKey {
			continue
		}
		i := levelHash(s.key, mask)
		for lt.slots[i].key != emptyKey {
			i = (i + 1) & mask
		}
		lt.slots[i] = s
	}
}

// A pathTable numbers the paths of a profile's keyed samples: open
// addressing with linear probing on a multiplicative hash of the key,
// where a map spent most of a 28.8 M-sample trace's insertion hashing
// and comparing keys (two to three map operations a sample).
type pathTable struct {
	slots   []int32 // an entry's index plus one; 0 is free
	entries []pathEntry
}

// A pathEntry is a path: its key (start, length and thread: 32 bytes an
// entry where a pathKey alone takes 24; a stack's length fits an int32, as
// a node's depth does), its group in batch batch, and its end and thread
// nodes once a batch has inserted it (NoNode before).
type pathEntry struct {
	start             int
	length, keyThread int32
	group, batch      int32
	end, thread       NodeID
}

func (e *pathEntry) is(k pathKey) bool {
	return e.start == k.start && int(e.length) == k.end-k.start && e.keyThread == k.thread
}

func (e *pathEntry) key() pathKey {
	return pathKey{e.start, e.start + int(e.length), e.keyThread}
}

func (pt *pathTable) reset() {
	clear(pt.slots)
	pt.entries = pt.entries[:0]
}

func pathHash(k pathKey, mask uint64) uint64 {
	h := uint64(k.start)*0x9e3779b97f4a7c15 ^ uint64(k.end)*0xc2b2ae3d27d4eb4f ^ uint64(uint32(k.thread))*0x165667b19e3779f9
	return (h ^ h>>29) & mask
}

// index returns the number of key's path, numbering it when new.
func (pt *pathTable) index(k pathKey) (p int32, isNew bool) {
	if 2*(len(pt.entries)+1) > len(pt.slots) {
		pt.grow()
	}
	mask := uint64(len(pt.slots) - 1)
	for i := pathHash(k, mask); ; i = (i + 1) & mask {
		s := pt.slots[i]
		if s == 0 {
			p = int32(len(pt.entries))
			pt.entries = append(pt.entries, pathEntry{start: k.start, length: int32(k.end - k.start), keyThread: k.thread, end: NoNode, thread: NoNode})
			pt.slots[i] = p + 1
			return p, true
		}
		if pt.entries[s-1].is(k) {
			return s - 1, false
		}
	}
}

// grow doubles the slots (at least 1024) and re-enters the entries.
func (pt *pathTable) grow() {
	pt.slots = make([]int32, max(1024, 2*len(pt.slots)))
	mask := uint64(len(pt.slots) - 1)
	for p, e := range pt.entries {
		i := pathHash(e.key(), mask)
		for pt.slots[i] != 0 {
			i = (i + 1) & mask
		}
		pt.slots[i] = int32(p + 1)
	}
}

// A scratch holds the buffers of one profile's insertion. They are reused
// by the next profile, of this builder or another (scratchPool): a diff of
// 100 + 100 runs builds 200 trees, and fresh buffers for each were
// allocated, cleared and faulted in 200 times. The tree keeps none of
// them.
type scratch struct {
	ins    inserter
	locs   locationCache
	prefix pathPrefix
}

// scratchPool holds scratches of no more than maxPooledScratch bytes (8 MB
// for a 20,000-stack synthetic profile, 12 MB before a batch's paths were
// held once, by depth): a larger profile's buffers (84 MB for 200,000
// stacks) are garbage once its tree is built, as they were before, so that
// a pooled one does not add to the memory of the comparison that follows;
// its build is long enough that fresh buffers are a small part of it.
var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

const maxPooledScratch = 32 << 20

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

// Buffers keep a builder's working buffers (a scratch no larger than
// maxPooledScratch) from one tree to the next that one goroutine builds,
// as cmd/ctdiff's goroutines build the runs of a diff one after another.
// scratchPool does too, but a garbage collection empties it, and a diff of
// 100 + 100 runs, at its GOGC of 25, collects every few runs: 35 of its 200
// builds took a new scratch. The zero value is ready to use; Buffers are
// not for concurrent use.
type Buffers struct {
	sc *scratch
}

// UseBuffers makes the builder take its working buffers from buf, and
// leave them there, instead of a shared pool.
func (b *Builder) UseBuffers(buf *Buffers) { b.buf = buf }

// scratch returns a scratch from the builder's Buffers, or else from the
// pool.
func (b *Builder) scratch() *scratch {
	if b.buf != nil && b.buf.sc != nil {
		sc := b.buf.sc
		b.buf.sc = nil
		return sc
	}
	return getScratch()
}

// release returns the builder's scratch to its Buffers or the pool,
// keeping no reference to the tree, the profile or its samples, but for
// the locations of a profile of at most maxKeptLocations (keptFrames).
func (b *Builder) release() {
	sc := b.sc
	b.sc = nil
	if sc == nil {
		return
	}
	if sc.bytes() > maxPooledScratch {
		return
	}
	sc.locs.keepEntries(b.t)
	sc.ins.t, sc.ins.src, sc.ins.claimed = nil, nil, nil
	sc.locs.p = nil
	if b.buf != nil {
		b.buf.sc = sc
	} else {
		scratchPool.Put(sc)
	}
}

// bytes is the scratch's buffers' size.
func (sc *scratch) bytes() int {
	in := &sc.ins
	n := 4 * (cap(in.flat) + cap(in.glen) + cap(in.glcp) + cap(in.path) + cap(in.prev) + cap(in.group) + cap(in.batchPaths) + cap(in.presetEnd) + cap(in.presetThread) +
		cap(in.end) + cap(in.thread) + 4*cap(in.live) + cap(in.cur) +
		2*cap(in.made) + 2*cap(in.kid) + cap(in.head) +
		2*cap(in.groupAt) + cap(in.paths.slots) + cap(in.levels) +
		cap(sc.locs.one) + cap(sc.locs.more) + 2*cap(sc.locs.spans) + cap(sc.locs.fns) + cap(sc.prefix.stack) + cap(sc.prefix.ends))
	for _, c := range in.cols {
		for _, ch := range c.chunks {
			n += 4 * cap(ch)
		}
		n += 24 * cap(c.chunks)
	}
	n += 8 * cap(in.samples)
	n += 64*cap(in.cols) + cap(in.preset) + 32*cap(in.paths.entries)
	n += 16 * (len(in.level.buf) + len(in.level.spare))
	k := &sc.locs.kept
	n += 8*cap(k.locs) + 8*cap(k.span) + 40*cap(k.entries) + int(unsafe.Sizeof(Frame{}))*cap(k.frames) + 4*cap(sc.locs.ids)
	return n
}
