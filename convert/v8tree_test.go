package convert

import (
	"slices"
	"testing"
)

// TestNodeIndex checks the id index's two homes: ids near the node count
// in a slice, others in a map, and an id put in the map stays found once
// the slice has grown past it.
func TestNodeIndex(t *testing.T) {
	for _, tc := range []struct {
		name string
		ids  []int64 // set to 0, 1, 2... in order
		miss []int64
		// inMap is how many ids stay in the map once compact has moved
		// those that fit the slice.
		inMap int
	}{
		{"v8 numbering", []int64{1, 2, 3, 4}, []int64{0, 5, -1}, 0},
		{"negative and huge", []int64{-5, 1 << 40, 7}, []int64{-4, 1<<40 + 1, 6}, 2},
		{"map then slice", []int64{5000, 1, 2, 3}, []int64{4999, 5001}, 0},
		// 12,000 nodes put ids below 25,024 in the slice.
		{"sampled order", []int64{1, 20_000, 30_000, 2}, []int64{19_999, 29_999}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var x nodeIndex
			for i, id := range tc.ids {
				x.set(id, int32(i))
			}
			// Grow the slice past every id the map holds.
			n := int32(len(tc.ids))
			for id := int64(10); id < 12_000; id++ {
				if !slices.Contains(tc.ids, id) && !slices.Contains(tc.miss, id) {
					x.set(id, n)
					n++
				}
			}
			if len(x.dense) < 12_000 {
				t.Fatalf("the slice holds %d ids, want 12000", len(x.dense))
			}
			check := func() {
				for i, id := range tc.ids {
					if got, ok := x.get(id); !ok || got != int32(i) {
						t.Errorf("get(%d) = %d, %v; want %d, true", id, got, ok, i)
					}
				}
				for _, id := range tc.miss {
					if got, ok := x.get(id); ok {
						t.Errorf("get(%d) = %d, true; want none", id, got)
					}
				}
			}
			check()
			x.compact(int(n))
			check()
			if len(x.other) != tc.inMap {
				t.Errorf("compact left %d ids in the map, want %d", len(x.other), tc.inMap)
			}
		})
	}
}
