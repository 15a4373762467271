package convert

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/benchcpu"
	"github.com/ctdiff/ctdiff/internal/hugeheap"
)

// BenchmarkSide reads and builds each side of a pair of pprof profiles,
// DIR/base.pb.gz and DIR/new.pb.gz with DIR in $CTDIFF_BENCH_PAIR, as a
// 1 + 1 `ctdiff diff` does on each of its goroutines (compact stacks, no
// Buffers, pruned tree, huge pages): read, build, and the two one after
// the other, for pairs too large for testdata (tools/synth/cmd/gopair's pair, synth's 200k and
// 1.6 M).
//
//	CTDIFF_BENCH_PAIR=/tmp/b/gopair go test ./convert -run '^$' -bench Side -benchmem
func BenchmarkSide(b *testing.B) {
	dir := os.Getenv("CTDIFF_BENCH_PAIR")
	if dir == "" {
		b.Skip("CTDIFF_BENCH_PAIR names no directory")
	}
	// Huge pages for the heap, as ctdiff asks: on a VM that shadows page
	// tables, faulting in 4 KiB pages took as much as the build.
	hugeheap.Advise(2 << 30)
	opts := Options{Stacks: true}
	build := func(b *testing.B, res *Result) int {
		bl := cct.NewBuilder(cct.Options{Prune: true})
		if err := bl.AddSamples(res.Samples); err != nil {
			b.Fatal(err)
		}
		return len(bl.Finish().Nodes)
	}
	for _, side := range []string{"base", "new"} {
		path := filepath.Join(dir, side+".pb.gz")
		b.Run(side+"/read", func(b *testing.B) {
			b.ReportAllocs()
			stop := benchcpu.Start(b)
			for b.Loop() {
				if _, err := ReadFile(path, opts); err != nil {
					b.Fatal(err)
				}
			}
			stop()
		})
		b.Run(side+"/build", func(b *testing.B) {
			res, err := ReadFile(path, opts)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			stop := benchcpu.Start(b)
			var nodes int
			for b.Loop() {
				nodes = build(b, res)
			}
			stop()
			b.ReportMetric(float64(nodes), "nodes")
		})
		b.Run(side+"/both", func(b *testing.B) {
			b.ReportAllocs()
			stop := benchcpu.Start(b)
			for b.Loop() {
				res, err := ReadFile(path, opts)
				if err != nil {
					b.Fatal(err)
				}
				build(b, res)
			}
			stop()
		})
	}
}
