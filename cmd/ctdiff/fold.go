package main

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/diff"
)

// foldable reports whether a diff can fold its runs as they are read
// (foldTrees) rather than keep every tree until the comparison: not when
// the trees are wanted after it (keepTrees: ctdiff report reads them), nor
// for the latency metrics, whose inference runs on the whole tree before
// the comparison reads it (compareSides does it on the trees loadSides
// returns).
func foldable(o *diffOptions, keepTrees bool) bool {
	return !keepTrees && o.metric != "latency" && o.metric != "latency-aggressive"
}

// foldTrees is buildTrees for a diff: it reads and builds the profiles on
// up to GOMAXPROCS goroutines and folds each tree into f as soon as it is
// built (run i of paths is base run i for i < nBase, else new run
// i-nBase), so memory holds folded runs (a third of a tree each) and at
// most one tree and one profile per goroutine. The Fold keeps each run in
// its slot, so the result does not depend on which goroutine finishes
// first: no reordering is needed. The trees returned are headers
// (headerTree), which runDiff reads for the metric and the normalization;
// warnings and the first error are printed and returned in path order, as
// buildTrees does.
func foldTrees(s *streams, f *diff.Fold, nBase int, paths []string, opts convert.Options, copts cct.Options) ([]builtTree, error) {
	out := make([]builtTree, len(paths))
	errs := make([]error, len(paths))
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	s.progress.countRuns(len(paths))
	for range min(len(paths), runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1)) - 1
				if i >= len(paths) {
					return
				}
				bt, err := buildTree(s, paths[i], opts, copts)
				if errs[i] = err; err != nil {
					failed.Store(true)
				} else {
					isNew, j := i >= nBase, i
					if isNew {
						j -= nBase
					}
					f.Add(isNew, j, bt.tree)
					bt.tree = headerTree(bt.tree)
				}
				out[i] = bt
				s.progress.runDone()
			}
		})
	}
	wg.Wait()
	// As buildTrees: the garbage of reading goes before comparing.
	runtime.GC()
	for i, t := range out {
		if len(t.warnings) > 0 {
			s.progress.clear()
		}
		for _, w := range t.warnings {
			printLine(s.Err, "ctdiff: %s: warning: %s", paths[i], w)
		}
		if errs[i] != nil {
			s.progress.clear()
			return nil, errs[i]
		}
	}
	return out, nil
}

// headerTree is a tree without nodes that says what t's header says: its
// sample types, period and duration, which resolving the metric and
// planning the normalization read (diff.SampleMetric,
// diff.PlanNormalization) once the tree itself is folded and gone.
func headerTree(t *cct.Tree) *cct.Tree {
	return &cct.Tree{
		SampleTypes: t.SampleTypes, DefaultSampleType: t.DefaultSampleType,
		PeriodType: t.PeriodType, Period: t.Period,
		DurationNanos: t.DurationNanos, Profiles: t.Profiles,
	}
}

// newFold returns the Fold for a diff of nBase and nNew runs, when its runs
// can be folded (foldable), else nil.
func newFold(o *diffOptions, keepTrees bool, nBase, nNew int) *diff.Fold {
	if !foldable(o, keepTrees) || nBase == 0 {
		return nil
	}
	opts := diff.Options{SampleType: o.metric}
	// A bad --normalize is diff.Compare's to report; per=FUNC needs its
	// marker counted while the trees are there.
	opts.Normalize, _ = diff.ParseNormalize(o.norm.normalize)
	return diff.NewFold(nBase, nNew, opts)
}
