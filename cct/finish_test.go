package cct

import (
	"math/rand/v2"
	"testing"

	"github.com/google/pprof/profile"
)

// Finish computes the totals of a new tree without clearing them first;
// called again after more profiles, or twice in a row, it gives the
// totals a builder of all the profiles gives.
func TestFinishAgain(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	p1, p2 := randomProfile(rng, 200, "none"), randomProfile(rng, 150, "none")
	want := NewBuilder(Options{})
	for _, p := range []*profile.Profile{p1, p2} {
		if err := want.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	got := NewBuilder(Options{})
	if err := got.Add(p1); err != nil {
		t.Fatal(err)
	}
	got.Finish()
	if err := got.Add(p2); err != nil {
		t.Fatal(err)
	}
	got.Finish()
	sameTree(t, got.Finish(), want.Finish())
}
