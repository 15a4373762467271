package convert

import (
	"testing"

	"github.com/google/pprof/profile"
)

// aggregate merges samples of equal stacks and labels whether their stacks
// share an array or not, keeps apart those that differ in either, and
// leaves shared value slices alone.
func TestAggregate(t *testing.T) {
	f := &profile.Function{ID: 1, Name: "f"}
	a := &profile.Location{ID: 1, Line: []profile.Line{{Function: f}}}
	b := &profile.Location{ID: 2, Line: []profile.Line{{Function: f, Line: 2}}}
	shared := []*profile.Location{a, b}
	ui := map[string][]string{"thread": {"ui"}}
	values := []int64{1, 10, 1, 20}
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}}
	p.Sample = []*profile.Sample{
		{Location: shared, Value: values[0:2]},
		{Location: shared[1:], Value: []int64{1, 5}}, // a tail: another stack
		{Location: []*profile.Location{a, b}, Value: values[2:4]},
		{Location: shared, Value: []int64{1, 7}, Label: ui},
		{Location: shared, Value: []int64{1, 3}, Label: map[string][]string{"thread": {"ui"}}},
		{Location: shared, Value: []int64{1, 1}, NumLabel: map[string][]int64{"pid": {4}}},
	}
	aggregate(p)
	want := [][]int64{{2, 30}, {1, 5}, {2, 10}, {1, 1}}
	if len(p.Sample) != len(want) {
		t.Fatalf("%d samples, want %d", len(p.Sample), len(want))
	}
	for i, s := range p.Sample {
		if s.Value[0] != want[i][0] || s.Value[1] != want[i][1] {
			t.Errorf("sample %d: %v, want %v", i, s.Value, want[i])
		}
	}
	if &p.Sample[0].Location[0] != &shared[0] {
		t.Error("the merged sample's stack was copied")
	}
	if values[0] != 1 || values[1] != 10 {
		t.Errorf("a shared value slice was written: %v", values)
	}
}
