//go:build !after

package main

// smoothWindow is the number of points averaged on each side of a point.
const smoothWindow = 6

// smooth is a centred moving average with a triangular kernel.
func smooth(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i := range xs {
		var sum, wsum float64
		for k := -smoothWindow; k <= smoothWindow; k++ {
			j := i + k
			if j < 0 || j >= len(xs) {
				continue
			}
			w := float64(smoothWindow + 1 - abs(k))
			sum += w * xs[j]
			wsum += w
		}
		out[i] = sum / wsum
	}
	return out
}

func abs(k int) int {
	if k < 0 {
		return -k
	}
	return k
}
