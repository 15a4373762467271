package diff

import (
	"cmp"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestBest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct{ n, k int }{
		{0, 3}, {1, 3}, {3, 3}, {10, 0}, {10, 1}, {100, 10}, {1000, 7}, {50, 100},
	} {
		vals := rng.Perm(tc.n)
		b := newBest(tc.k, cmp.Compare[int])
		for _, v := range vals {
			b.add(v)
		}
		want := slices.Sorted(slices.Values(vals))[:min(tc.k, tc.n)]
		if got := b.sorted(); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("n=%d k=%d: got %v, want %v", tc.n, tc.k, got, want)
		}
	}
}
