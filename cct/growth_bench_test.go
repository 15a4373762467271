package cct

import (
	"fmt"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/ctdiff/ctdiff/internal/benchcpu"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/ctdiff/ctdiff/tools/synth"
	"github.com/google/pprof/profile"
)

// BenchmarkBuildGrowth builds the compact samples of synthetic profiles of
// 200,000 and 1,600,000 stacks and reports the CPU per stack: the build
// should have no superlinear step, so the two should be close. The larger
// one is inserted in several batches (batchFrames) into a tree of 7 M nodes,
// whose lookups in the nodes of earlier batches made the build superlinear.
func BenchmarkBuildGrowth(b *testing.B) {
	for _, n := range []int{200_000, 1_600_000} {
		b.Run(fmt.Sprintf("stacks=%d", n), func(b *testing.B) {
			s := growthSamples(n)
			b.ReportAllocs()
			b.ResetTimer()
			start := benchcpu.Start(b)
			var nodes int
			for b.Loop() {
				bl := NewBuilder(Options{Prune: true})
				if err := bl.AddSamples(s); err != nil {
					b.Fatal(err)
				}
				nodes = len(bl.Finish().Nodes)
			}
			start()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/stack")
			b.ReportMetric(float64(nodes), "nodes")
		})
	}
}

// growthSamples returns the compact samples of a synthetic profile of n
// stacks, made once per process (-count runs it again).
func growthSamples(n int) *stacks.Samples {
	growthMu.Lock()
	defer growthMu.Unlock()
	if s, ok := growthCache[n]; ok {
		return s
	}
	p := synth.Generate(synth.Config{Seed: 1, Stacks: n}).Base
	s := toStacks(p)
	p.Sample = nil
	growthCache[n] = s
	return s
}

var (
	growthMu    sync.Mutex
	growthCache = map[int]*stacks.Samples{}
)

// BenchmarkBuildRuns builds the trees of 20 runs of a 20,000-stack profile,
// a builder each, as ctdiff diff does for runs (up to 100 a side): the
// per-build cost of buffers.
func BenchmarkBuildRuns(b *testing.B) {
	var runs []*stacks.Samples
	synth.GenerateEach(synth.Config{Seed: 1, Stacks: 20_000, Runs: 20}, func(_ int, base, _ *profile.Profile) {
		runs = append(runs, toStacks(base))
		base.Sample = nil
	})
	b.ReportAllocs()
	b.ResetTimer()
	stop := benchcpu.Start(b)
	for b.Loop() {
		for _, s := range runs {
			bl := NewBuilder(Options{Prune: true})
			if err := bl.AddSamples(s); err != nil {
				b.Fatal(err)
			}
			bl.Finish()
		}
	}
	stop()
}

// BenchmarkBuildFresh builds the trees of BuildGrowth's profiles on memory
// returned to the system before each build, as a command builds on pages it
// has not touched yet, and reports the minor page faults per build: the 4 KB
// pages the build touches first, each a trip into the kernel (700-800 k of
// them, 1.5-1.9 s of system time, in a diff of the 1.6 M-stack pair).
func BenchmarkBuildFresh(b *testing.B) {
	for _, n := range []int{200_000, 1_600_000} {
		b.Run(fmt.Sprintf("stacks=%d", n), func(b *testing.B) {
			s := growthSamples(n)
			b.ReportAllocs()
			var faults int64
			counted := false
			for b.Loop() {
				b.StopTimer()
				debug.FreeOSMemory()
				before, _ := benchcpu.MinorFaults()
				b.StartTimer()
				bl := NewBuilder(Options{Prune: true})
				if err := bl.AddSamples(s); err != nil {
					b.Fatal(err)
				}
				bl.Finish()
				after, ok := benchcpu.MinorFaults()
				faults += after - before
				counted = ok
			}
			if counted {
				b.ReportMetric(float64(faults)/float64(b.N), "faults/op")
			}
		})
	}
}
