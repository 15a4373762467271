package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

func approx(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestWelch(t *testing.T) {
	// t = 2 / √(5/6) = 2.191 with 6 degrees of freedom (equal variances,
	// so Welch's df is exactly 6): one-sided p = 0.0355 (tables).
	x, y := []float64{1, 2, 3, 4}, []float64{3, 4, 5, 6}
	if p := WelchGreater(x, y); !approx(p, 0.0355, 2e-4) {
		t.Errorf("welchGreater = %.5f, want 0.0355", p)
	}
	if p := WelchGreater(y, x); !approx(p, 1-0.0355, 2e-4) {
		t.Errorf("welchGreater reversed = %.5f, want 0.9645", p)
	}
	// 95% interval: 2 ± t(0.975, 6) × 0.9129 = 2 ± 2.4469 × 0.9129.
	lo, hi := WelchInterval(x, y, 0.95)
	if !approx(lo, 2-2.2337, 1e-3) || !approx(hi, 2+2.2337, 1e-3) {
		t.Errorf("interval [%.4f, %.4f], want [-0.2337, 4.2337]", lo, hi)
	}
	// Without variance the difference is exact.
	if p := WelchGreater([]float64{5, 5}, []float64{7, 7}); p != 0 {
		t.Errorf("exact increase: p = %v, want 0", p)
	}
	if p := WelchGreater([]float64{5, 5}, []float64{5, 5}); p != 1 {
		t.Errorf("no change: p = %v, want 1", p)
	}
}

func TestTestChoice(t *testing.T) {
	// Ten runs per side take the same test as three: a rank test's
	// smallest p-value could not pass the correction.
	pr := &Prior{d0: 10, c: 0, logVStar: 30}
	for _, k := range []int{3, 8, 10, 30} {
		x, y := make([]int64, k), make([]int64, k)
		for i := range x {
			x[i], y[i] = int64(100+i), int64(200+i)
		}
		if got := test(x, y, pr); got.Method != Moderated {
			t.Errorf("%d runs per side: test %q, want moderated-t", k, got.Method)
		}
	}
	if got := test([]int64{1, 2, 3}, []int64{4, 5, 6}, nil); got.Method != Welch {
		t.Errorf("3 runs per side without prior: test %q, want welch", got.Method)
	}
	if got := test([]int64{1}, []int64{40}, nil); got.Method != Untested || got.P != 1 {
		t.Errorf("one run per side without prior: %+v, want untested with p = 1", got)
	}
	if got := test([]int64{1}, []int64{40}, pr); got.Method != Moderated || !(got.P < 0.5) {
		t.Errorf("one run per side with a prior: %+v, want a moderated t-test", got)
	}
}

func TestVarianceFloor(t *testing.T) {
	// A node whose own runs vary by ±10% where the prior says ±1%: its
	// variance must not be shrunk far below its own (otherwise a garbage
	// collector was reported at adjusted p = 0.005).
	x := []float64{3.2e9, 2.9e9, 3.5e9}
	y := []float64{3.5e9, 3.2e9, 3.9e9}
	pr := &Prior{d0: 50}
	pr.logVStar = -30          // a pure jitter trend: log s0² ≈ c + 2·log v + 30
	pr.c = math.Log(1e-4) - 30 // s0² ≈ 1e-4·v²: sd 1% of the value
	_, se, df := pr.Moderated(x, y)
	_, own := PooledStats(x, y)
	floor := own * 4 / distuv.ChiSquared{K: 4}.Quantile(0.95)
	if want := math.Sqrt(floor * (1.0/3 + 1.0/3)); !approx(se, want, 1e-9*want) || df != 4 {
		t.Errorf("se = %g, df = %g; want the floor's %g with the node's own 4 df", se, df, want)
	}
	// A node as noisy as the trend keeps the moderated variance.
	x2 := []float64{3.20e9, 3.17e9, 3.23e9}
	y2 := []float64{3.21e9, 3.18e9, 3.24e9}
	if _, _, df := pr.Moderated(x2, y2); df != 54 {
		t.Errorf("a node as noisy as the trend: df = %g, want d0 + 4 = 54", df)
	}
}

// The floor phases the prior out: no jump in the standard error or the
// degrees of freedom as a node's own spread crosses the trend's bound (a
// jump of 50 df at once cost 10 + 10 runs a change 3 + 3 had found), and
// the node's own df once the floor wins twice over. Checked on runs scaled
// step by step around a mean, so that only their spread changes.
func TestVarianceFloorIsContinuous(t *testing.T) {
	pr := &Prior{d0: 50, logVStar: -30, c: math.Log(1e-4) - 30} // sd 1% of the value
	x0 := []float64{-1, 0.2, 0.8, -0.5, 0.5, 1.2, -1.1, 0.1, -0.3, 0.1}
	y0 := []float64{0.4, -0.9, 1.3, -0.2, 0.6, -1.4, 0.2, 0.3, -0.6, 0.3}
	const mean = 1e9
	at := func(sd float64) (se, df, ratio float64) {
		x, y := make([]float64, len(x0)), make([]float64, len(y0))
		for i := range x0 {
			x[i], y[i] = mean+sd*x0[i], mean+sd*y0[i]
		}
		_, se, df = pr.Moderated(x, y)
		_, own := PooledStats(x, y)
		dd := float64(len(x) + len(y) - 2)
		st2 := (pr.d0*pr.S0(mean) + dd*own) / (pr.d0 + dd)
		return se, df, own * varianceFloor(dd) / st2
	}
	var lastSE, lastDF float64
	sawBlend, sawOwn, sawPrior := false, false, false
	for sd := 0.5e7; sd < 6e7; sd *= 1.001 {
		se, df, ratio := at(sd)
		switch {
		case ratio <= 1:
			sawPrior = true
			if df != 68 {
				t.Fatalf("sd %g: ratio %.3f, df %g; want d0 + dd = 68", sd, ratio, df)
			}
		case ratio >= 2:
			sawOwn = true
			if df != 18 {
				t.Fatalf("sd %g: ratio %.3f, df %g; want the node's own 18", sd, ratio, df)
			}
		default:
			sawBlend = true
			if !(df > 18 && df < 68) {
				t.Fatalf("sd %g: ratio %.3f, df %g; want between 18 and 68", sd, ratio, df)
			}
		}
		if lastSE > 0 && (math.Abs(se/lastSE-1) > 0.01 || math.Abs(df-lastDF) > 0.5) {
			t.Fatalf("sd %g: se %g → %g, df %g → %g: a jump", sd, lastSE, se, lastDF, df)
		}
		lastSE, lastDF = se, df
	}
	if !sawPrior || !sawBlend || !sawOwn {
		t.Errorf("the sweep missed a regime: prior %v, blend %v, own %v", sawPrior, sawBlend, sawOwn)
	}
}

func TestHolm(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if !approx(got[i], want[i], 1e-12) {
			t.Fatalf("holm = %v, want %v", got, want)
		}
	}
}

func TestTreeHolm(t *testing.T) {
	for _, tt := range []struct {
		name   string
		p      []float64
		parent []int32
		size   []float64
		want   []float64
	}{
		{
			// No tree: every rejected weight goes to the pool, which is
			// Holm's procedure (TestHolm's values).
			"flat is Holm", []float64{0.01, 0.04, 0.03, 0.005}, []int32{-1, -1, -1, -1}, []float64{1, 1, 1, 1},
			[]float64{0.03, 0.06, 0.06, 0.02},
		},
		{
			// The caller's 1/4 goes to its one callee: 0.02 / (1/4 + 1/4).
			// Holm asks 0.02 × 3 = 0.06 of it.
			"a rejected caller's weight goes to its callee", []float64{1e-10, 0.02, 0.5, 0.5}, []int32{-1, 0, -1, -1}, []float64{2, 1, 1, 1},
			[]float64{4e-10, 0.04, 1, 1},
		},
		{
			// The caller's 1/3 is split 3:1 by size: 7/12 and 5/12; the
			// small callee goes first (0.02 / (5/12) = 0.048) and, a leaf,
			// leaves its weight to the pool: the last has weight 1.
			"split by size", []float64{1e-9, 0.03, 0.02}, []int32{-1, 0, 0}, []float64{4, 3, 1},
			[]float64{3e-9, 0.048, 0.048},
		},
		{
			// A callee rejected before its caller passes on what the caller
			// gives it later: 1 goes first and gives 2 its 1/3, then 0
			// gives 1 its 1/3, which goes on to 2: 0.04 / 1.
			"weight passes through rejected nodes", []float64{1e-6, 1e-9, 0.04}, []int32{-1, 0, 1}, []float64{1, 1, 1},
			[]float64{3e-6, 3e-9, 0.04},
		},
		{"empty", nil, nil, nil, []float64{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := TreeHolm(tt.p, tt.parent, tt.size)
			if len(got) != len(tt.want) {
				t.Fatalf("treeHolm = %v, want %v", got, tt.want)
			}
			for i := range tt.want {
				if !approx(got[i], tt.want[i], 1e-12) {
					t.Fatalf("treeHolm = %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// treeHolm keeps the family-wise error at α: on random forests whose
// first quarter of hypotheses are false (p = 0, rejected first, so their
// weight is passed on) and the rest true (uniform p), the share of
// families with a true hypothesis at adjusted p ≤ 0.05 stays at or below
// 0.05. Weight made rather than moved (a callee given its caller's whole
// weight by every caller) would exceed it.
func TestTreeHolmErrorRate(t *testing.T) {
	rng := rand.New(rand.NewPCG(20, 1))
	const families, m, falses = 4000, 40, 10
	errs := 0
	p, parent, size := make([]float64, m), make([]int32, m), make([]float64, m)
	for range families {
		for i := range m {
			p[i] = 0
			if i >= falses {
				p[i] = rng.Float64()
			}
			parent[i] = -1
			if i > 0 && rng.IntN(4) > 0 {
				parent[i] = int32(rng.IntN(i))
			}
			size[i] = 1 + rng.Float64()
		}
		if slices.ContainsFunc(TreeHolm(p, parent, size)[falses:], func(q float64) bool { return q <= 0.05 }) {
			errs++
		}
	}
	// Binomial(4000, 0.05): sd 0.0034; allow 4 sd.
	if rate := float64(errs) / families; rate > 0.05+4*math.Sqrt(0.05*0.95/families) {
		t.Fatalf("family-wise error %.4f > 0.05", rate)
	}
}

func TestTrigamma(t *testing.T) {
	if got := trigamma(1); !approx(got, math.Pi*math.Pi/6, 1e-9) {
		t.Errorf("trigamma(1) = %v, want π²/6", got)
	}
	if got := trigamma(0.5); !approx(got, math.Pi*math.Pi/2, 1e-9) {
		t.Errorf("trigamma(0.5) = %v, want π²/2", got)
	}
	for _, y := range []float64{0.1, 1, 3.7, 40} {
		if got := trigammaInverse(trigamma(y)); !approx(got, y, 1e-6*y) {
			t.Errorf("trigammaInverse(trigamma(%v)) = %v", y, got)
		}
	}
}

// The prior recovers the variance trend — sampling noise of a 1 ms period
// plus 10% jitter — and the prior degrees of freedom of variances drawn as
// scaled χ² around it.
func TestFitPrior(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const d = 4.0
	var means, vars []float64
	for range 2000 {
		mean := math.Exp(rng.Float64()*8 + 10)
		sigma2 := 1e6*mean + 0.01*mean*mean
		chi := 0.0
		for range int(d) {
			z := rng.NormFloat64()
			chi += z * z
		}
		means = append(means, mean)
		vars = append(vars, sigma2*chi/d)
	}
	pr := FitPrior(means, vars, d)
	if pr == nil {
		t.Fatal("no prior")
	}
	// Every node has the same σ² trend and no extra spread: d0 is large.
	if pr.d0 < 20 {
		t.Errorf("d0 = %.1f, want ≥ 20 for variances without extra spread", pr.d0)
	}
	for _, mean := range []float64{1e5, 1e6, 1e7, 1e8, 1e9} {
		if got, want := pr.S0(mean), 1e6*mean+0.01*mean*mean; got < want*0.8 || got > want*1.25 {
			t.Errorf("s0(%g) = %.3g, want ≈ %.3g", mean, got, want)
		}
	}
	if FitPrior(means[:minPriorNodes-1], vars[:minPriorNodes-1], d) != nil {
		t.Error("a prior was fitted on too few nodes")
	}
}

// lazyTest leaves a p-value at the bound only where the exact one is at
// least that, and is testFloats everywhere else.
func TestLazyTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	pr := SamplingPrior(1e7, 0.10)
	b := Bound{c: 0.01, df: math.NaN()}
	lazy, exact := 0, 0
	for range 2000 {
		x, y := make([]float64, 3), make([]float64, 3)
		shift := rng.Float64() * 3e8
		for i := range x {
			x[i] = 1e9 + 5e7*rng.NormFloat64()
			y[i] = 1e9 + shift + 5e7*rng.NormFloat64()
		}
		got, _, _, isExact := b.lazyTest(x, y, pr)
		want := Greater(x, y, pr)
		switch {
		case isExact && got != want:
			t.Fatalf("lazyTest = %+v, want %+v", got, want)
		case !isExact && (got.P != b.c || want.P < b.c || got.Method != want.Method):
			t.Fatalf("lazyTest = %+v (bounded), exact %+v, bound %v", got, want, b.c)
		case isExact:
			exact++
		default:
			lazy++
		}
	}
	if lazy == 0 || exact == 0 {
		t.Fatalf("%d bounded and %d exact p-values: want both", lazy, exact)
	}
}

// treeHolmBounded with p-values ≥ c left at c gives treeHolm's adjusted
// p-values when none of those is adjusted below 1, and says which to
// finish when one is.
func TestTreeHolmBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	const m = 500
	// Below the least weight (1/m), so some bounded ones are finished.
	c := 0.5 / m
	p, pb, parent, size := make([]float64, m), make([]float64, m), make([]int32, m), make([]float64, m)
	exact := make([]bool, m)
	finished := 0
	for round := range 200 {
		for i := range m {
			p[i] = rng.Float64()
			if i%10 == 0 {
				p[i] *= 1e-4
			}
			parent[i] = -1
			if i > 0 && rng.IntN(5) > 0 {
				parent[i] = int32(rng.IntN(i))
			}
			size[i] = 1 + rng.Float64()
			pb[i], exact[i] = p[i], p[i] < c
			if !exact[i] {
				pb[i] = c
			}
		}
		want := TreeHolm(p, parent, size)
		for {
			got := TreeHolmBounded(pb, exact, parent, size)
			again := false
			for i, q := range got {
				if q < 1 && !exact[i] {
					pb[i], exact[i], again = p[i], true, true
					finished++
				}
			}
			if !again {
				if !slices.Equal(got, want) {
					t.Fatalf("round %d: bounded %v, want %v", round, got, want)
				}
				break
			}
		}
	}
	if finished == 0 {
		t.Fatalf("no bounded p-value was finished: the test does not reach the second pass")
	}
}

// treeHolm's early-stopping scan (heirs ordered by p, a bound on their
// weights) picks the same hypothesis at every step as scanning every heir,
// which is what treeHolmScanAll does: equal adjusted p-values to the bit,
// on random forests with ties, zeros and bounded p-values.
func TestTreeHolmScanMatchesScanAll(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 400 {
		m := 1 + rng.IntN(300)
		p, parent, size := make([]float64, m), make([]int32, m), make([]float64, m)
		var exact []bool
		if trial%3 == 0 {
			exact = make([]bool, m)
		}
		for i := range m {
			switch rng.IntN(4) {
			case 0:
				p[i] = 0
			case 1:
				p[i] = float64(rng.IntN(5)) * 1e-4 // ties
			default:
				p[i] = math.Pow(rng.Float64(), 4)
			}
			if exact != nil {
				exact[i] = rng.IntN(4) > 0
				if !exact[i] {
					p[i] = 0.2
				}
			}
			parent[i] = -1
			if i > 0 && rng.IntN(5) > 0 {
				parent[i] = int32(rng.IntN(i))
			}
			size[i] = float64(rng.IntN(3)) + rng.Float64()
		}
		got, want := TreeHolmBounded(p, exact, parent, size), treeHolmScanAll(p, exact, parent, size)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d (m=%d): early-stopping scan\n%v\nscan of all heirs\n%v", trial, m, got, want)
		}
	}
}

// treeHolmScanAll is treeHolmBounded as first written: every heir scanned
// at every rejection (quadratic in the heirs).
func treeHolmScanAll(p []float64, exact []bool, parent []int32, size []float64) []float64 {
	m := len(p)
	q := make([]float64, m)
	if m == 0 {
		return q
	}
	for i := range q {
		q[i] = 1
	}
	kids := make([][]int32, m)
	for i, pa := range parent {
		if pa >= 0 {
			kids[pa] = append(kids[pa], int32(i))
		}
	}
	own := 1 / float64(m)
	w := make([]float64, m)
	for i := range w {
		w[i] = own
	}
	rejected, heir := make([]bool, m), make([]bool, m)
	var raised []int32
	pool, left := 0.0, m
	order := ascendingExact(p, exact)
	next, qmax := 0, 0.0
	for left > 0 {
		share := pool / float64(left)
		best, bestR := int32(-1), math.Inf(1)
		for next < m && (rejected[order[next]] || heir[order[next]]) {
			next++
		}
		if next < m {
			best = int32(order[next])
			bestR = p[best] / (own + share)
		}
		for _, j := range raised {
			if r := p[j] / (w[j] + share); !rejected[j] && (r < bestR || r == bestR && j < best) {
				best, bestR = j, r
			}
		}
		qmax = math.Max(qmax, math.Min(1, bestR))
		if qmax >= 1 {
			break
		}
		q[best], rejected[best] = qmax, true
		left--
		stack, pass := []int32{best}, []float64{w[best]}
		for len(stack) > 0 {
			h, mass := stack[len(stack)-1], pass[len(pass)-1]
			stack, pass = stack[:len(stack)-1], pass[:len(pass)-1]
			if len(kids[h]) == 0 {
				pool += mass
				continue
			}
			total := 0.0
			for _, c := range kids[h] {
				total += size[c]
			}
			for _, c := range kids[h] {
				part := mass / float64(len(kids[h]))
				if total > 0 {
					part = mass * size[c] / total
				}
				if rejected[c] {
					stack, pass = append(stack, c), append(pass, part)
					continue
				}
				w[c] += part
				if !heir[c] {
					heir[c] = true
					raised = append(raised, c)
				}
			}
		}
	}
	return q
}

// lazyTest leaves a node that did not grow at the bound before computing
// any variance, where its p-value (≥ ½) is surely above a bound of ¼ or
// less, and only there.
func TestLazyTestNoGrowth(t *testing.T) {
	pr := SamplingPrior(1e7, 0.10)
	for _, tc := range []struct {
		name      string
		x, y      []float64
		c         float64
		wantExact bool
	}{
		{"one a side, shrank", []float64{2e9}, []float64{1e9}, 0.01, false},
		{"one a side, equal", []float64{1e9}, []float64{1e9}, 0.01, false},
		{"one a side, zero", []float64{0}, []float64{0}, 0.01, false},
		{"three a side, shrank", []float64{2e9, 2.1e9, 1.9e9}, []float64{1e9, 1.1e9, 0.9e9}, 0.01, false},
		// Without error p = 1, exact, when the bound is above a quarter.
		{"bound above a quarter", []float64{0}, []float64{0}, 0.3, true},
		{"grew", []float64{1e9}, []float64{3e9}, 0.01, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Bound{c: tc.c, df: math.NaN()}
			got, _, _, isExact := b.lazyTest(tc.x, tc.y, pr)
			want := Greater(tc.x, tc.y, pr)
			switch {
			case isExact != tc.wantExact:
				t.Fatalf("exact %v, want %v (p %v)", isExact, tc.wantExact, want.P)
			case isExact && got != want:
				t.Fatalf("lazyTest = %+v, want %+v", got, want)
			case !isExact && (got.P != tc.c || want.P < tc.c || got.Method != want.Method):
				t.Fatalf("lazyTest = %+v (bounded), exact %+v", got, want)
			}
		})
	}
}

// ascendingExact is ascending where (the reference for treeHolmBounded's
// ascendingCursor) the p[i] with exact[i] false all hold
// one value: only the others are sorted, and those merged in index order.
func ascendingExact(p []float64, exact []bool) []int {
	if exact == nil {
		return ascending(p)
	}
	var xs []float64
	var at []int
	c := math.NaN()
	var lazy []int
	for i, v := range p {
		if exact[i] {
			xs, at = append(xs, v), append(at, i)
		} else {
			c = v
			lazy = append(lazy, i)
		}
	}
	sorted := ascending(xs)
	order := make([]int, 0, len(p))
	k := 0
	for _, r := range sorted {
		i := at[r]
		for k < len(lazy) && (c < p[i] || c == p[i] && lazy[k] < i) {
			order = append(order, lazy[k])
			k++
		}
		order = append(order, i)
	}
	return append(order, lazy[k:]...)
}

// The cursor reads ascendingExact's order: exact p-values sorted, the
// bounded ones (all at c) merged in index order, ties with c included.
func TestAscendingCursor(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const c = 0.25
	for _, tc := range []struct {
		name  string
		n     int
		lazy  float64 // share of bounded p-values
		noExa bool    // exact nil
	}{
		{"empty", 0, 0, false},
		{"all exact", 500, 0, false},
		{"nil exact", 500, 0, true},
		{"all bounded", 500, 1, false},
		{"mixed", 5000, 0.9, false},
		{"few bounded", 5000, 0.1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := make([]float64, tc.n)
			var exact []bool
			if !tc.noExa {
				exact = make([]bool, tc.n)
			}
			for i := range p {
				// Values from a few, so that ties (with c too) are common.
				p[i] = float64(rng.IntN(8)) / 16
				if exact != nil {
					if exact[i] = rng.Float64() >= tc.lazy; !exact[i] {
						p[i] = c
					}
				}
			}
			want := ascendingExact(p, exact)
			var got []int
			cur := newAscendingCursor(p, exact)
			for i := cur.peek(); i >= 0; i = cur.peek() {
				got = append(got, i)
				cur.advance()
			}
			if !slices.Equal(got, want) {
				t.Fatalf("cursor order differs from ascendingExact's:\n got %v\nwant %v", got[:min(20, len(got))], want[:min(20, len(want))])
			}
		})
	}
}
