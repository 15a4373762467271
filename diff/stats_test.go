package diff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
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

func TestHolm(t *testing.T) {
	got := holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if !approx(got[i], want[i], 1e-12) {
			t.Fatalf("holm = %v, want %v", got, want)
		}
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
