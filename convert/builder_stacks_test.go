package convert

import (
	"slices"
	"testing"

	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// buildSome adds the same samples to b whichever way it collects them:
// two threads that take turns, a sample without a time before the first
// timed one, pid and tid with and without values, a further label.
func buildSome(b *profileBuilder) {
	f := b.Location(stackFrame{Name: "f", File: "a.js", Line: 3})
	g := b.Location(stackFrame{Name: "g", File: "a.js", Line: 9, Column: 2})
	h := b.Location(stackFrame{Name: "h", SystemName: "_h"})
	main := sampleMeta{Thread: "main", Process: "app", PID: 7, TID: 7, HasPID: true, HasTID: true}
	worker := sampleMeta{Thread: "worker", PID: 7, HasPID: true}
	b.Add([]*profile.Location{g, f}, []int64{1, 10}, main)
	for i := range int64(6) {
		m := main
		if i%3 == 1 {
			m = worker
		}
		m.Time, m.HasTime = 100*i, i != 4
		b.Add([]*profile.Location{h, g, f}[i%3:], []int64{1, 10 + i}, m)
	}
	b.Add(nil, []int64{2, 0}, sampleMeta{Labels: map[string]string{"state": "RUNNABLE"}})
	b.Add([]*profile.Location{f}, []int64{1, 5}, sampleMeta{Process: "app"})
}

func builderTypes() []*profile.ValueType {
	return []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "wall", Unit: "nanoseconds"}}
}

// TestBuilderCollectStacks: collected stacks are the samples Add makes
// otherwise (but for the labels stacks.Samples does not keep).
func TestBuilderCollectStacks(t *testing.T) {
	want := newProfileBuilder(builderTypes()...)
	buildSome(want)
	b := newProfileBuilder(builderTypes()...)
	b.CollectStacks()
	b.Grow(2, 3)
	buildSome(b)
	s := b.Stacks()
	if s == nil {
		t.Fatal("Stacks is nil after CollectStacks")
	}
	if len(s.Threads()) != 4 {
		t.Errorf("%d threads, want 4: %+v", len(s.Threads()), s.Threads())
	}
	matchStacks(t, b.Profile(), s, want.Profile())
	if newProfileBuilder().Stacks() != nil {
		t.Error("Stacks is not nil without CollectStacks")
	}
}

func TestBuilderCollectStacksPanics(t *testing.T) {
	other := newProfileBuilder(builderTypes()...)
	foreign := other.Location(stackFrame{Name: "x"})
	for name, add := range map[string]func(b *profileBuilder){
		"foreign location": func(b *profileBuilder) { b.Add([]*profile.Location{foreign}, []int64{1, 1}, sampleMeta{}) },
		"values":           func(b *profileBuilder) { b.Add(nil, []int64{1}, sampleMeta{}) },
	} {
		t.Run(name, func(t *testing.T) {
			b := newProfileBuilder(builderTypes()...)
			b.CollectStacks()
			b.Location(stackFrame{Name: "y"})
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			add(b)
		})
	}
}

// TestStacksTimed: collected samples and decoded pprof samples keep
// Timed only when some samples have a time and others not
// (stacks.Samples.Times), and give every sample's time either way.
func TestStacksTimed(t *testing.T) {
	for _, tc := range []struct {
		name      string
		timed     []bool
		wantTimes bool
		wantTimed bool
	}{
		{"none", []bool{false, false, false}, false, false},
		{"all", []bool{true, true, true}, true, false},
		{"first untimed", []bool{false, true, true}, true, true},
		{"last untimed", []bool{true, true, false}, true, true},
		{"middle untimed", []bool{true, false, true}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newProfileBuilder(builderTypes()...)
			b.CollectStacks()
			f := b.Location(stackFrame{Name: "f", File: "a.js", Line: 3})
			for i, has := range tc.timed {
				b.Add([]*profile.Location{f}, []int64{1, 10}, sampleMeta{Thread: "main", Time: int64(100 * (i + 1)), HasTime: has})
			}
			want := newProfileBuilder(builderTypes()...)
			f = want.Location(stackFrame{Name: "f", File: "a.js", Line: 3})
			for i, has := range tc.timed {
				want.Add([]*profile.Location{f}, []int64{1, 10}, sampleMeta{Thread: "main", Time: int64(100 * (i + 1)), HasTime: has})
			}
			_, decoded, ok := pprofio.DecodeStacks(encode(t, want.Profile()), nil, nil)
			if !ok {
				t.Fatal("decodeStacks refused the profile")
			}
			for _, s := range []*stacks.Samples{b.Stacks(), decoded} {
				if (s.Times != nil) != tc.wantTimes || (s.Timed != nil) != tc.wantTimed {
					t.Errorf("Times %v, Timed %v: want Times %v, Timed %v", s.Times, s.Timed, tc.wantTimes, tc.wantTimed)
				}
				for i, has := range tc.timed {
					if ts, ok := s.Time(i); ok != has || has && ts != int64(100*(i+1)) {
						t.Errorf("sample %d: time %d, %v; want %d, %v", i, ts, ok, 100*(i+1), has)
					}
				}
				if got := stacks.AllTimed(s); got != !slices.Contains(tc.timed, false) {
					t.Errorf("AllTimed = %v", got)
				}
			}
		})
	}
}
