package diff

import (
	"cmp"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/long"
)

// A simulation modelled on ZAM's RQ1 (Section 5.2), on synthetic programs:
// it is how the defaults (aggregate mode, statistical design) were chosen.
// The project's accuracy harness on real profiles lives elsewhere; this one
// needs no corpus and runs in a second.
//
//	go test ./diff -run TestAccuracy -v -accuracy.sweep
var (
	accSweep = flag.Bool("accuracy.sweep", false, "print the accuracy table for several option sets")
	accCases = flag.Int("accuracy.cases", 12, "programs per sweep (each gives 3 injected cases and 1 base-vs-base case)")
	accDebug = flag.Bool("accuracy.debug", false, "print the causes of cases that miss or have false leaves")
)

// A prog is a program's true calling-context tree: self times in ns.
// spread is a node's own run-to-run variation (a garbage collector's ±10%),
// on top of the run's jitter; 0 for none.
type prog struct {
	name   string
	self   float64
	spread float64
	kids   []*prog
}

func (p *prog) clone() *prog {
	c := &prog{name: p.name, self: p.self, spread: p.spread}
	for _, k := range p.kids {
		c.kids = append(c.kids, k.clone())
	}
	return c
}

func (p *prog) walk(f func(n *prog, path []*prog)) {
	var rec func(n *prog, path []*prog)
	rec = func(n *prog, path []*prog) {
		path = append(path, n)
		f(n, path)
		for _, k := range n.kids {
			rec(k, path)
		}
	}
	for _, k := range p.kids {
		rec(k, nil)
	}
}

func (p *prog) total() float64 {
	t := p.self
	for _, k := range p.kids {
		t += k.total()
	}
	return t
}

// genProg makes a program with ~nodes nodes under ~20 top-level handlers.
// Function names come from a pool, so functions occur in several contexts;
// self times are log-normal (median 0.5 ms, long tail).
func genProg(rng *rand.Rand, nodes int) *prog {
	pool := nodes/10 + rng.IntN(nodes/5+1)
	root := &prog{}
	count := 0
	var grow func(n *prog, depth int)
	grow = func(n *prog, depth int) {
		k := 0
		if depth < 14 {
			k = rng.IntN(max(1, 6-depth/3))
		}
		for range k {
			if count >= nodes {
				return
			}
			count++
			c := &prog{name: fmt.Sprintf("fn%04d", rng.IntN(pool)), self: 5e5 * math.Exp(1.6*rng.NormFloat64())}
			if slices.ContainsFunc(n.kids, func(x *prog) bool { return x.name == c.name }) {
				continue // one node per function under a parent, as in a CCT
			}
			n.kids = append(n.kids, c)
			grow(c, depth+1)
		}
	}
	for i := 0; count < nodes && i < 200; i++ {
		h := &prog{name: fmt.Sprintf("handler%02d", i), self: 1e5}
		root.kids = append(root.kids, h)
		count++
		grow(h, 1)
	}
	return root
}

// simRun samples one run: per-top-level-subtree jitter (a slower machine
// phase), per-node jitter, Poisson sampling at period, shuffled top-level
// order, and an extraneous handler with probability extra (ZAM Section 2.3).
func simRun(rng *rand.Rand, p *prog, period, jitter, extra float64) *cct.Tree {
	t := cct.New([]cct.ValueType{{Type: "cpu", Unit: "nanoseconds"}})
	thread := t.AddChild(cct.RootID, t.Intern(cct.Frame{Kind: cct.KindThread}, cct.FrameInfo{}))
	top := slices.Clone(p.kids)
	rng.Shuffle(len(top), func(i, j int) { top[i], top[j] = top[j], top[i] })
	if rng.Float64() < extra {
		top = append(top, &prog{name: fmt.Sprintf("extraHandler%d", rng.IntN(3)), self: (30 + 90*rng.Float64()) * 1e6})
	}
	type sampled struct {
		p           *prog
		self, total int64
		kids        []*sampled
	}
	var sample func(n *prog, j float64) *sampled
	sample = func(n *prog, j float64) *sampled {
		if n.spread > 0 {
			j *= math.Max(0, 1+n.spread*rng.NormFloat64())
		}
		lambda := n.self * j * math.Exp(0.03*rng.NormFloat64()) / period
		s := &sampled{p: n, self: int64(poisson(rng, lambda)) * int64(period)}
		s.total = s.self
		for _, k := range n.kids {
			ks := sample(k, j)
			s.kids = append(s.kids, ks)
			s.total += ks.total
		}
		return s
	}
	var add func(parent cct.NodeID, s *sampled)
	add = func(parent cct.NodeID, s *sampled) {
		if s.total == 0 {
			return // nodes without samples do not appear in a profile
		}
		id := t.AddChild(parent, t.Intern(cct.Frame{Function: s.p.name, File: "app.js"}, cct.FrameInfo{}))
		t.Self(id)[0] += s.self
		for _, k := range s.kids {
			add(id, k)
		}
	}
	for _, h := range top {
		add(thread, sample(h, math.Exp(jitter*rng.NormFloat64())))
	}
	t.ComputeTotals()
	return t
}

func poisson(rng *rand.Rand, lambda float64) float64 {
	if lambda > 50 {
		return math.Max(0, math.Round(lambda+math.Sqrt(lambda)*rng.NormFloat64()))
	}
	l, k, p := math.Exp(-lambda), 0.0, 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// evolve applies unrelated code changes of a new version: renamed small
// functions (minified names change), tiny calls added and removed.
func evolve(rng *rand.Rand, p *prog) {
	var nodes []*prog
	p.walk(func(n *prog, _ []*prog) { nodes = append(nodes, n) })
	for range 3 {
		n := nodes[rng.IntN(len(nodes))]
		if n.total() < 5e6 {
			n.name = fmt.Sprintf("m%02d", rng.IntN(100))
		}
	}
	for range 3 {
		n := nodes[rng.IntN(len(nodes))]
		n.kids = append(n.kids, &prog{name: fmt.Sprintf("tiny%02d", rng.IntN(100)), self: (1 + 4*rng.Float64()) * 1e6})
	}
	for range 2 {
		n := nodes[rng.IntN(len(nodes))]
		if len(n.kids) > 0 && n.kids[len(n.kids)-1].total() < 5e6 {
			n.kids = n.kids[:len(n.kids)-1]
		}
	}
}

// An injection is one of ZAM's three kinds (Section 5.2) into a function
// with at most three calling contexts: a slow external API call or a long
// loop costs 100-200 ms per call (one call per context, as ZAM injects per
// call), a repeated check (a new call to dummyZam) 100-200 ms in total, split
// over the contexts by their share of the function's time. target names the
// function a correct cause ends in, and paths holds the injected contexts.
type injection struct {
	kind   string
	target string
	paths  [][]string
}

func inject(rng *rand.Rand, p *prog, kind string) injection {
	switch kind {
	case "spread":
		return injectSpread(rng, p)
	case "deep":
		return injectDeep(rng, p)
	}
	byName := map[string][]*prog{}
	pathOf := map[*prog][]string{}
	p.walk(func(n *prog, path []*prog) {
		if strings.HasPrefix(n.name, "fn") {
			byName[n.name] = append(byName[n.name], n)
		}
		names := make([]string, len(path))
		for i, x := range path {
			names[i] = x.name
		}
		pathOf[n] = names
	})
	names := make([]string, 0, len(byName))
	for n, ns := range byName {
		if len(ns) <= 3 && (kind != "api" || slices.ContainsFunc(ns[0].kids, func(k *prog) bool { return strings.HasPrefix(k.name, "fn") })) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		panic("no function to inject into")
	}
	slices.Sort(names)
	f := names[rng.IntN(len(names))]
	ns := byName[f]
	inj := injection{kind: kind, target: f}
	total := (100 + 100*rng.Float64()) * 1e6
	sum := 0.0
	for _, n := range ns {
		sum += n.total() + 1e5
	}
	var api string
	if kind == "api" {
		for api == "" || !strings.HasPrefix(api, "fn") {
			api = ns[0].kids[rng.IntN(len(ns[0].kids))].name
		}
		inj.target = api
	}
	for _, n := range ns {
		perCall := (100 + 100*rng.Float64()) * 1e6
		path := pathOf[n]
		switch kind {
		case "loop":
			n.self += perCall
		case "preempt":
			// The slower loop is where preemption signals land: part of
			// its new time shows under runtime.asyncPreempt.
			n.self += perCall / 2
			n.kids = append(n.kids, &prog{name: "runtime.asyncPreempt", self: perCall / 2})
		case "check":
			n.kids = append(n.kids, &prog{name: "dummyZam", self: total * (n.total() + 1e5) / sum})
			path = append(slices.Clone(path), "dummyZam")
			inj.target = "dummyZam"
		case "api":
			i := slices.IndexFunc(n.kids, func(k *prog) bool { return k.name == api })
			if i < 0 {
				n.kids = append(n.kids, &prog{name: api})
				i = len(n.kids) - 1
			}
			n.kids[i].self += perCall
			path = append(slices.Clone(path), api)
		}
		inj.paths = append(inj.paths, path)
	}
	return inj
}

// injectSpread adds a new check, isStaleState, in every context of a
// function called from 8 contexts or more, ~2μ in all and under μ in each
// (ZAM Section 6.1's spread regression): only the function's sum over
// its contexts shows it.
func injectSpread(rng *rand.Rand, p *prog) injection {
	byName := map[string][]*prog{}
	pathOf := map[*prog][]string{}
	p.walk(func(n *prog, path []*prog) {
		if strings.HasPrefix(n.name, "fn") {
			byName[n.name] = append(byName[n.name], n)
		}
		names := make([]string, len(path))
		for i, x := range path {
			names[i] = x.name
		}
		pathOf[n] = names
	})
	var names []string
	for n, ns := range byName {
		if len(ns) >= 8 {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		panic("no function with 8 contexts")
	}
	slices.Sort(names)
	ns := byName[names[rng.IntN(len(names))]]
	inj := injection{kind: "spread", target: "isStaleState"}
	total := (90 + 40*rng.Float64()) * 1e6
	for _, n := range ns {
		n.kids = append(n.kids, &prog{name: "isStaleState", self: total / float64(len(ns))})
		inj.paths = append(inj.paths, append(slices.Clone(pathOf[n]), "isStaleState"))
	}
	return inj
}

// injectDeep adds 160 ms of self time to the long task's frame, whose
// inclusive value varies by far more between runs.
func injectDeep(rng *rand.Rand, p *prog) injection {
	for _, h := range p.kids {
		if h.name == "longTask" {
			h.self += (150 + 20*rng.Float64()) * 1e6
			return injection{kind: "deep", target: "longTask", paths: [][]string{{"longTask"}}}
		}
	}
	panic("no long task")
}

// addLongTask gives a program an 18 s CPU-bound task of 60 steps whose time
// varies by 5% per step and run, on top of the run's jitter.
func addLongTask(rng *rand.Rand, p *prog) {
	t := &prog{name: "longTask", self: 20e6}
	for i := range 60 {
		t.kids = append(t.kids, &prog{name: fmt.Sprintf("step%02d", i), self: 3e8 * (0.5 + rng.Float64()), spread: 0.05})
	}
	p.kids = append(p.kids, t)
}

// addGC gives a program a garbage collector of 3.2 s that varies by ±10%
// between runs.
func addGC(p *prog) {
	p.kids = append(p.kids, &prog{name: "(garbage collector)", self: 3.2e9, spread: 0.1})
}

// score holds ZAM Table 2's counts, pooled over cases.
type score struct {
	cases, nodeHits, pathHits  int
	leaves, nodeLeaves, pLeafs int
	baseCases, falseBaseCases  int
	falseBasePaths             int
	graphNodes, treeNodes      float64
	pminOK, pminCases          int
}

func (s *score) add(res *Result, inj *injection) {
	s.graphNodes += float64(res.CriticalGraphNodes)
	s.treeNodes += float64(res.TreeNodes)
	if inj == nil {
		s.baseCases++
		if len(res.Causes) > 0 {
			s.falseBaseCases++
		}
		s.falseBasePaths += len(res.Causes)
		if *accDebug {
			for _, c := range res.Causes {
				fmt.Println("   false base cause", c.Kind, c.Delta/1e6, c.Path, c.Stats)
			}
		}
		return
	}
	s.cases++
	nodeHit, pathHit := false, false
	for _, c := range res.Causes {
		s.leaves++
		names := make([]string, len(c.Path))
		for i, f := range c.Path {
			names[i] = f.Function
		}
		full, partial := false, false
		for _, p := range inj.paths {
			if slices.Equal(names, p) || (len(names) > 0 && names[len(names)-1] == inj.target && len(names) <= len(p)) {
				full = true
			}
			if len(names) <= len(p) && slices.Equal(names, p[:len(names)]) {
				partial = true
			}
		}
		if full {
			s.nodeLeaves++
			nodeHit = true
		}
		if full || partial {
			s.pLeafs++
			pathHit = true
		}
	}
	if *accDebug && (!nodeHit || len(res.Causes) > 1) {
		fmt.Printf("case %s target %s (%d contexts), nodeHit %v pathHit %v\n", inj.kind, inj.target, len(inj.paths), nodeHit, pathHit)
		for _, p := range inj.paths {
			fmt.Println("   injected", p)
		}
		for _, c := range res.Causes {
			fmt.Println("   cause", c.Kind, c.Delta/1e6, c.Path, c.Stats)
		}
	}
	if nodeHit {
		s.nodeHits++
	}
	if pathHit {
		s.pathHits++
	}
	s.pminCases++
	for _, rp := range res.RankedPaths {
		if rp.Rank > 3 {
			break
		}
		if slices.ContainsFunc(rp.Path, func(n PathNode) bool { return n.Function == inj.target }) {
			s.pminOK++
			break
		}
	}
}

func pct(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return 100 * float64(a) / float64(b)
}

func (s *score) row(name string) string {
	return fmt.Sprintf("%-34s %6.1f %6.1f %6.1f %6.1f %4d/%-3d %6.2f %6.1f",
		name, pct(s.nodeHits, s.cases), pct(s.pathHits, s.cases), pct(s.nodeLeaves, s.leaves), pct(s.pLeafs, s.leaves),
		s.falseBaseCases, s.baseCases, 100*s.graphNodes/s.treeNodes, pct(s.pminOK, s.pminCases))
}

// simConfig describes a simulated setting: kinds are the injections per
// program (default: ZAM's api, loop and check), and longTask and gc add an
// 18 s task and a noisy garbage collector to every program.
type simConfig struct {
	runs           int
	period, jitter float64
	extra          float64
	nodes          int
	kinds          []string
	longTask, gc   bool
}

// simulate runs programs × (3 injections + 1 base-vs-base case).
func simulate(t testing.TB, cfg simConfig, programs int, seed uint64, opts Options) *score {
	s := &score{}
	for pi := range programs {
		rng := rand.New(rand.NewPCG(seed, uint64(pi)))
		base := genProg(rng, cfg.nodes)
		if cfg.longTask {
			addLongTask(rng, base)
		}
		if cfg.gc {
			addGC(base)
		}
		runs := func(p *prog) []*cct.Tree {
			out := make([]*cct.Tree, cfg.runs)
			for i := range out {
				out[i] = simRun(rng, p, cfg.period, cfg.jitter, cfg.extra)
			}
			return out
		}
		baseRuns := runs(base)
		kinds := cfg.kinds
		if kinds == nil {
			kinds = []string{"api", "loop", "check"}
		}
		for _, kind := range append([]string{""}, kinds...) {
			nw := base.clone()
			var inj *injection
			if kind != "" {
				evolve(rng, nw)
				i := inject(rng, nw, kind)
				inj = &i
			}
			res, err := Compare(baseRuns, runs(nw), opts)
			if err != nil {
				t.Fatal(err)
			}
			s.add(res, inj)
		}
	}
	return s
}

const accHeader = "setting                            nodeR  pathR  nodeP  pathP  falseBase compr%  pmin≤3"

// TestAccuracy checks the defaults on the simulation and, with
// -accuracy.sweep, prints the comparison the defaults were chosen by.
func TestAccuracy(t *testing.T) {
	cfgs := []struct {
		name string
		cfg  simConfig
	}{
		{"V8-like (1 ms sampling, 5% jitter)", simConfig{runs: 3, period: 1e6, jitter: 0.05, extra: 0.3, nodes: 3000}},
		{"pprof-like (10 ms sampling)", simConfig{runs: 3, period: 1e7, jitter: 0.02, extra: 0.3, nodes: 1500}},
	}
	if !*accSweep {
		s := simulate(t, cfgs[0].cfg, 6, 1, DefaultOptions())
		t.Log(accHeader)
		t.Log(s.row("defaults, " + cfgs[0].name))
		if s.falseBaseCases > 0 || pct(s.pathHits, s.cases) < 100 || pct(s.pLeafs, s.leaves) < 90 {
			t.Errorf("defaults regressed on the simulation:\n%s\n%s", accHeader, s.row("defaults"))
		}
		return
	}
	type variant struct {
		name string
		opts func(*Options)
	}
	variants := []variant{
		{"stats μ=50ms", func(o *Options) {}},
		{"stats μ=50ms, Benjamini–Hochberg", func(o *Options) { o.stats.correct = benjaminiHochberg }},
		{"stats μ=50ms, Welch (no prior)", func(o *Options) { o.stats.welch = true }},
		{"intersect μ=50ms", func(o *Options) { o.Aggregate = Intersect }},
		{"stats μ=20ms", func(o *Options) { o.MinDelta = Threshold{Value: 20e6} }},
		{"stats μ=100ms", func(o *Options) { o.MinDelta = Threshold{Value: 100e6} }},
		{"stats μ=1%", func(o *Options) { o.MinDelta = Threshold{Share: 0.01} }},
		{"stats μ=2%", func(o *Options) { o.MinDelta = Threshold{Share: 0.02} }},
		{"intersect μ=100ms", func(o *Options) { o.Aggregate = Intersect; o.MinDelta = Threshold{Value: 100e6} }},
		{"stats parcs μ=50ms", func(o *Options) { o.Match = PARCS }},
	}
	for _, c := range cfgs {
		fmt.Printf("\n%s, %d runs per side, %d programs\n%s\n", c.name, c.cfg.runs, *accCases, accHeader)
		for _, v := range variants {
			o := DefaultOptions()
			v.opts(&o)
			fmt.Println(simulate(t, c.cfg, *accCases, 7, o).row(v.name))
		}
	}
}

// benjaminiHochberg returns BH-adjusted p-values (q-values), the alternative
// to Holm the simulation compares.
func benjaminiHochberg(p []float64) []float64 {
	n := len(p)
	order := make([]int, n) // indexes by ascending p-value, stable
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(p[a], p[b]) })
	q := make([]float64, n)
	minQ := 1.0
	for r := n - 1; r >= 0; r-- {
		i := order[r]
		minQ = math.Min(minQ, p[i]*float64(n)/float64(r+1))
		q[i] = minQ
	}
	return q
}

var accRuns = flag.String("accuracy.runs", "", "with -accuracy.sweep: print the verdict table for these runs per side (e.g. 1,3,5,10) instead")

// verdictFamilies are the simulated case families (noise only, spread,
// deep, preempt, noisy GC), each a simulated
// setting whose runs per side the caller sets.
func verdictFamilies() []struct {
	name string
	cfg  simConfig
} {
	v8 := simConfig{period: 1e6, jitter: 0.05, extra: 0.3, nodes: 3000}
	with := func(f func(*simConfig)) simConfig { c := v8; f(&c); return c }
	return []struct {
		name string
		cfg  simConfig
	}{
		{"ZAM kinds (api, loop, check)", v8},
		{"spread: isStaleState in ≥8 contexts", with(func(c *simConfig) { c.kinds = []string{"spread"} })},
		{"deep: +160 ms self in an 18 s task", with(func(c *simConfig) { c.kinds = []string{"deep"}; c.longTask = true })},
		{"preempt: half under asyncPreempt", with(func(c *simConfig) { c.kinds = []string{"preempt"} })},
		{"noisy GC ±10%, baselines only", with(func(c *simConfig) { c.kinds = []string{}; c.gc = true })},
	}
}

// TestVerdictTable prints, with -accuracy.sweep -accuracy.runs 1,3,5,10,
// the defaults' scores per case family and runs per side.
func TestVerdictTable(t *testing.T) {
	if !*accSweep || *accRuns == "" {
		t.Skip("with -accuracy.sweep -accuracy.runs K,K,...")
	}
	for _, ks := range strings.Split(*accRuns, ",") {
		var k int
		fmt.Sscan(ks, &k)
		fmt.Printf("\n%d runs per side, %d programs\n%s\n", k, *accCases, accHeader)
		for i, f := range verdictFamilies() {
			if *accFamily >= 0 && i != *accFamily {
				continue
			}
			cfg := f.cfg
			cfg.runs = k
			fmt.Println(simulate(t, cfg, *accCases, 7, DefaultOptions()).row(f.name))
		}
	}
}

var accFamily = flag.Int("accuracy.family", -1, "with -accuracy.runs: only this family (index)")

// TestVerdicts holds the defaults to these bars on the simulation, per
// case family: with one run per side no cause on noise-only baselines; with
// three the spread, deep, preempt and noisy-GC families found (or quiet)
// as they should be; and ten runs find at least what three find (a rank
// test from eight runs found nothing). The corpus-based harness
// (tools/eval) measures the same on real profiles.
func TestVerdicts(t *testing.T) {
	long.Skip(t, "the simulation's case families at 1, 3 and 10 runs a side")
	const programs = 6
	fams := verdictFamilies()
	run := func(i, k int) *score {
		cfg := fams[i].cfg
		cfg.runs = k
		return simulate(t, cfg, programs, 11, DefaultOptions())
	}
	for i, f := range fams {
		s1, s3, s10 := run(i, 1), run(i, 3), run(i, 10)
		t.Logf("%s\n%s\n%s\n%s", accHeader, s1.row(f.name+" K=1"), s3.row(f.name+" K=3"), s10.row(f.name+" K=10"))
		if s1.falseBaseCases > 0 || s3.falseBaseCases > 0 || s10.falseBaseCases > 0 {
			t.Errorf("%s: false causes on baselines: K=1 %d, K=3 %d, K=10 %d", f.name, s1.falseBaseCases, s3.falseBaseCases, s10.falseBaseCases)
		}
		if s3.cases == 0 {
			continue
		}
		if r := pct(s3.nodeHits, s3.cases); r < 90 {
			t.Errorf("%s, K=3: node recall %.1f%%, want ≥ 90%%", f.name, r)
		}
		if r := pct(s3.pathHits, s3.cases); r < 100 {
			t.Errorf("%s, K=3: path recall %.1f%%, want 100%%", f.name, r)
		}
		if s10.nodeHits < s3.nodeHits || s10.pathHits < s3.pathHits {
			t.Errorf("%s: 10 runs found less than 3 (node %d < %d or path %d < %d)", f.name, s10.nodeHits, s3.nodeHits, s10.pathHits, s3.pathHits)
		}
	}
}
