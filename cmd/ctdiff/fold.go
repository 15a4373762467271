package main

import (
	"runtime"

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

// foldTrees is buildTrees for a diff: f has the profiles read and built
// on up to GOMAXPROCS goroutines and folds each tree as soon as it is
// built (run i of paths is base run i for i < the Fold's base runs, else a
// new run), in its order and with its memory policy (diff.Fold.Fill). The
// trees returned keep their headers only (builtTree.header), which name
// the inputs' kinds in messages; warnings and the first error are printed
// and returned in path order, as buildTrees does.
func foldTrees(s *streams, f *diff.Fold, paths []string, opts convert.Options, copts cct.Options) ([]builtTree, error) {
	out := make([]builtTree, len(paths))
	errs := make([]error, len(paths))
	s.progress.countRuns(len(paths))
	workers := min(len(paths), runtime.GOMAXPROCS(0))
	type buffers struct {
		build cct.Buffers     // a worker's build buffers, tree after tree
		read  convert.Buffers // and its reading buffers
	}
	bufs := make([]buffers, workers)
	_ = f.Fill(workers, func(w, i int, tail bool) (*cct.Tree, error) {
		defer s.progress.runDone()
		// The last profiles (one a worker, as a rule: all of them in a
		// 1 + 1 diff) are read without keeping their tables for a next
		// one: copying them was 3% of reading and building a Go profile.
		rb := &bufs[w].read
		if tail {
			rb = nil
		}
		out[i], errs[i] = buildTree(s, paths[i], opts, copts, &bufs[w].build, rb)
		t := out[i].tree
		out[i].tree = nil // the Fold keeps what it needs of it
		return t, errs[i]
	})
	return out, builtErrors(s, paths, out, errs)
}

// foldBuild are the build options of the trees a Fold reads. Of a node
// but the root it reads the values of the sample type compared only
// (diff.Fold.Add), unless per=FUNC normalization counts its function's
// samples there, so the trees keep that type's values alone
// (cct.Options.OneSampleType): half the values of a profile of two types,
// 22 MB of each tree of an independent pair of 200k-stack Go profiles,
// which are built at once.
func (c *diffConfig) foldBuild() cct.Options {
	copts := c.build
	if c.compare.Normalize.Mode != diff.NormalizePer {
		copts.OneSampleType, copts.SampleType = true, c.metric.sampleType
	}
	return copts
}
