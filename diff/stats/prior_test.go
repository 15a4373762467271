package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// fitPriorSorted is fitPrior as it was before its logs were taken of the
// strided nodes only and its medians selected instead of sorted: the fit
// must not move by a bit (every p-value depends on it).
func fitPriorSorted(means, vars []float64, d float64) *Prior {
	need := minPriorNodes
	if d < 2 {
		need = minPairPriorNodes
	}
	var ls, es []float64
	for i, v := range vars {
		if v > 0 && means[i] > 0 {
			ls = append(ls, math.Log(means[i]))
			es = append(es, math.Log(v)-mathext.Digamma(d/2)+math.Log(d/2))
		}
	}
	if len(ls) < need {
		return nil
	}
	if len(ls) > maxPriorNodes {
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
	robust := d < 2
	medShift := 0.0
	if robust {
		medShift = math.Log(distuv.ChiSquared{K: d}.Quantile(0.5)/d) - mathext.Digamma(d/2) + math.Log(d/2)
	}
	pr := &Prior{}
	best := math.Inf(1)
	r := make([]float64, len(ls))
	try := func(lv float64) {
		for k, l := range ls {
			r[k] = es[k] - l - softplus(l-lv)
		}
		var c, loss float64
		if robust {
			s := slices.Clone(r)
			slices.Sort(s)
			n := len(s)
			if c = s[n/2]; n%2 == 0 {
				c = (s[n/2-1] + s[n/2]) / 2
			}
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
	if robust {
		slices.Sort(resid)
		resid = resid[:len(resid)*19/20]
	}
	evar := stat.Variance(resid, nil)*float64(len(resid)-1)/float64(len(resid)-2) - trigamma(d/2)
	pr.d0 = maxPriorDF
	if evar > 0 {
		pr.d0 = math.Min(maxPriorDF, 2*trigammaInverse(evar))
	}
	return pr
}

// noisyNodes returns n nodes' means and variances with the σ² trend
// 1e6·v + 0.01·v² and d degrees of freedom; a fifth have no variance (a
// pair's equal values), and with changed, a tenth have ten times theirs.
func noisyNodes(rng *rand.Rand, n int, d float64, changed bool) (means, vars []float64) {
	for i := range n {
		mean := math.Exp(rng.Float64()*12 + 12)
		chi := 0.0
		for range max(1, int(d)) {
			z := rng.NormFloat64()
			chi += z * z
		}
		v := (1e6*mean + 0.01*mean*mean) * chi / max(1, d)
		switch {
		case i%5 == 0:
			v = 0
		case changed && i%10 == 1:
			v *= 10
		}
		means, vars = append(means, mean), append(vars, v)
	}
	return means, vars
}

func TestFitPriorBitsKept(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 3))
	for _, tt := range []struct {
		name    string
		n       int
		d       float64
		changed bool
		// period, when set, rounds each mean to a multiple of it (at
		// least one), as sampled values are: many nodes share a size,
		// which the grid search computes softplus for once.
		period float64
	}{
		{"pair, too few", 110, 1, false, 0}, // 88 with variance: < minPairPriorNodes
		{"pair, few", 300, 1, true, 0},
		{"pair, all taken", 5120, 1, true, 0}, // 4096 with variance: no stride
		{"pair, strided", 5121, 1, true, 0},
		{"pair, strided far", 200_000, 1, true, 0},
		{"runs, few", 40, 4, false, 0},
		{"runs, even count", 4000, 4, false, 0},
		{"runs, strided", 60_000, 4, false, 0},
		{"pair, sampled sizes", 5120, 1, true, 1e7},
		{"pair, sampled sizes, strided", 200_000, 1, true, 1e7},
		{"runs, sampled sizes", 4000, 4, false, 1e7},
		{"pair, coarse sizes", 5120, 1, true, 1e9}, // a few dozen sizes
	} {
		t.Run(tt.name, func(t *testing.T) {
			means, vars := noisyNodes(rng, tt.n, tt.d, tt.changed)
			if tt.period > 0 {
				for i, m := range means {
					means[i] = max(1, math.Round(m/tt.period)) * tt.period
				}
			}
			got, want := FitPrior(means, vars, tt.d), fitPriorSorted(means, vars, tt.d)
			switch {
			case (got == nil) != (want == nil):
				t.Fatalf("fitPrior = %+v, want %+v", got, want)
			case got != nil && *got != *want:
				t.Errorf("fitPrior = %+v, want %+v, bit for bit", *got, *want)
			}
		})
	}
}

// median selects what a sort would find, on ties, runs and reversals too,
// and leaves its input's order alone.
func TestMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	inputs := [][]float64{{1}, {2, 1}, {3, 3, 3, 3}, {1, 2, 3, 4, 5, 6}, {6, 5, 4, 3, 2, 1, 0}, {-0.5, 7, -0.5, 7, 2}}
	for range 300 {
		v := make([]float64, 1+rng.IntN(60))
		for i := range v {
			v[i] = float64(rng.IntN(8)) - 3 // many ties
			if rng.IntN(2) == 0 {
				v[i] = rng.NormFloat64()
			}
		}
		inputs = append(inputs, v)
	}
	for _, v := range inputs {
		s := slices.Sorted(slices.Values(v))
		n := len(s)
		want := s[n/2]
		if n%2 == 0 {
			want = (s[n/2-1] + s[n/2]) / 2
		}
		before := slices.Clone(v)
		if got := median(v, make([]float64, n)); got != want {
			t.Fatalf("median(%v) = %v, want %v", v, got, want)
		}
		if !slices.Equal(v, before) {
			t.Fatalf("median reordered its input %v to %v", before, v)
		}
	}
}

// The closed form of the trend agrees with s0 far inside the margin the
// screen keeps (closedTol), on both fits, large and small sizes.
func TestClosedTrend(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 1))
	worst := 0.0
	for range 500 {
		pr := &Prior{d0: 0.5 + rng.Float64()*maxPriorDF, c: rng.Float64()*40 - 30, logVStar: rng.Float64()*60 - 10}
		if rng.IntN(2) == 0 {
			pr.alt = &Prior{d0: pr.d0, c: pr.c + rng.NormFloat64(), logVStar: pr.logVStar + 3*rng.NormFloat64()}
		}
		ct := pr.closed()
		if ct == nil {
			t.Fatalf("no closed form for %+v", *pr)
		}
		for range 50 {
			mean := math.Exp(rng.Float64() * 30)
			got, want := ct.s0(mean), pr.S0(mean)
			if math.IsNaN(got) {
				continue
			}
			rel := math.Abs(got-want) / want
			worst = max(worst, rel)
			if !(rel < 1e-12) {
				t.Fatalf("closed s0(%g) = %g, s0 = %g (relative %g) for %+v", mean, got, want, rel, *pr)
			}
		}
	}
	t.Logf("largest relative difference %.2g", worst)
	if ct := (&Prior{d0: 4, c: 800, logVStar: 0}).closed(); ct != nil {
		t.Errorf("closed form %+v of an overflowing trend, want none", *ct)
	}
	if ct := (&Prior{d0: 4, c: 0, logVStar: 0, alt: &Prior{d0: 4, logVStar: -800}}).closed(); ct != nil {
		t.Errorf("closed form %+v with an overflowing alternative, want none", *ct)
	}
}

// lazyTest's screen never decides otherwise than the exact statistic
// would: at statistics a few ulps from the bound's t, on one run a side and
// on three with the variance floor at a tie, each result is the one
// without screen, and every exact p-value is testFloats', bit for bit.
func TestLazyTestScreen(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	pair := &Prior{d0: 7.3, c: -3.1, logVStar: 21.5, alt: &Prior{d0: 7.3, c: -2.2, logVStar: 19}}
	runs := &Prior{d0: 12, c: math.Log(1e-4) - 30, logVStar: -30}
	floored := *runs
	floored.floor = 4e14
	screened := 0
	for _, tt := range []struct {
		name string
		pr   *Prior
		k    int
	}{
		{"one run a side", pair, 1},
		{"three runs a side", runs, 3},
		{"three runs, collector floor", &floored, 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := Bound{c: 1e-4, df: math.NaN()}
			for range 300 {
				x, y := make([]float64, tt.k), make([]float64, tt.k)
				base := math.Exp(rng.Float64()*10 + 14)
				for i := range x {
					x[i] = base * (1 + 0.02*rng.NormFloat64())
					y[i] = base * (1 + 0.02*rng.NormFloat64())
				}
				if tt.k > 1 && rng.IntN(3) == 0 {
					// Runs that vary just as the floor does, to the bit: the
					// floor's choice is a tie.
					_, own := PooledStats(x, y)
					s0 := tt.pr.S0((floatSum(x) + floatSum(y)) / float64(2*tt.k))
					scale := s0 * tt.pr.d0 / (own * (tt.pr.d0*(1/varianceFloor(4)) - 4))
					for i := range x {
						x[i] *= math.Sqrt(scale)
						y[i] *= math.Sqrt(scale)
					}
				}
				// Shift y until the statistic is at the bound's t, then
				// try the floats around it.
				lo, hi := 0.0, 10*base
				var at float64
				for range 200 {
					at = (lo + hi) / 2
					d, se, df := tt.pr.Moderated(x, add(y, at))
					b.setDF(df)
					if d/se < b.t {
						lo = at
					} else {
						hi = at
					}
				}
				for k := -4; k <= 4; k++ {
					yy := add(y, at+float64(k)*math.Abs(at)*1e-15)
					checkLazy(t, &b, x, yy, tt.pr)
				}
				checkLazy(t, &b, x, add(y, at*0.5), tt.pr)
				if b.ct != nil {
					screened++
				}
			}
		})
	}
	if screened == 0 {
		t.Error("the screen was never used")
	}
}

func add(v []float64, d float64) []float64 {
	out := slices.Clone(v)
	for i := range out {
		out[i] += d
	}
	return out
}

// checkLazy compares one lazyTest with the decision the exact statistic
// makes.
func checkLazy(t *testing.T, b *Bound, x, y []float64, pr *Prior) {
	t.Helper()
	got, _, _, isExact := b.lazyTest(x, y, pr)
	want := Greater(x, y, pr)
	d, se, df := pr.Moderated(x, y)
	wantExact := true
	if se > 0 && !math.IsNaN(se) && !math.IsInf(df, 1) {
		b.setDF(df)
		wantExact = d/se > b.t
	}
	switch {
	case isExact != wantExact:
		t.Fatalf("x %v y %v: exact %v, want %v (t %v, bound %v)", x, y, isExact, wantExact, d/se, b.t)
	case isExact && got != want:
		t.Fatalf("lazyTest = %+v, want %+v", got, want)
	case !isExact && (got.P != b.c || got.Method != want.Method):
		t.Fatalf("lazyTest = %+v (bounded at %v), exact %+v", got, b.c, want)
	}
}

// One run a side takes moderatedWith's shortcut (no stat.MeanVariance):
// its results are the general formula's, bit for bit.
func TestModeratedOneRunEachSide(t *testing.T) {
	pr := &Prior{d0: 7.5, c: -3, logVStar: 20}
	floored := &Prior{d0: 7.5, c: -3, logVStar: 20, floor: 1e12}
	for _, tt := range []struct {
		x, y float64
		pr   *Prior
	}{
		{1e7, 3e7, pr},
		{3e7, 1e7, pr},
		{0, 5e6, pr},
		{123456789, 123456790, pr},
		{1e7, 3e7, floored}, // the floor decides
		{1e11, 1.1e11, floored},
	} {
		x, y := []float64{tt.x}, []float64{tt.y}
		d, se, df, gap := tt.pr.moderatedWith(x, y, tt.pr.S0)
		mx, my := stat.Mean(x, nil), stat.Mean(y, nil)
		pooled := (mx*1 + my*1) / (1 + 1)
		wantSE := math.Sqrt(max(tt.pr.S0(pooled), tt.pr.floor) * (1.0/1 + 1.0/1))
		if d != my-mx || se != wantSE || df != tt.pr.d0 || !math.IsInf(gap, 1) {
			t.Errorf("moderatedWith(%g, %g) = %v, %v, %v, %v, want %v, %v, %v, +Inf",
				tt.x, tt.y, d, se, df, gap, my-mx, wantSE, tt.pr.d0)
		}
	}
}

// TestPriorLogsTakeFrom checks takeFrom, which reads only the valid nodes
// taken, against add called for every valid node: the same logs, bit for
// bit, with and without a stride, and with invalid nodes between.
func TestPriorLogsTakeFrom(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	// n is about the valid nodes (of 2n, each valid at even odds).
	for _, n := range []int{1, 300, maxPriorNodes, maxPriorNodes + 1, 5121, 12_345, 200_000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			means, vars := make([]float64, 2*n), make([]float64, 2*n)
			var valid []int32
			set := make([]uint64, (len(means)+63)/64)
			for x := range means {
				means[x], vars[x] = 1+rng.ExpFloat64()*1e6, rng.ExpFloat64()*1e9
				if len(valid) == n || rng.IntN(2) == 0 {
					vars[x] = 0 // not valid
					continue
				}
				valid = append(valid, int32(x))
				set[x/64] |= 1 << (x % 64)
			}
			want := newPriorLogs(len(valid), 1)
			for x, v := range vars {
				if v > 0 && want.add(means[x], v) {
					break
				}
			}
			got := newPriorLogs(len(valid), 1)
			got.takeFrom(set, func(x int32) (float64, float64) { return means[x], vars[x] })
			// Every node up to maxPriorNodes; a stride may end a few short.
			if v := len(valid); len(want.ls) > min(v, maxPriorNodes) || len(want.ls) < min(v, maxPriorNodes*9/10) {
				t.Fatalf("add took %d of %d", len(want.ls), v)
			}
			if !slices.Equal(got.ls, want.ls) || !slices.Equal(got.es, want.es) {
				t.Fatalf("takeFrom took %d logs, add %d; they differ", len(got.ls), len(want.ls))
			}
		})
	}
}

// floatSum is the sum of v, from 0 in order.
func floatSum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}
