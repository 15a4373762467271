package cct

import (
	"slices"
	"sync"
)

// batchFrames bounds the frames an inserter holds before it inserts them:
// 64 MB of frame ids, which holds a profile of 200,000 stacks of depth 40
// at once. Options.batchFrames overrides it, so tests can force many
// batches.
const batchFrames = 1 << 24

// A profile's batches are no larger than the frames its samples hold
// (a batch holds its frames twice, as paths and as columns), nor smaller
// than minBatchFrames: a call tree reader's samples share stacks (their
// frames held once), whose paths would otherwise fill the largest batch
// from a small file (issue 18).
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

	// frames holds the batch's paths below the root (thread frame first),
	// one per group of consecutive samples with the same path; a group's
	// path ends at ends[g].
	frames  []FrameID
	ends    []int
	src     *sampleReader
	samples []int   // the batch's samples (indexes in src), in order
	group   []int32 // per sample of the batch
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
	cols        [][]FrameID // per depth, the frames at that depth (columns)
	slab        []FrameID   // backs cols
	alive       []int32     // the groups whose paths are longer than the depth
	cur         []NodeID    // their nodes at the previous depth
	at          []int       // where their frames at the depth are in frames
	level       levelTable
	claimed     *NodeID // the level table's slot a failed lookup claimed

	// The new nodes, by temporary id: parent (an id below base is an
	// existing node, else base + temporary id), frame and first group.
	// (A node's depth is its parent's plus one, known when it is written.)
	parent []NodeID
	frame  []FrameID
	first  []int32
	// A new node's children, while its depth's children are inserted:
	// head is its first child (-1 for none, wideList once they are in
	// level), sib a child's next sibling. Temporary ids.
	head, sib []int32
	final     []NodeID
	order     []int32
	kidAt     []int32
	count     []int32
	// nodesPerFrame is the new nodes per frame of the last batch, for the
	// room growNew makes.
	nodesPerFrame float64
}

// start starts a profile.
func (in *inserter) start(t *Tree, opts Options, profile int32, src *sampleReader) {
	in.t, in.timeline, in.profile, in.src = t, opts.Timeline, profile, src
	in.samplesIdx = slices.Index(t.SampleTypes, ValueType{"samples", "count"})
	in.done = 0
	in.batchNo = 1
	in.reset()
	// About the frames of the profile's paths (its locations and thread
	// frames: more with inlining, fewer with pruning).
	frames := in.pathFrames(src)
	limit := batchFrames
	if opts.batchFrames > 0 {
		limit = opts.batchFrames
	}
	in.batch = min(limit, max(minBatchFrames, heldFrames(src)))
	in.frames = slices.Grow(in.frames, min(frames, in.batch+in.batch/8))
	in.samples = slices.Grow(in.samples, min(src.len(), in.batch))
	in.ends = slices.Grow(in.ends, min(src.len(), in.batch))
	in.group = slices.Grow(in.group, min(src.len(), in.batch))
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

// pathFrames counts the frames of a profile's locations and threads. Of
// keyed samples it numbers the paths in in.paths.
func (in *inserter) pathFrames(src *sampleReader) int {
	in.paths.reset()
	if s := src.compact; s != nil && s.Starts == nil {
		return len(s.Locations) + s.Len()
	}
	if _, ok := src.pathKey(0); ok && src.len() > 0 {
		// Shared stacks are copied once per batch: count each once
		// (appending to the frames as they come would allocate five times
		// their size).
		frames := 0
		for i := range src.len() {
			k, _ := src.pathKey(i)
			if _, isNew := in.paths.index(k); isNew {
				frames += k.end - k.start + 1
			}
		}
		return frames
	}
	return sampleFrames(src)
}

func (in *inserter) reset() {
	in.frames, in.ends, in.samples, in.group = in.frames[:0], in.ends[:0], in.samples[:0], in.group[:0]
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
		g := int32(len(in.ends))
		in.ends = append(in.ends, len(in.frames)) // no path
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
	for len(in.preset) < len(in.ends) {
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

// columns copies the batch's paths into one column per depth, in one
// slab: column d holds frame d of the paths longer than d, in group order,
// which is the order of the live paths at depth d. Reading a column is
// sequential; reading frame d of every path in the batch is not.
func (in *inserter) columns(groups int) [][]FrameID {
	maxLen := 0
	for g := range groups {
		maxLen = max(maxLen, in.ends[g]-in.pathStart(g))
	}
	in.count = resize(in.count, maxLen+1)
	clear(in.count)
	for g := range groups {
		in.count[in.ends[g]-in.pathStart(g)]++
	}
	in.slab = resize(in.slab, len(in.frames))
	in.cols = resize(in.cols, maxLen)
	at, longer := 0, groups-int(in.count[0]) // paths longer than d (preset groups have none)
	for d := range maxLen {
		in.cols[d] = in.slab[at : at : at+longer]
		at += longer
		longer -= int(in.count[d+1])
	}
	for g := range groups {
		for d, f := range in.groupPath(g) {
			in.cols[d] = append(in.cols[d], f)
		}
	}
	return in.cols
}

// step records that live path i (group g) reached node id at depth d, and
// keeps it live at position *next when its path goes deeper.
func (in *inserter) step(d int, g int32, i int, id NodeID, next *int) {
	if d == 0 {
		in.thread[g] = id
	}
	if in.at[i]+1 == in.ends[g] {
		in.end[g] = id
		return
	}
	in.alive[*next], in.cur[*next], in.at[*next] = g, id, in.at[i]+1
	*next++
}

// pathStart returns where group g's path starts in in.frames.
func (in *inserter) pathStart(g int) int {
	if g > 0 {
		return in.ends[g-1]
	}
	return 0
}

// groupPath returns the path of group g.
func (in *inserter) groupPath(g int) []FrameID {
	return in.frames[in.pathStart(g):in.ends[g]]
}

// endSample ends the path of sample s (an index in in.src), which the
// caller appended to in.frames, and inserts the batch when it is full.
func (in *inserter) endSample(s int) {
	g := len(in.ends)
	if g > 0 {
		prevEnd := in.ends[g-1]
		prev := in.groupPath(g - 1)
		if slices.Equal(prev, in.frames[prevEnd:]) {
			in.frames = in.frames[:prevEnd]
			g--
		} else {
			in.ends = append(in.ends, len(in.frames))
		}
	} else {
		in.ends = append(in.ends, len(in.frames))
	}
	in.samples = append(in.samples, s)
	in.group = append(in.group, int32(g))
	if len(in.frames) >= in.batch {
		in.flush()
	}
}

// flush inserts the batch into the tree.
func (in *inserter) flush() {
	if len(in.samples) == 0 {
		return
	}
	t := in.t
	groups := len(in.ends)
	base := NodeID(len(t.Nodes))
	in.parent, in.frame, in.first = in.parent[:0], in.frame[:0], in.first[:0]
	in.head, in.sib = in.head[:0], in.sib[:0]
	in.end = resize(in.end, groups)
	in.thread = resize(in.thread, groups)

	// Every path starts at depth 0 (it holds its thread); at[i] is where
	// alive path i's next frame is in in.frames. Reading frame d of every
	// path walks in.frames forwards, which the hardware prefetches.
	in.alive, in.cur, in.at = resize(in.alive, groups), resize(in.cur, groups), resize(in.at, groups)
	live := 0
	for g := range groups {
		// preset is as long as the groups up to the last preset one
		// (none without keyed samples).
		if g < len(in.preset) && in.preset[g] {
			in.end[g], in.thread[g] = in.presetEnd[g], in.presetThread[g]
			continue
		}
		in.alive[live], in.cur[live], in.at[live] = int32(g), RootID, in.pathStart(g)
		live++
	}
	in.alive, in.cur, in.at = in.alive[:live], in.cur[:live], in.at[:live]
	cols := in.columns(groups)
	if in.last && 4*cap(in.frames) > maxPooledScratch/2 {
		// The columns hold the frames now: a large buffer can go while
		// the nodes are made, which is when a tree's memory peaks. (A
		// small one is kept for the next profile: scratchPool.)
		in.frames = nil
	}
	for d := 0; len(in.alive) > 0; d++ {
		in.level.reset()
		col := cols[d]
		next := 0 // alive, cur and at are filtered in place
		lastParent, lastFrame, lastID := NoNode, FrameID(-1), NoNode
		for i, g := range in.alive {
			parent, f := in.cur[i], col[i]
			// Neighbouring paths often share this step (time-ordered
			// samples, shallow depths): no lookup then.
			if parent == lastParent && f == lastFrame {
				in.step(d, g, i, lastID, &next)
				continue
			}
			id, found := in.lookup(parent, f, base)
			if !found {
				id = in.add(parent, f, g, base)
			}
			lastParent, lastFrame, lastID = parent, f, id
			in.step(d, g, i, id, &next)
		}
		in.alive, in.cur, in.at = in.alive[:next], in.cur[:next], in.at[:next]
	}

	n := len(in.parent)
	if frames := len(in.slab); frames > 0 {
		in.nodesPerFrame = float64(n) / float64(frames)
	}
	// Counting sort by first group, stable: within a group the new nodes
	// form one path, created depth by depth.
	in.count = resize(in.count, groups+1)
	clear(in.count)
	for _, g := range in.first {
		in.count[g+1]++
	}
	for g := 1; g <= groups; g++ {
		in.count[g] += in.count[g-1]
	}
	order := resize(in.order, n) // order[rank] = temporary id
	for i, g := range in.first {
		order[in.count[g]] = int32(i)
		in.count[g]++
	}
	in.order = order
	// The new nodes are written in that order, one after another, their
	// child lists (of exact length, filled as their children come) in one
	// slab: a new node's children come after it.
	nkids := resize(in.count, n) // reuses count: the sort is done
	clear(nkids)
	links := 0 // new nodes under existing ones
	for _, p := range in.parent {
		if p >= base {
			nkids[p-base]++
		} else {
			links++
		}
	}
	in.count = nkids
	kidAt := resize(in.kidAt, n) // where a new node's next child goes in its list
	in.kidAt = kidAt
	off := int32(0)
	in.final = resize(in.final, n)
	for r, i := range order {
		in.final[i] = base + NodeID(r)
		kidAt[i] = off
		off += nkids[i]
	}
	// The new nodes' lists go at the end of the tree's child array (which
	// linking a new node to an existing one may move: index it afresh).
	kidBase := int32(len(t.kids))
	more := in.more(n)
	// Linking appends to t.kids too: room for an existing parent's list
	// to move (twice over when it doubles) is the common case of a new
	// tree, whose threads link to the root.
	t.kids = grow(t.kids, int(off), more+4*links)[:int(kidBase+off)]
	t.reserve(n, more)
	t.Nodes = t.Nodes[:int(base)+n]
	t.growValues(n)
	for r, i := range order {
		id := base + NodeID(r)
		p, f := in.parent[i], in.frame[i]
		if p >= base {
			pt := p - base
			p = in.final[pt]
			t.kids[kidBase+kidAt[pt]] = id
			kidAt[pt]++
		}
		k := nkids[i]
		t.Nodes[id] = Node{Frame: f, Parent: p, Depth: t.Nodes[p].Depth + 1, kidOff: kidBase + kidAt[i], kidCap: k, kidLen: k}
		if p < base {
			t.link(p, id, f)
		}
	}
	for r, i := range order {
		if nkids[i] > wideChildren {
			t.indexChildren(base + NodeID(r))
		}
	}

	for g := range groups {
		if e := in.end[g]; e >= base {
			in.end[g] = in.final[e-base]
		}
		if th := in.thread[g]; th >= base {
			in.thread[g] = in.final[th-base]
		}
	}
	for _, p := range in.batchPaths {
		e := &in.paths.entries[p]
		e.end, e.thread = in.end[e.group], in.thread[e.group]
	}
	for k, s := range in.samples {
		g := in.group[k]
		id := in.end[g]
		self := t.Self(id)
		values := in.src.values(s)
		for j, v := range values {
			self[j] += v
		}
		if in.timeline {
			if ts, ok := in.src.time(s); ok {
				event := in.samplesIdx >= 0 && values[in.samplesIdx] == 0
				t.Timeline = append(t.Timeline, TimedSample{Thread: in.thread[g], Leaf: id, Time: ts, Profile: in.profile, Event: event})
			}
		}
	}
	in.done += len(in.samples)
	in.batchNo++
	in.reset()
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
// lookups. A parent whose list grows longer than wideChildren has its
// children moved to the level table, as have existing parents always.
func (in *inserter) lookup(parent NodeID, f FrameID, base NodeID) (NodeID, bool) {
	if parent >= base {
		pt := parent - base
		if h := in.head[pt]; h != wideList {
			hops := 0
			for c := h; c >= 0; c = in.sib[c] {
				if in.frame[c] == f {
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
	for c := in.head[pt]; c >= 0; c = in.sib[c] {
		slot, _ := in.level.find(base+pt, in.frame[c])
		*slot = base + NodeID(c)
		in.level.added()
	}
	in.head[pt] = wideList
}

// add makes a new node, child of parent with frame f, first reached by
// group g, after a lookup that did not find it.
func (in *inserter) add(parent NodeID, f FrameID, g int32, base NodeID) NodeID {
	if len(in.parent) == cap(in.parent) {
		in.growNew()
	}
	tmp := int32(len(in.parent))
	id := base + NodeID(tmp)
	in.parent = append(in.parent, parent)
	in.frame = append(in.frame, f)
	in.first = append(in.first, g)
	in.head = append(in.head, -1)
	in.sib = append(in.sib, -1)
	if parent >= base && in.head[parent-base] != wideList {
		pt := parent - base
		in.sib[tmp], in.head[pt] = in.head[pt], tmp
	} else {
		*in.claimed = id
		in.level.added()
	}
	in.claimed = nil
	return id
}

// growNew doubles the room for new nodes: append grows large slices by a
// quarter, which for a million new nodes allocated the arrays five
// times over. The first room of a batch is its frames times the new
// nodes per frame of the batch before (this profile's or the tree's
// before), at least 1/8: a 200,000-stack profile of 6 M frames makes 1 M
// nodes, which doubling from 4,096 allocated twice over.
func (in *inserter) growNew() {
	n := max(len(in.parent), 1<<12)
	if len(in.parent) == 0 {
		perFrame := in.nodesPerFrame
		if perFrame == 0 {
			perFrame = 1.0 / 8
		}
		n = max(n, int(float64(len(in.slab))*perFrame*1.1))
	}
	in.parent = slices.Grow(in.parent, n)
	in.frame = slices.Grow(in.frame, n)
	in.first = slices.Grow(in.first, n)
	in.head = slices.Grow(in.head, n)
	in.sib = slices.Grow(in.sib, n)
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
	ins  inserter
	locs locationCache
}

// scratchPool holds scratches of no more than maxPooledScratch bytes
// (12 MB for a 20,000-stack profile, 30 MB for 50,000): a larger
// profile's buffers (121 MB for 200,000 stacks) are garbage once its tree
// is built, as they were before, so that a pooled one does not add to the
// memory of the comparison that follows; its build is long enough that
// fresh buffers are a small part of it.
var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

const maxPooledScratch = 32 << 20

func getScratch() *scratch { return scratchPool.Get().(*scratch) }

// release returns the builder's scratch to the pool, keeping no reference
// to the tree, the profile or its samples.
func (b *Builder) release() {
	sc := b.sc
	b.sc = nil
	if sc == nil {
		return
	}
	sc.ins.t, sc.ins.src, sc.ins.claimed = nil, nil, nil
	sc.locs.p = nil
	if sc.bytes() <= maxPooledScratch {
		scratchPool.Put(sc)
	}
}

// bytes is the scratch's buffers' size.
func (sc *scratch) bytes() int {
	in := &sc.ins
	n := 4 * (cap(in.frames) + cap(in.group) + cap(in.batchPaths) + cap(in.presetEnd) + cap(in.presetThread) +
		cap(in.end) + cap(in.thread) + cap(in.slab) + cap(in.alive) + cap(in.cur) +
		cap(in.parent) + cap(in.frame) + cap(in.first) + cap(in.head) + cap(in.sib) +
		cap(in.final) + cap(in.order) + cap(in.kidAt) + cap(in.count) + cap(in.paths.slots) +
		cap(sc.locs.one) + cap(sc.locs.more) + 2*cap(sc.locs.spans))
	n += 8 * (cap(in.ends) + cap(in.samples) + cap(in.at))
	n += 24*cap(in.cols) + cap(in.preset) + 32*cap(in.paths.entries)
	n += 16 * (len(in.level.buf) + len(in.level.spare))
	return n
}
