package diff

import "testing"

func TestParallel(t *testing.T) {
	for _, n := range []int{0, 1, 9_999, 10_000, 25_001, 100_000} {
		seen := make([]int32, n)
		parallel(n, func(from, to int) {
			for i := from; i < to; i++ {
				seen[i]++
			}
		})
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("n=%d: item %d done %d times", n, i, c)
			}
		}
	}
}
