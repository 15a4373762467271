package audit

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/google/pprof/profile"
)

// A Case is one generated comparison: a change (Name, one of Cases) made to
// a workload, recorded K times before and K times after with noise drawn
// from Seed. The zero values of Sigma, RunSigma, Outlier, Hot and DeltaMs
// mean none; NewCase gives the audit's defaults.
type Case struct {
	Name string
	Seed uint64
	// K is the number of runs per side; KNew, when not 0, the after side's.
	K, KNew int
	// Sigma is the lognormal jitter of every calling-context prefix of a
	// run, RunSigma the jitter of a whole run (machine speed).
	Sigma, RunSigma float64
	// Outlier is the chance, per side, that one of its runs is 30% slower.
	Outlier float64
	// Hot, when > 0, adds a load-dependent handler (handleSearch) whose
	// subtree jitters with this sigma on top of Sigma.
	Hot float64
	// DeltaMs is the injected growth in ms of CPU per run, at the before
	// side's duration: the cases that inject one read it.
	DeltaMs float64
	// Seconds is the before runs' duration; SecondsAfter the after runs'
	// (0: the same; the duration case doubles it).
	Seconds, SecondsAfter float64
	// Base is the workload; nil means the synthetic Go service.
	Base Workload
}

// NewCase returns the case name with the audit generator's defaults: 5
// runs per side, per-prefix jitter 0.1, run jitter 0.03, 250 ms injected
// growth, 30-second runs.
func NewCase(name string, seed uint64) Case {
	return Case{Name: name, Seed: seed, K: 5, Sigma: 0.1, RunSigma: 0.03, DeltaMs: 250, Seconds: 30}
}

// A Pair is a generated comparison: the runs of each side and what changed
// between them.
type Pair struct {
	Before, After []*profile.Profile
	Truth         Truth
	// Format is how Write writes the runs (Formats; "" is pprof), and
	// FormatAfter, when not "", the after runs (mixed formats).
	Format, FormatAfter string
}

// period is the sampling period of every run but the rate case's after
// runs: runtime/pprof's 100 Hz.
const period = 10_000_000

// Generate makes c's runs and truth. The same Case gives the same profiles.
func Generate(c Case) (*Pair, error) {
	if c.K < 1 || c.KNew < 0 {
		return nil, fmt.Errorf("audit: case %s: %d runs before and %d after, want at least 1", c.Name, c.K, c.KNew)
	}
	if c.Seconds <= 0 || c.SecondsAfter < 0 {
		return nil, fmt.Errorf("audit: case %s: durations %gs and %gs, want positive", c.Name, c.Seconds, c.SecondsAfter)
	}
	ch, err := change(c)
	if err != nil {
		return nil, err
	}
	tr := ch.truth
	tr.Case, tr.Seed, tr.K = c.Name, c.Seed, c.K
	tr.Before = inclusive(ch.before, ch.secBefore)
	if ch.truthBefore != nil {
		w := Workload{}
		for _, st := range ch.before.stacks() {
			w[ch.truthBefore(st)] += ch.before[st]
		}
		tr.Before = inclusive(w, ch.secBefore)
	}
	mean := ch.after
	if len(ch.regressedRuns) > 0 {
		mean = mix(ch.unchanged, ch.after, len(ch.regressedRuns), c.K)
	}
	tr.After = inclusive(mean, ch.secAfter)
	tr.TotalBefore = ch.before.total() * ch.secBefore * 1e6
	tr.TotalAfter = mean.total() * ch.secAfter * 1e6

	g := &recorder{r: rand.New(rand.NewPCG(c.Seed, 12345)), sigma: c.Sigma, runSigma: c.RunSigma, hotSigma: c.Hot}
	outlierRun := func() int {
		if g.r.Float64() < c.Outlier {
			return g.r.IntN(c.K)
		}
		return -1
	}
	ob, oa := outlierRun(), outlierRun()
	p := &Pair{Truth: tr}
	vary := func(side, run int, w Workload) Workload {
		if ch.perRun == nil {
			return w
		}
		return ch.perRun(g.r, side, run, w.clone())
	}
	g.src = ch.src[0]
	for i := range c.K {
		p.Before = append(p.Before, g.record(vary(0, i, ch.before), ch.secBefore, period, i == ob))
	}
	na := c.K
	if c.KNew > 0 {
		na = c.KNew
	}
	g.src = ch.src[1]
	for i := range na {
		w := ch.after
		if len(ch.regressedRuns) > 0 && !slices.Contains(ch.regressedRuns, i) {
			w = ch.unchanged
		}
		p.After = append(p.After, g.record(vary(1, i, w), ch.secAfter, ch.periodAfter, i == oa))
	}
	return p, nil
}

// mix is the mean workload when n of k runs are after and the rest w.
func mix(w, after Workload, n, k int) Workload {
	m := Workload{}
	for _, st := range w.stacks() {
		m[st] += w[st] * float64(k-n) / float64(k)
	}
	for _, st := range after.stacks() {
		m[st] += after[st] * float64(n) / float64(k)
	}
	return m
}
