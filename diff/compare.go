package diff

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"github.com/ctdiff/ctdiff/cct"
)

// A comparison is what the stages of Compare share. prepareComparison fills it in
// order and is the only stage that can fail; the stages after it only read
// the runs and fill their own fields, on goroutines where they do not
// depend on each other (compare).
type comparison struct {
	o            Options
	kt           *keyTable
	runs         []*run
	bRuns, nRuns []*run
	nz           Normalization
	iters        *benchIterations
	verdict      *BenchVerdict
	res          *Result
	renameMin    int64
	agg          aggregator

	u  *union
	um *matcher // the matcher that built the union
	pm *matcher // the matcher of the run pairs
	st *stream  // the streamed Fold that built the union, if any
	// early is the union a 1+1 Fold started from the base run, if any.
	early *earlyUnion
}

// prepareComparison is the first stage after the runs are folded (Fold):
// it keys the runs, checks the sides' totals, applies the normalization nz
// (planned by Fold.prepare) and resolves μ. o is complete (withDefaults,
// the metric resolved, MinDelta in the unit of the normalized values).
//
// st, when not nil, is the streamed Fold that already keyed the runs and
// built the union (stream.go); the runs are then summaries. e, when not
// nil, is the union a 1+1 Fold started, with the base run keyed.
func prepareComparison(bRuns, nRuns []*run, o Options, nz Normalization, st *stream, e *earlyUnion) (*comparison, error) {
	c := &comparison{o: o, bRuns: bRuns, nRuns: nRuns, st: st, early: e}
	c.runs = append(append([]*run{}, bRuns...), nRuns...)
	// The runs are keyed beside the checks and the normalization, which
	// read and scale their values only: keying interns each run's frames
	// on one goroutine, while scaling keeps both cores busy (an
	// independent pair of 200k-stack Go profiles: keys 17-23 ms,
	// scaling 11-16 ms, one after the other before).
	var keyed sync.WaitGroup
	defer keyed.Wait()
	switch {
	case st != nil:
		c.kt = st.kt
	case e != nil:
		c.kt = e.kt
		keyed.Go(func() { e.finishKeys(bRuns[0], nRuns[0]) })
	default:
		keyed.Go(func() {
			c.kt = keyTableOf(bRuns, nRuns)
			for i, r := range c.runs {
				r.keys(c.kt, min(i/len(bRuns), 1))
			}
		})
	}
	if err := checkSideTotals("base", c.bRuns, o.Metric.Name); err != nil {
		return nil, err
	}
	if err := checkSideTotals("new", c.nRuns, o.Metric.Name); err != nil {
		return nil, err
	}
	var err error
	if o.Bench != nil {
		if c.iters, c.verdict, err = prepareBench(o.Bench, len(bRuns), len(nRuns)); err != nil {
			return nil, err
		}
	}

	res := &Result{
		Metric: o.Metric.Name, Unit: nz.Unit,
		Aggregate: o.Aggregate, Match: o.Match, Alpha: o.Alpha,
		TreeNodes: bRuns[0].nodes() - 1,
		Warnings:  []string{},
		Shared:    1,
	}
	if err := normalize(&nz, c.bRuns, c.nRuns, c.iters, res); err != nil {
		return nil, err
	}
	res.Normalization, res.Base, res.New = nz, side(c.bRuns), side(c.nRuns)
	res.MinDelta, res.MinDeltaSpec = minDeltaOf(o, &nz, c.bRuns)
	if res.Base.Total <= 0 {
		res.warn("the base runs have no %s samples", o.Metric.Name)
	}
	c.nz, c.res = nz, res
	c.renameMin = max(res.MinDelta/2, 1)
	c.agg = newAggregator(o.Aggregate, &c.nz)
	keyed.Wait()
	return c, nil
}

// minDeltaOf resolves μ (Options.MinDelta, else the default for the
// unit nz planned) on the base runs, normalized.
func minDeltaOf(o Options, nz *Normalization, base []*run) (int64, string) {
	th := o.MinDelta
	if th == (Threshold{}) {
		th = defaultThreshold(nz)
	}
	return th.resolve(meanTotal(base)), th.String()
}

// defaultThreshold is μ when none is given: DefaultMinDelta for times
// compared as times, DefaultMinDeltaShare of the base total otherwise.
func defaultThreshold(nz *Normalization) Threshold {
	if nz.Unit != "nanoseconds" || nz.Mode == NormalizePer || nz.Mode == NormalizeIteration {
		return Threshold{Share: DefaultMinDeltaShare}
	}
	return Threshold{Value: DefaultMinDelta}
}

// defaultMinDelta is the default μ resolved for a mean base total.
func defaultMinDelta(nz *Normalization, baseTotal float64) int64 {
	return defaultThreshold(nz).resolve(baseTotal)
}

// compare runs the stages after prepareComparison and assembles the result.
//
// The stages and what they need:
//
//   - union: every run matched onto the union tree (main goroutine);
//   - pairs: each run pair matched with the chosen algorithm (runs only,
//     or read off the union with one run per side: pairFromUnion);
//   - strict: PARCS's strict and base-vs-base matchings (runs only);
//   - critical graph: the aggregator's (union; Intersect also pairs);
//   - PARCS: overlap, topology, weight matching (union, pairs, strict);
//   - ranking: IntroPerf's paths and the Go runtime summary (union);
//   - assemble: the graph and causes as the result shows them.
//
// The stages that only read the runs start at once; the rest start when the
// union is built. Each stage's result is a sync.OnceValue: whoever needs it
// calls it, and waits until it is done, so no channel is closed by hand. One
// sync.WaitGroup holds the goroutines. None of these stages can fail (every
// error comes from prepareComparison), which is why it is not an errgroup: there is
// no error to collect and nothing to cancel.
func (c *comparison) compare() *Result {
	o, res := c.o, c.res
	var wg sync.WaitGroup
	// With one run per side, the union tree is the base run and matching
	// the new run onto it is matching the pair: the pair's matching is
	// read off the union (pairFromUnion) instead of being done again.
	fromUnion := len(c.bRuns) == 1 && len(c.nRuns) == 1
	pm := o.matcher()
	pm.kt, pm.renameMin = c.kt, c.renameMin
	c.pm = pm
	pairs := sync.OnceValue(func() []pairResult {
		ps := make([]pairResult, min(len(c.bRuns), len(c.nRuns)))
		for i := range ps {
			ps[i] = pairResult{a: c.bRuns[i], b: c.nRuns[i]}
			if fromUnion {
				ps[i].baseOf = pairFromUnion(c.bRuns[i], c.nRuns[i])
				pm.counts = c.um.counts
			} else {
				ps[i].baseOf = pm.matchTrees(c.bRuns[i], c.nRuns[i], o.Match)
			}
		}
		return ps
	})
	type strictResult struct {
		common []int
		noise  []float64
	}
	strict := sync.OnceValue(func() strictResult {
		common, noise := parcsMatchings(c.bRuns, c.nRuns, c.kt, c.renameMin, o)
		return strictResult{common, noise}
	})
	var (
		overlap  Overlap
		topology Topology
		weights  WeightMatching
		ranked   []RankedPath
		goRT     *GoRuntime
	)
	// Once every matching is made, Stats's critical graph reads the union
	// only: what is left to read of the runs is what parcs does
	// (benchProfile reads their frames and child lists; that pair: 67 MB
	// dropped before the comparison's peak).
	dropRuns := c.st == nil && c.agg.perRun() && c.verdict == nil
	drop := func() {
		for _, r := range c.runs {
			r.dropMatching()
		}
	}
	if c.st != nil {
		// The union, the pairs and PARCS's matchings were made as the
		// runs arrived: what is left is to normalize what they summed.
		c.u, c.um, c.pm = c.st.u, c.st.um, c.st.pm
		c.st.finish(c)
		overlap, topology, weights = c.st.parcs(c)
	} else {
		if !fromUnion {
			wg.Go(func() { pairs() })
		}
		wg.Go(func() { strict() })
		var beforeValues func()
		if dropRuns && fromUnion {
			// One run a side: the pair is read off the union and
			// the strict matching (on another goroutine) takes a
			// fraction of the union's time, so the runs' matching
			// arrays go before the values are made, which then take
			// their memory rather than add to it.
			beforeValues = func() {
				strict()
				pairs()
				drop()
				if c.u.len() >= gcUnionMin {
					// What the runs dropped and the union's
					// growth left (that pair: 130 MB) is taken
					// by the values only once collected; at
					// the comparison's GOGC the values came
					// first, in fresh pages. That pair, 5 runs:
					// peak RSS 330-355 MB without, 305-327
					// with, for no more CPU.
					runtime.GC()
				}
			}
		}
		c.buildUnion(beforeValues)
		if dropRuns && fromUnion {
			c.u.dropUnionCopies(c.bRuns[0], c.nRuns[0])
		}
	}
	threadWarnings(res, c.u, c.kt)

	if c.st == nil {
		wg.Go(func() {
			s, ps := strict(), pairs()
			if dropRuns && !fromUnion {
				drop()
			}
			overlap, topology, weights = parcs(ps, s.common, s.noise, c.u, c.kt, o)
		})
	}
	wg.Go(func() {
		ranked = rankPaths(c.u, c.kt, o.Top)
		goRT = goRuntime(c.u, c.kt)
	})

	cg := c.agg.criticalGraph(c, pairs)
	var graphIDs []int32
	res.Graph, res.Causes, graphIDs = assemble(cg.g, c.u, c.kt)
	var untestedIDs []int32
	res.Untested, untestedIDs = untestedCauses(c.u, c.kt, cg.oneRun)
	own := ownership{rules: o.Code, eco: keyEcosystem(c.kt)}
	b := newBlamer(c.u, c.kt, own)
	blameAll := func(cs []Cause, ids []int32) {
		nodes := make([]int32, len(cs))
		for i := range cs {
			cs[i].Blame, nodes[i] = b.blame(ids[i], cs[i].Thread)
		}
		orderByBlame(cs, nodes, c.u, 1)
	}
	causeIDs := make([]int32, len(res.Causes))
	for i, cs := range res.Causes {
		causeIDs[i] = graphIDs[cs.Node]
	}
	blameAll(res.Causes, causeIDs)
	blameAll(res.Untested, untestedIDs)
	res.Improvements = improvements(cg, c.kt, own)
	if cg.untested {
		// Nothing was tested: the graph still says where time grew, but
		// its leaves are not causes.
		res.Untested, res.Causes = append(res.Causes, res.Untested...), []Cause{}
		for i := range res.Graph {
			res.Graph[i].Cause = false
		}
	}
	res.CriticalGraphNodes = len(res.Graph)
	if o.Functions != nil {
		res.Functions = functionTable(c.u, c.kt, len(c.bRuns), res.MinDelta, o.Alpha, res.Base.Total, cg.g.noise, *o.Functions)
	}
	if o.Tree {
		res.Tree = exportTree(c.u, c.kt, res.Graph, graphIDs)
	}

	wg.Wait()
	res.Overlap, res.Topology, res.WeightMatching = overlap, topology, weights
	sideWarnings(res, c.u, c.kt)
	res.RankedPaths = ranked
	if c.verdict != nil {
		benchProfile(c.verdict, o.Bench, &c.nz, c.bRuns, c.nRuns, res)
		res.Benchmark = c.verdict
	}
	res.GoRuntime = goRT
	res.Outcome = decide(res, cg.g.noise.prior(), meanPeriod(c.runs), c.bRuns, c.nRuns)
	if res.Outcome.Swapped {
		res.warn("every new run was recorded before every base run: if the sides are swapped (base first, then new), the improvements are regressions and the regressions improvements")
	}
	return res
}

// buildUnion is the union stage: the runs matched onto the union tree, base
// runs first, so that its order is the base's, and their values gathered
// per node as the aggregator needs them. beforeValues, when not nil, is
// called between the two.
func (c *comparison) buildUnion(beforeValues func()) {
	c.u = newUnion()
	c.um = c.o.matcher()
	c.um.kt, c.um.renameMin = c.kt, c.renameMin
	runs := c.runs
	if c.early != nil {
		// The base run is copied already: the new run is matched next.
		c.u, runs = c.early.finishUnion(c.bRuns[0]), c.runs[1:]
	}
	for i, r := range runs {
		c.u.last = i == len(runs)-1
		c.um.addRun(c.u, r, c.o.Match)
	}
	c.u.release()
	c.u.kidKeys = nil // read by matching only
	if beforeValues != nil {
		beforeValues()
	}
	c.u.values(c.bRuns, c.nRuns, c.agg.perRun())
}

// A criticalGraph is what an aggregator makes of the comparison: the graph,
// the nodes a single run could not test, and whether the graph is untested
// as a whole (its leaves are then not causes).
type criticalGraph struct {
	g        *graph
	oneRun   []int32
	untested bool
	// improved is the critical graph of the mirrored union (the sides
	// swapped): the improvements; nil when none were looked for.
	improved *graph
	mirror   *union
}

// An aggregator is the way a critical graph is made from the runs, chosen
// once per comparison (newAggregator) from --aggregate and whether the
// normalization lifts Algorithm 2's condition on ancestors.
type aggregator interface {
	// perRun reports whether the union keeps every run's value per node.
	perRun() bool
	// criticalGraph makes the graph once the union is built; pairs waits
	// for the run pairs' matchings, which only Intersect reads. It may add
	// warnings and sets Result.Matchers.
	criticalGraph(c *comparison, pairs func() []pairResult) criticalGraph
}

func newAggregator(a Aggregate, nz *Normalization) aggregator {
	relaxed := nz.relaxesAncestors()
	if a == Intersect {
		if relaxed {
			return intersectAggregator{relaxedCriticalPair}
		}
		return intersectAggregator{criticalPair}
	}
	if relaxed {
		return statsAggregator{relaxedThresholdGraph}
	}
	return statsAggregator{thresholdGraph}
}

// intersectAggregator is ZAM's: one critical graph per run pair (pair, with
// or without the condition on ancestors), intersected.
type intersectAggregator struct {
	pair func(a, b *run, baseOf []int32, mu int64) *graph
}

func (intersectAggregator) perRun() bool { return false }

func (ia intersectAggregator) criticalGraph(c *comparison, pairs func() []pairResult) criticalGraph {
	ps := pairs()
	gs := make([]*graph, len(ps))
	for i, p := range ps {
		gs[i] = ia.pair(p.a, p.b, p.baseOf, c.res.MinDelta)
	}
	cg := criticalGraph{g: dropBareContexts(intersect(gs), c.u.parent)}
	if len(ps) == 1 {
		cg.untested = true
		c.res.warn("one run per side: nothing to intersect, so noise is not filtered and the nodes above μ are untested; record 2-4 runs per side (ZAM Section 6), or use --aggregate stats, which models one pair's noise")
	}
	c.res.Matchers = c.pm.counts
	return cg
}

// statsAggregator tests every node over all runs (statsGraph); where no
// noise model can be fitted it falls back to threshold, Algorithm 2 on the
// means, untested.
type statsAggregator struct {
	threshold func(u *union, kt *keyTable, mu int64) *graph
}

func (statsAggregator) perRun() bool { return true }

func (sa statsAggregator) criticalGraph(c *comparison, _ func() []pairResult) criticalGraph {
	res, nb, nn := c.res, len(c.bRuns), len(c.nRuns)
	st := c.o.stats
	if def := defaultMinDelta(&c.nz, float64(res.Base.Total)); def > res.MinDelta {
		st.ladderTop = float64(def)
	}
	switch keyEcosystem(c.kt) {
	case Go, Java, Native:
		st.exactStacks = true
	}
	in := statsInput{u: c.u, kt: c.kt, nBase: nb, mu: res.MinDelta, alpha: c.o.Alpha, period: meanPeriod(c.runs), st: st}
	g, oneRun, model := statsGraph(in)
	cg := criticalGraph{g: g, oneRun: oneRun}
	if model != modelNone {
		// The improvements: the same tests with the sides swapped, a
		// family of their own (Result.Improvements).
		cg.mirror = c.u.mirrored(nb)
		in.u, in.nBase, in.st.fitted = cg.mirror, nn, g.fitted
		cg.improved, _, _ = statsGraph(in)
	}
	res.Matchers = c.um.counts
	switch {
	case model == modelNone:
		cg.untested = true
		cg.g = sa.threshold(c.u, c.kt, res.MinDelta)
		res.warn("%d base and %d new runs, and too few calling contexts to model one run's noise: the nodes above μ are untested, not regressions; record 3 or more runs per side", nb, nn)
	case model == modelPair && g.pairJitter >= 1.5*maxPairJitter:
		// What the cap costs, measured: one run a side of
		// runs 10-25% apart gave false causes in 12-40% of null
		// comparisons, where the cap keeps a regression under the main
		// loop from reading as noise (maxPairJitter). Said from half as
		// much again: a fit reads 10-11% on runs 5% apart.
		res.warn("one run on a side, and its calling contexts differ as if the runs varied by %.0f%% (a large node's coefficient of variation), where the tests assume at most %.0f%%: either a change reached most of the profile or these runs are noisier than a build's runs usually are, and then causes may be noise; record 3 or more runs per side", 100*g.pairJitter, 100*maxPairJitter)
	case model == modelPair:
		res.warn("one run on a side: the tests model noise from how all calling contexts of this pair differ (sampling and run-to-run jitter by size), not from repeated runs; record 3 or more runs per side for a verdict that does not rest on that model")
	case model == modelSampling:
		res.warn("one run on a side and too few calling contexts to model its noise from the pair: the tests assume sampling noise (a node of N samples varies by √N) and up to %.0f%% run-to-run jitter; record 3 or more runs per side", 100*maxPairJitter)
	case min(nb, nn) == 2:
		res.warn("2 runs per side give the significance test little power; 3 or more per side are recommended")
	}
	return cg
}

// pairFromUnion returns, per node of the new run, its match in the base run
// or -1, when the union tree was built from the base run alone and then
// the new run: a new node matches the base node its union node came from.
// addRun matches the new run against the union's child lists, which are
// the base run's, as matchTrees matches it against the base run's. The
// union is a copy of the base run (copyRun): base node i is union node i,
// and union nodes from i = len(base) on came from the new run.
func pairFromUnion(base, nw *run) []int32 {
	nBase := int32(len(base.toU))
	baseOf := make([]int32, len(nw.toU))
	for nn, x := range nw.toU {
		if x >= nBase {
			x = -1
		}
		baseOf[nn] = x
	}
	return baseOf
}

// parcsMatchings are PARCS's strict common-tree sizes of the run pairs
// (bRuns[i], nRuns[i]), for comparison, and the base-vs-base overlaps of
// consecutive base runs, for the noise floor.
func parcsMatchings(bRuns, nRuns []*run, kt *keyTable, renameMin int64, o Options) (strictCommon []int, noise []float64) {
	sm := newMatcher(strict, o.LCS)
	strictCommon = make([]int, min(len(bRuns), len(nRuns)))
	for i := range strictCommon {
		strictCommon[i] = sm.strictCommon(bRuns[i], nRuns[i])
	}
	nm := o.matcher()
	nm.kt, nm.renameMin = kt, renameMin
	for i := 0; i+1 < len(bRuns); i++ {
		a, b := bRuns[i], bRuns[i+1]
		ov, _ := overlapOf(pweightsOf(a), pweightsOf(b), nm.matchTrees(a, b, o.Match))
		noise = append(noise, ov)
	}
	return strictCommon, noise
}

func (r *Result) warn(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

func side(runs []*run) Side {
	s := Side{Profiles: []string{}, Runs: len(runs), Totals: make([]int64, len(runs))}
	for i, r := range runs {
		s.Totals[i] = r.total[0]
	}
	s.Total = exactMeanTotal(runs)
	idle := 0.0
	for _, r := range runs {
		for _, c := range r.idle {
			idle += float64(r.total[c])
		}
	}
	s.Idle = round(idle / float64(len(runs)))
	return s
}

// checkSideTotals refuses runs whose totals add up to more than an int64
// holds, in exact integer arithmetic: sums over the runs (weights, means)
// are then exact, where wrapped around they turned 2^63-1 ns into a
// regression of -2^63 ns.
func checkSideTotals(name string, runs []*run, metric string) error {
	var sum int64
	for _, r := range runs {
		s := sum + r.total[cct.RootID]
		if (r.total[cct.RootID] >= 0) != (s >= sum) {
			return fmt.Errorf("the %s totals of the %d %s runs add up to more than %d, which ctdiff cannot compare", metric, len(runs), name, int64(math.MaxInt64))
		}
		sum = s
	}
	return nil
}

// exactMeanTotal is meanTotal rounded half away from zero, in integers (a
// float64 rounds totals near 2^63); checkSideTotals bounds the sum.
func exactMeanTotal(runs []*run) int64 {
	var sum int64
	for _, r := range runs {
		sum += r.total[cct.RootID]
	}
	n := int64(len(runs))
	q, rem := sum/n, sum%n
	if 2*rem >= n {
		q++
	} else if 2*rem <= -n {
		q--
	}
	return q
}

func meanTotal(runs []*run) float64 {
	sum := 0.0
	for _, r := range runs {
		sum += float64(r.total[0])
	}
	return sum / float64(len(runs))
}

// threadWarnings reports threads present on one side only: their whole time
// becomes a topology change, which is usually a naming problem (a thread
// label missing on one side) rather than a regression, or a thread pool
// of another size (8 workers before, 16 after, the same work:
// the 8 new threads' contexts were added causes). The threads of a pool
// (names equal but for numbers, digitless) are reported as one pool.
func threadWarnings(res *Result, u *union, kt *keyTable) {
	var onlyBase, onlyNew []int32
	both := 0
	type pool struct{ base, nw int }
	pools := map[string]*pool{}
	poolOf := func(x int32) *pool {
		kf := kt.frames[u.key[x]]
		name := kf.Process + "\x00" + digitless(kf.Thread)
		p := pools[name]
		if p == nil {
			p = &pool{}
			pools[name] = p
		}
		return p
	}
	for _, x := range u.children(0) {
		p := poolOf(x)
		switch {
		case u.newRuns(x) == 0:
			onlyBase = append(onlyBase, x)
			p.base++
		case u.baseRuns(x) == 0:
			onlyNew = append(onlyNew, x)
			p.nw++
		default:
			both++
			p.base++
			p.nw++
		}
	}
	label := func(x int32) string { return threadLabel(kt.frames[u.key[x]]) }
	labels := func(xs []int32) []string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = label(x)
		}
		return out
	}
	if both == 0 && len(onlyBase) > 0 && len(onlyNew) > 0 {
		res.warn("no thread of the new runs matches a thread of the base runs (threads match by name and ordinal): base has %q, new has %q", labels(onlyBase), labels(onlyNew))
		return
	}
	// A pool with threads on both sides and threads on one only was
	// resized: one warning for it, naming its first thread so alone.
	resized := func(x int32) *pool {
		if p := poolOf(x); p.base > 0 && p.nw > 0 && p.base != p.nw {
			return p
		}
		return nil
	}
	warned := map[*pool]bool{}
	for _, xs := range [][]int32{onlyNew, onlyBase} {
		for _, x := range xs {
			p := resized(x)
			switch {
			case p != nil && !warned[p]:
				warned[p] = true
				desc := fmt.Sprintf("the thread pool of %q has %d threads in the base runs and %d in the new", label(x), p.base, p.nw)
				res.ResizedPools = append(res.ResizedPools, desc)
				res.ResizedPoolNames = append(res.ResizedPoolNames, digitless(kt.frames[u.key[x]].Thread))
				res.warn("%s: the contexts of the threads one side lacks read as added or removed, and the others' as improved or regressed, though the pool's work may be the same; --pools compares each pool as one thread", desc)
			case p != nil:
			case u.baseRuns(x) == 0:
				res.warn("thread %q occurs only in the new runs", label(x))
			default:
				res.warn("thread %q occurs only in the base runs", label(x))
			}
		}
	}
}

// untestedCauses describes union nodes a single run could not test
// (statsGraph) as Result.Untested entries, largest growth first, with
// their union nodes. They are not in the graph: Node is -1.
func untestedCauses(u *union, kt *keyTable, xs []int32) ([]Cause, []int32) {
	out := make([]Cause, 0, len(xs))
	for _, x := range xs {
		thread, path := u.describe(kt, x)
		c := Cause{Thread: thread, Path: path, Kind: Regressed, Base: round(u.meanBase[x]), New: round(u.meanNew[x]), Node: -1}
		if u.baseRuns(x) == 0 {
			c.Kind = Added
		}
		c.Delta = c.New - c.Base
		out = append(out, c)
	}
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		a, b := &out[i], &out[j]
		if a.Delta != b.Delta {
			return cmp.Compare(b.Delta, a.Delta)
		}
		if c := compareStrings(a.Thread, b.Thread); c != 0 {
			return c
		}
		return comparePathFrames(a.Path, b.Path)
	})
	causes, ids := make([]Cause, len(out)), make([]int32, len(out))
	for i, j := range order {
		causes[i], ids[i] = out[j], xs[j]
	}
	return causes, ids
}

// maxEcosystemVotes bounds the frames keyEcosystem looks at: an even
// sample of a large comparison's functions says as much as all of them.
const maxEcosystemVotes = 4096

// keyEcosystem is the ecosystem most of a comparison's functions look
// like (MostFrames).
func keyEcosystem(kt *keyTable) Ecosystem {
	n := len(kt.frames)
	step := max(1, n/maxEcosystemVotes)
	return MostFrames(func(yield func(Frame) bool) {
		for i := 0; i < n; i += step {
			if kf := kt.frames[i]; kf.Kind == cct.KindFunction && !yield(kf.frame()) {
				return
			}
		}
	})
}

// runRecordings returns the recording duration (0 when unknown) and raw
// total of each base and new run.
func runRecordings(base, nw []*run) recordings {
	var rec recordings
	for side, runs := range [2][]*run{base, nw} {
		for _, r := range runs {
			rec.durations[side] = append(rec.durations[side], r.info.durationNanos)
			rec.totals[side] = append(rec.totals[side], r.total[0])
		}
	}
	return rec
}

// cpuRuns reports whether every run samples CPU time (cpuTime).
func cpuRuns(runs []*run) bool {
	for _, r := range runs {
		if !cpuSampled(r.info.periodType, r.info.sampleTypes) {
			return false
		}
	}
	return true
}

// meanPeriod is the runs' mean value per sample, 0 when any run has none.
func meanPeriod(runs []*run) float64 {
	sum := 0.0
	for _, r := range runs {
		if r.period <= 0 {
			return 0
		}
		sum += r.period
	}
	return sum / float64(len(runs))
}

// gcUnionMin is the least node count of a union whose comparison collects
// the dropped arrays before the values are made (compare).
const gcUnionMin = 1 << 20
