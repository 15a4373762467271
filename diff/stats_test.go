package diff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/long"
	"github.com/ctdiff/ctdiff/tools/synth"
	"gonum.org/v1/gonum/stat/distuv"
)

func approx(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestWelch(t *testing.T) {
	// t = 2 / √(5/6) = 2.191 with 6 degrees of freedom (equal variances,
	// so Welch's df is exactly 6): one-sided p = 0.0355 (tables).
	x, y := []float64{1, 2, 3, 4}, []float64{3, 4, 5, 6}
	if p := welchGreater(x, y); !approx(p, 0.0355, 2e-4) {
		t.Errorf("welchGreater = %.5f, want 0.0355", p)
	}
	if p := welchGreater(y, x); !approx(p, 1-0.0355, 2e-4) {
		t.Errorf("welchGreater reversed = %.5f, want 0.9645", p)
	}
	// 95% interval: 2 ± t(0.975, 6) × 0.9129 = 2 ± 2.4469 × 0.9129.
	lo, hi := welchInterval(x, y, 0.95)
	if !approx(lo, 2-2.2337, 1e-3) || !approx(hi, 2+2.2337, 1e-3) {
		t.Errorf("interval [%.4f, %.4f], want [-0.2337, 4.2337]", lo, hi)
	}
	// Without variance the difference is exact.
	if p := welchGreater([]float64{5, 5}, []float64{7, 7}); p != 0 {
		t.Errorf("exact increase: p = %v, want 0", p)
	}
	if p := welchGreater([]float64{5, 5}, []float64{5, 5}); p != 1 {
		t.Errorf("no change: p = %v, want 1", p)
	}
}

func TestTestChoice(t *testing.T) {
	// Ten runs per side take the same test as three: a rank test's
	// smallest p-value could not pass the correction (issue 20).
	pr := &prior{d0: 10, c: 0, logVStar: 30}
	for _, k := range []int{3, 8, 10, 30} {
		x, y := make([]int64, k), make([]int64, k)
		for i := range x {
			x[i], y[i] = int64(100+i), int64(200+i)
		}
		if got := test(x, y, pr); got.Name != "moderated-t" {
			t.Errorf("%d runs per side: test %q, want moderated-t", k, got.Name)
		}
	}
	if got := test([]int64{1, 2, 3}, []int64{4, 5, 6}, nil); got.Name != "welch" {
		t.Errorf("3 runs per side without prior: test %q, want welch", got.Name)
	}
	if got := test([]int64{1}, []int64{40}, nil); got.Name != untested || got.P != 1 {
		t.Errorf("one run per side without prior: %+v, want untested with p = 1", got)
	}
	if got := test([]int64{1}, []int64{40}, pr); got.Name != "moderated-t" || !(got.P < 0.5) {
		t.Errorf("one run per side with a prior: %+v, want a moderated t-test", got)
	}
}

func TestVarianceFloor(t *testing.T) {
	// A node whose own runs vary by ±10% where the prior says ±1%: its
	// variance must not be shrunk far below its own (issue 17, a garbage
	// collector reported at adjusted p = 0.005).
	x := []float64{3.2e9, 2.9e9, 3.5e9}
	y := []float64{3.5e9, 3.2e9, 3.9e9}
	pr := &prior{d0: 50}
	pr.logVStar = -30          // a pure jitter trend: log s0² ≈ c + 2·log v + 30
	pr.c = math.Log(1e-4) - 30 // s0² ≈ 1e-4·v²: sd 1% of the value
	_, se, df := pr.moderated(x, y)
	_, own := pooledStatsFloats(x, y)
	floor := own * 4 / distuv.ChiSquared{K: 4}.Quantile(0.95)
	if want := math.Sqrt(floor * (1.0/3 + 1.0/3)); !approx(se, want, 1e-9*want) || df != 4 {
		t.Errorf("se = %g, df = %g; want the floor's %g with the node's own 4 df", se, df, want)
	}
	// A node as noisy as the trend keeps the moderated variance.
	x2 := []float64{3.20e9, 3.17e9, 3.23e9}
	y2 := []float64{3.21e9, 3.18e9, 3.24e9}
	if _, _, df := pr.moderated(x2, y2); df != 54 {
		t.Errorf("a node as noisy as the trend: df = %g, want d0 + 4 = 54", df)
	}
}

// The floor phases the prior out: no jump in the standard error or the
// degrees of freedom as a node's own spread crosses the trend's bound (a
// jump of 50 df at once cost 10 + 10 runs a change 3 + 3 had found), and
// the node's own df once the floor wins twice over. Checked on runs scaled
// step by step around a mean, so that only their spread changes.
func TestVarianceFloorIsContinuous(t *testing.T) {
	pr := &prior{d0: 50, logVStar: -30, c: math.Log(1e-4) - 30} // sd 1% of the value
	x0 := []float64{-1, 0.2, 0.8, -0.5, 0.5, 1.2, -1.1, 0.1, -0.3, 0.1}
	y0 := []float64{0.4, -0.9, 1.3, -0.2, 0.6, -1.4, 0.2, 0.3, -0.6, 0.3}
	const mean = 1e9
	at := func(sd float64) (se, df, ratio float64) {
		x, y := make([]float64, len(x0)), make([]float64, len(y0))
		for i := range x0 {
			x[i], y[i] = mean+sd*x0[i], mean+sd*y0[i]
		}
		_, se, df = pr.moderated(x, y)
		_, own := pooledStatsFloats(x, y)
		dd := float64(len(x) + len(y) - 2)
		st2 := (pr.d0*pr.s0(mean) + dd*own) / (pr.d0 + dd)
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
	got := holm([]float64{0.01, 0.04, 0.03, 0.005})
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
			got := treeHolm(tt.p, tt.parent, tt.size)
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
		if slices.ContainsFunc(treeHolm(p, parent, size)[falses:], func(q float64) bool { return q <= 0.05 }) {
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
	pr := fitPrior(means, vars, d)
	if pr == nil {
		t.Fatal("no prior")
	}
	// Every node has the same σ² trend and no extra spread: d0 is large.
	if pr.d0 < 20 {
		t.Errorf("d0 = %.1f, want ≥ 20 for variances without extra spread", pr.d0)
	}
	for _, mean := range []float64{1e5, 1e6, 1e7, 1e8, 1e9} {
		if got, want := pr.s0(mean), 1e6*mean+0.01*mean*mean; got < want*0.8 || got > want*1.25 {
			t.Errorf("s0(%g) = %.3g, want ≈ %.3g", mean, got, want)
		}
	}
	if fitPrior(means[:minPriorNodes-1], vars[:minPriorNodes-1], d) != nil {
		t.Error("a prior was fitted on too few nodes")
	}
}

// An erratic node — present in two of three new runs — is not significant,
// while a consistent regression of a similar mean is.
func TestStatsIntermittentHandler(t *testing.T) {
	base := trees(t,
		"main;work 1000\nmain;io 300",
		"main;work 1010\nmain;io 310",
		"main;work 990\nmain;io 290",
	)
	nw := trees(t,
		"main;work 1000\nmain;io 300\nhandler 120",
		"main;work 1005\nmain;io 305\nhandler 110",
		"main;work 995\nmain;io 302",
	)
	res := compare(t, base, nw, Options{})
	if got := causeLines(res); len(got) != 0 {
		t.Errorf("causes %q, want none: the handler ran in two runs of three", got)
	}
	nw = trees(t,
		"main;work 1000\nmain;io 380",
		"main;work 1005\nmain;io 375",
		"main;work 995\nmain;io 384",
	)
	res = compare(t, base, nw, Options{})
	if got := causeLines(res); !slices.Equal(got, []string{"regressed 79.666667 main;io"}) {
		t.Errorf("causes %q, want io +79.67 ms", got)
	}
	c := res.Causes[0]
	if c.Stats == nil || c.Stats.Q > 0.05 || c.Stats.Low > c.Delta || c.Stats.High < c.Delta {
		t.Errorf("cause stats %+v: want significant, with the delta inside its interval", c.Stats)
	}
}

func TestStatsFewRunsWarnings(t *testing.T) {
	one := trees(t, "main;a 100")
	two := trees(t, "main;a 100", "main;a 101")
	for _, tt := range []struct {
		name      string
		base, new []*cct.Tree
		want      string
	}{
		{"one new run", two, one, "the tests assume sampling noise (a node of N samples varies by √N) and up to 10% run-to-run jitter"},
		{"two runs per side", two, two, "2 runs per side give the significance test little power"},
	} {
		res := compare(t, tt.base, tt.new, Options{})
		if got := strings.Join(res.Warnings, "\n"); !strings.Contains(got, tt.want) {
			t.Errorf("%s: warnings %q, want %q", tt.name, got, tt.want)
		}
	}
}

// Options.stats reaches the tests: a correction that adjusts every
// p-value to 1 keeps no cause where Holm keeps the regression, and
// Welch's t (no prior) names its test.
func TestStatsChoices(t *testing.T) {
	t.Parallel()
	// 200 calling contexts with a little noise, enough to fit the prior,
	// and one that grows by 300 ms.
	rng := rand.New(rand.NewPCG(4, 2))
	side := func(grow float64) []*cct.Tree {
		var out []*cct.Tree
		for range 3 {
			lines := []string{fmt.Sprintf("main;a %.1f", 100+grow+4*rng.Float64())}
			for i := range 200 {
				lines = append(lines, fmt.Sprintf("main;f%d %.1f", i, float64(10+i)*(1+0.05*rng.Float64())))
			}
			out = append(out, tree(t, lines...))
		}
		return out
	}
	base, nw := side(0), side(300)
	none := func(p []float64) []float64 {
		q := make([]float64, len(p))
		for i := range q {
			q[i] = 1
		}
		return q
	}
	for _, tt := range []struct {
		name   string
		stats  statsChoices
		causes int
		test   string
	}{
		{"design", statsChoices{}, 1, "moderated-t"},
		{"no correction passes", statsChoices{correct: none}, 0, "moderated-t"},
		{"welch", statsChoices{welch: true}, 1, "welch"},
	} {
		o := DefaultOptions()
		o.stats = tt.stats
		res := compare(t, base, nw, o)
		if len(res.Causes) != tt.causes {
			t.Errorf("%s: %d causes, want %d", tt.name, len(res.Causes), tt.causes)
		}
		tested := 0
		for i, n := range res.Graph {
			if n.Stats == nil {
				continue
			}
			tested++
			if n.Stats.Name != tt.test {
				t.Errorf("%s: graph node %d tested with %s, want %s", tt.name, i, n.Stats.Name, tt.test)
			}
		}
		if tested == 0 && tt.causes > 0 {
			t.Errorf("%s: no graph node carries its test", tt.name)
		}
	}
}

// More runs find at least what 3 runs find (issue 20), on the synthetic
// pair's injected change (every stack through one function 40% heavier):
// 30 runs a side find again every cause 3 runs find (the same path, one
// extending it or extended by it, or a node kept in the graph), and each
// run count finds every cause Holm's procedure finds, and more (treeHolm).
//
// Not asserted: 10 runs a side miss 2 of the 113 causes 3 runs find
// here. Both are winner's curse, not the correction: their 3-run deltas
// (336 and 263 ms) overstate what 10 and 30 runs measure (234 and 149 ms),
// and their 10-run p-values (6e-6 and 9e-5) are larger than their 3-run
// ones, in a family of the same size (BENCHMARKS.md, "Issue 20: more runs
// and the correction").
func TestMoreRunsFindAtLeastAsMuch(t *testing.T) {
	long.Skip(t, "30 + 30 runs of a 5,000-stack pair")
	pair := synth.Generate(synth.Config{Seed: 1, Stacks: 5000, Functions: 1250, Runs: 30})
	var base, nw []*cct.Tree
	for i := range pair.BaseRuns {
		b, err := cct.FromProfile(pair.BaseRuns[i], cct.Options{})
		if err != nil {
			t.Fatal(err)
		}
		n, err := cct.FromProfile(pair.NewRuns[i], cct.Options{})
		if err != nil {
			t.Fatal(err)
		}
		base, nw = append(base, b), append(nw, n)
	}
	holmOpts := Options{}
	holmOpts.stats.correct = holm
	res := map[int]*Result{}
	for _, k := range []int{3, 10, 30} {
		res[k] = compare(t, base[:k], nw[:k], Options{})
		h := compare(t, base[:k], nw[:k], holmOpts)
		if missed := missedCauses(h, res[k]); len(missed) > 0 || len(res[k].Causes) <= len(h.Causes) {
			t.Errorf("%d runs: %d causes, Holm %d; Holm's not found: %q", k, len(res[k].Causes), len(h.Causes), missed)
		}
	}
	if missed := missedCauses(res[3], res[30]); len(missed) > 0 {
		t.Errorf("30 runs a side miss %d of the %d causes 3 runs find: %q", len(missed), len(res[3].Causes), missed)
	}
	// 10 runs may miss what 3 found by luck (a 3-run delta far above the
	// true one), never a change they measure well: the true effect of a
	// miss, against the sampling noise of 10 runs a side (synth's noise),
	// is under 6 standard errors, where a test over thousands of nodes
	// still fails one time in several.
	truth := map[string]synth.Context{}
	for _, c := range synth.Expected(synth.Config{Seed: 1, Stacks: 5000, Functions: 1250}) {
		truth[strings.Join(c.Path, ";")] = c
	}
	const period = 10e6 // synth's
	for _, p := range missedCauses(res[3], res[10]) {
		c, ok := truth[p]
		if !ok {
			t.Errorf("a cause at 3 runs, %q, is no context of the pair", p)
			continue
		}
		if z := (c.New - c.Base) / math.Sqrt(period*(c.Base+c.New)/10); z >= 6 {
			t.Errorf("10 runs a side miss %q, whose true change (%.0f ms) is %.1f standard errors of 10 runs wide", p, (c.New-c.Base)/1e6, z)
		}
	}
	// And more power is no licence for false alarms: every cause, at every
	// run count, is on a context whose true time grew (for a spread
	// cause, one of its contexts).
	grew := func(path []Frame) bool {
		c, ok := truth[pathString(path)]
		return !ok || c.New > c.Base // a path no context of the pair is failed above
	}
	for _, k := range []int{3, 10, 30} {
		for _, c := range res[k].Causes {
			if grew(c.Path) || c.Spread != nil && slices.ContainsFunc(c.Spread.Contexts, func(x SpreadContext) bool { return grew(x.Path) }) {
				continue
			}
			t.Errorf("%d runs: a cause (%+.0f ms) where the true time did not grow: %q", k, float64(c.Delta)/1e6, pathString(c.Path))
		}
	}
	// A spread cause's interval is its function's: the delta of the
	// contexts' sums lies in it (it was one context's interval wherever a
	// function tested before it had failed).
	for _, k := range []int{3, 10, 30} {
		for _, c := range res[k].Causes {
			if st := c.Stats; c.Spread != nil && st != nil && st.Of == OfFunction && !(st.Low <= c.Delta && c.Delta <= st.High) {
				t.Errorf("%d runs: spread cause of %s, delta %d outside its interval %d..%d", k, c.Spread.Function.Function, c.Delta, st.Low, st.High)
			}
		}
	}
	if len(res[10].Causes) < 2*len(res[3].Causes) || len(res[30].Causes) < 2*len(res[10].Causes) {
		t.Errorf("causes at 3, 10, 30 runs: %d, %d, %d; want each at least twice the last", len(res[3].Causes), len(res[10].Causes), len(res[30].Causes))
	}
}

// missedCauses lists the causes of a that b does not find again: b has no
// cause on the same path, extending it or extended by it, and does not
// keep the node (a kept node can be part of a spread cause).
func missedCauses(a, b *Result) []string {
	key := func(g []GraphNode, i int) string {
		var names []string
		for ; i >= 0 && !g[i].IsThread; i = g[i].Parent {
			names = append(names, g[i].Frame.Function)
		}
		slices.Reverse(names)
		return g[max(i, 0)].Thread + ";" + strings.Join(names, ";")
	}
	kept := map[string]bool{}
	for i, n := range b.Graph {
		if !n.Context {
			kept[key(b.Graph, i)] = true
		}
	}
	var missed []string
	for _, c := range a.Causes {
		p := c.Thread + ";" + pathString(c.Path)
		found := kept[p]
		for _, d := range b.Causes {
			q := d.Thread + ";" + pathString(d.Path)
			found = found || strings.HasPrefix(p, q+";") || strings.HasPrefix(q, p+";") || p == q
		}
		if !found {
			missed = append(missed, pathString(c.Path))
		}
	}
	return missed
}

// lazyTest leaves a p-value at the bound only where the exact one is at
// least that, and is testFloats everywhere else.
func TestLazyTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	pr := samplingPrior(1e7)
	b := bound{c: 0.01, df: math.NaN()}
	lazy, exact := 0, 0
	for range 2000 {
		x, y := make([]float64, 3), make([]float64, 3)
		shift := rng.Float64() * 3e8
		for i := range x {
			x[i] = 1e9 + 5e7*rng.NormFloat64()
			y[i] = 1e9 + shift + 5e7*rng.NormFloat64()
		}
		got, _, _, isExact := b.lazyTest(x, y, pr)
		want := testFloats(x, y, pr)
		switch {
		case isExact && got != want:
			t.Fatalf("lazyTest = %+v, want %+v", got, want)
		case !isExact && (got.P != b.c || want.P < b.c || got.Name != want.Name):
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
		want := treeHolm(p, parent, size)
		for {
			got := treeHolmBounded(pb, exact, parent, size)
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
		got, want := treeHolmBounded(p, exact, parent, size), treeHolmScanAll(p, exact, parent, size)
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

// The prior fitted on sampled profiles reads their noise: synth's runs
// differ by sampling alone (σ² = period·v, no run-to-run jitter), and the
// fit must say so at every size and trust the trend (d0 near its cap).
// Fitted on nodes down to μ/10, the many nodes of a sample or two bent it
// (minFitSamples): jitter from 0.6 s up and d0 ≈ 7 at 10 + 10 runs.
func TestPriorFitReadsSamplingNoise(t *testing.T) {
	const runs = 10
	pair := synth.Generate(synth.Config{Seed: 1, Stacks: 5000, Functions: 1250, Runs: runs})
	var all []*cct.Tree
	for _, p := range append(pair.BaseRuns, pair.NewRuns...) {
		tr, err := cct.FromProfile(p, cct.Options{})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, tr)
	}
	m, err := SampleMetric("", all[0], all[runs])
	if err != nil {
		t.Fatal(err)
	}
	u, rs := zamUnion(all, runs, m)
	u.release()
	u.values(rs[:runs], rs[runs:], true)
	const period = 10e6 // synth's
	pr := fitNodePrior(u, runs, 50e6, period)
	if pr == nil {
		t.Fatal("no prior")
	}
	if pr.d0 < 40 {
		t.Errorf("d0 = %.1f, want ≥ 40: the nodes' variances follow the trend", pr.d0)
	}
	for _, v := range []float64{1e8, 1e9, 1e10, 1e11} {
		if r := pr.s0(v) / (period * v); r < 0.8 || r > 1.25 {
			t.Errorf("prior variance at %.0e ns is %.2f × the sampling variance, want about 1", v, r)
		}
	}
}

// lazyTest leaves a node that did not grow at the bound before computing
// any variance, where its p-value (≥ ½) is surely above a bound of ¼ or
// less, and only there.
func TestLazyTestNoGrowth(t *testing.T) {
	pr := samplingPrior(1e7)
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
			b := bound{c: tc.c, df: math.NaN()}
			got, _, _, isExact := b.lazyTest(tc.x, tc.y, pr)
			want := testFloats(tc.x, tc.y, pr)
			switch {
			case isExact != tc.wantExact:
				t.Fatalf("exact %v, want %v (p %v)", isExact, tc.wantExact, want.P)
			case isExact && got != want:
				t.Fatalf("lazyTest = %+v, want %+v", got, want)
			case !isExact && (got.P != tc.c || want.P < tc.c || got.Name != want.Name):
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

// "(idle)" is no work: however much it grows, Stats mode tests it not,
// with one run a side or several (its caller, whose inclusive value grew
// with it, is tested and kept).
func TestStatsSkipsIdle(t *testing.T) {
	side := func(work, idle int) string {
		var b strings.Builder
		for i := range 40 {
			fmt.Fprintf(&b, "main;f%02d;g %d\n", i, 100+7*i)
		}
		fmt.Fprintf(&b, "main;work %d\nmain;(idle) %d", work, idle)
		return b.String()
	}
	for _, runs := range []int{1, 3} {
		t.Run(fmt.Sprintf("%d a side", runs), func(t *testing.T) {
			var base, nw []string
			for i := range runs {
				base = append(base, side(1000+i, 5000+i))
				nw = append(nw, side(3000+i, 90000+i))
			}
			res := compare(t, trees(t, base...), trees(t, nw...), Options{Aggregate: Stats, MinDelta: Threshold{Value: 500 * ms}})
			tested := false
			for _, n := range res.Graph {
				if n.Frame.Function == "(idle)" && n.Stats != nil {
					t.Errorf("(idle) tested: %+v", n)
				}
				tested = tested || n.Stats != nil
			}
			if !tested {
				t.Errorf("nothing tested: %v", causeLines(res))
			}
		})
	}
}

// TestStatsGraphTests checks the graph's Tests: statsGraph makes only
// those its nodes and spread causes name, each once, numbered from 1 as
// gval.test indexes them, and each carries its name, p and q.
func TestStatsGraphTests(t *testing.T) {
	for _, runs := range []int{1, 3} {
		p := prepare(t, runs)
		g, _, _ := statsGraph(p.u, p.kt, p.nBase, p.mu, DefaultAlpha, 0, statsChoices{})
		named := make([]int, len(g.tests))
		name := func(what string, id int32) {
			if id == 0 {
				return
			}
			if int(id) > len(g.tests) {
				t.Fatalf("%d+%d: %s names test %d of %d", runs, runs, what, id, len(g.tests))
			}
			named[id-1]++
		}
		for i := range g.vals {
			name("a graph node", g.vals[i].test)
		}
		for i := range g.spreads {
			name("a spread cause", g.spreads[i].test)
		}
		if len(g.tests) == 0 {
			t.Fatalf("%d+%d: no tests in the graph", runs, runs)
		}
		for i, tt := range g.tests {
			if named[i] == 0 {
				t.Errorf("%d+%d: test %d is named by no node", runs, runs, i+1)
			}
			if tt.Name == "" || !(tt.P >= 0 && tt.P <= 1) || !(tt.Q >= tt.P && tt.Q <= 1) {
				t.Errorf("%d+%d: test %d is %+v, want a name and 0 ≤ P ≤ Q ≤ 1", runs, runs, i+1, tt)
			}
		}
	}
}

// With one run a side fitNodePrior reads the union's means as arrays
// (rowsAreMeans) and, for a union that keeps rows, copies them into arrays
// first: both must fit what the rows give, value for value, in node order
// (a fit on other values, or on the same in another order, differs in its
// last bits: fitPrior's median and sums are order-dependent).
func TestPairPriorReadsTheRows(t *testing.T) {
	pair := synth.Generate(synth.Config{Seed: 3, Stacks: 5000, Functions: 1250, Runs: 1})
	var all []*cct.Tree
	for _, p := range append(pair.BaseRuns, pair.NewRuns...) {
		tr, err := cct.FromProfile(p, cct.Options{Prune: true})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, tr)
	}
	m, err := SampleMetric("", all...)
	if err != nil {
		t.Fatal(err)
	}
	const mu = 5e6
	for _, kind := range []string{"means", "rows"} {
		t.Run(kind, func(t *testing.T) {
			u, rs := zamUnion(all, 1, m)
			u.release()
			u.values(rs[:1], rs[1:], true)
			if !u.rowsAreMeans {
				t.Fatal("a 1+1 union keeps means: the case tests nothing")
			}
			if kind == "rows" {
				// The same values as rows of two runs.
				n := u.len()
				u.total, u.self = make([]int64, 2*n), make([]int64, 2*n)
				for x := range n {
					u.total[2*x], u.total[2*x+1] = int64(u.meanBase[x]), int64(u.meanNew[x])
					u.self[2*x], u.self[2*x+1] = int64(u.selfBase[x]), int64(u.selfNew[x])
				}
				u.rowsAreMeans = false
			}
			// What the fit reads, row by row (the former fitNodePrior).
			row := make([]float64, 2)
			fit := func(rowOf func(x int32, dst []float64) []float64) *prior {
				var means, vars []float64
				for x := int32(1); int(x) < u.len(); x++ {
					rowOf(x, row)
					if mean := (row[0] + row[1]) / 2; mean >= mu/10 {
						d := row[1] - row[0]
						means, vars = append(means, mean), append(vars, d*d/2)
					}
				}
				pr := fitPrior(means, vars, 1)
				if pr != nil {
					pr.capJitter(maxPairJitter)
				}
				return pr
			}
			want, self := fit(u.totalRow), fit(u.selfRow)
			if want == nil || self == nil {
				t.Fatal("no prior fitted: the case tests nothing")
			}
			want.alt, want.d0 = self, min(want.d0, self.d0)
			if got := fitNodePrior(u, 1, mu, 0); !reflect.DeepEqual(got, want) {
				t.Errorf("prior %+v (alt %+v), want %+v (alt %+v)", *got, *got.alt, *want, *want.alt)
			}
		})
	}
}

// foldedSelf.sum is floatSum of the row, with means kept (one run a side)
// or rows, with artifacts folded into a caller or not.
func TestFoldedSelfSum(t *testing.T) {
	means := &union{runs: 2, rowsAreMeans: true,
		meanBase: []float64{0, 30, 5, 0.25}, meanNew: []float64{0, 40, 7, 0.5},
		selfBase: []float64{0, 10, 5, 0.25}, selfNew: []float64{0, 12, 7, 0.5}}
	rows := &union{runs: 3,
		total: []int64{0, 0, 0, 30, 31, 40, 5, 6, 7, 1, 2, 3},
		self:  []int64{0, 0, 0, 10, 11, 12, 5, 6, 7, 1, 2, 3}}
	for _, tt := range []struct {
		name   string
		u      *union
		folded bool // node 2's inclusive values added to node 1's self
		want   []float64
	}{
		{"means", means, false, []float64{0, 22, 12, 0.75}},
		{"means, folded", means, true, []float64{0, 34, 12, 0.75}},
		{"rows", rows, false, []float64{0, 33, 18, 6}},
		{"rows, folded", rows, true, []float64{0, 51, 18, 6}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fs := foldedSelf{u: tt.u}
			if tt.folded {
				fs.addTotal(1, 2)
			}
			dst := make([]float64, tt.u.runs)
			for x := range int32(len(tt.want)) {
				got, row := fs.sum(x, dst), floatSum(fs.row(x, make([]float64, tt.u.runs)))
				if got != tt.want[x] || got != row {
					t.Errorf("sum(%d) = %v, want %v (floatSum of the row: %v)", x, got, tt.want[x], row)
				}
			}
		})
	}
}

// markUntestedTwoPasses is markUntested as statsGraph had it: artifacts
// folded in a first pass, one-run-only and idle nodes marked in a second.
func markUntestedTwoPasses(u *union, class []uint8, oneSide bool, m float64) ([]bool, []int32, foldedSelf) {
	n := u.len()
	folded, oneRunOnly := make([]bool, n), make([]bool, n)
	self := foldedSelf{u: u}
	var inBase []bool
	var fn [2][]float64
	if oneSide {
		inBase = make([]bool, len(class))
	}
	for x := int32(1); int(x) < n; x++ {
		if folded[u.parent[x]] || class[u.key[x]]&classArtifact != 0 {
			folded[x] = true
			if p := u.parent[x]; !folded[p] {
				self.addTotal(p, x)
			}
		}
		if oneSide && u.inBase[x] > 0 {
			inBase[u.key[x]] = true
		}
	}
	if oneSide {
		fn = candidateTotals(u, inBase, m)
	}
	skip := folded
	var oneRun []int32
	isIdle := func(x int32) bool { return u.depth[x] >= 2 && class[u.key[x]]&classIdle != 0 }
	for x := int32(1); int(x) < n; x++ {
		if oneSide {
			if folded[x] {
				continue
			}
			p := u.parent[x]
			k := u.key[x]
			moved := u.inBase[x] == 0 && inBase[k] && u.depth[x] >= 2 && (u.meanNew[x] < m || !newCall(fn, k, u.meanNew[x], m))
			if moved || u.depth[x] == 2 && (u.inBase[x] == 0 || u.inNew[x] == 0) || class[k]&classCollector != 0 || p > 0 && oneRunOnly[p] {
				if !oneRunOnly[p] {
					oneRun = append(oneRun, x)
				}
				oneRunOnly[x], folded[x] = true, true
				continue
			}
		}
		if isIdle(x) {
			skip[x] = true
		}
	}
	return skip, oneRun, self
}

// markUntested's one pass marks what the two passes did, on random trees
// with artifacts (some under one-run-only nodes), collectors, idle frames
// and nodes on one side only.
func TestMarkUntestedOnePass(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 20))
	for trial := range 40 {
		n, nk := 50+rng.IntN(3000), 5+rng.IntN(60)
		u := &union{runs: 2, rowsAreMeans: true}
		class := make([]uint8, nk)
		for k := range class {
			switch rng.IntN(10) {
			case 0:
				class[k] = classArtifact
			case 1:
				class[k] = classCollector
			case 2:
				class[k] = classIdle
			}
		}
		for x := range n {
			p, d := int32(0), int32(0)
			if x > 0 {
				p = int32(rng.IntN(x))
				d = u.depth[p] + 1
			}
			u.parent, u.depth = append(u.parent, p), append(u.depth, d)
			u.key = append(u.key, key(rng.IntN(nk)))
			b, nw := int32(rng.IntN(3)), int32(rng.IntN(3))
			if b == 0 && nw == 0 {
				b = 1
			}
			u.inBase, u.inNew = append(u.inBase, b), append(u.inNew, nw)
			u.meanBase, u.meanNew = append(u.meanBase, float64(rng.IntN(100))), append(u.meanNew, float64(rng.IntN(100)))
			u.selfBase, u.selfNew = append(u.selfBase, float64(rng.IntN(10))), append(u.selfNew, float64(rng.IntN(10)))
		}
		for _, oneSide := range []bool{true, false} {
			// μ infinite: no callee is large enough to fold as vanished
			// (the two-pass walk predates that fold).
			skip, oneRun, self := markUntested(u, class, oneSide, true, math.Inf(1))
			wSkip, wOneRun, wSelf := markUntestedTwoPasses(u, class, oneSide, math.Inf(1))
			if !slices.Equal(skip, wSkip) || !slices.Equal(oneRun, wOneRun) || !reflect.DeepEqual(self.extra, wSelf.extra) {
				t.Fatalf("trial %d (%d nodes, oneSide %v): skip %d, oneRun %v, %d folded rows; want skip %d, oneRun %v, %d rows",
					trial, n, oneSide, count(skip), oneRun, len(self.extra), count(wSkip), wOneRun, len(wSelf.extra))
			}
		}
	}
}

func count(b []bool) (n int) {
	for _, v := range b {
		if v {
			n++
		}
	}
	return n
}
