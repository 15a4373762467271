package diff

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/ctdiff/ctdiff/cct"
)

// This file is a Fold's scheduling and memory policy: the order in which
// its runs are built, when the collector runs, and its GOGC. Fill is its
// one entry.

// A BuildFunc builds run i of a Fold (base runs 0..nBase-1, then the new
// runs) on worker w (0 to the workers given to Fill, less one; a worker
// builds one run at a time, so it may keep buffers from run to run). tail
// says no run follows on the worker, as a rule: buffers need not be kept
// for a next one. A nil tree is an empty run.
type BuildFunc func(w, i int, tail bool) (*cct.Tree, error)

// Fill has every run built by build on up to workers goroutines and folds
// each tree as soon as it is built, so memory holds folded runs (a third
// of a tree each; a streaming Fold only a few) and at most one tree a
// worker. The runs are started in the order the Fold takes them (a
// streaming Fold releases each run soon after it is added; in another
// order runs wait until those before them are added); the result does not
// depend on which worker finishes first. A tree is not kept: the caller
// drops it once build returns it.
//
// After the first error no run is started; Fill returns the error of the
// first run, in run order, that failed. Otherwise the Fold's GOGC
// (fillGC) stays until Compare returns, and Compare restores the value
// Fill found.
func (f *Fold) Fill(workers int, build BuildFunc) error {
	n := len(f.slots)
	workers = max(min(workers, n), 1)
	f.gcBefore = -1
	if f.st != nil {
		f.lowerGC(streamGOGC)
	}
	order := f.order()
	errs := make([]error, n)
	var next, unfolded atomic.Int64
	unfolded.Store(int64(n))
	var failed atomic.Bool
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for !failed.Load() {
				k := int(next.Add(1)) - 1
				if k >= n {
					return
				}
				i := order[k]
				t, err := build(w, i, k >= n-workers)
				if err != nil {
					errs[i] = err
					failed.Store(true)
					continue
				}
				f.fillOne(i, t, unfolded.Add(-1), n)
			}
		})
	}
	wg.Wait()
	// What reading and building left (inputs, stacks, build buffers: as
	// much again as the trees) is garbage now. Collecting it here, before
	// the comparison allocates, keeps the heap from growing to twice what
	// was live when the garbage collector last ran, which made the peak
	// memory of a diff vary by a third from run to run (synthetic pair:
	// 610-870 MB peak RSS; 575-590 MB with this).
	runtime.GC()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	f.lowerGC(compareGOGC)
	return nil
}

// fillOne folds run i (slot index), built with left runs still to fold of
// n, and collects what the policy says to collect around it.
func (f *Fold) fillOne(i int, t *cct.Tree, left int64, n int) {
	if left == 1 && f.st == nil {
		// The last tree but one: its reading and building buffers are
		// garbage (a large profile's are not pooled), while the last is
		// still being built, both at their largest. Collected, they take
		// this fold and the last build's growth, where the heap grew by
		// fresh pages (an independent pair of 200k-stack Go profiles
		// with compareGOGC, 5 runs: peak RSS 468-495 MB without, 432-438
		// with, for no more CPU).
		runtime.GC()
	}
	if left == 0 && n > 1 {
		// The last tree: the others (folded) and the other workers'
		// reading and building buffers are garbage now. Collected, they
		// give this fold (on the critical path: every build is done)
		// memory already faulted in, where the heap grew by fresh pages,
		// a fault each: the 200k-stack pair's fold writes 36 MB. Peak
		// RSS, 6 rounds interleaved: 309-370 MB (mean 330) against
		// 344-404 (362).
		runtime.GC()
	}
	isNew, j := i >= f.nBase, i
	if isNew {
		j -= f.nBase
	}
	f.Add(isNew, j, t)
	if f.earlyStartable() {
		// The base run of a 1 + 1 diff, folded while the new one is
		// still being built: the comparison starts here, on this core,
		// idle until then. The base tree is garbage now (the caller
		// dropped it): collected, its memory takes the union, where
		// fresh pages cost a fault each and peak RSS (200k-stack synth
		// pair: copying the base run 38-40 ms, 13-17 after a 2 ms
		// collection; peak RSS, 10 rounds, 363 MB mean against 328 after
		// the collection, 317 without the early start).
		runtime.GC()
		f.startEarly()
	}
}

// streamGOGC is the GOGC of a Fold that streams, from Fill to the end of
// Compare. Its live heap is then mostly the union's per-run values, arrays
// without pointers, which a collection does not scan: a collection costs
// about the same at any GOGC, and GOGC bounds the garbage of reading
// profiles that can pile up beside them. 100 + 100 runs of synth's
// 20,000-stack profile (BENCHMARKS.md): at GOGC=150 peak RSS was 1.17 GB,
// at 20 0.52 GB, for the same CPU time within noise.
const streamGOGC = 25

// compareGOGC is the GOGC of the comparison of folded runs, once Fill has
// folded them all, until Compare returns. The heap then holds the runs,
// the union and the comparison's per-node arrays, which the collector does
// not scan, and a GOGC of 150 let garbage (the union's arrays as they
// grow, each stage's scratch) pile up to 2.5 times what is live: the
// comparison's peak was the diff's, above the builds'. That pair, 3 runs
// (with the collection at the last tree but one): peak RSS 510-527 MB at
// 150, 469-479 at 100, 443-468 at 50, 424-449 at 25, the collector's CPU
// within noise, and less system time (fewer fresh pages).
const compareGOGC = 25

// lowerGC sets GOGC to percent, unless the environment sets GOGC, whose
// choice wins; the first call keeps the value to restore (restoreGC).
func (f *Fold) lowerGC(percent int) {
	if os.Getenv("GOGC") != "" {
		return
	}
	old := debug.SetGCPercent(percent)
	if f.gcBefore < 0 {
		f.gcBefore = old
	}
}

// restoreGC sets GOGC back to what Fill found, when Fill changed it.
func (f *Fold) restoreGC() {
	if f.gcBefore >= 0 {
		debug.SetGCPercent(f.gcBefore)
		f.gcBefore = -1
	}
}

// order returns the runs' slot indices (base runs, then new runs) in the
// order the Fold takes them.
func (f *Fold) order() []int {
	if f.st != nil {
		return append([]int{}, f.st.order...)
	}
	out := make([]int, len(f.slots))
	for i := range out {
		out[i] = i
	}
	return out
}

// earlyStartable reports whether startEarly has work: the Fold compares
// one run a side, and the base run is added while the new run is not
// (yet), and startEarly has not taken it. Any goroutine may call it.
func (f *Fold) earlyStartable() bool {
	return f.base1.Load() != nil && f.unstarted.Load() > 0
}

// startEarly does, when earlyStartable, the first steps of Compare that
// read the base run alone (earlyUnion: its keys, the union as its copy),
// where Compare would do them after the new run is added. With one run a
// side the base is usually built first (it has fewer samples), and the
// core that built it idles until the new run is built too. It allocates
// the union: collecting the base tree's garbage first lets the union reuse
// its memory. Any goroutine may call it before Compare (one takes the
// run); the result does not change.
func (f *Fold) startEarly() {
	if r := f.base1.Swap(nil); r != nil && f.unstarted.Load() > 0 {
		f.early = startUnion(r, f.o.Match)
	}
}
