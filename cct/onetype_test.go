package cct

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// withAlloc adds a third sample type to a randomProfile's samples.
func withAlloc(p *profile.Profile) *profile.Profile {
	p.SampleType = append(p.SampleType, &profile.ValueType{Type: "alloc", Unit: "bytes"})
	for i, s := range p.Sample {
		s.Value = append(s.Value, int64(3*i+1))
	}
	return p
}

// A tree that keeps one sample type's values (Options.OneSampleType) has
// the nodes and frames of the tree that keeps them all, that type's self
// and total values at every node, and every type's at the root; the type
// is the one SampleIndex names, and a profile without it, or of one type,
// keeps them all.
func TestOneSampleType(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		sampleType string
		deflt      string // the profiles' DefaultSampleType
		types      int    // 1, 2 (samples, cpu) or 3 (and alloc)
		want       int    // the type kept; -1 for all
	}{
		{"last by default", "", "", 2, 1},
		{"profile's default", "", "samples", 2, 0},
		{"named", "samples", "", 2, 0},
		{"named with unit", "cpu/nanoseconds", "samples", 2, 1},
		{"middle of three", "cpu", "", 3, 1},
		{"last of three", "", "", 3, 2},
		{"no such type", "wall", "", 2, -1},
		{"bad default", "", "wall", 2, -1},
		{"one type", "", "", 1, -1},
	}
	for _, tc := range tests {
		for _, o := range []Options{{Prune: true}, {batchFrames: 7}, {byDepth: true}, {CallSites: true, batchFrames: 50}} {
			for _, twice := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%+v/finish twice=%v", tc.name, o, twice), func(t *testing.T) {
					rng := rand.New(rand.NewPCG(7, 8))
					profiles := []*profile.Profile{randomProfile(rng, 300, "ordered"), randomProfile(rng, 200, "shuffled")}
					for _, p := range profiles {
						switch tc.types {
						case 1:
							p.SampleType = p.SampleType[1:]
							for _, s := range p.Sample {
								s.Value = s.Value[1:]
							}
						case 3:
							withAlloc(p)
						}
						p.DefaultSampleType = tc.deflt
					}
					one := o
					one.OneSampleType, one.SampleType = true, tc.sampleType
					full, got := NewBuilder(o), NewBuilder(one)
					for _, p := range profiles {
						for _, b := range []*Builder{full, got} {
							if err := b.Add(p); err != nil {
								t.Fatal(err)
							}
							if twice {
								b.Finish()
							}
						}
					}
					ft, gt := full.Finish(), got.Finish()
					if err := gt.Validate(); err != nil {
						t.Fatal(err)
					}
					if tc.want < 0 {
						sameTree(t, gt, ft)
						return
					}
					if !slices.Equal(gt.Frames, ft.Frames) || !slices.Equal(gt.Nodes, ft.Nodes) || !slices.Equal(gt.kids, ft.kids) {
						t.Fatal("the trees' frames or nodes differ")
					}
					if !slices.Equal(gt.Self(RootID), ft.Self(RootID)) || !slices.Equal(gt.Total(RootID), ft.Total(RootID)) {
						t.Errorf("root values %v %v, want %v %v", gt.Self(RootID), gt.Total(RootID), ft.Self(RootID), ft.Total(RootID))
					}
					gs, gtot, gw := gt.Values(tc.want)
					fs, ftot, fw := ft.Values(tc.want)
					for i := range ft.Nodes {
						if gs[i*gw] != fs[i*fw] || gtot[i*gw] != ftot[i*fw] {
							t.Fatalf("node %d: self %d, total %d, want %d, %d", i, gs[i*gw], gtot[i*gw], fs[i*fw], ftot[i*fw])
						}
					}
					mustPanic(t, "keeps those of", func() { gt.Self(1) })
					mustPanic(t, "keeps those of", func() { gt.Total(1) })
					mustPanic(t, "keeps those of", func() { gt.Values((tc.want + 1) % tc.types) })
					mustPanic(t, "sample type", func() { ft.Values(tc.types) })
				})
			}
		}
	}
}

func mustPanic(t *testing.T, want string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), want) {
			t.Errorf("panic %v, want one saying %q", r, want)
		}
	}()
	f()
}
