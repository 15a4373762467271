package diff

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ctdiff/ctdiff/cct"
)

// A Fold is a comparison whose runs are given one tree at a time, as they
// are built: Add reads of a tree what the comparison needs (the metric's
// values, the tree's shape and frames, the few numbers normalization and
// the benchmark verdict read) into a run, and the tree can be dropped at
// once. A run takes about a third of its tree's memory (no values per
// sample type, no counts, no lookup maps), so a comparison of many runs
// holds runs rather than trees. Compare then matches the runs onto the
// union tree and does the rest, exactly as the package's Compare, which is
// a Fold whose trees are all given at once.
//
// Add may be called from several goroutines at once (each run has its
// slot): the result does not depend on the order in which runs are added.
type Fold struct {
	nBase, nNew int
	// o is the options the Fold was made with, complete (withDefaults),
	// and optsErr why they are not valid (Compare reports it).
	o       Options
	optsErr error
	// metric is Options.Metric when given, else each tree's sample type
	// named metricName ("" for the tree's default), resolved per tree.
	metric     Metric
	metricName string
	// marker is the function per=FUNC normalization counts, "" otherwise.
	marker string
	slots  []foldSlot
	// unstarted counts the runs whose Add has not started: the last run
	// is folded on every core (foldTreeLike's wide).
	unstarted atomic.Int64
	// st, when not nil, builds the comparison as runs are added
	// (stream.go); otherwise the runs are kept until Compare.
	st *stream
	// base1 is the base run of a 1+1 Fold, added before the new run,
	// until startEarly takes it (any goroutine may ask: atomic); early is
	// the union startEarly started (earlyUnion), nil otherwise, written
	// before the Adds return and read by Compare.
	base1 atomic.Pointer[run]
	early *earlyUnion
	// gcBefore is the GOGC Fill found, which Compare restores; -1 when
	// Fill did not change it (fold_schedule.go).
	gcBefore int
	// flat is each side's flat profile, for the automatic
	// normalization's check of the program's bulk (normalize_bulk.go).
	flat [2]flatProfile
}

// A foldSlot is one run's place in a Fold: the run, or what kept the tree
// from being folded (reported by Compare, in run order, as Compare would).
type foldSlot struct {
	r     *run
	added bool
	empty bool
	// vt is the tree's sample type compared, and metricErr why it has
	// none, when the metric is resolved per tree.
	vt        cct.ValueType
	metricErr error
}

// NewFold returns a Fold for nBase base runs and nNew new runs, compared
// with opts: the Fold is given its options once. Add reads the metric and
// the normalization (per=FUNC counts its function in each tree as it is
// added) and, when opts.Metric is zero, the sample type compared
// (opts.SampleType, "" for each tree's default; SampleMetric); Compare
// reports options that are not valid (Options.Check).
func NewFold(nBase, nNew int, opts Options) *Fold {
	return newFold(nBase, nNew, opts, streamMinRuns)
}

// newFold is NewFold streaming from more than minRuns runs on a side.
func newFold(nBase, nNew int, opts Options, minRuns int) *Fold {
	f := &Fold{nBase: nBase, nNew: nNew, metric: opts.Metric, metricName: opts.SampleType, slots: make([]foldSlot, max(nBase, 0)+max(nNew, 0))}
	f.o, f.optsErr = opts.withDefaults()
	f.gcBefore = -1
	f.unstarted.Store(int64(len(f.slots)))
	if opts.Normalize.Mode == NormalizePer {
		f.marker = opts.Normalize.Func
	}
	if f.optsErr == nil {
		f.st = newStream(nBase, nNew, f.o, minRuns)
	}
	return f
}

// Add folds t as run i (from 0) of the new side when isNew, else of the
// base side. t is not modified and not kept. Add panics when i is out of
// range or the run was added before.
func (f *Fold) Add(isNew bool, i int, t *cct.Tree) {
	n := f.nBase
	if isNew {
		n, i = f.nNew, i+f.nBase
	}
	if i < 0 || i >= len(f.slots) || isNew && i < f.nBase || !isNew && i >= n {
		panic(fmt.Sprintf("diff: Fold.Add: run %d of %d", i, n))
	}
	last := f.unstarted.Add(-1) == 0
	side := 0
	if isNew {
		side = 1
	}
	if f.st == nil {
		s := &f.slots[i]
		if s.added {
			panic(fmt.Sprintf("diff: Fold.Add: run %d added twice", i))
		}
		*s = f.fold(t, 0, last)
		if s.r != nil {
			f.flat[side].add(t, s.r)
		}
		if !isNew && f.nBase == 1 && f.nNew == 1 && s.r != nil && !last {
			f.base1.Store(s.r)
		}
		return
	}
	s := f.fold(t, side, last)
	if s.r != nil {
		f.flat[side].add(t, s.r)
	}
	f.st.put(f, i, s)
}

// fold is Add's slot for tree t, of side 0 (base) or 1 (new); last says
// that no other run is still to be added.
func (f *Fold) fold(t *cct.Tree, side int, last bool) foldSlot {
	s := foldSlot{added: true}
	if t == nil || len(t.Nodes) == 0 {
		s.empty = true
		return s
	}
	m := f.metric
	if m.isZero() {
		k, err := t.SampleIndex(f.metricName)
		if err != nil {
			s.metricErr = err
			return s
		}
		s.vt = t.SampleTypes[k]
		if m, err = SampleMetric(f.metricName, t); err != nil {
			s.metricErr = err
			return s
		}
	} else if m.Total == nil || m.Self == nil {
		return s // Compare says so
	} else {
		// The caller's metric: its Total and Self may not be the
		// sample type SampleMetric read, whatever it was made from.
		m.col = 0
	}
	var like *shapeMemo
	if f.st != nil && !f.st.noMemo {
		like = f.st.latest[side].Load()
	}
	s.r = foldTreeLike(t, m, f.marker, like, last)
	return s
}

// Compare compares the runs added, with the options NewFold was given.
// Every run must have been added.
func (f *Fold) Compare() (*Result, error) {
	defer f.restoreGC()
	c, err := f.prepare()
	if err != nil {
		return nil, err
	}
	return c.compare(), nil
}

// Compare compares base runs with new runs and returns what regressed. The
// trees should be built with the same options on both sides (ZAM pruning on:
// cct.Options{Prune: true}); several trees per side are runs of the same
// workload. Intersect mode pairs base[i] with new[i], so the caller orders
// the runs (ZAM pairs them by sorted file name). The trees are not modified.
//
// The steps: every run is matched onto a union tree;
// the runs are matched pairwise (ZAM hybrid or PARCS relaxed matching); the
// critical graph is computed per pair and intersected (Intersect) or from
// per-node tests over all runs (Stats); then come PARCS's overlap, topology
// and weight matching, and IntroPerf's path ranking.
func Compare(base, nw []*cct.Tree, opts Options) (*Result, error) {
	f := NewFold(len(base), len(nw), opts)
	all := append(append([]*cct.Tree{}, base...), nw...)
	// The trees are folded on every core: reading a tree is independent
	// of the others.
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, t := range all {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if i < len(base) {
				f.Add(false, i, t)
			} else {
				f.Add(true, i-len(base), t)
			}
		})
	}
	wg.Wait()
	return f.Compare()
}

// prepare checks what Add recorded, in the order Compare always checked
// it, and then prepares the comparison (prepareComparison).
func (f *Fold) prepare() (*comparison, error) {
	if f.nBase == 0 || f.nNew == 0 {
		return nil, fmt.Errorf("need at least one base and one new tree, got %d and %d", f.nBase, f.nNew)
	}
	for i, s := range f.slots {
		if !s.added {
			return nil, fmt.Errorf("run %d was never added to the comparison", i+1)
		}
		if s.empty {
			return nil, fmt.Errorf("tree %d is empty (no root)", i+1)
		}
	}
	if f.optsErr != nil {
		return nil, f.optsErr
	}
	o := f.o
	if f.metric.isZero() {
		// As SampleMetric checks the trees, in order.
		first := f.slots[0].vt
		for i, s := range f.slots {
			switch {
			case s.metricErr != nil:
				return nil, &SampleTypeError{Tree: i, Err: s.metricErr}
			case s.vt != first:
				return nil, &MixedSampleTypesError{Tree: i, Type: s.vt, First: first}
			}
		}
		if o.Metric.isZero() {
			m := Metric{Name: first.String(), Unit: first.Unit}
			if _, ok := timeUnits[m.Unit]; ok {
				m.Unit = "nanoseconds"
			}
			// The values are read: nothing calls these again.
			m.Total = func(t *cct.Tree, id cct.NodeID) int64 { panic("diff: the metric of folded runs is read") }
			m.Self = m.Total
			o.Metric = m
		}
	} else if f.metric.Total == nil || f.metric.Self == nil {
		return nil, fmt.Errorf("metric %s lacks a Total or Self function", f.metric.Name)
	}
	runs := make([]*run, len(f.slots))
	for i, s := range f.slots {
		runs[i] = s.r
	}
	bRuns, nRuns := runs[:f.nBase:f.nBase], runs[f.nBase:]
	// The plan fixes the unit of the normalized values, in which μ is
	// read; prepareBench, which needs the runs' count, checks the
	// benchmark outputs later (prepareComparison).
	nz, err := planNormalization(runRecordings(bRuns, nRuns), cpuRuns(runs), o.Normalize, o.Metric.Unit, o.Bench != nil)
	if err != nil {
		return nil, err
	}
	nz.checkBulk(&f.flat[0], &f.flat[1], o.MinDelta)
	if o.MinDelta, err = o.MinDelta.planned(&nz, o.Metric.Name); err != nil {
		return nil, err
	}
	if o.Aggregate == Intersect && f.nBase != f.nNew {
		return nil, &UnpairedRunsError{Base: f.nBase, New: f.nNew}
	}
	return prepareComparison(bRuns, nRuns, o, nz, f.st, f.early)
}
