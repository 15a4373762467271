package stacks

import (
	"slices"
	"testing"
)

// Samples that share stacks (Starts) keep them in place when others go.
func TestKeepSharedStacks(t *testing.T) {
	s := &Samples{
		Locations: []int32{5, 4, 3, 2, 1},
		Starts:    []int{0, 2, 0, 4},
		Ends:      []int{5, 5, 5, 5},
		Values:    []int64{10, 20, 30, 40},
		Thread:    []int32{0, 1, 0, 1},
		Threads:   []Thread{{Thread: "a"}, {Thread: "b"}},
	}
	s.Keep(func(i int) bool { return s.Thread[i] == 1 }, 1)
	if s.Len() != 2 || !slices.Equal(s.Stack(0), []int32{3, 2, 1}) || !slices.Equal(s.Stack(1), []int32{1}) ||
		!slices.Equal(s.Values, []int64{20, 40}) || len(s.Locations) != 5 {
		t.Fatalf("kept %d samples: %v %v, values %v, %d locations", s.Len(), s.Stack(0), s.Stack(1), s.Values, len(s.Locations))
	}
}

// Samples one after another (no Starts) are compacted as before.
func TestKeepConsecutiveStacks(t *testing.T) {
	s := &Samples{
		Locations: []int32{1, 2, 3, 4, 5},
		Ends:      []int{2, 3, 5},
		Values:    []int64{10, 20, 30},
		Thread:    []int32{0, 1, 0},
		Threads:   []Thread{{Thread: "a"}, {Thread: "b"}},
	}
	s.Keep(func(i int) bool { return i != 1 }, 1)
	if s.Len() != 2 || !slices.Equal(s.Stack(0), []int32{1, 2}) || !slices.Equal(s.Stack(1), []int32{4, 5}) || len(s.Locations) != 4 {
		t.Fatalf("kept %v %v, %d locations", s.Stack(0), s.Stack(1), len(s.Locations))
	}
}
