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

// TestParallelParts checks that parts cover [0, n) once, in order, and
// that a second call splits alike.
func TestParallelParts(t *testing.T) {
	for _, tc := range []struct{ n, parts int }{{0, 1}, {1, 1}, {5, 2}, {10_001, 3}, {7, 7}} {
		first := make([][2]int, tc.parts)
		parallelParts(tc.n, tc.parts, func(k, from, to int) { first[k] = [2]int{from, to} })
		next := 0
		for k, r := range first {
			if r[0] != next || r[1] < r[0] {
				t.Fatalf("n=%d parts=%d: part %d is [%d, %d), want it to start at %d", tc.n, tc.parts, k, r[0], r[1], next)
			}
			next = r[1]
		}
		if next != tc.n {
			t.Fatalf("n=%d parts=%d: parts end at %d", tc.n, tc.parts, next)
		}
		parallelParts(tc.n, tc.parts, func(k, from, to int) {
			if first[k] != [2]int{from, to} {
				t.Errorf("n=%d parts=%d: part %d is [%d, %d) on the second call, [%d, %d) on the first", tc.n, tc.parts, k, from, to, first[k][0], first[k][1])
			}
		})
	}
}
