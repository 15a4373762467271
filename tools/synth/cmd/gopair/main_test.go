package main

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/google/pprof/profile"
)

// TestGenerate checks the properties the package comment promises, on a
// small pair: valid profiles, distinct stacks as many as asked for, call
// sites and inlined frames, four mappings, a skewed depth, the added
// callee under the injected function in the new profile only, and the
// same bytes for the same seed.
func TestGenerate(t *testing.T) {
	const stacks = 3000
	pr := generate(1, stacks, 800)
	for _, p := range []*profile.Profile{pr.base, pr.new} {
		if err := p.CheckValid(); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(pr.base.Sample); got != stacks {
		t.Errorf("base has %d samples, want %d", got, stacks)
	}
	seen := map[string]bool{}
	depth, maxDepth := 0, 0
	for _, s := range pr.base.Sample {
		k := fmt.Sprint(locIDs(s))
		if seen[k] {
			t.Fatalf("stack %s twice in base", k)
		}
		seen[k] = true
		depth += len(s.Location)
		maxDepth = max(maxDepth, len(s.Location))
	}
	if mean := float64(depth) / stacks; float64(maxDepth) < 2.5*mean {
		t.Errorf("depth mean %.1f, max %d: want a long tail (max at least 2.5 times the mean)", mean, maxDepth)
	}
	inlined, perFunc := 0, map[uint64]int{}
	mappings := map[uint64]bool{}
	for _, l := range pr.base.Location {
		if len(l.Line) > 1 {
			inlined++
		}
		perFunc[l.Line[len(l.Line)-1].Function.ID]++
		mappings[l.Mapping.ID] = true
	}
	if share := float64(inlined) / float64(len(pr.base.Location)); share < 0.15 || share > 0.35 {
		t.Errorf("%.0f%% of locations hold inlined frames, want about a quarter", 100*share)
	}
	if len(perFunc) >= len(pr.base.Location) {
		t.Errorf("%d locations in %d functions: want several call sites per function", len(pr.base.Location), len(perFunc))
	}
	if len(mappings) != 4 {
		t.Errorf("locations in %d mappings, want 4", len(mappings))
	}
	calls := func(p *profile.Profile) int {
		n := 0
		for _, s := range p.Sample {
			for i, l := range s.Location[:len(s.Location)-1] {
				if l.Line[0].Function.Name == pr.added && s.Location[i+1].Line[0].Function.Name == pr.injected {
					n++
				}
			}
		}
		return n
	}
	if n := calls(pr.base); n != 0 {
		t.Errorf("base: %d samples of %s calling %s, want none", n, pr.injected, pr.added)
	}
	if n := calls(pr.new); n == 0 {
		t.Errorf("new: no sample of %s calling %s", pr.injected, pr.added)
	}
	var a, b bytes.Buffer
	if err := pr.new.WriteUncompressed(&a); err != nil {
		t.Fatal(err)
	}
	if err := generate(1, stacks, 800).new.WriteUncompressed(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two pairs of seed 1 differ")
	}
}

func locIDs(s *profile.Sample) []uint64 {
	ids := make([]uint64, len(s.Location))
	for i, l := range s.Location {
		ids[i] = l.ID
	}
	return ids
}
