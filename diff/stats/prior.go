package stats

import (
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/ctdiff/ctdiff/internal/selectk"
	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// A Prior is an empirical-Bayes model of the run-to-run variance of a node's
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
type Prior struct {
	d0 float64 // prior degrees of freedom
	// The variance trend is sampling noise plus run-to-run jitter,
	// σ²(v) = a·v + b·v² for a node of mean value v, fitted on the log
	// scale as c + log v + log(1 + v/vStar), where vStar = a/b is the size
	// at which jitter starts to dominate.
	c, logVStar float64
	// floor, when set, is the least variance a node's runs are taken to
	// have (WithFloor).
	floor float64
	// alt, when set, is a second trend fitted on other values of the same
	// nodes (one pair's self values beside its inclusive ones): s0 is the
	// larger of the two, d0 the smaller.
	alt *Prior
	// claimed is the coefficient of variation of a large node the fit
	// read before CapJitter lowered it, 0 when it did not.
	claimed float64
}

// SamplingPrior is the noise model of a single pair too small to fit one
// on (fewer than minPairPriorNodes calling contexts, as in a 2 s Go
// profile): Poisson sampling noise from the sampling period, period·v for a
// node of value v ("a profile with N samples in a node
// cannot resolve a change below a few √N"), plus run-to-run jitter at the
// most the pair fit may claim (jitter, FitPair's maxJitter), since one run
// shows none of it. nil when the profiles count no samples.
func SamplingPrior(period, jitter float64) *Prior {
	if !(period > 0) {
		return nil
	}
	c := math.Log(period)
	return &Prior{d0: maxPriorDF, c: c, logVStar: c - 2*math.Log(jitter)}
}

// maxPriorDF caps d0: the sampling model is only approximately right, so a
// node's own variance always keeps some weight.
const maxPriorDF = 50

// minPriorNodes is the least number of nodes with variance to fit a prior
// on; with fewer, Stats uses Welch's t-test. With one run per side the
// least is minPairPriorNodes, and with fewer nothing is tested.
// maxPriorNodes is the most it uses.
const (
	minPriorNodes     = 10
	minPairPriorNodes = 100
	maxPriorNodes     = 4096
)

// FitPrior fits the prior on nodes' pooled means and pooled variances (both
// samples), each with d = k + m − 2 degrees of freedom. Nodes without
// variance say nothing about its scale and are skipped. It returns nil when
// there are too few nodes.
func FitPrior(means, vars []float64, d float64) *Prior {
	need := minPriorNodes
	if d < 2 {
		// One pair's differences give one degree of freedom per node, and
		// a handful of nodes that all changed would pass for noise.
		need = minPairPriorNodes
	}
	// Count first, then take logs only of the nodes the fit uses: a
	// million logs (and a digamma each) were most of the fit's cost.
	valid := 0
	for i, v := range vars {
		if v > 0 && means[i] > 0 {
			valid++
		}
	}
	if valid < need {
		return nil
	}
	pl := newPriorLogs(valid, d)
	for i, v := range vars {
		if v > 0 && means[i] > 0 {
			if pl.add(means[i], v) {
				break
			}
		}
	}
	return fitLogs(pl.ls, pl.es, d)
}

// priorLogs takes the logs FitPrior fits on from the valid nodes (mean > 0
// and variance > 0), added in order: every one up to maxPriorNodes, a
// deterministic stride of them beyond.
type priorLogs struct {
	ls, es       []float64
	valid, take  int
	stride       float64
	dig, logHalf float64
	rank, next   int // next is the rank of the next valid node taken
}

func newPriorLogs(valid int, d float64) *priorLogs {
	// Two parameters need no more than maxPriorNodes: a deterministic
	// stride keeps the fit's cost bounded on trees of millions of nodes.
	take := min(valid, maxPriorNodes)
	return &priorLogs{
		ls: make([]float64, 0, take), es: make([]float64, 0, take),
		valid: valid, take: take, stride: float64(valid) / maxPriorNodes,
		// log s² is biased for log σ²; the correction makes it unbiased
		// for a scaled χ²_d variance (Smyth 2004, Section 6.2).
		dig: mathext.Digamma(d / 2), logHalf: math.Log(d / 2),
	}
}

// add adds the next valid node and says whether all are taken. It is
// called for each of a million nodes: the rest is in taken.
func (pl *priorLogs) add(mean, v float64) (full bool) {
	if pl.rank == pl.next {
		return pl.taken(mean, v)
	}
	pl.rank++
	return false
}

// takeFrom is add called for every valid node in order, its mean and
// variance at(x), where the valid nodes are the bits set in valid (node x
// is bit x%64 of word x/64): only the nodes taken are read, found by
// counting bits. After a take the next rank is past it (the stride is at
// least 1), so the ranks taken only grow, as in add.
func (pl *priorLogs) takeFrom(valid []uint64, at func(x int32) (mean, v float64)) {
	first := 0 // the rank of word w's first valid node
	for w, word := range valid {
		c := bits.OnesCount64(word)
		for pl.next < first+c {
			if pl.next < pl.rank {
				return // add would take no other node
			}
			b := word
			for range pl.next - first {
				b &= b - 1 // drop the lowest bit set
			}
			pl.rank = pl.next
			if pl.taken(at(int32(w*64 + bits.TrailingZeros64(b)))) {
				return
			}
		}
		first += c
	}
}

func (pl *priorLogs) taken(mean, v float64) bool {
	pl.ls = append(pl.ls, math.Log(mean))
	pl.es = append(pl.es, math.Log(v)-pl.dig+pl.logHalf)
	if pl.next = len(pl.ls); pl.valid > maxPriorNodes {
		pl.next = int(float64(len(pl.ls)) * pl.stride)
	}
	pl.rank++
	return len(pl.ls) == pl.take
}

// fitLogs is FitPrior's fit on the nodes' log means ls and corrected log
// variances es.
func fitLogs(ls, es []float64, d float64) *Prior {
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
	// One pair's differences (d = 1) include the nodes that did change:
	// there the offset is a median and the loss absolute, so that up to
	// half of the nodes may have changed without moving the fit (a least
	// squares fit on them called a regression that doubled a profile
	// noise). medShift is where the median of a log χ²_d/d variate lies
	// from its mean, which the correction of es made 0.
	robust := d < 2
	medShift := 0.0
	if robust {
		medShift = math.Log(distuv.ChiSquared{K: d}.Quantile(0.5)/d) - mathext.Digamma(d/2) + math.Log(d/2)
	}
	pr := &Prior{}
	best := math.Inf(1)
	// softplus is nearly all of a grid point's cost, and it depends only
	// on a node's size: sampled sizes are multiples of the sampling period,
	// so the 4,096 nodes have a few hundred distinct sizes (200k-stack
	// pair: 260 and 161 for the two fits). Each grid point computes it once
	// per distinct size; the residuals are the same floats as before
	// (es[k] − l is one subtraction either way).
	uniq, at := distinct(ls)
	el := make([]float64, len(ls))
	for k, l := range ls {
		el[k] = es[k] - l
	}
	sp := make([]float64, len(uniq))
	r, scratch := make([]float64, len(ls)), make([]float64, len(ls))
	try := func(lv float64) {
		for j, l := range uniq {
			sp[j] = softplus(l - lv)
		}
		for k, e := range el {
			r[k] = e - sp[at[k]]
		}
		var c, loss float64
		if robust {
			c = median(r, scratch)
			for _, x := range r {
				loss += math.Abs(x - c)
			}
			c -= medShift
		} else {
			c = stat.Mean(r, nil)
			for _, x := range r {
				loss += (x - c) * (x - c)
			}
		}
		if loss < best {
			best, pr.c, pr.logVStar = loss, c, lv
		}
	}
	// A coarse grid over the sizes seen (and beyond, for a pure sampling
	// or pure jitter trend), then a fine one around the best point.
	const steps = 40
	lo, step := lMin-5, (lMax-lMin+10)/steps
	for i := 0; i <= steps; i++ {
		try(lo + step*float64(i))
	}
	// The fine grid's middle point is the coarse best itself (center + 0),
	// whose loss cannot beat itself.
	center := pr.logVStar
	for i := -steps / 2; i <= steps/2; i++ {
		if i != 0 {
			try(center + step*float64(i)/(steps/2))
		}
	}
	resid := make([]float64, len(ls))
	for i, l := range ls {
		resid[i] = es[i] - pr.trend(l)
	}
	if robust {
		// The largest residuals are the nodes that changed: the spread
		// of the true variances is read from the rest.
		slices.Sort(resid)
		resid = resid[:len(resid)*19/20]
	}
	// The residual variance (two parameters fitted) is the χ² variance of
	// log s² (trigamma(d/2)) plus the spread of the true variances around
	// the trend; the latter gives d0.
	evar := stat.Variance(resid, nil)*float64(len(resid)-1)/float64(len(resid)-2) - trigamma(d/2)
	pr.d0 = maxPriorDF
	if evar > 0 {
		pr.d0 = math.Min(maxPriorDF, 2*trigammaInverse(evar))
	}
	return pr
}

// distinct returns the distinct values of v, in their first order, and
// for each value of v the index of its value there.
func distinct(v []float64) (uniq []float64, at []int32) {
	index := make(map[float64]int32, len(v)/4)
	at = make([]int32, len(v))
	for k, x := range v {
		j, ok := index[x]
		if !ok {
			j = int32(len(uniq))
			index[x] = j
			uniq = append(uniq, x)
		}
		at[k] = j
	}
	return uniq, at
}

// median returns the median of v, using scratch (as long as v) for a
// selection (Hoare's FIND): the order statistics are the sorted ones, at a
// fraction of a sort per grid point of FitPrior. v's order is kept, since
// the loss is summed in it. No NaN: the fit's residuals are finite.
func median(v, scratch []float64) float64 {
	s := scratch[:len(v)]
	copy(s, v)
	n := len(s)
	hi := selectk.Kth(s, n/2)
	if n%2 == 1 {
		return hi
	}
	// selectk.Kth left the n/2 values below position n/2 before it.
	return (slices.Max(s[:n/2]) + hi) / 2
}

// WithFloor returns a copy of pr whose variance is taken to be at least
// floor: the least variance a node's runs are taken to have.
func (pr *Prior) WithFloor(floor float64) *Prior {
	p := *pr
	p.floor = floor
	return &p
}

// DF is the prior's degrees of freedom d0.
func (pr *Prior) DF() float64 { return pr.d0 }

// SetAlt gives pr a second trend fitted on other values of the same nodes
// (one pair's self values beside its inclusive ones): S0 is then the
// larger of the two, and d0 the smaller.
func (pr *Prior) SetAlt(alt *Prior) {
	pr.alt, pr.d0 = alt, min(pr.d0, alt.d0)
}

// FitPair fits the prior on one pair's differences (one degree of
// freedom each), robustly (FitPrior): the count valid nodes are the bits
// set in valid (node x is bit x%64 of word x/64), and at(x) is node x's
// mean and its difference squared and halved. The jitter the fit may
// claim is capped at maxJitter (CapJitter). nil when there are fewer than
// minPairPriorNodes.
func FitPair(valid []uint64, count int, at func(x int32) (mean, v float64), maxJitter float64) *Prior {
	if count < minPairPriorNodes {
		return nil
	}
	pl := newPriorLogs(count, 1)
	pl.takeFrom(valid, at)
	pr := fitLogs(pl.ls, pl.es, 1)
	pr.CapJitter(maxJitter)
	return pr
}

// CapJitter lowers the trend's jitter term so that a large node's
// coefficient of variation is at most cv: for large v the trend is
// σ²(v) ≈ e^(c − logVStar)·v², so logVStar ≥ c − 2·log cv.
func (pr *Prior) CapJitter(cv float64) {
	if least := pr.c - 2*math.Log(cv); pr.logVStar < least {
		pr.claimed = math.Exp((pr.c - pr.logVStar) / 2)
		pr.logVStar = least
	}
}

// ClaimedJitter is the largest jitter a fit of pr read above its cap
// (CapJitter), 0 when none did.
func (pr *Prior) ClaimedJitter() float64 {
	if pr == nil {
		return 0
	}
	if pr.alt != nil {
		return max(pr.claimed, pr.alt.claimed)
	}
	return pr.claimed
}

func (pr *Prior) trend(l float64) float64 { return pr.c + l + softplus(l-pr.logVStar) }

// softplus is log(1 + eˣ), computed without overflow.
func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

// s0 returns the prior variance for a node of the given mean size.
func (pr *Prior) S0(mean float64) float64 {
	if mean <= 0 {
		return 0
	}
	v := math.Exp(pr.trend(math.Log(mean)) + mathext.Digamma(pr.d0/2) - math.Log(pr.d0/2))
	if pr.alt != nil {
		v = max(v, pr.alt.S0(mean))
	}
	return v
}

// moderated returns mean(y) − mean(x), its moderated standard error and
// degrees of freedom.
//
// Two cases the limma formula leaves open:
//
//   - One run per side (dd = 0): the node has no variance of its own, and
//     the prior alone, fitted on this pair's differences over all nodes
//     (statsGraph), gives it: df = d0.
//   - A node much noisier than nodes of its size (a garbage collector that
//     varies by ±10% where the trend says ±2%): shrinking its variance
//     toward the trend would make its own runs' spread look like a
//     regression (a ±10% GC node came out at adjusted p = 0.005). The
//     moderated variance never falls below the 95% lower confidence bound
//     of the node's own variance, f = s²·dd/χ²(dd, 0.95). Where the floor
//     decides clearly (f at least twice the moderated s̃²), the node's own
//     dd degrees of freedom are used, as in a plain t-test; between, the
//     prior's d0 is phased out linearly (floorDF). Borrowing strength still
//     helps every node whose spread is plausible for its size, which is
//     nearly all of them.
func (pr *Prior) Moderated(x, y []float64) (d, se, df float64) {
	d, se, df, _ = pr.moderatedWith(x, y, pr.S0)
	return d, se, df
}

// moderatedWith is moderated with the prior variance taken from s0, and
// gap the relative distance between the moderated variance and the
// variance floor, whichever decided (+Inf when no floor was compared): the
// screen (closedTrend) is trusted only where a last-bit change of s0
// cannot change that choice, and with it df.
func (pr *Prior) moderatedWith(x, y []float64, s0 func(float64) float64) (d, se, df, gap float64) {
	if len(x) == 1 && len(y) == 1 {
		// One run a side, a million times at 200k stacks: the mean of one
		// value is that value (Mean), and there is no variance to take.
		pooled := (x[0] + y[0]) / 2
		return y[0] - x[0], math.Sqrt(max(s0(pooled), pr.floor) * 2), pr.d0, math.Inf(1)
	}
	mx, vx := stat.MeanVariance(x, nil)
	my, vy := stat.MeanVariance(y, nil)
	nx, ny := float64(len(x)), float64(len(y))
	dd := nx + ny - 2
	pooled := (mx*nx + my*ny) / (nx + ny)
	if dd <= 0 {
		return my - mx, math.Sqrt(max(s0(pooled), pr.floor) * (1/nx + 1/ny)), pr.d0, math.Inf(1)
	}
	var s2 float64
	if nx > 1 {
		s2 += (nx - 1) * vx
	}
	if ny > 1 {
		s2 += (ny - 1) * vy
	}
	s2 /= dd
	st2 := (pr.d0*s0(pooled) + dd*s2) / (pr.d0 + dd)
	df = pr.d0 + dd
	f := s2 * varianceFloor(dd)
	gap = math.Abs(f-st2) / max(f, st2)
	if f > st2 {
		st2, df = f, floorDF(dd, pr.d0, f/st2)
	}
	st2 = max(st2, pr.floor)
	return my - mx, math.Sqrt(st2 * (1/nx + 1/ny)), df, gap
}

// floorDF is the degrees of freedom of a node whose variance floor f
// exceeds its moderated variance s̃² by the factor ratio > 1: d0 + dd where
// the two meet, the node's own dd from ratio 2 on, linear between.
//
// Why not switch to dd as soon as f > s̃²: when every node follows the
// trend (d0 = 50), the floor wins by chance for 1 node in 185 at 10 + 10
// runs (from s² = 2.05·s0², P(χ²₁₈ > 18·2.05)) and 1 in 33 at 3 + 3, and
// such a node lost d0 of its 50 + dd degrees of freedom at once, with the
// power a node a hair on the other side kept: at 10 + 10 runs of the
// synthetic ground truth a change of 6.3 standard errors got p = 1.1e-5 on
// 18 df, 0.37 after the correction, where 3 + 3 runs had found it.
// Where the floor wins twice over, the node is erratic beyond doubt and
// is tested on its own runs as before: TestVarianceFloor's ±10% collector
// against a 1% trend has ratio 5.
func floorDF(dd, d0, ratio float64) float64 {
	return dd + d0*min(1, max(0, 2-ratio))
}

// A closedTrend is s0 in closed form, for screening a million tests
// (bound.lazyTest): since log(1 + eˡ⁻ˡᵛ) = log(1 + v/v*) for l = log v,
//
//	s0(v) = k·v·(1 + v/v*),  k = e^(c + ψ(d0/2) − log(d0/2)),
//
// a few multiplications where s0 makes four transcendental calls. The two
// agree to about 1e-13 relative (the rounding of s0's exponent, which
// reaches ~100, and softplus's cut at 30); closedTol is the margin a
// screened decision keeps from every threshold, so that no decision it
// makes differs from s0's, and every p-value reported is still s0's.
type closedTrend struct {
	k, inv float64 // k and 1/v*
	// alt is the closed form of prior.alt; s0 is the larger of the two.
	alt *closedTrend
}

// closedTol is the relative margin of screened decisions (closedTrend).
const closedTol = 1e-9

// closed returns pr's trend in closed form, nil where the closed form
// could overflow or an alternative trend has its own.
func (pr *Prior) closed() *closedTrend {
	ct := &closedTrend{
		k:   math.Exp(pr.c + mathext.Digamma(pr.d0/2) - math.Log(pr.d0/2)),
		inv: math.Exp(-pr.logVStar),
	}
	if !(ct.k > 0 && ct.k < math.MaxFloat64 && ct.inv < math.MaxFloat64) {
		return nil
	}
	if pr.alt != nil {
		if pr.alt.alt != nil {
			return nil
		}
		if ct.alt = pr.alt.closed(); ct.alt == nil {
			return nil
		}
	}
	return ct
}

// s0 is prior.s0 to within closedTol; NaN where a product leaves the
// range in which that holds (far from any node's size).
func (ct *closedTrend) s0(mean float64) float64 {
	if mean <= 0 {
		return 0
	}
	v := ct.k * mean * (1 + mean*ct.inv)
	if !(v > 1e-250 && v < 1e250) {
		return math.NaN()
	}
	if ct.alt != nil {
		v = max(v, ct.alt.s0(mean))
	}
	return v
}

// varianceFloor is dd/χ²(dd, 0.95): the factor that turns a sample variance
// with dd degrees of freedom into the lower bound of its one-sided 95%
// confidence interval. dd is the same for every node of a comparison, so
// the quantile is remembered.
func varianceFloor(dd float64) float64 {
	floors.Lock()
	defer floors.Unlock()
	if f, ok := floors.m[dd]; ok {
		return f
	}
	f := dd / distuv.ChiSquared{K: dd}.Quantile(0.95)
	if len(floors.m) > 64 {
		clear(floors.m)
	}
	floors.m[dd] = f
	return f
}

var floors = struct {
	sync.Mutex
	m map[float64]float64
}{m: map[float64]float64{}}

// PooledStats returns a node's pooled mean and pooled variance. A side
// with a single value adds nothing to the variance; with one value on each
// side the variance is NaN (no degree of freedom).
func PooledStats(fx, fy []float64) (mean, variance float64) {
	mx, vx := stat.MeanVariance(fx, nil)
	my, vy := stat.MeanVariance(fy, nil)
	nx, ny := float64(len(fx)), float64(len(fy))
	var ss float64
	if nx > 1 {
		ss += (nx - 1) * vx
	}
	if ny > 1 {
		ss += (ny - 1) * vy
	}
	return (mx*nx + my*ny) / (nx + ny), ss / (nx + ny - 2)
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
