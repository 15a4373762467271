package diff

import (
	"math"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// mannWhitneyMinRuns is the number of runs per side from which Stats uses
// Mann–Whitney U instead of Welch's t. Below it the U test cannot reach the
// corrected significance levels at all: with 3 runs per side its smallest
// one-sided p-value is 1/20 = 0.05, with 5 it is 1/252 ≈ 0.004. From 8 runs
// (1/12870) it can, and it is then preferred: it is about 95% as efficient
// as the t-test on normal data and robust to the odd outlier run (a GC storm,
// a noisy neighbour) that inflates a t-test's variance. benchstat makes the
// same choice of U test by default for the same reason.
const mannWhitneyMinRuns = 8

// test runs the one-sided test "new > base" on one node's values and returns
// the p-value and a 95% confidence interval of the mean delta (Welch's
// interval in both cases: the interval is for the reported mean delta).
func test(base, nw []int64) Test {
	x, y := floats(base), floats(nw)
	lo, hi := welchInterval(x, y, 0.95)
	t := Test{Low: round(lo), High: round(hi)}
	if len(x) >= mannWhitneyMinRuns && len(y) >= mannWhitneyMinRuns {
		t.Name, t.P = "mann-whitney", mannWhitneyGreater(x, y)
	} else {
		t.Name, t.P = "welch", welchGreater(x, y)
	}
	return t
}

func floats(v []int64) []float64 {
	f := make([]float64, len(v))
	for i, x := range v {
		f[i] = float64(x)
	}
	return f
}

// welchSE returns the standard error of mean(y) − mean(x) and the
// Welch–Satterthwaite degrees of freedom.
func welchSE(x, y []float64) (se, df float64) {
	_, vx := stat.MeanVariance(x, nil)
	_, vy := stat.MeanVariance(y, nil)
	nx, ny := float64(len(x)), float64(len(y))
	a, b := vx/nx, vy/ny
	se = math.Sqrt(a + b)
	den := 0.0
	if a > 0 {
		den += a * a / (nx - 1)
	}
	if b > 0 {
		den += b * b / (ny - 1)
	}
	if den == 0 {
		return se, math.Inf(1)
	}
	return se, (a + b) * (a + b) / den
}

// welchGreater is Welch's t-test of H1: mean(y) > mean(x). Both samples need
// at least two values. Without variance on either side the difference is
// exact, and the p-value is 0 or 1.
func welchGreater(x, y []float64) float64 {
	d := stat.Mean(y, nil) - stat.Mean(x, nil)
	se, df := welchSE(x, y)
	if se == 0 {
		if d > 0 {
			return 0
		}
		return 1
	}
	return studentsT(df).Survival(d / se)
}

// welchInterval is the two-sided confidence interval of mean(y) − mean(x).
func welchInterval(x, y []float64, level float64) (lo, hi float64) {
	d := stat.Mean(y, nil) - stat.Mean(x, nil)
	if len(x) < 2 || len(y) < 2 {
		return d, d
	}
	se, df := welchSE(x, y)
	if se == 0 {
		return d, d
	}
	h := studentsT(df).Quantile(1-(1-level)/2) * se
	return d - h, d + h
}

func studentsT(df float64) interface {
	Survival(float64) float64
	Quantile(float64) float64
} {
	if math.IsInf(df, 1) {
		return distuv.UnitNormal
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
}

// mannWhitneyGreater is the one-sided Mann–Whitney U test of H1: y tends to
// be larger than x, with the normal approximation corrected for ties and for
// continuity (used from mannWhitneyMinRuns runs per side, where it is
// accurate).
func mannWhitneyGreater(x, y []float64) float64 {
	nx, ny := len(x), len(y)
	all := make([]float64, 0, nx+ny)
	all = append(all, x...)
	all = append(all, y...)
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return all[idx[a]] < all[idx[b]] })
	ranks := make([]float64, len(all))
	ties := 0.0
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && all[idx[j+1]] == all[idx[i]] {
			j++
		}
		r := float64(i+j)/2 + 1 // mid-rank
		for k := i; k <= j; k++ {
			ranks[idx[k]] = r
		}
		t := float64(j - i + 1)
		ties += t*t*t - t
		i = j + 1
	}
	ry := 0.0
	for i := nx; i < len(all); i++ {
		ry += ranks[i]
	}
	u := ry - float64(ny*(ny+1))/2
	n := float64(nx + ny)
	mean := float64(nx*ny) / 2
	v := float64(nx*ny) / 12 * ((n + 1) - ties/(n*(n-1)))
	if v <= 0 {
		return 1 // every value tied
	}
	z := (u - mean - 0.5) / math.Sqrt(v)
	return distuv.UnitNormal.Survival(z)
}

// benjaminiHochberg returns the BH-adjusted p-values (q-values): a node is
// significant at false-discovery rate α when q ≤ α.
//
// Why BH and not Holm: the nodes of one path are nested (a parent's value
// contains its children's), so a real regression makes every node on its
// path a true effect; BH's power grows with the number of true effects while
// Holm controls the chance of even one false positive and loses power with
// every node tested. Under the complete null — base runs against base runs —
// BH's false-discovery rate equals the family-wise error rate, so the
// chance of any false path stays at α there. Nested sums are positively
// dependent, the case BH is proven for (Benjamini & Yekutieli 2001, PRDS).
func benjaminiHochberg(p []float64) []float64 {
	n := len(p)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	q := make([]float64, n)
	minQ := 1.0
	for r := n - 1; r >= 0; r-- {
		i := order[r]
		minQ = math.Min(minQ, p[i]*float64(n)/float64(r+1))
		q[i] = minQ
	}
	return q
}
