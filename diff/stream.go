package diff

import (
	"fmt"
	"math"
	"sync"
	"sync/atomic"
)

// streamMinRuns is the most runs per side a Fold keeps until Compare. With
// more on either side (and two or more on each), a Fold streams: each run
// is keyed, matched onto the union tree, matched with its pair and with the
// previous base run, and released as it arrives, so memory holds the union,
// its per-run values and a few runs instead of every run (100 + 100 runs
// of a 20,000-stack profile kept 1 GB of runs). Up to this many runs
// per side a comparison is exactly what it always was (byte-identical
// output); beyond, streaming changes three things, documented on stream.
const streamMinRuns = 10

// A stream is the state of a Fold that builds the comparison as runs
// arrive. The runs are taken in a fixed order whatever order Add gets them
// in (a reorder buffer: runs that arrive early wait in their slots): base
// run 0, new run 0, base run 1, new run 1, ... while both sides have runs,
// then the rest of the longer side. Each pair (base i, new i) is thus
// matched as soon as its new run is in, and the base-vs-base matching of
// base i and i+1 when base i+1 is; a run is released (run.release) once
// nothing more needs it, so at most two runs are held beside those waiting.
//
// What differs from keeping every run (Fold.Compare without a stream):
//
//   - The union tree is built in that interleaved order, not all base runs
//     first: where the matching depends on what the union already holds
//     (renames, LCS ties), and in union node order (ties of sorted
//     output), results can differ.
//   - Same-named functions of one script are keyed by aligning the first
//     pair's positions only (keyTable.streamPositions): later runs' frames
//     are not known when the first run is keyed. Go symbols need no slots:
//     for Go profiles the keys are the same.
//   - The runs are matched before the normalization is known (it is
//     planned on every run's duration): the union's per-run values are
//     stored raw and scaled by each run's factor at the end, exactly as
//     run.scale would (same rounding, so the tests see the same values);
//     PARCS's percentage weights are taken on the raw values (they differ
//     only by the rounding of scaled values), subtree weights are scaled at
//     the end, and the rename threshold, μ/2, is μ as the first pair alone
//     resolves it, converted to the first base run's raw units.
type stream struct {
	o     Options // complete
	order []int   // slot indices in the order they are taken

	mu       sync.Mutex
	next     int  // position in order of the next run to take
	taken    int  // runs taken
	draining bool // a goroutine is taking runs
	failed   bool // a run could not be folded: Compare reports why

	kt             *keyTable
	u              *union
	um, pm, sm, nm *matcher
	prevBase       *run
	acc            *parcsAcc
	noise          []float64

	// Runs of one program repeat their shape (synth's 20,000-stack runs:
	// every base run is node for node the one before, and so is every new
	// run): what depends on the shape alone is computed once per streak
	// (memo.go's shapeMemo), not once per run.
	shapes [2]*shapeMemo // the last run taken of each side
	// latest is shapes for Fold.fold, which runs beside take: a tree
	// of its shape is folded on its arrays (foldTreeLike).
	latest [2]atomic.Pointer[shapeMemo]
	// same[s] says the run of side s taken last has the shape of the one
	// before it; prevSame is same[0] as it was for the base run before.
	same     [2]bool
	prevSame bool
	// pairMemo and noiseMemo are the last pair's and the last two base
	// runs' matchings.
	pairMemo, noiseMemo matchMemo
	// reused counts the runs whose union matching, the pairs and the
	// base pairs whose matching a memo gave (tests read it); noMemo
	// turns the memos off (tests).
	reused [3]int
	noMemo bool
	// memoMax is memoMaxNodes but in tests.
	memoMax int
}

// memoMaxNodes is the most nodes of a run whose shape a stream keeps once
// the run is released (shapeMemo): 32 bytes a node, held until the next
// run of its side arrives, which is worth it for runs of moderate size
// and many runs, not for 8M-node runs (256 MB).
const memoMaxNodes = 1 << 22

// newStream returns the stream of a Fold of nBase and nNew runs compared
// with o (complete and valid), or nil when the Fold keeps its runs (few
// runs, or options a stream cannot serve: Intersect pairs critical graphs,
// benchmark outputs read the runs). minRuns is streamMinRuns but in tests.
func newStream(nBase, nNew int, o Options, minRuns int) *stream {
	if max(nBase, nNew) <= minRuns || min(nBase, nNew) < 2 || o.Bench != nil || o.Aggregate != Stats {
		return nil
	}
	st := &stream{o: o, memoMax: memoMaxNodes}
	pairs := min(nBase, nNew)
	for i := range pairs {
		st.order = append(st.order, i, nBase+i)
	}
	for i := pairs; i < nBase; i++ {
		st.order = append(st.order, i)
	}
	for i := pairs; i < nNew; i++ {
		st.order = append(st.order, nBase+i)
	}
	st.acc = newParcsAcc(pairs, 0)
	st.acc.deferred = true
	return st
}

// put stores slot i (under the lock) and, unless another goroutine is
// already doing it, takes every run that is next in order.
func (st *stream) put(f *Fold, i int, s foldSlot) {
	st.mu.Lock()
	if f.slots[i].added {
		st.mu.Unlock()
		panic(fmt.Sprintf("diff: Fold.Add: run %d added twice", i))
	}
	f.slots[i] = s
	if st.draining {
		st.mu.Unlock()
		return
	}
	st.draining = true
	for {
		batch := st.ready(f)
		if len(batch) == 0 {
			st.draining = false
			st.mu.Unlock()
			return
		}
		st.mu.Unlock()
		for _, si := range batch {
			st.take(f, si)
		}
		st.mu.Lock()
	}
}

// ready returns the slots next in order that are added, and moves next past
// them; the first run waits for the second (the key table needs both
// sides' first frames). A run that could not be folded stops the stream.
func (st *stream) ready(f *Fold) []int {
	if st.failed || st.next == 0 && !(f.slots[st.order[0]].added && f.slots[st.order[1]].added) {
		return nil
	}
	var out []int
	for ; st.next < len(st.order); st.next++ {
		s := &f.slots[st.order[st.next]]
		if !s.added {
			break
		}
		if s.r == nil {
			st.failed = true
			break
		}
		out = append(out, st.order[st.next])
	}
	return out
}

// take adds run si (a slot index: base runs, then new) to the comparison.
func (st *stream) take(f *Fold, si int) {
	r := f.slots[si].r
	if st.kt == nil {
		st.setup(f)
	}
	isNew, j := si >= f.nBase, si
	side := 0
	if isNew {
		j, side = si-f.nBase, 1
	}
	prev := st.shapes[side]
	same := !st.noMemo && prev.sameShape(r)
	if same {
		r.fkey, r.nkey, r.kidKeys = prev.fkey, prev.nkey, prev.kidKeys
	} else {
		r.keys(st.kt, side)
	}
	clean, counts := st.addRun(r, prev, same)
	st.shapes[side] = nil
	if r.nodes() <= st.memoMax {
		st.shapes[side] = st.shapeOf(r, clean, counts)
	}
	st.latest[side].Store(st.shapes[side])
	if !isNew {
		st.prevSame, st.same[0] = st.same[0], same
	} else {
		st.same[1] = same
	}
	st.u.scatter(r, si, isNew)
	if st.taken++; st.taken == len(st.order) {
		// scatter holds the runs' own arrays, and the last base run is
		// not released before Compare normalizes it in place.
		st.u.flushPending()
	}
	if !isNew {
		if b := st.prevBase; b != nil {
			// Base runs j-1 and j: the memo holds j-2 and j-1.
			baseOf, _ := st.noiseMemo.match(st.nm, b, r, st.o.Match, st.prevSame && same, nil, &st.reused[2])
			ov, _ := overlapOf(pweightsOf(b), pweightsOf(r), baseOf)
			st.noise = append(st.noise, ov)
			b.release()
		}
		st.prevBase = r
		return
	}
	if j < f.nBase {
		b := st.prevBase // base run j, taken just before
		baseOf, common := st.pairMemo.match(st.pm, b, r, st.o.Match, st.same[0] && same, st.sm, &st.reused[1])
		p := pairResult{a: b, b: r, baseOf: baseOf}
		st.acc.add(j, p, common, st.u.len())
	}
	r.release()
}

// setup makes the key table, the union and the matchers when the first
// pair is in.
func (st *stream) setup(f *Fold) {
	b0, n0 := f.slots[st.order[0]].r, f.slots[st.order[1]].r
	st.kt = &keyTable{idx: map[keyFrame]key{}}
	st.kt.streamPositions(b0.frames, n0.frames)
	st.u = newUnion()
	st.u.runs = len(f.slots)
	if max(f.nBase, f.nNew) > compactMinRuns {
		st.u.pv = newRunValues[float32](st.u.runs)
	} else {
		st.u.pv = newRunValues[int64](st.u.runs)
	}
	renameMin := st.renameMin(f, b0, n0)
	st.um = st.o.matcher()
	st.um.kt, st.um.renameMin = st.kt, renameMin
	st.pm = st.o.matcher()
	st.pm.kt, st.pm.renameMin = st.kt, renameMin
	st.nm = st.o.matcher()
	st.nm.kt, st.nm.renameMin = st.kt, renameMin
	st.sm = newMatcher(strict, st.o.LCS)
}

// renameMin is the rename threshold μ/2 as the first pair alone resolves
// μ (planned, normalized and read as Fold.prepare and prepareComparison
// do), in the raw units of the first base run; 1 where that fails (Compare
// reports why).
func (st *stream) renameMin(f *Fold, b0, n0 *run) int64 {
	unit := f.metric.Unit
	if f.metric.isZero() {
		unit = f.slots[st.order[0]].vt.Unit
		if _, ok := timeUnits[unit]; ok {
			unit = "nanoseconds"
		}
	}
	sb, sn := b0.summary(), n0.summary()
	base, nw := []*run{sb}, []*run{sn}
	nz, err := planNormalization(runRecordings(base, nw), cpuRuns([]*run{sb, sn}), st.o.Normalize, unit, false)
	if err != nil || normalize(&nz, base, nw, nil, &Result{}) != nil || !(nz.BaseFactors[0] > 0) {
		return 1
	}
	o := st.o
	if o.MinDelta, err = o.MinDelta.planned(&nz, ""); err != nil {
		return 1
	}
	mu, _ := minDeltaOf(o, &nz, base)
	return max(int64(math.Round(float64(max(mu/2, 1))/nz.BaseFactors[0])), 1)
}

// finish releases the last runs and normalizes the union's values with the
// factors prepareComparison chose.
func (st *stream) finish(c *comparison) {
	if st.prevBase != nil {
		st.prevBase.release()
		st.prevBase = nil
	}
	st.u.release()
	st.u.finishValues(len(c.bRuns), append(append([]float64{}, c.nz.BaseFactors...), c.nz.NewFactors...))
}

// parcs is PARCS's numbers from the pairs summed as they were taken.
func (st *stream) parcs(c *comparison) (Overlap, Topology, WeightMatching) {
	scale := func(pair int, isNew bool, v int64) int64 {
		f := c.nz.BaseFactors[pair]
		if isNew {
			f = c.nz.NewFactors[pair]
		}
		if f == 1 {
			return v
		}
		return round(float64(v) * f)
	}
	return st.acc.finish(st.noise, scale, c.u, c.kt, c.o)
}
