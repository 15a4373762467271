// Package synth generates large, realistic profile pairs for benchmarks
// at PARCS's scale: pprof CPU profiles with hundreds of
// thousands of distinct stacks over thousands of functions, and pairs whose
// calling-context trees reach 1.5 million nodes (PARCS's largest CCT,
// checkstyle, had 1.45 M nodes of depth ~32), with one known injected change.
//
// Generation is deterministic for a seed. Stacks share prefixes the way real
// ones do: each new stack copies a prefix of an earlier one and diverges,
// so the tree's size is controlled by how many frames a stack adds.
package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/google/pprof/profile"
)

// Config describes a pair to generate.
type Config struct {
	Seed      uint64
	Functions int // distinct functions (default 5,000)
	Stacks    int // distinct stacks (default 200,000)
	// MeanDepth is the mean stack depth (default 30).
	MeanDepth int
	// NewFrames is the mean number of frames a stack adds beyond the prefix
	// it shares with an earlier stack; tree nodes ≈ Stacks × NewFrames
	// (default 4).
	NewFrames int
	// Period is the sampling period in ns (default 10 ms).
	Period int64
	// Runs is the number of runs per side (default 1): the same stacks,
	// each run with its own sampling noise, as repeated recordings of one
	// program are.
	Runs int
}

func (c *Config) defaults() {
	if c.Functions == 0 {
		c.Functions = 5000
	}
	if c.Stacks == 0 {
		c.Stacks = 200_000
	}
	if c.MeanDepth == 0 {
		c.MeanDepth = 30
	}
	if c.NewFrames == 0 {
		c.NewFrames = 4
	}
	if c.Period == 0 {
		c.Period = 10_000_000
	}
	if c.Runs == 0 {
		c.Runs = 1
	}
}

// A Pair is a base and a new profile with the injected change described.
type Pair struct {
	Base, New *profile.Profile
	// BaseRuns and NewRuns are all runs of each side (Config.Runs); the
	// first are Base and New.
	BaseRuns, NewRuns []*profile.Profile
	// Injected names the function whose time grew in New, and Added the
	// function that New calls under it and Base does not.
	Injected, Added string
}

// Generate returns a pair. The new profile has the same stacks with
// independent sampling noise, plus the injected change: every stack
// through Injected gains 40% weight and a new callee Added.
func Generate(c Config) *Pair {
	var bs, ns []*profile.Profile
	pair := GenerateEach(c, func(_ int, base, nw *profile.Profile) {
		bs, ns = append(bs, base), append(ns, nw)
	})
	pair.BaseRuns, pair.NewRuns = bs, ns
	pair.Base, pair.New = bs[0], ns[0]
	return pair
}

// GenerateEach is Generate for many runs: it hands run i's two profiles to
// emit as soon as they are made and keeps none, so 1,000 runs a side take
// the memory of one (Generate holds them all: ~10 MB a run of 20,000
// stacks). The runs are Generate's, in order; the Pair returned has only
// Injected and Added.
func GenerateEach(c Config, emit func(i int, base, nw *profile.Profile)) *Pair {
	c.defaults()
	rng := rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15))
	pl := newPlan(rng, c)
	noisy := func(w float64) int64 {
		// Sampling noise: Poisson-like jitter around the expected count.
		n := w + math.Sqrt(w)*rng.NormFloat64()
		return max(1, int64(math.Round(n)))
	}
	pair := &Pair{Injected: pl.names[pl.injected], Added: pl.names[pl.added]}
	for run := range c.Runs {
		base := newBuilder(pl.names, c.Period)
		next := newBuilder(pl.names, c.Period)
		pl.each(func(s []int32, w, wNew float64, ext []int32, wExt float64) {
			base.add(s, noisy(w))
			next.add(s, noisy(wNew))
			if ext != nil {
				next.add(ext, noisy(wExt))
			}
		})
		emit(run, base.p, next.p)
	}
	return pair
}

// A plan is what every run of a pair shares: the functions, the stacks,
// their weights (expected sample counts) and the injected change.
type plan struct {
	names           []string
	stacks          [][]int32
	weights         []float64
	injected, added int32
}

func newPlan(rng *rand.Rand, c Config) *plan {
	names := functionNames(rng, c.Functions)
	stacks := genStacks(rng, c)
	weights := make([]float64, len(stacks))
	for i := range weights {
		weights[i] = math.Exp(rng.NormFloat64() * 1.2) // log-normal: a few hot stacks
	}
	// The injected function: one that sits at depth ~10 in many stacks.
	injected := stacks[len(stacks)/3][min(10, len(stacks[len(stacks)/3])-1)]
	added := int32(c.Functions) // a function only New has
	names = append(names, "github.com/example/app/internal/cache.(*Store).revalidate")
	return &plan{names: names, stacks: stacks, weights: weights, injected: injected, added: added}
}

// each calls f for every stack in order with its expected base and new
// counts; a stack through the injected function also has the new side's
// extra stack (ext, through the added callee) with its expected count.
func (pl *plan) each(f func(s []int32, w, wNew float64, ext []int32, wExt float64)) {
	for i, s := range pl.stacks {
		w := pl.weights[i] * 3
		hit := slices.Index(s, pl.injected)
		if hit < 0 {
			f(s, w, w, nil, 0)
			continue
		}
		ext := append(append([]int32(nil), s[:hit+1]...), pl.added)
		f(s, w, w*1.4, ext, w*0.5)
	}
}

// genStacks returns distinct root-first stacks of function indexes.
func genStacks(rng *rand.Rand, c Config) [][]int32 {
	// Each function calls a few favourite callees, so stacks look like
	// paths through a call graph rather than random strings.
	callees := make([][]int32, c.Functions)
	for f := range callees {
		k := 2 + rng.IntN(8)
		callees[f] = make([]int32, k)
		for j := range callees[f] {
			callees[f][j] = int32(zipf(rng, c.Functions))
		}
	}
	seen := make(map[string]bool, c.Stacks)
	stacks := make([][]int32, 0, c.Stacks)
	for len(stacks) < c.Stacks {
		depth := max(2, int(float64(c.MeanDepth)+4*rng.NormFloat64()))
		var s []int32
		if len(stacks) > 0 {
			prev := stacks[rng.IntN(len(stacks))]
			keep := max(1, min(len(prev), depth)-1-rng.IntN(2*c.NewFrames))
			s = append(s, prev[:max(1, keep)]...)
		} else {
			s = append(s, 0)
		}
		for len(s) < depth {
			cs := callees[s[len(s)-1]]
			s = append(s, cs[rng.IntN(len(cs))])
		}
		k := key(s)
		if seen[k] {
			continue
		}
		seen[k] = true
		stacks = append(stacks, s)
	}
	return stacks
}

func key(s []int32) string {
	b := make([]byte, 4*len(s))
	for i, v := range s {
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	return string(b)
}

// zipf draws from 1..n-1 with a Zipf-like skew (a few functions are
// everywhere, most are rare); 0 is main and only starts stacks.
func zipf(rng *rand.Rand, n int) int {
	x := math.Pow(float64(n-1), rng.Float64())
	return max(1, min(n-1, int(x)))
}

var (
	pkgs  = []string{"server", "handler", "storage", "codec", "auth", "cache", "rpc", "index", "query", "metrics"}
	types = []string{"Server", "Conn", "Request", "Encoder", "Decoder", "Store", "Index", "Planner", "Pool", "Batch"}
	verbs = []string{"Handle", "Serve", "Read", "Write", "Encode", "Decode", "Lookup", "Flush", "Scan", "Merge", "Apply", "Load"}
)

func functionNames(rng *rand.Rand, n int) []string {
	names := make([]string, n)
	names[0] = "main.main"
	for i := 1; i < n; i++ {
		names[i] = fmt.Sprintf("github.com/example/app/internal/%s%d.(*%s).%s%d",
			pkgs[rng.IntN(len(pkgs))], i%97, types[rng.IntN(len(types))], verbs[rng.IntN(len(verbs))], i)
	}
	return names
}

type builder struct {
	p    *profile.Profile
	locs []*profile.Location
}

func newBuilder(names []string, period int64) *builder {
	b := &builder{p: &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     period,
	}}
	b.locs = make([]*profile.Location, len(names))
	for i, n := range names {
		fn := &profile.Function{ID: uint64(i + 1), Name: n, SystemName: n, Filename: fmt.Sprintf("/src/app/f%d.go", i%400)}
		b.p.Function = append(b.p.Function, fn)
		l := &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: fn, Line: int64(10 + i%300)}}}
		b.p.Location = append(b.p.Location, l)
		b.locs[i] = l
	}
	return b
}

func (b *builder) add(stack []int32, count int64) {
	locs := make([]*profile.Location, len(stack))
	for i, f := range stack {
		locs[len(stack)-1-i] = b.locs[f]
	}
	b.p.Sample = append(b.p.Sample, &profile.Sample{Location: locs, Value: []int64{count, count * b.p.Period}})
}

// A Context is a calling context of a generated pair with the expected
// value of its inclusive time on each side, what infinitely many runs
// would average to: the ground truth a comparison's causes are checked
// against (do more runs find what fewer find?).
type Context struct {
	Path      []string // function names, root first
	Base, New float64  // expected inclusive cpu time, in ns
}

// Expected returns every calling context of the pair Generate(c) makes,
// in the order first reached, with its expected values. They are the
// expectations of the sampled counts, not the weights the sampling starts
// from: a count is at least 1 (noisy), which lifts the many rare stacks.
func Expected(c Config) []Context {
	c.defaults()
	rng := rand.New(rand.NewPCG(c.Seed, c.Seed^0x9e3779b97f4a7c15))
	pl := newPlan(rng, c)
	index := map[string]int{}
	var out []Context
	var key []byte
	add := func(s []int32, base, nw float64) {
		key = key[:0]
		for d, f := range s {
			key = append(key, byte(f), byte(f>>8), byte(f>>16), byte(f>>24))
			i, ok := index[string(key)]
			if !ok {
				i = len(out)
				index[string(key)] = i
				path := make([]string, d+1)
				for j, g := range s[:d+1] {
					path[j] = pl.names[g]
				}
				out = append(out, Context{Path: path})
			}
			out[i].Base += base
			out[i].New += nw
		}
	}
	period := float64(c.Period)
	pl.each(func(s []int32, w, wNew float64, ext []int32, wExt float64) {
		add(s, expectedCount(w)*period, expectedCount(wNew)*period)
		if ext != nil {
			add(ext, 0, expectedCount(wExt)*period)
		}
	})
	return out
}

// expectedCount is E[max(1, round(w + √w·Z))] for a standard normal Z, the
// mean of what noisy draws: 1 + Σ_{k≥2} P(w + √w·Z ≥ k − ½).
func expectedCount(w float64) float64 {
	sd := math.Sqrt(w)
	if (w-1.5)/sd > 9 {
		// The floor of 1 is out of reach and rounding is symmetric.
		return w
	}
	e := 1.0
	for k := 2.0; ; k++ {
		z := (k - 0.5 - w) / sd
		if z > 9 {
			return e
		}
		e += 0.5 * math.Erfc(z/math.Sqrt2)
	}
}
