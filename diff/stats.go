package diff

import (
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// test runs the one-sided test "new > base" on one node's values and
// returns its p-value: a moderated t-test (see prior) when a variance prior
// could be fitted, Welch's t-test otherwise, and Welch's too for a node
// missing from some runs of a side with two runs or more (see testFloats).
// The confidence interval is left to setInterval.
//
// Why no rank test from 8 runs per side, as benchstat does: Stats tests up
// to a million nodes and corrects for all of them, and a rank test's
// smallest p-value is fixed by the run counts (1/12870 at 8+8, 1/184756 at
// 10+10), far above what Holm's correction asks of a node among thousands:
// with 10 runs a side it found nothing where 3 runs found the regression
// (issue 20). The moderated t-test's power grows with the runs, and an
// outlier run, the reason for a rank test, is contained by the variance
// floor (prior.moderated) instead.
func test(base, nw []int64, pr *prior) Test {
	return testFloats(floats(base), floats(nw), pr)
}

// testFloats is test on values already converted, for callers that test a
// million nodes with one buffer. Without a prior, a side with a single run
// gives no variance at all: the test is "untested" with p = 1, and callers
// report such nodes as untested rather than calling them regressions.
func testFloats(x, y []float64, pr *prior) Test {
	both := len(x) >= 2 && len(y) >= 2
	switch {
	case pr != nil && (!both || !slices.Contains(y, 0)):
		// A node missing from some new runs varies by presence, which the
		// prior's model of sampling and jitter noise does not describe (an
		// event handler triggered in two runs of three): where each side
		// has two runs or more, its own variance alone decides.
		d, se, df := pr.moderated(x, y)
		return Test{Name: "moderated-t", P: upperTail(d, se, df)}
	case !both:
		return Test{Name: untested, P: 1}
	}
	return Test{Name: "welch", P: welchGreater(x, y)}
}

// untested names the Test of a node no test could be made for.
const untested = "untested"

// setIntervalFloats fills the 95% confidence interval of the mean delta,
// with the variance the test used. Only reported nodes get one: the t
// quantile costs far more than the test.
func (t *Test) setIntervalFloats(x, y []float64, pr *prior) {
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
