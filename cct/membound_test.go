package cct

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// chainSamples is a chain of depth locations sampled n times, cycling from
// the deepest up, its stacks tails of one array (stacks.Samples.Starts), as
// convert's call tree readers return them.
func chainSamples(depth, n int) *stacks.Samples {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}}}
	s := stacks.New(p)
	s.ThreadList = []stacks.Thread{{Thread: "main"}}
	for i := range depth {
		fn := &profile.Function{ID: uint64(i + 1), Name: fmt.Sprint("f", i%7)}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: fn, Line: int64(i)}}})
		s.Locations = append(s.Locations, int32(depth-1-i)) // leaf first
	}
	for i := range n {
		s.Starts = append(s.Starts, int32(i%depth))
		s.Ends = append(s.Ends, int32(depth))
		s.Values = append(s.Values, 1)
		s.SampleThreads = append(s.SampleThreads, 0)
	}
	return s
}

// The inserter's memory grows with the distinct stacks and the samples,
// not with depth × samples: 8x the samples of a 2,000-deep
// chain, whose paths would be 56 million more frames (224 MB) if each
// sample's were copied, allocate little more.
func TestInsertMemoryBound(t *testing.T) {
	allocated := func(n int) uint64 {
		s := chainSamples(2000, n)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		b := NewBuilder(Options{})
		b.sc = &scratch{} // fresh buffers for both: not one from scratchPool
		if err := b.AddSamples(s); err != nil {
			t.Fatal(err)
		}
		tr := b.Finish()
		runtime.ReadMemStats(&after)
		if got := tr.Total(RootID)[0]; got != int64(n) {
			t.Fatalf("total %d, want %d", got, n)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, big := allocated(4000), allocated(32000)
	t.Logf("4,000 samples: %.1f MB, 32,000: %.1f MB", float64(small)/(1<<20), float64(big)/(1<<20))
	if big > small+28000*100 {
		t.Errorf("8x the samples allocate %.1f MB more", float64(big-small)/(1<<20))
	}
}
