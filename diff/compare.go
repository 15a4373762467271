package diff

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/ctdiff/ctdiff/cct"
)

// Compare compares base runs with new runs and returns what regressed. The
// trees should be built with the same options on both sides (ZAM pruning on:
// cct.Options{Prune: true}); several trees per side are runs of the same
// workload. Intersect mode pairs base[i] with new[i], so the caller orders
// the runs (ZAM pairs them by sorted file name). The trees are not modified.
//
// The steps (DESIGN.md, "diff"): every run is matched onto a union tree;
// the runs are matched pairwise (ZAM hybrid or PARCS relaxed matching); the
// critical graph is computed per pair and intersected (Intersect) or from
// per-node tests over all runs (Stats); then come PARCS's overlap, topology
// and weight matching, and IntroPerf's path ranking.
//
// Errors about the inputs and options that a caller may explain in its own
// terms are typed (errors.go): *UnpairedRunsError, *SampleTypeError,
// *MixedSampleTypesError, *NormalizeError, *MinDeltaError.
func Compare(base, nw []*cct.Tree, opts Options) (*Result, error) {
	if len(base) == 0 || len(nw) == 0 {
		return nil, fmt.Errorf("need at least one base and one new tree, got %d and %d", len(base), len(nw))
	}
	for i, t := range append(append([]*cct.Tree{}, base...), nw...) {
		if t == nil || len(t.Nodes) == 0 {
			return nil, fmt.Errorf("tree %d is empty (no root)", i+1)
		}
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if o.Metric.isZero() {
		if o.Metric, err = SampleMetric(o.SampleType, append(append([]*cct.Tree{}, base...), nw...)...); err != nil {
			return nil, err
		}
	} else if o.Metric.Total == nil || o.Metric.Self == nil {
		return nil, errors.New("metric " + o.Metric.Name + " lacks a Total or Self function")
	}
	// The plan fixes the unit of the normalized values, in which μ is
	// read; prepareBench, which needs the runs' count, checks the
	// benchmark outputs further below.
	nz, err := PlanNormalization(base, nw, o.Normalize, o.Metric.Unit, o.Bench != nil)
	if err != nil {
		return nil, err
	}
	if o.MinDeltaText != "" {
		if o.MinDelta, err = ParseThreshold(o.MinDeltaText, nz.Unit); err != nil {
			return nil, &MinDeltaError{Text: o.MinDeltaText, Unit: nz.Unit, Err: err}
		}
	}
	if o.Aggregate == Intersect && len(base) != len(nw) {
		return nil, &UnpairedRunsError{Base: len(base), New: len(nw)}
	}

	kt := newKeyTable(base, nw)
	runs := newRuns(append(append([]*cct.Tree{}, base...), nw...), len(base), kt, o.Metric)
	bRuns, nRuns := runs[:len(base):len(base)], runs[len(base):]
	if err := checkSideTotals("base", bRuns, o.Metric.Name); err != nil {
		return nil, err
	}
	if err := checkSideTotals("new", nRuns, o.Metric.Name); err != nil {
		return nil, err
	}
	var iters *benchIterations
	var verdict *BenchVerdict
	if o.Bench != nil {
		if iters, verdict, err = prepareBench(o.Bench, len(base), len(nw)); err != nil {
			return nil, err
		}
	}

	res := &Result{
		Metric: o.Metric.Name, Unit: nz.Unit,
		Aggregate: o.Aggregate, Match: o.Match, Alpha: o.Alpha,
		TreeNodes: len(base[0].Nodes) - 1,
		Warnings:  []string{},
	}
	if err := normalize(&nz, bRuns, nRuns, iters, res); err != nil {
		return nil, err
	}
	res.Normalization, res.Base, res.New = nz, side(bRuns), side(nRuns)
	th := o.MinDelta
	if th == (Threshold{}) {
		th = Threshold{Value: DefaultMinDelta}
		if res.Unit != "nanoseconds" || nz.Mode == NormalizePer || nz.Mode == NormalizeIteration {
			th = Threshold{Share: DefaultMinDeltaShare}
		}
	}
	res.MinDelta, res.MinDeltaSpec = th.resolve(meanTotal(bRuns)), th.String()
	if res.Base.Total <= 0 {
		res.warn("the base runs have no %s samples", o.Metric.Name)
	}

	// Three goroutines share the work. This one builds the union tree and
	// then the critical graph. The second matches the run pairs (with the
	// chosen algorithm) and does PARCS's strict and base-vs-base matchings,
	// which only read the runs and the key table, and once the union tree
	// is built, PARCS's numbers. The third waits for the union tree and
	// ranks paths and summarizes the Go runtime. All of them only read the
	// union tree once it is built, and the scheduler spreads the three
	// over the cores.
	renameMin := max(res.MinDelta/2, 1)
	pm := newMatcher(o.Match, o.LCS)
	pm.kt, pm.renameMin = kt, renameMin
	pairs := make([]pairResult, min(len(bRuns), len(nRuns)))
	u := newUnion()
	pairsDone, unionDone := make(chan struct{}), make(chan struct{})
	var after sync.WaitGroup
	var (
		overlap  Overlap
		topology Topology
		weights  WeightMatching
		ranked   []RankedPath
		goRT     *GoRuntime
	)
	for i := range pairs {
		pairs[i] = pairResult{a: bRuns[i], b: nRuns[i]}
	}
	// With one run per side, the union tree is the base run and matching
	// the new run onto it is matching the pair: the pair's matching is
	// read off the union (pairFromUnion) instead of being done again.
	fromUnion := len(bRuns) == 1 && len(nRuns) == 1
	after.Go(func() {
		if !fromUnion {
			for i := range pairs {
				pairs[i].baseOf = pm.matchTrees(bRuns[i], nRuns[i], o.Match)
			}
			close(pairsDone)
		}
		strictCommon, noise := parcsMatchings(pairs, bRuns, kt, renameMin, o)
		<-pairsDone
		<-unionDone
		overlap, topology, weights = parcs(pairs, strictCommon, noise, u, kt, o)
	})
	after.Go(func() {
		<-unionDone
		ranked = rankPaths(u, kt, o.Top)
		goRT = goRuntime(u, kt)
	})

	// The union tree: base runs first, so its order is the base's.
	um := newMatcher(o.Match, o.LCS)
	um.kt, um.renameMin = kt, renameMin
	for _, r := range append(append([]*run{}, bRuns...), nRuns...) {
		um.addRun(u, r, o.Match)
	}
	u.release()
	u.values(bRuns, nRuns, o.Aggregate == Stats)
	if fromUnion {
		pairs[0].baseOf = pairFromUnion(bRuns[0], nRuns[0])
		pm.counts = um.counts
		close(pairsDone)
	}
	close(unionDone)
	threadWarnings(res, u, kt)

	var g *graph
	var oneRun []int32
	untestedGraph := false
	switch o.Aggregate {
	case Intersect:
		<-pairsDone
		gs := make([]*graph, len(pairs))
		for i, p := range pairs {
			if nz.relaxesAncestors() {
				gs[i] = relaxedCriticalPair(p.a, p.b, p.baseOf, res.MinDelta)
			} else {
				gs[i] = criticalPair(p.a, p.b, p.baseOf, res.MinDelta)
			}
		}
		g = intersect(gs)
		res.Matchers = pm.counts
		if len(pairs) == 1 {
			untestedGraph = true
			res.warn("one run per side: nothing to intersect, so noise is not filtered and the nodes above μ are untested; record 2-4 runs per side (ZAM Section 6), or use --aggregate stats, which models one pair's noise")
		}
	default:
		var model noiseModel
		g, oneRun, model = statsGraph(u, kt, len(bRuns), res.MinDelta, o.Alpha, meanPeriod(runs), o.stats)
		res.Matchers = um.counts
		switch {
		case model == modelNone:
			untestedGraph = true
			if nz.relaxesAncestors() {
				g = relaxedThresholdGraph(u, kt, res.MinDelta)
			} else {
				g = thresholdGraph(u, kt, res.MinDelta)
			}
			res.warn("%d base and %d new runs, and too few calling contexts to model one run's noise: the nodes above μ are untested, not regressions; record 3 or more runs per side", len(bRuns), len(nRuns))
		case model == modelPair:
			res.warn("one run on a side: the tests model noise from how all calling contexts of this pair differ (sampling and run-to-run jitter by size), not from repeated runs; record 3 or more runs per side for a verdict that does not rest on that model")
		case model == modelSampling:
			res.warn("one run on a side and too few calling contexts to model its noise from the pair: the tests assume sampling noise (a node of N samples varies by √N) and up to %.0f%% run-to-run jitter; record 3 or more runs per side", 100*maxPairJitter)
		case min(len(bRuns), len(nRuns)) == 2:
			res.warn("2 runs per side give the significance test little power; 3 or more per side are recommended")
		}
	}
	var graphIDs []int32
	res.Graph, res.Causes, graphIDs = assemble(g, u, kt)
	res.Untested = untestedCauses(u, kt, oneRun)
	if untestedGraph {
		// Nothing was tested: the graph still says where time grew, but
		// its leaves are not causes.
		res.Untested, res.Causes = append(res.Causes, res.Untested...), []Cause{}
		for i := range res.Graph {
			res.Graph[i].Cause = false
		}
	}
	res.CriticalGraphNodes = len(res.Graph)
	if o.Tree {
		res.Tree = exportTree(u, kt, res.Graph, graphIDs)
	}

	after.Wait()
	res.Overlap, res.Topology, res.WeightMatching = overlap, topology, weights
	res.RankedPaths = ranked
	if verdict != nil {
		benchProfile(verdict, o.Bench, &nz, bRuns, nRuns, res)
		res.Benchmark = verdict
	}
	res.GoRuntime = goRT
	return res, nil
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

// parcsMatchings are PARCS's strict common-tree sizes of the run pairs,
// for comparison, and the base-vs-base overlaps of consecutive base runs,
// for the noise floor.
func parcsMatchings(pairs []pairResult, bRuns []*run, kt *keyTable, renameMin int64, o Options) (strictCommon []int, noise []float64) {
	sm := newMatcher(strict, o.LCS)
	strictCommon = make([]int, len(pairs))
	for i := range pairs { // pairs[i].baseOf may be being written
		strictCommon[i] = sm.strictCommon(pairs[i].a, pairs[i].b)
	}
	nm := newMatcher(o.Match, o.LCS)
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
// label missing on one side) rather than a regression.
func threadWarnings(res *Result, u *union, kt *keyTable) {
	var onlyBase, onlyNew []string
	both := 0
	for _, x := range u.children(0) {
		switch {
		case u.inNew[x] == 0:
			onlyBase = append(onlyBase, threadLabel(kt.frames[u.key[x]]))
		case u.inBase[x] == 0:
			onlyNew = append(onlyNew, threadLabel(kt.frames[u.key[x]]))
		default:
			both++
		}
	}
	if both == 0 && len(onlyBase) > 0 && len(onlyNew) > 0 {
		res.warn("no thread of the new runs matches a thread of the base runs (threads match by name and ordinal): base has %q, new has %q", onlyBase, onlyNew)
		return
	}
	for _, t := range onlyNew {
		res.warn("thread %q occurs only in the new runs", t)
	}
	for _, t := range onlyBase {
		res.warn("thread %q occurs only in the base runs", t)
	}
}

// untestedCauses describes union nodes a single run could not test
// (statsGraph) as Result.Untested entries, largest growth first. They are
// not in the graph: Node is -1.
func untestedCauses(u *union, kt *keyTable, xs []int32) []Cause {
	out := make([]Cause, 0, len(xs))
	for _, x := range xs {
		thread, path := u.describe(kt, x)
		c := Cause{Thread: thread, Path: path, Kind: Regressed, Base: round(u.meanBase[x]), New: round(u.meanNew[x]), Node: -1}
		if u.inBase[x] == 0 {
			c.Kind = Added
		}
		c.Delta = c.New - c.Base
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b Cause) int {
		if a.Delta != b.Delta {
			return cmp.Compare(b.Delta, a.Delta)
		}
		if c := compareStrings(a.Thread, b.Thread); c != 0 {
			return c
		}
		return comparePathFrames(a.Path, b.Path)
	})
	return out
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
