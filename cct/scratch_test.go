package cct

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ctdiff/ctdiff/tools/synth"
	"github.com/google/pprof/profile"
)

// One scratch serves profile after profile, of different sizes, stack
// sharing, batches and options, as scratchPool hands it from build to
// build: every tree is the one a builder with fresh buffers (the one-by-one
// reference) builds. Stale buffers would show: a location's frames, a
// path's nodes or the level table of the profile before.
func TestScratchReused(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	big := synth.Generate(synth.Config{Seed: 4, Stacks: 2000, Functions: 200})
	sc := &scratch{}
	type build struct {
		p      *profile.Profile
		opts   Options
		shared bool // as compact samples sharing stacks
	}
	// The same profile with its locations listed in reverse: a location
	// index stands for another location than in the build before.
	reversed := func(p *profile.Profile) *profile.Profile {
		q := p.Copy()
		slices.Reverse(q.Location)
		return q
	}
	small := randomProfile(rng, 300, "ordered")
	builds := []build{
		{small, Options{}, false},
		{reversed(small), Options{}, false},
		{small, Options{}, true},
		{reversed(small), Options{}, true},
		{big.Base, Options{Prune: true}, false},
		{randomProfile(rng, 300, "ordered"), Options{batchFrames: 7}, true},
		{big.New, Options{Prune: true, batchFrames: 5000}, false},
		{randomProfile(rng, 200, "shuffled"), Options{CallSites: true}, false},
		{randomProfile(rng, 300, "none"), Options{Timeline: true, batchFrames: 100}, true},
		{big.Base, Options{}, true},
		{randomProfile(rng, 50, "some"), Options{Prune: true}, false},
	}
	for i, bd := range builds {
		t.Run(fmt.Sprintf("%d", i), func(t *testing.T) {
			got := NewBuilder(bd.opts)
			got.sc = sc
			want := NewBuilder(Options{Prune: bd.opts.Prune, CallSites: bd.opts.CallSites, Timeline: bd.opts.Timeline})
			referenceAdd(want, bd.p)
			var err error
			if bd.shared {
				samples := bd.p.Sample
				err = got.AddSamples(toSharedStacks(bd.p))
				bd.p.Sample = samples
			} else {
				err = got.Add(bd.p)
			}
			if err != nil {
				t.Fatal(err)
			}
			sameTree(t, got.Finish(), want.Finish())
		})
	}
}

// A builder returns its scratch after each profile, with no reference to
// the tree, the profile or its samples, which the pool would otherwise
// keep alive.
func TestScratchReleased(t *testing.T) {
	p := synth.Generate(synth.Config{Seed: 1, Stacks: 500}).Base
	b := NewBuilder(Options{})
	sc := getScratch()
	b.sc = sc
	if err := b.Add(p); err != nil {
		t.Fatal(err)
	}
	if sc.ins.t == nil || sc.ins.src == nil || sc.locs.p == nil {
		t.Fatal("the scratch of a build in progress lost its tree, samples or profile")
	}
	b.release()
	if b.sc != nil {
		t.Error("the builder kept its scratch")
	}
	if sc.ins.t != nil || sc.ins.src != nil || sc.locs.p != nil || sc.ins.claimed != nil {
		t.Errorf("a released scratch refers to the tree (%p), the samples (%v), the profile (%p) or a slot (%p)",
			sc.ins.t, sc.ins.src, sc.locs.p, sc.ins.claimed)
	}
	if sc.bytes() == 0 {
		t.Error("a used scratch counts no bytes")
	}
}

// Builders that share Buffers build one after another with one scratch,
// left in the Buffers after each tree, and build the trees fresh buffers
// build.
func TestBuffersReused(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var buf Buffers
	var first *scratch
	for k, p := range []*profile.Profile{randomProfile(rng, 300, "ordered"), randomProfile(rng, 100, "none"), randomProfile(rng, 300, "shuffled")} {
		got, want := NewBuilder(Options{}), NewBuilder(Options{})
		got.UseBuffers(&buf)
		if err := got.Add(p); err != nil {
			t.Fatal(err)
		}
		referenceAdd(want, p)
		sameTree(t, got.Finish(), want.Finish())
		if buf.sc == nil {
			t.Fatalf("build %d left no scratch in its Buffers", k)
		}
		if first == nil {
			first = buf.sc
		} else if buf.sc != first {
			t.Errorf("build %d used another scratch than the first", k)
		}
		if buf.sc.ins.t != nil || buf.sc.locs.p != nil {
			t.Errorf("build %d left its tree or profile in the Buffers' scratch", k)
		}
	}
}

// Runs whose tables are the same objects (convert.Buffers shares them when
// their bytes repeat) take their locations' frames from the kept frames of
// the run before (keptFrames): into fresh trees and into the same tree,
// with other samples, with a location a source adds of its own, and with
// the options that change a location's frames, every tree is the one the
// reference builds.
func TestKeptFrames(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	p1 := randomProfile(rng, 300, "ordered")
	// p2 has other samples over p1's very tables; randomProfile's tables
	// are the same each time, in the same order.
	p2 := randomProfile(rng, 200, "none")
	for _, s := range p2.Sample {
		for j, l := range s.Location {
			s.Location[j] = p1.Location[l.ID-1]
		}
	}
	p2.Location, p2.Function = p1.Location, p1.Function
	// p3 lists p1's locations in another order: not the kept ones.
	p3 := &profile.Profile{SampleType: p2.SampleType, Sample: p2.Sample, Function: p2.Function, Location: slices.Clone(p1.Location)}
	slices.Reverse(p3.Location)
	type build struct {
		profiles []*profile.Profile // into one tree
		opts     Options
		use      bool // the last profile takes the kept frames
	}
	builds := []build{
		{[]*profile.Profile{p1}, Options{}, false},
		{[]*profile.Profile{p2}, Options{}, true},
		{[]*profile.Profile{p1}, Options{}, true},
		{[]*profile.Profile{p2, p1}, Options{}, true},
		{[]*profile.Profile{p1}, Options{Prune: true}, false},
		{[]*profile.Profile{p2}, Options{Prune: true, Timeline: true}, true},
		{[]*profile.Profile{p2}, Options{CallSites: true}, false},
		{[]*profile.Profile{p2}, Options{}, false},
		{[]*profile.Profile{p1, p3}, Options{}, false},
		{[]*profile.Profile{p2}, Options{}, false},
		{[]*profile.Profile{p1}, Options{}, true},
	}
	var buf Buffers
	for i, bd := range builds {
		t.Run(fmt.Sprintf("%d", i), func(t *testing.T) {
			got, want := NewBuilder(bd.opts), NewBuilder(bd.opts)
			got.UseBuffers(&buf)
			for _, p := range bd.profiles {
				if err := got.Add(p); err != nil {
					t.Fatal(err)
				}
				referenceAdd(want, p)
			}
			sameTree(t, got.Finish(), want.Finish())
			if buf.sc.locs.use != bd.use {
				t.Errorf("the last profile took kept frames: %v, want %v", buf.sc.locs.use, bd.use)
			}
			if bd.use && !slices.ContainsFunc(buf.sc.locs.ids, func(id FrameID) bool { return id != noFrames }) {
				t.Error("the last profile interned none of the kept frames")
			}
		})
	}
}
