package eval

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/ctdiff/ctdiff/cct"
)

// The sensitivity sweep : for each K, the smallest
// injected regression, as a share of the profile's busy time (time outside
// "(idle)"), that a method finds in at least 95% of cases with no false
// cause on baselines — for ctdiff, for an oracle that knows the noise
// model, and for pprof -diff_base read the way people read it.
//
// Every injected case is a long loop (self time added at the start of one
// function's calls: ZAM's LongLoop), the kind all three methods can see in
// flat time. A case picks its function once and injects it at every share
// into the same noisy runs (same seeds), so a case's answers across shares
// and K differ by the injected size and the number of runs only. Baselines
// are noise-only pairs.
//
//   - ctdiff finds the case when a cause is the injected function's context
//     (a node hit); a baseline is flagged when it reports any cause.
//   - The oracle knows where the injection is and how the noise behaves: it
//     draws OracleRuns noise-only runs of its own, takes the injected
//     function's self time in each, and calls the case found when the new
//     side's mean self time exceeds the base's by more than the 1−Alpha
//     quantile of that difference under no change (means of K runs drawn
//     from its noise-only runs, oracleDraws times). The noise has heavy
//     tails (an extraneous handler may replay the function), which a
//     z-test would not respect. It tests one node, so it needs no
//     correction for multiple tests. On baselines it tests a function
//     picked as for an injection: its false-alarm rate is Alpha by
//     construction.
//   - pprof (pprofdiff.go) finds the case when the injected function is
//     among the Top functions by |flat delta|; a baseline is flagged when
//     the function on top of that list grew by more than Mu: what a reader
//     of `pprof -top -diff_base` would call a regression.
type Sensitivity struct {
	Corpus   string
	Profiles []string
	// Runs are the K values; the runs of smaller K are the first runs of
	// the largest.
	Runs []int
	// Shares are the injected sizes, as fractions of the busy time.
	Shares []float64
	// Cases and Baselines are per profile.
	Cases, Baselines int
	Seed             uint64
	Noise            Noise
	Changes          Changes
	Engine           Engine
	// Mu is the growth above which pprof's reader calls a function a
	// regression (ctdiff's μ is in Engine).
	Mu time.Duration
	// Top is how many rows of pprof -top the reader looks at.
	Top int
	// Alpha is the oracle's one-sided level and OracleRuns the noise-only
	// runs it learns the noise from.
	Alpha      float64
	OracleRuns int
	Parallel   int
}

// DefaultShares are the sweep's injected sizes: 0.02% to 20% of the busy
// time.
var DefaultShares = []float64{0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2}

// DefaultSensitivity is the sweep of BENCHMARKS.md on the corpus in dir,
// without an engine.
func DefaultSensitivity(dir string) Sensitivity {
	return Sensitivity{
		Corpus: dir, Profiles: DefaultProfiles, Runs: []int{1, 3, 5, 10}, Shares: DefaultShares,
		Cases: 5, Baselines: 3, Seed: 1, Noise: DefaultNoise, Changes: DefaultChanges,
		Mu: 50 * time.Millisecond, Top: 10, Alpha: 0.001, OracleRuns: 50,
	}
}

// The methods of the sweep.
const (
	MethodCtdiff = iota
	MethodOracle
	MethodPprof
	numMethods
)

// MethodNames name the methods in tables.
var MethodNames = [numMethods]string{"ctdiff", "oracle", "pprof top-10"}

// A SensCase is one injected case (at every share and K) or one baseline
// (at every K).
type SensCase struct {
	Profile  string
	Index    int
	Baseline bool
	Seed     uint64
	// Busy is the profile's busy time; Target the injected function's
	// context.
	Busy   time.Duration
	Target Path
	// Found[m][k][s] says method m found the case with Runs[k] runs per
	// side at Shares[s]; False[m][k] that it flagged the baseline.
	Found   [numMethods][][]bool
	False   [numMethods][]bool
	Skipped string
}

// A SensResult holds every case of a sweep.
type SensResult struct {
	Config  Sensitivity
	Cases   []*SensCase
	Elapsed time.Duration
}

// RunSensitivity runs the sweep.
func RunSensitivity(cfg Sensitivity) (*SensResult, error) {
	start := time.Now()
	if len(cfg.Runs) == 0 || len(cfg.Shares) == 0 || len(cfg.Profiles) == 0 || cfg.Engine.Compare == nil || cfg.Top < 1 || cfg.OracleRuns < 2 {
		return nil, errors.New("eval: the sensitivity sweep needs runs, shares, profiles, an engine, Top ≥ 1 and at least two oracle runs")
	}
	for _, k := range cfg.Runs {
		if k < 1 {
			return nil, fmt.Errorf("eval: %d runs per side", k)
		}
	}
	for _, s := range cfg.Shares {
		if !(s > 0 && s < 1) {
			return nil, fmt.Errorf("eval: share %g is not in (0, 1)", s)
		}
	}
	par := cfg.Parallel
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	tmpls, err := loadTemplates(cfg.Corpus, cfg.Profiles, par)
	if err != nil {
		return nil, err
	}
	res := &SensResult{Config: cfg}
	for _, name := range cfg.Profiles {
		for i := range cfg.Cases {
			res.Cases = append(res.Cases, &SensCase{Profile: name, Index: i, Seed: caseSeed(cfg.Seed, name+"#sensitivity", 0, i)})
		}
		for i := range cfg.Baselines {
			res.Cases = append(res.Cases, &SensCase{Profile: name, Index: i, Baseline: true, Seed: caseSeed(cfg.Seed, name+"#sensitivity", -1, i)})
		}
	}
	errs := make([]error, len(res.Cases))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				c := res.Cases[i]
				if err := runSensCase(&cfg, tmpls[c.Profile], c); err != nil {
					errs[i] = fmt.Errorf("%s, sensitivity case %d: %w", c.Profile, c.Index+1, err)
				}
			}
		}()
	}
	for i := range res.Cases {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

// oracleDraws is how many differences of means the oracle draws to find
// its threshold.
const oracleDraws = 20_000

// oracleThreshold returns the 1−alpha quantile of mean(new) − mean(base)
// for k runs per side drawn from the noise-only values xs.
func oracleThreshold(xs []float64, k int, alpha float64, rng *rand.Rand) float64 {
	d := make([]float64, oracleDraws)
	for i := range d {
		var sum float64
		for range k {
			sum += xs[rng.IntN(len(xs))] - xs[rng.IntN(len(xs))]
		}
		d[i] = sum / float64(k)
	}
	slices.Sort(d)
	return d[max(0, min(len(d)-1, int(math.Ceil((1-alpha)*float64(len(d))))-1))]
}

// oracleFinds reports whether the new side's mean exceeds the base's by
// more than threshold.
func oracleFinds(base, nw []int64, threshold float64) bool {
	mean := func(xs []int64) float64 {
		var s float64
		for _, x := range xs {
			s += float64(x)
		}
		return s / float64(len(xs))
	}
	return mean(nw)-mean(base) > threshold
}

// sensRun is what the methods need of one run.
type sensRun struct {
	tree *cct.Tree
	self int64 // the target's self time
	flat map[Frame]int64
}

func runSensCase(cfg *Sensitivity, t *template, c *SensCase) error {
	rng := rand.New(rand.NewPCG(c.Seed, 0))
	w := t.fork()
	kmax := slices.Max(cfg.Runs)
	c.Busy = time.Duration(t.busy())
	in, err := pickInjection(t, w, LongLoop, time.Duration(cfg.Mu), rng)
	if errors.Is(err, errNoTarget) {
		c.Skipped = err.Error()
		return nil
	}
	if err != nil {
		return err
	}
	c.Target = Path{Thread: in.Thread, Frames: in.Path}
	var changes *changeSet
	if !c.Baseline {
		changes = drawChanges(t, w, cfg.Changes, in, rng)
	}
	pool := newHandlers(t, w, rng)
	self := func(r *run) int64 {
		var sum int64
		for _, seq := range r.seq {
			for _, s := range seq {
				if w.stacks[s.stack].node == in.node {
					sum += s.v[t.timeIdx]
				}
			}
		}
		return sum
	}
	// The oracle's knowledge of the noise: the target's self time in
	// noise-only runs of their own seeds.
	xs := make([]float64, cfg.OracleRuns)
	for j := range xs {
		r := t.base.clone()
		cfg.Noise.apply(t, w, r, pool, nil, rand.New(rand.NewPCG(c.Seed, 100_000+uint64(j))))
		xs[j] = float64(self(r))
	}
	threshold := make([]float64, len(cfg.Runs))
	for ki, k := range cfg.Runs {
		threshold[ki] = oracleThreshold(xs, k, cfg.Alpha, rand.New(rand.NewPCG(c.Seed, 200_000+uint64(k))))
	}

	gen := func(side uint64, inj *Injection) ([]sensRun, error) {
		out := make([]sensRun, kmax)
		for i := range kmax {
			rr := rand.New(rand.NewPCG(c.Seed, 1+side*1000+uint64(i)))
			r := t.base.clone()
			var rename map[Frame]string
			if inj != nil {
				changes.apply(r, rr)
				inj.apply(t, w, r, rr)
				rename = changes.rename
			}
			cfg.Noise.apply(t, w, r, pool, nil, rr)
			tree, err := cct.FromProfile(w.profile(t, r, rename, nil), cct.Options{Prune: true})
			if err != nil {
				return nil, err
			}
			out[i] = sensRun{tree, self(r), flatOf(t, w, r, rename)}
		}
		return out, nil
	}
	cols := func(rs []sensRun) ([]*cct.Tree, []int64, []map[Frame]int64) {
		var ts []*cct.Tree
		var ss []int64
		var fs []map[Frame]int64
		for _, r := range rs {
			ts, ss, fs = append(ts, r.tree), append(ss, r.self), append(fs, r.flat)
		}
		return ts, ss, fs
	}
	base, err := gen(0, nil)
	if err != nil {
		return err
	}
	bt, bs, bf := cols(base)
	for m := range numMethods {
		c.False[m] = make([]bool, len(cfg.Runs))
		c.Found[m] = make([][]bool, len(cfg.Runs))
		for k := range cfg.Runs {
			c.Found[m][k] = make([]bool, len(cfg.Shares))
		}
	}
	if c.Baseline {
		nw, err := gen(1, nil)
		if err != nil {
			return err
		}
		nt, ns, nf := cols(nw)
		for ki, k := range cfg.Runs {
			out, err := cfg.Engine.Compare(bt[:k], nt[:k])
			if err != nil {
				return err
			}
			c.False[MethodCtdiff][ki] = len(out.Causes) > 0
			c.False[MethodOracle][ki] = oracleFinds(bs[:k], ns[:k], threshold[ki])
			top := topFlat(bf[:k], nf[:k], 1)
			c.False[MethodPprof][ki] = len(top) > 0 && top[0].Delta > float64(cfg.Mu)
		}
		return nil
	}
	fn, _ := leafFrame(w, in.stack)
	for si, share := range cfg.Shares {
		inj := *in
		inj.Delta = max(time.Duration(share*float64(t.busy())), 1)
		nw, err := gen(1, &inj)
		if err != nil {
			return err
		}
		nt, ns, nf := cols(nw)
		for ki, k := range cfg.Runs {
			out, err := cfg.Engine.Compare(bt[:k], nt[:k])
			if err != nil {
				return err
			}
			c.Found[MethodCtdiff][ki][si] = scoreTruth(out, inj.Truth()).NodeHit
			c.Found[MethodOracle][ki][si] = oracleFinds(bs[:k], ns[:k], threshold[ki])
			c.Found[MethodPprof][ki][si] = slices.ContainsFunc(topFlat(bf[:k], nf[:k], cfg.Top), func(d flatDelta) bool { return d.Frame == fn && d.Delta > 0 })
		}
	}
	return nil
}
