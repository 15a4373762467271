package diff

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/ctdiff/ctdiff/cct"
)

// A key is a frame identity interned across all trees of one comparison, so
// that siblings of different trees compare as integers.
type key = int32

// keyFrame is what makes two frames "the same" across trees: ZAM's
// (component, name) pair, plus kind and ordinal so threads match by name and
// ordinal (a thread is a root of the tree, its name and ordinal its
// identity). The call site is deliberately not part of it:
// line numbers shift between versions, so calls from different lines of one
// caller are told apart by their order among siblings (LCS) and, in PARCS
// mode, by the call-site rule of Definition 2. The component of a script
// is its URL's path, and same-named functions of one script are told apart
// by their order (identity.go).
type keyFrame struct {
	Function, File string
	Kind           cct.Kind
	Ordinal        int32
	// Thread and Process name thread frames (cct.Frame).
	Thread, Process string
	// Slot numbers same-named functions of one script (identity.go).
	Slot int32
	// StartLine and StartColumn are where the function is defined, as
	// first seen: shown, not compared (0 in identities).
	StartLine, StartColumn int64
}

// frame is how reports show a function frame.
func (kf keyFrame) frame() Frame {
	return Frame{Function: kf.Function, File: kf.File, Line: int32Or0(kf.StartLine), Column: int32Or0(kf.StartColumn)}
}

// int32Or0 is v, or 0 (unknown) when it does not fit in an int32.
func int32Or0(v int64) int32 {
	if v < 0 || v > math.MaxInt32 {
		return 0
	}
	return int32(v)
}

// keyTable interns keyFrames: idx by identity, frames as first seen (what
// reports show).
type keyTable struct {
	idx    map[keyFrame]key
	frames []keyFrame
	// slots holds, per side (base, new), the Slot of functions whose name
	// several functions of their script share (identity.go); nil when no
	// name is shared.
	slots [2]map[startKey]int32
	// late and ambiguous are streamPositions': slots given to positions
	// the first pair lacks, and the groups that pair has more than one
	// position of. nil otherwise.
	late      map[startKey]int32
	ambiguous map[[2]string]bool
	// closures tags each key whose function is a numbered closure, and
	// groups numbers their enclosing functions (match_closure.go).
	closures []closureTag
	groups   map[string]int32
}

// newKeyTable returns a key table for comparing the base trees with the new
// trees (none for tests that intern frames of one side).
func newKeyTable(sides ...[]*cct.Tree) *keyTable {
	kt := &keyTable{idx: map[keyFrame]key{}}
	if len(sides) == 2 {
		var frames [2][][]cct.Frame
		for s, ts := range sides {
			for _, t := range ts {
				frames[s] = append(frames[s], t.Frames)
			}
		}
		kt.positions(frames[0], frames[1])
	}
	return kt
}

// keyTableOf is newKeyTable for the runs of a comparison, whose trees may
// be gone: their frames are all positions needs.
func keyTableOf(base, nw []*run) *keyTable {
	kt := &keyTable{idx: map[keyFrame]key{}}
	var frames [2][][]cct.Frame
	for s, rs := range [2][]*run{base, nw} {
		for _, r := range rs {
			frames[s] = append(frames[s], r.frames)
		}
	}
	kt.positions(frames[0], frames[1])
	return kt
}

// intern returns the key of a frame of a tree of side s (0 base, 1 new).
func (kt *keyTable) intern(f cct.Frame, s int) key {
	kf := keyFrame{Function: f.Function, File: f.File, Thread: f.Thread, Process: f.Process, Kind: f.Kind, Ordinal: f.Ordinal,
		StartLine: f.StartLine, StartColumn: f.StartColumn}
	id := kf
	id.StartLine, id.StartColumn = 0, 0
	switch {
	case cct.GoSymbol(f):
		id.File = ""
	case f.Kind == cct.KindFunction:
		id.File = scriptPath(f.File)
		id.Slot = kt.slot(f, id.File, s)
	}
	if k, ok := kt.idx[id]; ok {
		return k
	}
	k := key(len(kt.frames))
	kf.Slot = id.Slot
	kt.frames = append(kt.frames, kf)
	kt.idx[id] = k
	if f.Kind == cct.KindFunction {
		kt.tagClosure(k, f.Function, id.File)
	}
	return k
}

// A run is one input tree with what the comparison needs of it, computed
// once when the tree is folded (foldTree): metric values per node, the
// shape of the tree, and later its keys and its place in the union tree.
// It holds no reference to the tree, whose values per sample type, counts
// and lookup maps are two thirds of its memory: a comparison of many runs
// keeps runs, not trees.
type run struct {
	// frames are the tree's frames (the tree's own slice: read only), and
	// nframe each node's frame.
	frames []cct.Frame
	nframe []cct.FrameID
	// parent and depth are per node, as cct.Node has them.
	parent []cct.NodeID
	depths []int32
	// fkey maps the tree's FrameIDs to keys, and nkey each node to its
	// frame's key: matching reads the keys of every sibling list, and one
	// small array stays in cache where the tree's nodes do not. Both are
	// filled by keyRun, once every run's frames are known.
	fkey, nkey []key
	// total and self are the metric's values per node.
	total, self []int64
	// period is the metric's value per sample (the sampling interval of a
	// CPU profile), from the root's total and sample count; 0 when the
	// tree counts no samples. Normalization scales it with the values.
	period float64
	// toU maps each node to its union-tree node; nil once dropped from
	// the run the union copied (dropUnionCopies), whose toU is the
	// identity.
	toU []int32
	// uTotal and uSelf are the union's values of the run's side
	// (meanBase or meanNew, selfBase or selfNew) once total or self is
	// dropped (dropUnionCopies): with one run a side they are the run's
	// own, as float64, node n's at its union node (unionNode).
	uTotal, uSelf []float64
	// The tree's child lists in one array, node after node (node n's
	// children are kids[kidStart[n]:kidStart[n+1]]), and their keys beside
	// them: matching reads every sibling list of both trees several times,
	// and two arrays read in order cost far less than a node and a key
	// lookup per child.
	kidStart []int32
	kids     []cct.NodeID
	kidKeys  []key
	// idle are the "(idle)" children of threads, whose totals the thread
	// and root totals leave out (Side.Idle says how much).
	idle []int32
	// info is what normalization and the benchmark verdict read of the
	// tree as a whole.
	info treeInfo
	// released is the node count of a released run (release).
	released int
}

// treeInfo is what a comparison needs of a tree besides its nodes.
type treeInfo struct {
	sampleTypes   []cct.ValueType
	periodType    cct.ValueType
	periodValue   int64 // cct.Tree.Period
	durationNanos int64
	// timeNanos is when the run was recorded (cct.Tree.TimeNanos).
	timeNanos int64
	// samples is the tree's sample count when it has one (sampleCount).
	samples    int64
	hasSamples bool
	// marker is the count of Options.Normalize's marker function, when
	// the normalization is per=FUNC (markerCount).
	marker *markerResult
}

// markerResult is markerCount's answer for one tree.
type markerResult struct {
	count        float64
	source, name string
	err          error
}

func newRun(t *cct.Tree, kt *keyTable, m Metric) *run {
	r := foldTree(t, m, "")
	r.keys(kt, 0)
	return r
}

// newRuns is newRun for several trees, the first nBase of them base runs,
// the per-node arrays built in parallel (the key table is filled after,
// in order).
func newRuns(ts []*cct.Tree, nBase int, kt *keyTable, m Metric) []*run {
	runs := make([]*run, len(ts))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, t := range ts {
		wg.Go(func() {
			sem <- struct{}{}
			runs[i] = foldTree(t, m, "")
			<-sem
		})
	}
	wg.Wait()
	for i, r := range runs {
		r.keys(kt, min(i/max(nBase, 1), 1))
	}
	return runs
}

// keys interns the run's frames as side s (0 base, 1 new) and fills the
// keys per node and per child. It runs in run order, base runs first: keys
// are numbered as frames are first seen.
func (r *run) keys(kt *keyTable, s int) {
	each := parallel
	if len(r.nframe) < parallelKeys {
		each = serial
	}
	r.keysOn(kt, s, each)
}

// keysOn is keys with the nodes split over goroutines by each.
func (r *run) keysOn(kt *keyTable, s int, each func(n int, work func(from, to int))) {
	r.fkey = make([]key, len(r.frames))
	for i, f := range r.frames {
		r.fkey[i] = kt.intern(f, s)
	}
	// The keys per node and per child, on every core for a large run:
	// runs are keyed one after another (the key table numbers frames as
	// first seen), and a run of 8M nodes has 16M keys to write. A small
	// one is keyed where it is matched next (a stream keys and matches
	// each run as it arrives, on every core already).
	r.nkey = make([]key, len(r.nframe))
	r.kidKeys = make([]key, len(r.kids))
	fill := func(from, to int) {
		for i, f := range r.nframe[from:to] {
			r.nkey[from+i] = r.fkey[f]
		}
	}
	fillKids := func(from, to int) {
		for i, c := range r.kids[from:to] {
			r.kidKeys[from+i] = r.nkey[c]
		}
	}
	each(len(r.nframe), fill)
	each(len(r.kids), fillKids)
}

// parallelKeys is the least node count of a run keyed on every core: a
// 200k-stack profile's run (1 M nodes, keyed on the critical path after
// the last tree is built) is, a stream's run of 100 + 100 (100 k nodes)
// is not.
const parallelKeys = 1 << 18

// foldTree reads of a tree everything a comparison needs (m's values, the
// shape, treeInfo), so that the tree can be dropped. marker, when not "",
// is the function Options.Normalize counts per run.
func foldTree(t *cct.Tree, m Metric, marker string) *run {
	return foldTreeLike(t, m, marker, nil, false)
}

// foldTreeLike is foldTree that shares like's shape arrays (read only)
// when the tree has its shape, instead of copying the tree's: a stream's
// runs of one program mostly do (memo.go), and each copy was 20 bytes a
// node allocated and written (100 + 100 runs of synth's 20,000-stack
// profile: 430 MB).
//
// wide folds a large tree on every core: the last tree of a comparison is
// folded on its critical path, while the cores that built the others wait
// (200k-stack pair: 1 M nodes, 30-45 ms on one core). An earlier tree is
// folded on one, beside the builds still running, which would wait for it.
func foldTreeLike(t *cct.Tree, m Metric, marker string, like *shapeMemo, wide bool) *run {
	n := len(t.Nodes)
	r := &run{frames: t.Frames}
	r.total = make([]int64, n)
	r.self = make([]int64, n)
	parts := 1
	if wide {
		parts = parallelCount(n)
	}
	if k := m.col - 1; k >= 0 {
		// (A tree may keep type k's values alone: cct.Options.OneSampleType.)
		self, total, stride := t.Values(k)
		parallelParts(n, parts, func(_, from, to int) {
			for i := from; i < to; i++ {
				r.total[i] = total[i*stride] * m.scale
				r.self[i] = self[i*stride] * m.scale
			}
		})
	} else {
		// The caller's functions: not known to be safe on several
		// goroutines.
		for i := range t.Nodes {
			id := cct.NodeID(i)
			r.total[i] = m.Total(t, id)
			r.self[i] = m.Self(t, id)
		}
	}
	if like.hasShapeOf(t) {
		r.nframe, r.parent, r.depths, r.kidStart, r.kids = like.nframe, like.parent, like.depths, like.kidStart, like.kids
	} else {
		r.copyShape(t, parts)
	}
	r.period = samplePeriod(t, r.total[cct.RootID])
	r.info = treeInfo{sampleTypes: t.SampleTypes, periodType: t.PeriodType, periodValue: t.Period, durationNanos: t.DurationNanos, timeNanos: t.TimeNanos}
	r.info.samples, r.info.hasSamples = sampleCount(t)
	if marker != "" {
		c, src, name, err := markerCount(t, marker)
		r.info.marker = &markerResult{c, src, name, err}
	}
	// Threads and the root count busy time only: "(idle)" is the absence of
	// work, and a longer recording (or a thread waiting on a slower one)
	// grows it without anything regressing. The idle nodes keep their own
	// values, so the weights and rankings still see them.
	for _, th := range t.Children(cct.RootID) {
		for _, c := range t.Children(th) {
			if isIdle(t.Frames[t.Nodes[c].Frame]) {
				r.idle = append(r.idle, int32(c))
				r.total[th] -= r.total[c]
				r.total[cct.RootID] -= r.total[c]
			}
		}
	}
	return r
}

// copyShape copies t's shape: each node's frame, parent and depth, and
// the child lists. It works in parts ranges of nodes, each on its own
// goroutine (foldTreeLike's wide): a first pass copies the nodes and
// counts each range's children, a second writes the child lists at the
// offsets those counts give.
func (r *run) copyShape(t *cct.Tree, parts int) {
	n := len(t.Nodes)
	r.nframe = make([]cct.FrameID, n)
	r.parent = make([]cct.NodeID, n)
	r.depths = make([]int32, n)
	edges := make([]int, parts+1) // edges[k+1]: part k's children
	parallelParts(n, parts, func(k, from, to int) {
		e := 0
		for i := from; i < to; i++ {
			nd := &t.Nodes[i]
			r.nframe[i], r.parent[i], r.depths[i] = nd.Frame, nd.Parent, nd.Depth
			e += len(t.Children(cct.NodeID(i)))
		}
		edges[k+1] = e
	})
	for k := range parts {
		edges[k+1] += edges[k]
	}
	r.kidStart = make([]int32, n+1)
	r.kids = make([]cct.NodeID, edges[parts])
	// A child at a time: most nodes have one or two children, and a copy
	// per node cost more in calls than in copying (0.15 s of 100 + 100
	// runs' 10 s).
	parallelParts(n, parts, func(part, from, to int) {
		k := edges[part]
		for i := from; i < to; i++ {
			r.kidStart[i] = int32(k)
			for _, c := range t.Children(cct.NodeID(i)) {
				r.kids[k] = c
				k++
			}
		}
	})
	r.kidStart[n] = int32(edges[parts])
}

// nodes is the run's node count, the root included.
func (r *run) nodes() int {
	if r.nframe == nil {
		return r.released
	}
	return len(r.nframe)
}

// release drops the run's nodes once a streamed Fold has taken what it
// needs of them (stream.go), keeping its summary.
func (r *run) release() { *r = *r.summary() }

// summary is the run without its nodes: what is read of it as a whole,
// its root's and idle nodes' values (total and self hold the root, then the
// idle nodes, which idle numbers 1, 2, ...: side and normalize read them
// as before), period, info and node count.
func (r *run) summary() *run {
	total, self := []int64{r.total[0]}, []int64{r.self[0]}
	idle := make([]int32, len(r.idle))
	for i, c := range r.idle {
		total, self = append(total, r.total[c]), append(self, r.self[c])
		idle[i] = int32(i + 1)
	}
	return &run{total: total, self: self, idle: idle, period: r.period, info: r.info, released: r.nodes()}
}

// dropMatching drops what only matching reads of the run, once the union
// and every matching of the comparison are made (comparison.compare): its
// frames, its nodes' frames and depths, its child lists and its keys, 24
// bytes a node. What PARCS's numbers read (parent, toU, the values) stays.
func (r *run) dropMatching() {
	r.released = r.nodes()
	r.frames, r.nframe, r.depths, r.kidStart, r.kids = nil, nil, nil, nil, nil
	r.fkey, r.nkey, r.kidKeys = nil, nil, nil
}

// unionNode returns node n's union node.
func (r *run) unionNode(n int32) int32 {
	if r.toU == nil {
		return n
	}
	return r.toU[n]
}

// totalOf returns node n's inclusive value, from the union's values when
// the run's are dropped (dropUnionCopies keeps only exact ones).
func (r *run) totalOf(n int32) int64 {
	if r.total != nil {
		return r.total[n]
	}
	return int64(r.uTotal[r.unionNode(n)])
}

// frameOf returns node n's frame.
func (r *run) frameOf(n int32) cct.Frame { return r.frames[r.nframe[n]] }

// isIdle reports V8's "(idle)" pseudo-frame. It is never a cause: it is the
// absence of work, and it grows in every thread that waits on a slower one
// (ZAM Section 5.3 found it among its most frequent false positives, "safely
// ignored"). "(program)" and "(garbage collector)" are work and stay.
func isIdle(f cct.Frame) bool { return f.Kind == cct.KindFunction && f.Function == "(idle)" }

func (r *run) key(n int32) key { return r.nkey[n] }

func (r *run) children(n int32) []cct.NodeID { return r.kids[r.kidStart[n]:r.kidStart[n+1]] }

// childKeys returns the keys of node n's children (the run's own array:
// read only) and, with callSites, fills cs with their call sites.
func (r *run) childKeys(n int32, cs []int64, callSites bool) ([]key, []int64) {
	keys := r.kidKeys[r.kidStart[n]:r.kidStart[n+1]]
	if !callSites {
		return keys, nil
	}
	cs = cs[:0]
	for _, c := range r.children(n) {
		cs = append(cs, r.callSite(int32(c)))
	}
	return keys, cs
}

func (r *run) depth(n int32) int32 { return r.depths[n] }

func (r *run) callSite(n int32) int64 { return r.frames[r.nframe[n]].CallSite }

// samplePeriod is the value per sample of a tree whose root totals value
// (in the metric) and a count of samples ("samples/count" or any count
// sample type); 0 when it has none.
func samplePeriod(t *cct.Tree, value int64) float64 {
	for k, vt := range t.SampleTypes {
		if vt.Unit != "count" {
			continue
		}
		if n := t.Total(cct.RootID)[k]; n > 0 && value > 0 {
			return float64(value) / float64(n)
		}
		return 0
	}
	return 0
}

// markerCount is markerCount of the run's tree, as foldTree counted it.
func (r *run) markerCount(fn string) (count float64, source, name string, err error) {
	if m := r.info.marker; m != nil {
		return m.count, m.source, m.name, m.err
	}
	return 0, "", "", fmt.Errorf("internal error: the run was folded without counting %s", fn)
}
