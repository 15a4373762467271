package selectk

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Kth finds what sorting finds, duplicates and NaNs included.
func TestKth(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		n := 1 + r.IntN(2000)
		x := make([]float64, n)
		for i := range x {
			switch round % 4 {
			case 0:
				x[i] = r.Float64()
			case 1:
				x[i] = float64(r.IntN(5)) // many duplicates
			case 2:
				x[i] = float64(i) // sorted
			default:
				x[i] = float64(n - i) // reversed
			}
			if round%7 == 0 && r.IntN(10) == 0 {
				x[i] = math.NaN()
			}
		}
		sorted := slices.Clone(x)
		slices.Sort(sorted)
		k := r.IntN(n)
		got, want := Kth(x, k), sorted[k]
		if got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("round %d: element %d of %d is %v, sorted %v", round, k, n, got, want)
		}
	}
}
