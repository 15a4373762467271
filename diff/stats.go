package diff

import (
	"math"
	"slices"
	"sort"
	"sync"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// mannWhitneyMinRuns is the number of runs per side from which Stats uses
// Mann–Whitney U instead of a t-test. Below it the U test cannot reach the
// corrected significance levels at all: with 3 runs per side its smallest
// one-sided p-value is 1/20 = 0.05, with 5 it is 1/252 ≈ 0.004. From 8 runs
// (1/12870) it can, and it is then preferred: it is about 95% as efficient
// as the t-test on normal data and robust to the odd outlier run (a GC storm,
// a noisy neighbour) that inflates a t-test's variance. benchstat makes the
// same choice of U test by default for the same reason.
const mannWhitneyMinRuns = 8

// test runs the one-sided test "new > base" on one node's values and
// returns its p-value. Below mannWhitneyMinRuns runs per side it is a
// t-test: moderated (see prior) when a variance prior could be fitted and the
// node occurs in every new run, Welch's otherwise; from mannWhitneyMinRuns it
// is Mann–Whitney U. The confidence interval is left to setInterval.
func test(base, nw []int64, pr *prior) Test {
	return testFloats(floats(base), floats(nw), pr)
}

// testFloats is test on values already converted, for callers that test a
// million nodes with one buffer.
func testFloats(x, y []float64, pr *prior) Test {
	switch {
	case len(x) >= mannWhitneyMinRuns && len(y) >= mannWhitneyMinRuns:
		return Test{Name: "mann-whitney", P: mannWhitneyGreater(x, y)}
	case pr != nil && !slices.Contains(y, 0):
		// A node missing from some new runs varies by presence, which the
		// prior's model of sampling and jitter noise does not describe (an
		// event handler triggered in two runs of three): its own variance
		// alone must decide.
		d, se, df := pr.moderated(x, y)
		return Test{Name: "moderated-t", P: upperTail(d, se, df)}
	}
	return Test{Name: "welch", P: welchGreater(x, y)}
}

// setInterval fills the 95% confidence interval of the mean delta, with the
// variance the test used (Welch's for Mann–Whitney U, whose reported effect
// is the mean delta too). Only reported nodes get one: the t quantile costs
// far more than the test.
func (t *Test) setInterval(base, nw []int64, pr *prior) {
	x, y := floats(base), floats(nw)
	var lo, hi float64
	if t.Name == "moderated-t" {
		lo, hi = interval(pr.moderated(x, y))
	} else {
		lo, hi = welchInterval(x, y, 0.95)
	}
	t.Low, t.High = round(lo), round(hi)
}

// upperTail is the one-sided p-value of a difference d with standard error
// se and df degrees of freedom; without error the difference is exact.
func upperTail(d, se, df float64) float64 {
	if se == 0 || math.IsNaN(se) {
		if d > 0 {
			return 0
		}
		return 1
	}
	return studentsT(df).Survival(d / se)
}

// interval is the two-sided 95% confidence interval of a difference.
func interval(d, se, df float64) (lo, hi float64) {
	if se == 0 || math.IsNaN(se) {
		return d, d
	}
	h := quantile975(df) * se
	return d - h, d + h
}

// quantile975 is the 97.5th percentile of Student's t with df degrees of
// freedom. Moderated tests share one df, so it is remembered: the inverse
// incomplete beta function costs microseconds, and a critical graph can
// hold the 100,000 nodes of one deep path.
func quantile975(df float64) float64 {
	quantiles.Lock()
	defer quantiles.Unlock()
	if q, ok := quantiles.m[df]; ok {
		return q
	}
	q := studentsT(df).Quantile(0.975)
	if len(quantiles.m) > 1024 {
		clear(quantiles.m)
	}
	quantiles.m[df] = q
	return q
}

var quantiles = struct {
	sync.Mutex
	m map[float64]float64
}{m: map[float64]float64{}}

func floats(v []int64) []float64 { return floatsInto(make([]float64, len(v)), v) }

// floatsInto converts v into dst, which must be as long.
func floatsInto(dst []float64, v []int64) []float64 {
	for i, x := range v {
		dst[i] = float64(x)
	}
	return dst
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
	se, df := welchSE(x, y)
	return upperTail(stat.Mean(y, nil)-stat.Mean(x, nil), se, df)
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
	if level == 0.95 {
		h := quantile975(df) * se
		return d - h, d + h
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

// correct is the multiple-testing correction of Stats; a variable so the
// accuracy simulation can compare alternatives.
var correct = holm

// holm returns Holm-adjusted p-values: a node is significant when its
// adjusted p-value is ≤ α, and the chance that any node of a comparison is
// falsely significant stays ≤ α (family-wise error rate).
//
// Why Holm and not Benjamini–Hochberg: the tested nodes are nested (a
// caller's value contains its callees'), so one real regression makes every
// node on its path a true discovery — ten or more. BH lets the number of
// false discoveries grow with the number of true ones, so each real
// regression buys about half a false cause elsewhere; the accuracy
// simulation (BENCHMARKS.md, "diff: speed and design measurements")
// measured node precision 89% and 87% with BH against 96% and 96% with
// Holm, at equal recall. Holm's
// usual cost, power, is small here: moderated t-tests give real regressions
// p-values far below α divided by the number of nodes tested.
func holm(p []float64) []float64 {
	n := len(p)
	order := ascending(p)
	q := make([]float64, n)
	maxQ := 0.0
	for r, i := range order {
		maxQ = math.Max(maxQ, math.Min(1, p[i]*float64(n-r)))
		q[i] = maxQ
	}
	return q
}

// ascending returns the indexes of p in increasing order of value (stable,
// so equal p-values keep node order and the adjustment is deterministic).
func ascending(p []float64) []int {
	// Sorting (value, index) pairs, ties by index, is the stable sort
	// without its merging, and reads each p-value once.
	type item struct {
		p float64
		i int
	}
	items := make([]item, len(p))
	for i, v := range p {
		items[i] = item{v, i}
	}
	slices.SortFunc(items, func(a, b item) int {
		switch {
		case a.p < b.p:
			return -1
		case a.p > b.p:
			return 1
		}
		return a.i - b.i
	})
	order := make([]int, len(p))
	for r, it := range items {
		order[r] = it.i
	}
	return order
}
