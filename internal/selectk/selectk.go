// Package selectk finds the k-th smallest of a slice of floats without
// sorting it: the one quickselect that diff (medians of the prior fit's
// residuals) and report (the HTML page's size cut) share.
package selectk

import "cmp"

// Kth returns what x[k] would be were x sorted by slices.Sort, NaNs first,
// reordering x so that no larger value comes before position k and no
// smaller one after it (quickselect: linear time, where sorting a million
// sizes took a tenth of a second).
func Kth(x []float64, k int) float64 {
	lo, hi := 0, len(x)-1
	for lo < hi {
		// Median of three as the pivot, then Hoare's partition.
		mid := lo + (hi-lo)/2
		if cmp.Less(x[mid], x[lo]) {
			x[mid], x[lo] = x[lo], x[mid]
		}
		if cmp.Less(x[hi], x[lo]) {
			x[hi], x[lo] = x[lo], x[hi]
		}
		if cmp.Less(x[hi], x[mid]) {
			x[hi], x[mid] = x[mid], x[hi]
		}
		pivot := x[mid]
		i, j := lo, hi
		for i <= j {
			for cmp.Less(x[i], pivot) {
				i++
			}
			for cmp.Less(pivot, x[j]) {
				j--
			}
			if i <= j {
				x[i], x[j] = x[j], x[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return x[k]
		}
	}
	return x[k]
}
