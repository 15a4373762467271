package cct_test

import (
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/benchcpu"
	"github.com/ctdiff/ctdiff/tools/synth"
)

// BenchmarkBuild builds the tree of a synthetic profile with 200,000
// distinct stacks of depth ~30 over 5,000 functions (about a million nodes).
func BenchmarkBuild(b *testing.B) {
	pair := synth.Generate(synth.Config{Seed: 1})
	b.ReportAllocs()
	b.ResetTimer()
	var nodes int
	stop := benchcpu.Start(b)
	for b.Loop() {
		t, err := cct.FromProfile(pair.Base, cct.Options{Prune: true})
		if err != nil {
			b.Fatal(err)
		}
		nodes = len(t.Nodes)
	}
	stop()
	b.ReportMetric(float64(nodes), "nodes")
}
