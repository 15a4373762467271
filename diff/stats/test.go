package stats

import (
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// A Method is the test a p-value came from.
type Method uint8

const (
	Moderated Method = iota // a moderated t-test (Prior)
	Welch                   // Welch's t-test
	Untested                // none could be made: p = 1
)

// String is the method's name in reports: "moderated-t", "welch" or
// "untested".
func (m Method) String() string {
	return [...]string{Moderated: "moderated-t", Welch: "welch", Untested: "untested"}[m]
}

// A Result is a one-sided test's outcome: its method and p-value.
type Result struct {
	Method Method
	P      float64
}

// test runs the one-sided test "new > base" on one node's values and
// returns its p-value: a moderated t-test (see Prior) when a variance prior
// could be fitted, Welch's t-test otherwise, and Welch's too for a node
// missing from some runs of a side with two runs or more (see Greater).
// The confidence interval is left to Interval.
//
// Why no rank test from 8 runs per side, as benchstat does: Stats tests up
// to a million nodes and corrects for all of them, and a rank test's
// smallest p-value is fixed by the run counts (1/12870 at 8+8, 1/184756 at
// 10+10), far above what Holm's correction asks of a node among thousands:
// with 10 runs a side it found nothing where 3 runs found the regression on
// the synthetic pair. The moderated t-test's power grows with the runs, and
// an outlier run, the reason for a rank test, is contained by the variance
// floor (Prior.Moderated) instead.
func test(base, nw []int64, pr *Prior) Result {
	return Greater(Floats(base), Floats(nw), pr)
}

// Greater is the one-sided test "mean(y) > mean(x)" of test, on values
// already converted, for callers that test a million nodes with one
// buffer. Without a prior, a side with a single run gives no variance at
// all: the test is Untested with p = 1, and callers report such nodes as
// untested rather than calling them regressions.
func Greater(x, y []float64, pr *Prior) Result {
	both := len(x) >= 2 && len(y) >= 2
	switch {
	case pr != nil && (!both || !slices.Contains(y, 0)):
		// A node missing from some new runs varies by presence, which the
		// prior's model of sampling and jitter noise does not describe (an
		// event handler triggered in two runs of three): where each side
		// has two runs or more, its own variance alone decides.
		d, se, df := pr.Moderated(x, y)
		return Result{Method: Moderated, P: upperTail(d, se, df)}
	case !both:
		return Result{Method: Untested, P: 1}
	}
	return Result{Method: Welch, P: WelchGreater(x, y)}
}

// Interval is the 95% confidence interval of mean(y) − mean(x), with the
// variance the test of method m used. Callers ask it only of what they
// report: the t quantile costs far more than the test.
func Interval(m Method, x, y []float64, pr *Prior) (lo, hi float64) {
	if m == Moderated {
		return TInterval(pr.Moderated(x, y))
	}
	return WelchInterval(x, y, 0.95)
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
	return Survival(d/se, df)
}

// Survival is Student's t upper tail, without StudentsT's interface (a
// million tests would box a million values).
func Survival(t, df float64) float64 {
	if math.IsInf(df, 1) {
		return distuv.UnitNormal.Survival(t)
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Survival(t)
}

// A Bound lets a test skip its exact p-value where it is surely at least
// c: the adjusted p-value of such a hypothesis is 1 unless the correction
// gives it a weight ≥ c, and the exact tail (an incomplete beta function)
// is most of a test's cost. t caches the t with survival 1.01·c for the
// last df seen (moderated tests share theirs), and ct the closed form of
// the last prior's trend.
type Bound struct {
	c, df, t float64
	made     bool  // ct was made, for trend
	trend    Prior // the trend's fields (not its floor)
	ct       *closedTrend
}

// NewBound is a Bound at c: Greater leaves p-values surely ≥ c at c.
func NewBound(c float64) Bound { return Bound{c: c, df: math.NaN()} }

// Greater is the package's Greater, except that a p-value surely ≥ b's c
// may be left at c: exact says whether p is the test's own.
func (b *Bound) Greater(x, y []float64, pr *Prior) (r Result, exact bool) {
	r, _, _, exact = b.lazyTest(x, y, pr)
	return r, exact
}

// lazyTest is Greater, except that where the test is a moderated t
// whose p-value is surely ≥ b.c it returns p = b.c and the statistic and
// df to finish it with (exact false). That decision is made on the
// statistic with s0 in closed form (closedTrend), and only where it holds
// with a margin: the statistic returned with it is the screen's. Every
// exact p-value is Greater's, bit for bit.
func (b *Bound) lazyTest(x, y []float64, pr *Prior) (t Result, stat, df float64, exact bool) {
	if pr == nil || len(x) >= 2 && len(y) >= 2 && slices.Contains(y, 0) {
		return Greater(x, y, pr), 0, 0, true
	}
	// A node that did not grow has p ≥ ½ whatever its variance (the test
	// is one-sided: t ≤ 0, or no error and p = 1), so where c ≤ ¼ it is
	// left at c before any variance is computed: about half the nodes of
	// a comparison. Mean is moderated's (stat.MeanVariance's mean is
	// stat.Mean), so the sign is the test's. Its statistic is not needed:
	// finishing a p-value tests again.
	if b.c <= 0.25 && !math.IsNaN(pr.d0) && Mean(y) <= Mean(x) {
		return Result{Method: Moderated, P: b.c}, 0, 0, false
	}
	if ct := b.closed(pr); ct != nil {
		d, se, df, gap := pr.moderatedWith(x, y, ct.s0)
		if se > 0 && !math.IsInf(se, 1) && gap > closedTol && !math.IsInf(df, 1) {
			b.setDF(df)
			if stat := d / se; stat+closedTol*math.Abs(stat) <= b.t {
				return Result{Method: Moderated, P: b.c}, stat, df, false
			}
		}
	}
	d, se, df := pr.Moderated(x, y)
	if se == 0 || math.IsNaN(se) || math.IsInf(df, 1) {
		return Result{Method: Moderated, P: upperTail(d, se, df)}, 0, 0, true
	}
	b.setDF(df)
	if stat = d / se; stat <= b.t {
		return Result{Method: Moderated, P: b.c}, stat, df, false
	}
	return Result{Method: Moderated, P: Survival(stat, df)}, 0, 0, true
}

// Mean is stat.Mean, without its call for one value (the sum of one
// value is that value).
func Mean(v []float64) float64 {
	if len(v) == 1 {
		return v[0]
	}
	return stat.Mean(v, nil)
}

// setDF makes b.t the bound's t for df.
func (b *Bound) setDF(df float64) {
	if df != b.df {
		// p ≥ 1.01·c at t_c: the margin keeps the bound a bound against
		// the quantile's own rounding.
		b.df, b.t = df, distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1-min(1, 1.01*b.c))
	}
}

// closed returns the closedTrend of pr, made again only when its trend
// changed (statsGraph's priors are copies differing by their floors).
func (b *Bound) closed(pr *Prior) *closedTrend {
	if b.made && pr.c == b.trend.c && pr.logVStar == b.trend.logVStar && pr.d0 == b.trend.d0 && pr.alt == b.trend.alt {
		return b.ct
	}
	b.made, b.trend, b.ct = true, Prior{c: pr.c, logVStar: pr.logVStar, d0: pr.d0, alt: pr.alt}, pr.closed()
	return b.ct
}

// TInterval is the two-sided 95% confidence interval of a difference.
func TInterval(d, se, df float64) (lo, hi float64) {
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
	q := StudentsT(df).Quantile(0.975)
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

// Floats converts v to float64s.
func Floats(v []int64) []float64 { return FloatsInto(make([]float64, len(v)), v) }

// FloatsInto converts v into dst, which must be as long.
func FloatsInto(dst []float64, v []int64) []float64 {
	for i, x := range v {
		dst[i] = float64(x)
	}
	return dst
}

// WelchSE returns the standard error of mean(y) − mean(x) and the
// Welch–Satterthwaite degrees of freedom.
func WelchSE(x, y []float64) (se, df float64) {
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

// WelchGreater is Welch's t-test of H1: mean(y) > mean(x). Both samples need
// at least two values. Without variance on either side the difference is
// exact, and the p-value is 0 or 1.
func WelchGreater(x, y []float64) float64 {
	se, df := WelchSE(x, y)
	return upperTail(stat.Mean(y, nil)-stat.Mean(x, nil), se, df)
}

// WelchInterval is the two-sided confidence interval of mean(y) − mean(x).
func WelchInterval(x, y []float64, level float64) (lo, hi float64) {
	d := stat.Mean(y, nil) - stat.Mean(x, nil)
	if len(x) < 2 || len(y) < 2 {
		return d, d
	}
	se, df := WelchSE(x, y)
	if se == 0 {
		return d, d
	}
	if level == 0.95 {
		h := quantile975(df) * se
		return d - h, d + h
	}
	h := StudentsT(df).Quantile(1-(1-level)/2) * se
	return d - h, d + h
}

// StudentsT is Student's t distribution with df degrees of freedom, the
// unit normal for df = +Inf.
func StudentsT(df float64) interface {
	Survival(float64) float64
	Quantile(float64) float64
} {
	if math.IsInf(df, 1) {
		return distuv.UnitNormal
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
}
