package cct

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ctdiff/ctdiff/tools/synth"
	"github.com/google/pprof/profile"
)

// goLike is a profile of a Go program's shape: several lines of each
// function sampled, each a location, some with inlined lines.
func goLike(rng *rand.Rand) *profile.Profile {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}}
	for i := range 50 {
		p.Function = append(p.Function, &profile.Function{ID: uint64(i + 1), Name: fmt.Sprintf("main.f%d", i), Filename: "main.go"})
	}
	for i := range 400 {
		l := &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: p.Function[i%50], Line: int64(i)}}}
		if i%3 == 0 {
			l.Line = append(l.Line, profile.Line{Function: p.Function[(i+7)%50], Line: int64(i + 1)})
		}
		p.Location = append(p.Location, l)
	}
	for range 300 {
		s := &profile.Sample{Value: []int64{1}}
		for range 1 + rng.IntN(10) {
			s.Location = append(s.Location, p.Location[rng.IntN(len(p.Location))])
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

// frameRoom makes room for every frame a profile's locations make, and 8
// threads, without call sites (with them, room for a frame per location
// as before); a Go profile's room is for fewer frames than locations.
func TestFrameRoom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	// Lines without functions, and more functions than lines.
	odd := randomProfile(rng, 100, "none")
	odd.Location[0].Line = []profile.Line{{Line: 3}}
	for i := range 40 {
		odd.Function = append(odd.Function, &profile.Function{ID: uint64(len(odd.Function) + 1), Name: fmt.Sprint("unused", i)})
	}
	tests := []struct {
		name     string
		p        *profile.Profile
		opts     Options
		wantLess bool // room for fewer frames than locations
	}{
		{"go", goLike(rng), Options{}, true},
		{"go, pruned", goLike(rng), Options{Prune: true}, true},
		{"go, call sites", goLike(rng), Options{CallSites: true}, false},
		{"synth", synth.Generate(synth.Config{Seed: 1, Stacks: 2000, Functions: 300}).Base, Options{Prune: true}, false},
		{"random", randomProfile(rng, 400, "ordered"), Options{}, false},
		{"odd", odd, Options{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := FromProfile(tc.p, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			room := frameRoom(tc.p, tc.opts.CallSites)
			frames := 0
			for _, f := range tr.Frames {
				if f.Kind == KindFunction {
					frames++
				}
			}
			if !tc.opts.CallSites && frames > room-8 {
				t.Errorf("%d frames, room for %d and 8 threads", frames, room-8)
			}
			if less := room < len(tc.p.Location); less != tc.wantLess {
				t.Errorf("room for %d frames of %d locations, want fewer: %v", room, len(tc.p.Location), tc.wantLess)
			}
		})
	}
}
