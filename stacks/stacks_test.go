package stacks

import (
	"slices"
	"testing"

	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/google/pprof/profile"
)

func oneType() *profile.Profile {
	return &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}}}
}

// Samples that share stacks (Starts) keep them in place when others go.
func TestKeepSharedStacks(t *testing.T) {
	s := New(oneType())
	s.Locations = []int32{5, 4, 3, 2, 1}
	s.Starts = []int32{0, 2, 0, 4}
	s.Ends = []int32{5, 5, 5, 5}
	s.Values = []int64{10, 20, 30, 40}
	s.SampleThreads = []int32{0, 1, 0, 1}
	s.ThreadList = []Thread{{Thread: "a"}, {Thread: "b"}}
	s.Keep(func(i int) bool { return s.Thread(i) == 1 })
	if s.Len() != 2 || !slices.Equal(s.Stack(0), []int32{3, 2, 1}) || !slices.Equal(s.Stack(1), []int32{1}) ||
		!slices.Equal(s.Values, []int64{20, 40}) || len(s.Locations) != 5 || s.Depth(0) != 3 {
		t.Fatalf("kept %d samples: %v %v, values %v, %d locations", s.Len(), s.Stack(0), s.Stack(1), s.Values, len(s.Locations))
	}
}

// Samples one after another (no Starts) are compacted as before.
func TestKeepConsecutiveStacks(t *testing.T) {
	s := New(oneType())
	s.Locations = []int32{1, 2, 3, 4, 5}
	s.Ends = []int32{2, 3, 5}
	s.Values = []int64{10, 20, 30}
	s.SampleThreads = []int32{0, 1, 0}
	s.ThreadList = []Thread{{Thread: "a"}, {Thread: "b"}}
	s.Keep(func(i int) bool { return i != 1 })
	if s.Len() != 2 || !slices.Equal(s.Stack(0), []int32{1, 2}) || !slices.Equal(s.Stack(1), []int32{4, 5}) || len(s.Locations) != 4 {
		t.Fatalf("kept %v %v, %d locations", s.Stack(0), s.Stack(1), len(s.Locations))
	}
}

// FromProfile reads a profile's samples as Samples holds them: stacks as
// location indexes (with ids out of order, far apart, or a location the
// table lacks), threads from the first label values, timestamps.
func TestFromProfile(t *testing.T) {
	p := oneType()
	a := &profile.Location{ID: 7}
	b := &profile.Location{ID: 1 << 40}
	c := &profile.Location{ID: 2}
	foreign := &profile.Location{ID: 3}
	p.Location = []*profile.Location{a, b, c}
	main := map[string][]string{labels.Thread: {"main", "x"}, labels.Process: {"app"}}
	p.Sample = []*profile.Sample{
		{Location: []*profile.Location{c, b, a}, Value: []int64{1}, Label: main,
			NumLabel: map[string][]int64{labels.Timestamp: {50}, labels.PID: {4}}},
		{Location: []*profile.Location{foreign, a}, Value: []int64{2}, Label: main,
			NumLabel: map[string][]int64{labels.PID: {4}}},
		{Location: []*profile.Location{c}, Value: []int64{3}, Label: map[string][]string{labels.Thread: {"main"}, labels.Process: {"app"}},
			NumLabel: map[string][]int64{labels.PID: {5}}},
		{Value: []int64{4}, Label: map[string][]string{labels.Thread: {"main"}, labels.Process: {"app"}},
			NumLabel: map[string][]int64{labels.PID: {4}}},
	}
	src := FromProfile(p)
	if src.Len() != 4 || src.Depth(1) != 2 || !slices.Equal(src.Value(2), []int64{3}) {
		t.Fatalf("Len %d, Depth(1) %d, Value(2) %v", src.Len(), src.Depth(1), src.Value(2))
	}
	if got := src.Stack(0); !slices.Equal(got, []int32{2, 1, 0}) {
		t.Errorf("Stack(0) = %v, want [2 1 0]", got)
	}
	if got := src.Stack(1); !slices.Equal(got, []int32{3, 0}) || src.Location(3) != foreign || src.Location(1) != b {
		t.Errorf("Stack(1) = %v (location 3 %p, want %p)", got, src.Location(3), foreign)
	}
	if ts, ok := src.Time(0); !ok || ts != 50 {
		t.Errorf("Time(0) = %d, %v", ts, ok)
	}
	if _, ok := src.Time(1); ok || AllTimed(src) {
		t.Errorf("sample 1 has a time, or all are timed")
	}
	want := []Thread{{Thread: "main", Process: "app", PID: 4, HasPID: true}, {Thread: "main", Process: "app", PID: 5, HasPID: true}}
	// Numbered as asked about; the labels of equal maps are equal.
	if x := []int32{src.Thread(0), src.Thread(1), src.Thread(2), src.Thread(3)}; !slices.Equal(x, []int32{0, 0, 1, 0}) ||
		!slices.Equal(src.Threads(), want) {
		t.Errorf("Thread = %v, Threads() = %+v", x, src.Threads())
	}
	if src.Thread(2) != 1 || src.Thread(1) != 0 || src.Thread(2) != 1 {
		t.Errorf("out of order: Thread = %d %d", src.Thread(1), src.Thread(2))
	}
	src.Keep(func(i int) bool { return i != 1 })
	if len(p.Sample) != 3 || p.Sample[1].Value[0] != 3 || src.Thread(1) != 1 || src.Thread(2) != 0 {
		t.Errorf("after Keep: %d samples, threads %d %d", len(p.Sample), src.Thread(1), src.Thread(2))
	}
}

// With ids 1, 2, 3... (dense), a location the table lacks, or holds under
// another id, is still found.
func TestFromProfileDense(t *testing.T) {
	p := oneType()
	a, b := &profile.Location{ID: 1}, &profile.Location{ID: 2}
	copyOfB := &profile.Location{ID: 2} // same id, not in the table
	p.Location = []*profile.Location{a, b}
	p.Sample = []*profile.Sample{{Location: []*profile.Location{b, copyOfB, a, copyOfB}, Value: []int64{1}}}
	src := FromProfile(p)
	if got := src.Stack(0); !slices.Equal(got, []int32{1, 2, 0, 2}) || src.Location(2) != copyOfB {
		t.Fatalf("Stack(0) = %v, want [1 2 0 2] with location 2 the copy", got)
	}
}

func TestThreadName(t *testing.T) {
	for _, tt := range []struct {
		th   Thread
		want string
	}{
		{Thread{Thread: "main", Process: "app"}, "app/main"},
		{Thread{Thread: "main"}, "main"},
		{Thread{Process: "app"}, "app"},
		{Thread{}, ""},
	} {
		if got := tt.th.Name(); got != tt.want {
			t.Errorf("%+v.Name() = %q, want %q", tt.th, got, tt.want)
		}
	}
}

func TestAllTimed(t *testing.T) {
	s := New(oneType())
	if AllTimed(s) {
		t.Error("no samples: all timed")
	}
	s.Ends, s.Values, s.SampleThreads, s.ThreadList = []int32{0, 0}, []int64{1, 1}, []int32{0, 0}, []Thread{{}}
	s.Times, s.Timed = []int64{1, 0}, []bool{true, false}
	if AllTimed(s) {
		t.Error("one sample without a time: all timed")
	}
	s.Timed[1] = true
	if !AllTimed(s) {
		t.Error("every sample timed: not all timed")
	}
}

// TestTimesWithoutTimed: Times without Timed means every sample has its
// time; Keep keeps them so.
func TestTimesWithoutTimed(t *testing.T) {
	s := New(oneType())
	s.Ends, s.Values, s.SampleThreads, s.ThreadList = []int32{0, 0, 0}, []int64{1, 2, 3}, []int32{0, 0, 0}, []Thread{{}}
	s.Times = []int64{5, 6, 7}
	if !AllTimed(s) {
		t.Error("Times without Timed: not all timed")
	}
	s.Keep(func(i int) bool { return i != 1 })
	for i, want := range []int64{5, 7} {
		if ts, ok := s.Time(i); !ok || ts != want {
			t.Errorf("after Keep, sample %d: time %d, %v; want %d, true", i, ts, ok, want)
		}
	}
	if s.Timed != nil || len(s.Times) != 2 {
		t.Errorf("after Keep: Times %v, Timed %v", s.Times, s.Timed)
	}
}
