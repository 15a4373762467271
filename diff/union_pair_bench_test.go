package diff

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/benchcpu"
	"github.com/google/pprof/profile"
)

// BenchmarkUnionPair matches a pair of pprof profiles, DIR/base.pb.gz and
// DIR/new.pb.gz with DIR in $CTDIFF_BENCH_PAIR, onto a union tree
// (addRun: copy the base run, match and add the new one) and fills the
// union's values, as `ctdiff diff` does: for pairs too large for
// testdata, such as gopair's 200k independent stacks
// (tools/synth/cmd/gopair) or synth's 1.6M.
//
//	CTDIFF_BENCH_PAIR=/tmp/gopair go test ./diff -run X -bench UnionPair -benchmem
func BenchmarkUnionPair(b *testing.B) {
	dir := os.Getenv("CTDIFF_BENCH_PAIR")
	if dir == "" {
		b.Skip("CTDIFF_BENCH_PAIR names no directory")
	}
	f := NewFold(1, 1, Options{})
	for i, name := range []string{"base.pb.gz", "new.pb.gz"} {
		fh, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		p, err := profile.Parse(fh)
		fh.Close()
		if err != nil {
			b.Fatal(err)
		}
		t, err := cct.FromProfile(p, cct.Options{Prune: true})
		if err != nil {
			b.Fatal(err)
		}
		f.Add(i == 1, 0, t)
	}
	c, err := f.prepare()
	if err != nil {
		b.Fatal(err)
	}
	build := func() *union {
		u := newUnion()
		m := newMatcher(c.o.Match, c.o.LCS)
		m.kt, m.renameMin = c.kt, c.renameMin
		for i, r := range c.runs {
			u.last = i == len(c.runs)-1 // as buildUnion
			m.addRun(u, r, c.o.Match)
		}
		return u
	}
	b.Run("addRun", func(b *testing.B) {
		b.ReportAllocs()
		stop := benchcpu.Start(b)
		for b.Loop() {
			build()
		}
		stop()
	})
	u := build()
	u.release()
	b.Run("values", func(b *testing.B) {
		b.ReportAllocs()
		stop := benchcpu.Start(b)
		for b.Loop() {
			u.values(c.bRuns, c.nRuns, c.agg.perRun())
		}
		stop()
	})
	// PARCS's sums of the pair, subtrees included: most of gopair's nodes
	// are in one run only.
	p := pairResult{a: c.bRuns[0], b: c.nRuns[0], baseOf: pairFromUnion(c.bRuns[0], c.nRuns[0])}
	b.Run("parcsAdd", func(b *testing.B) {
		b.ReportAllocs()
		stop := benchcpu.Start(b)
		for b.Loop() {
			newParcsAcc(1, u.len()).add(0, p, 0, u.len())
		}
		stop()
	})
}
