package cct

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSortTimelineIsAStableSort(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		n := r.IntN(300)
		tl := make([]TimedSample, n)
		now := int64(0)
		for i := range tl {
			if r.IntN(10) > 0 { // mostly in time order, as the builder feeds it
				now += int64(r.IntN(3))
			} else {
				now -= int64(r.IntN(5))
			}
			// Leaf records the input position, to check stability.
			tl[i] = TimedSample{Thread: NodeID(1 + r.IntN(4)*7), Leaf: NodeID(i), Time: now}
		}
		want := slices.Clone(tl)
		slices.SortStableFunc(want, byThreadTime)
		sortTimeline(tl)
		if !slices.EqualFunc(tl, want, func(a, b TimedSample) bool {
			return a.Thread == b.Thread && a.Leaf == b.Leaf && a.Time == b.Time
		}) {
			t.Fatalf("sortTimeline differs from a stable sort:\ngot  %v\nwant %v", tl, want)
		}
	}
}
