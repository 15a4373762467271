package diff

import (
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
// ordinal (DESIGN.md, "cct"). The call site is deliberately not part of it:
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
}

// newKeyTable returns a key table for comparing the base trees with the new
// trees (none for tests that intern frames of one side).
func newKeyTable(sides ...[]*cct.Tree) *keyTable {
	kt := &keyTable{idx: map[keyFrame]key{}}
	if len(sides) == 2 {
		kt.positions(sides[0], sides[1])
	}
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
	return k
}

// A run is one input tree with what the comparison needs of it, computed
// once: keys per frame, metric values per node, and its place in the union
// tree. The tree itself is only read.
type run struct {
	t *cct.Tree
	// fkey maps the tree's FrameIDs to keys, and nkey each node to its
	// frame's key: matching reads the keys of every sibling list, and one
	// small array stays in cache where the tree's nodes do not.
	fkey, nkey []key
	// total and self are the metric's values per node.
	total, self []int64
	// period is the metric's value per sample (the sampling interval of a
	// CPU profile), from the root's total and sample count; 0 when the
	// tree counts no samples. Normalization scales it with the values.
	period float64
	// toU maps each node to its union-tree node.
	toU []int32
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
}

func newRun(t *cct.Tree, kt *keyTable, m Metric) *run {
	r := keyRun(t, kt, 0)
	r.index(m)
	return r
}

// newRuns is newRun for several trees, the first nBase of them base runs,
// the per-node arrays built in parallel (the key table is filled first,
// in order).
func newRuns(ts []*cct.Tree, nBase int, kt *keyTable, m Metric) []*run {
	runs := make([]*run, len(ts))
	for i, t := range ts {
		runs[i] = keyRun(t, kt, min(i/max(nBase, 1), 1))
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, r := range runs {
		wg.Go(func() {
			sem <- struct{}{}
			r.index(m)
			<-sem
		})
	}
	wg.Wait()
	return runs
}

// keyRun starts a run of side s: the keys of the tree's frames.
func keyRun(t *cct.Tree, kt *keyTable, s int) *run {
	r := &run{t: t, fkey: make([]key, len(t.Frames))}
	for i, f := range t.Frames {
		r.fkey[i] = kt.intern(f, s)
	}
	return r
}

// index fills the run's per-node arrays.
func (r *run) index(m Metric) {
	t := r.t
	r.nkey = make([]key, len(t.Nodes))
	r.total = make([]int64, len(t.Nodes))
	r.self = make([]int64, len(t.Nodes))
	edges := 0
	for i := range t.Nodes {
		id := cct.NodeID(i)
		r.nkey[i] = r.fkey[t.Nodes[i].Frame]
		r.total[i] = m.Total(t, id)
		r.self[i] = m.Self(t, id)
		edges += len(t.Children(id))
	}
	r.kidStart = make([]int32, len(t.Nodes)+1)
	r.kids = make([]cct.NodeID, 0, edges)
	r.kidKeys = make([]key, 0, edges)
	for i := range t.Nodes {
		r.kidStart[i] = int32(len(r.kids))
		for _, c := range t.Children(cct.NodeID(i)) {
			r.kids = append(r.kids, c)
			r.kidKeys = append(r.kidKeys, r.nkey[c])
		}
	}
	r.kidStart[len(t.Nodes)] = int32(len(r.kids))
	r.period = samplePeriod(t, r.total[cct.RootID])
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
}

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

func (r *run) depth(n int32) int32 { return r.t.Nodes[n].Depth }

func (r *run) callSite(n int32) int64 { return r.t.Frames[r.t.Nodes[n].Frame].CallSite }

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
