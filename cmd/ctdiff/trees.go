package main

import (
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/stacks"
)

// A builtTree is the tree of one input profile.
type builtTree struct {
	tree     *cct.Tree
	warnings []string
	// sum identifies the input by its content (sameContent), and format
	// names its format.
	sum    digest
	format string
}

// buildTrees reads the profile at each path and builds its tree, on up to
// GOMAXPROCS goroutines: reading and building one profile is independent of
// the others, so on two cores the two sides of a diff take the time of one.
// A profile is dropped once its tree is built, so memory holds trees and at
// most one profile per goroutine. Warnings are printed in path order; the
// error returned is the first in path order (no profile after it is
// started).
func buildTrees(s *streams, paths []string, opts convert.Options, copts cct.Options) ([]builtTree, error) {
	return buildEach(s, paths, nil, opts, copts, nil)
}

// buildEach is buildTrees that starts the profiles in the given order of
// path indexes (nil: path order) and hands each tree, once built, to built
// (when not nil), which may replace it (foldTrees keeps a header); built
// may be called from several goroutines at once.
func buildEach(s *streams, paths []string, order []int, opts convert.Options, copts cct.Options, built func(i int, bt *builtTree)) ([]builtTree, error) {
	out := make([]builtTree, len(paths))
	errs := make([]error, len(paths))
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	s.progress.countRuns(len(paths))
	workers := min(len(paths), runtime.GOMAXPROCS(0))
	for range workers {
		wg.Go(func() {
			var buf cct.Buffers      // this goroutine's build buffers, tree after tree
			var rbuf convert.Buffers // and its reading buffers
			for !failed.Load() {
				i := int(next.Add(1)) - 1
				if i >= len(paths) {
					return
				}
				// The last profiles (one a goroutine, as a rule: all of
				// them in a 1 + 1 diff) are read without keeping their
				// tables for a next one: copying them was 3% of reading
				// and building a Go profile.
				rb := &rbuf
				if i >= len(paths)-workers {
					rb = nil
				}
				if order != nil {
					i = order[i]
				}
				if out[i], errs[i] = buildTree(s, paths[i], opts, copts, &buf, rb); errs[i] != nil {
					failed.Store(true)
				} else if built != nil {
					built(i, &out[i])
				}
				s.progress.runDone()
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

func buildTree(s *streams, path string, opts convert.Options, copts cct.Options, buf *cct.Buffers, rbuf *convert.Buffers) (builtTree, error) {
	// Only the tree is needed: readers that can return the samples
	// compactly (pprof) do so, which takes a third of the memory, in
	// arrays given back after the tree is built.
	opts.Stacks, opts.Buffers = true, rbuf
	// Without latency inference no timestamp is read one by one: readers
	// merge a thread's samples of one stack as they read them, so memory
	// follows the distinct stacks, not the samples.
	opts.MergeSamples = !copts.Timeline
	var sum digest
	res, err := readInput(path, opts, s.progress, &sum)
	if err != nil {
		return builtTree{}, err
	}
	s.progress.describe("building the tree of " + filepath.Base(path))
	b := cct.NewBuilder(copts)
	b.UseBuffers(buf)
	// Nothing here refers to the samples while the builder reads them, so
	// it can let compact stacks go (Builder.AddSamples). Their arrays,
	// unless a collection took them meanwhile, can take the next
	// profile's: a weak pointer does not keep them (a strong one kept the
	// 545 MB of a 1.6 M-stack profile's stacks to the end of its build,
	// 200-400 MB more peak RSS, where the next profile takes none).
	var weakSrc weak.Pointer[stacks.Samples]
	if c, ok := res.Samples.(*stacks.Samples); ok {
		weakSrc = weak.Make(c)
	}
	src := res.Samples
	res.Samples = nil
	err = b.AddSamples(src)
	if err != nil {
		return builtTree{}, fmt.Errorf("%s: %w", path, err)
	}
	rbuf.Keep(weakSrc.Value()) // the tree holds nothing of them
	s.progress.describe("reading")
	return builtTree{tree: b.Finish(), warnings: res.Warnings, sum: sum, format: res.Format}, nil
}
