package diff

import (
	"math"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat"
)

// A prior is an empirical-Bayes model of the run-to-run variance of a node's
// value as a function of its size, fitted on all nodes of a comparison
// (Smyth 2004, "Linear models and empirical Bayes methods for assessing
// differential expression", the method of limma). Each node's pooled sample
// variance s² is shrunk toward the fitted s0² with d0 prior degrees of
// freedom:
//
//	s̃² = (d0·s0² + d·s²) / (d0 + d),  t = Δ / (s̃·√(1/k + 1/m)),  df = d0 + d
//
// Why: with 3 runs per side a plain t-test has 2-4 degrees of freedom, and
// its p-values cannot get small enough to survive a correction over the
// hundreds of nodes of a profile — a regression of 100 ms on a node that
// varies by 10 ms still fails. But the noise of sampled profiles is not
// node-specific: it follows the node's size (sampling noise grows like √value,
// run-to-run jitter like the value), so hundreds of nodes tell much more
// about one node's noise than its own 3+3 values. A node that really is
// erratic (a handler triggered in one run only) keeps a large s̃², because
// its own s² still counts with d degrees of freedom.
type prior struct {
	d0 float64 // prior degrees of freedom
	// The variance trend is sampling noise plus run-to-run jitter,
	// σ²(v) = a·v + b·v² for a node of mean value v, fitted on the log
	// scale as c + log v + log(1 + v/vStar), where vStar = a/b is the size
	// at which jitter starts to dominate.
	c, logVStar float64
}

// maxPriorDF caps d0: the sampling model is only approximately right, so a
// node's own variance always keeps some weight.
const maxPriorDF = 50

// minPriorNodes is the least number of nodes with variance to fit a prior
// on; with fewer, Stats uses Welch's t-test. maxPriorNodes is the most it
// uses.
const (
	minPriorNodes = 10
	maxPriorNodes = 4096
)

// fitPrior fits the prior on nodes' pooled means and pooled variances (both
// samples), each with d = k + m − 2 degrees of freedom. Nodes without
// variance say nothing about its scale and are skipped. It returns nil when
// there are too few nodes.
func fitPrior(means, vars []float64, d float64) *prior {
	var ls, es []float64
	for i, v := range vars {
		if v > 0 && means[i] > 0 {
			ls = append(ls, math.Log(means[i]))
			// log s² is biased for log σ²; the correction makes it unbiased
			// for a scaled χ²_d variance (Smyth 2004, Section 6.2).
			es = append(es, math.Log(v)-mathext.Digamma(d/2)+math.Log(d/2))
		}
	}
	if len(ls) < minPriorNodes {
		return nil
	}
	if len(ls) > maxPriorNodes {
		// Two parameters need no more: a deterministic stride keeps the
		// fit's cost bounded on trees of millions of nodes.
		stride := float64(len(ls)) / maxPriorNodes
		for i := range maxPriorNodes {
			j := int(float64(i) * stride)
			ls[i], es[i] = ls[j], es[j]
		}
		ls, es = ls[:maxPriorNodes], es[:maxPriorNodes]
	}
	lMin, lMax := ls[0], ls[0]
	for _, l := range ls {
		lMin, lMax = math.Min(lMin, l), math.Max(lMax, l)
	}
	// Grid search over the crossover size; for each the offset is the mean
	// residual. Why this shape and not a free curve: the two terms are how
	// sampled profiles vary (Poisson sampling noise grows like v, a slower or
	// faster run scales everything like v²), and a free curve fitted mostly
	// on the many small nodes bends wrongly at the few large ones, where
	// underestimating the variance makes false causes.
	pr := &prior{}
	best := math.Inf(1)
	try := func(lv float64) {
		c := 0.0
		for k, l := range ls {
			c += es[k] - l - softplus(l-lv)
		}
		c /= float64(len(ls))
		sse := 0.0
		for k, l := range ls {
			r := es[k] - c - l - softplus(l-lv)
			sse += r * r
		}
		if sse < best {
			best, pr.c, pr.logVStar = sse, c, lv
		}
	}
	// A coarse grid over the sizes seen (and beyond, for a pure sampling
	// or pure jitter trend), then a fine one around the best point.
	const steps = 40
	lo, step := lMin-5, (lMax-lMin+10)/steps
	for i := 0; i <= steps; i++ {
		try(lo + step*float64(i))
	}
	center := pr.logVStar
	for i := -steps / 2; i <= steps/2; i++ {
		try(center + step*float64(i)/(steps/2))
	}
	resid := make([]float64, len(ls))
	for i, l := range ls {
		resid[i] = es[i] - pr.trend(l)
	}
	// The residual variance (two parameters fitted) is the χ² variance of
	// log s² (trigamma(d/2)) plus the spread of the true variances around
	// the trend; the latter gives d0.
	evar := stat.Variance(resid, nil)*float64(len(ls)-1)/float64(len(ls)-2) - trigamma(d/2)
	pr.d0 = maxPriorDF
	if evar > 0 {
		pr.d0 = math.Min(maxPriorDF, 2*trigammaInverse(evar))
	}
	return pr
}

func (pr *prior) trend(l float64) float64 { return pr.c + l + softplus(l-pr.logVStar) }

// softplus is log(1 + eˣ), computed without overflow.
func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

// s0 returns the prior variance for a node of the given mean size.
func (pr *prior) s0(mean float64) float64 {
	if mean <= 0 {
		return 0
	}
	return math.Exp(pr.trend(math.Log(mean)) + mathext.Digamma(pr.d0/2) - math.Log(pr.d0/2))
}

// moderated returns mean(y) − mean(x), its moderated standard error and
// degrees of freedom.
func (pr *prior) moderated(x, y []float64) (d, se, df float64) {
	mx, vx := stat.MeanVariance(x, nil)
	my, vy := stat.MeanVariance(y, nil)
	nx, ny := float64(len(x)), float64(len(y))
	dd := nx + ny - 2
	s2 := ((nx-1)*vx + (ny-1)*vy) / dd
	pooled := (mx*nx + my*ny) / (nx + ny)
	st2 := (pr.d0*pr.s0(pooled) + dd*s2) / (pr.d0 + dd)
	return my - mx, math.Sqrt(st2 * (1/nx + 1/ny)), pr.d0 + dd
}

// pooledStats returns a node's pooled mean and pooled variance.
func pooledStats(x, y []int64) (mean, variance float64) {
	return pooledStatsFloats(floats(x), floats(y))
}

// pooledStatsFloats is pooledStats on values already converted.
func pooledStatsFloats(fx, fy []float64) (mean, variance float64) {
	mx, vx := stat.MeanVariance(fx, nil)
	my, vy := stat.MeanVariance(fy, nil)
	nx, ny := float64(len(fx)), float64(len(fy))
	return (mx*nx + my*ny) / (nx + ny), ((nx-1)*vx + (ny-1)*vy) / (nx + ny - 2)
}

// trigamma is ψ'(x) for x > 0: recurrence up to 6, then the asymptotic
// series (Abramowitz & Stegun 6.4.12).
func trigamma(x float64) float64 {
	r := 0.0
	for ; x < 6; x++ {
		r += 1 / (x * x)
	}
	t := 1 / x
	t2 := t * t
	return r + t + t2/2 + t*t2*(1.0/6-t2*(1.0/30-t2*(1.0/42-t2/30)))
}

// trigammaInverse solves trigamma(y) = v for y > 0 by bisection on log y
// (trigamma decreases from +∞ to 0).
func trigammaInverse(v float64) float64 {
	lo, hi := math.Log(1e-8), math.Log(1e8)
	for range 200 {
		mid := (lo + hi) / 2
		if trigamma(math.Exp(mid)) > v {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2)
}
