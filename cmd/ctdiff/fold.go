package main

import (
	"os"
	"runtime"
	"runtime/debug"
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
func foldable(c *diffConfig, keepTrees bool) bool {
	return !keepTrees && !c.metric.latency
}

// foldTrees is buildTrees for a diff: it reads and builds the profiles on
// up to GOMAXPROCS goroutines and folds each tree into f as soon as it is
// built (run i of paths is base run i for i < nBase, else new run
// i-nBase), in the order the Fold takes them, so memory holds folded runs
// (a third of a tree each; a streaming Fold only a few) and at most one
// tree and one profile per goroutine. The result does not depend on which
// goroutine finishes first: the Fold reorders. The trees returned keep
// their headers only (builtTree.header), which name the inputs' kinds in
// messages; warnings and the first error are printed and returned in path
// order, as buildTrees does.
func foldTrees(s *streams, f *diff.Fold, nBase int, paths []string, opts convert.Options, copts cct.Options) ([]builtTree, error) {
	if f.Streams() {
		streamGC()
	}
	// In the Fold's order, a streaming Fold releases each run soon after
	// it is added (diff.Fold.Order).
	var unfolded atomic.Int64
	unfolded.Store(int64(len(paths)))
	trees, err := buildEach(s, paths, f.Order(), opts, copts, func(i int, bt *builtTree) {
		left := unfolded.Add(-1)
		if left == 1 && !f.Streams() {
			// The last tree but one: its reading and building buffers
			// are garbage (a large profile's are not pooled), while the
			// last is still being built, both at their largest. Collected,
			// they take this fold and the last build's growth, where the
			// heap grew by fresh pages (gopair with compareGC, 5 rounds:
			// peak RSS 468-495 MB without, 432-438 with, for no more
			// CPU).
			runtime.GC()
		}
		if left == 0 && len(paths) > 1 {
			// The last tree: the others (folded) and the other
			// goroutines' reading and building buffers are garbage
			// now. Collected, they give this fold (on the critical
			// path: every build is done) memory already faulted in,
			// where the heap grew by fresh pages, a fault each: the
			// 200k-stack pair's fold writes 36 MB. Peak RSS, 6 rounds
			// interleaved: 309-370 MB (mean 330) against 344-404 (362).
			runtime.GC()
		}
		isNew, j := i >= nBase, i
		if isNew {
			j -= nBase
		}
		f.Add(isNew, j, bt.tree)
		bt.tree = nil
		if f.UnionStartable() {
			// The base run of a 1 + 1 diff, folded while the new
			// one is still being built: the comparison starts here,
			// on this core, idle until then. The base tree is garbage
			// now: collected, its memory takes the union, where fresh
			// pages cost a fault each and peak RSS (200k-stack synth
			// pair: copying the base run 38-40 ms, 13-17 after a 2 ms
			// collection; peak RSS, 10 rounds, 363 MB mean against
			// 328 after the collection, 317 without StartUnion).
			runtime.GC()
			f.StartUnion()
		}
	})
	if err == nil {
		compareGC()
	}
	return trees, err
}

// foldBuild are the build options of the trees a Fold reads. Of a node
// but the root it reads the values of the sample type compared only
// (diff.Fold.Add), unless per=FUNC normalization counts its function's
// samples there, so the trees keep that type's values alone
// (cct.Options.OneSampleType): half the values of a profile of two types,
// 22 MB of each of gopair's trees, which are built at once.
func (c *diffConfig) foldBuild() cct.Options {
	copts := c.build
	if c.compare.Normalize.Mode != diff.NormalizePer {
		copts.OneSampleType, copts.SampleType = true, c.metric.sampleType
	}
	return copts
}

// streamGC lowers GOGC for a Fold that streams (diff.Fold.Streams), until
// comparisonGC restores it. Its live heap is then mostly the union's per-run
// values, arrays without pointers, which a collection does not scan: a
// collection costs about the same at any GOGC, and GOGC bounds the garbage
// of reading profiles that can pile up beside them. 100 + 100 runs of
// synth's 20,000-stack profile (BENCHMARKS.md, issue 20): at GOGC=150 peak
// RSS was 1.17 GB, at 20 0.52 GB, for the same CPU time within noise.
func streamGC() { lowerGC(streamGOGC) }

// streamGOGC is streamGC's GOGC.
const streamGOGC = 25

// compareGC lowers GOGC for the comparison of folded runs, until
// comparisonGC restores it. Once every tree is folded, the heap holds the
// runs, the union and the comparison's per-node arrays, which the
// collector does not scan, and comparisonGC's 150 let garbage (the union's
// arrays as they grow, each stage's scratch) pile up to 2.5 times what is
// live: the comparison's peak was the diff's, above the builds'. gopair, 3
// rounds (with foldTrees' collection at the last tree but one): peak RSS
// 510-527 MB at 150, 469-479 at 100, 443-468 at 50, 424-449 at 25, the
// collector's CPU within noise, and less system time (fewer fresh pages).
func compareGC() { lowerGC(compareGOGC) }

// compareGOGC is compareGC's GOGC.
const compareGOGC = 25

// lowerGC sets GOGC to percent until comparisonGC restores it, unless the
// user set GOGC, whose choice wins.
func lowerGC(percent int) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(percent)
	}
}
