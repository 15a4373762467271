package diff

import (
	"slices"

	"github.com/ctdiff/ctdiff/diff/stats"
)

// statsInput is what statsGraph tests: the union of a comparison's runs,
// the first nBase of them the base's, at threshold mu and level alpha.
type statsInput struct {
	u      *union
	kt     *keyTable
	nBase  int
	mu     int64
	alpha  float64
	period float64 // the runs' mean value per sample, 0 when unknown
	st     statsChoices
}

// statsGraph is Stats mode's critical graph over the union tree.
//
// Every node is a hypothesis "new > base" on its inclusive value, one value
// per run (0 for runs without the node), tested with test (moderated t with
// the variance prior fitted here, Welch's t where none could be fitted).
// Only nodes that could be kept are tested: those whose values summed over
// all runs reach μ × (new runs), a necessary condition for a mean delta of
// μ. That filter uses the pooled sum, which does not favour large deltas, so
// it keeps the tests valid (independent filtering, Bourgon et al. 2010)
// while sparing the correction thousands of nodes too small to matter.
// p-values are corrected with stats.TreeHolm: Holm's method, with the level a
// rejected node held passed to its callees rather than to every node
// (family-wise error control as Holm's; see stats.Holm for why not BH).
//
// A node is kept when its mean delta is ≥ μ and its adjusted p-value ≤ α;
// the graph is the kept nodes plus their ancestors ("context" nodes unless
// kept themselves), and its leaves are the causes. Departures from ZAM's
// Definition 2, all for noisy, sampled profiles (each measured on the
// simulated families of TestVerdicts):
//
//   - Ancestors need not pass the test themselves (condition 2). An
//     ancestor's value also carries the noise of all its other descendants,
//     so with few runs a large caller's delta is rarely significant even when
//     one callee regressed clearly; requiring every ancestor to pass
//     multiplies those misses along the path. A significant descendant is
//     evidence enough that its context regressed.
//   - A node's own (self) value is tested too, beside its inclusive value:
//     +160 ms of self time in a frame of an 18 s task is lost when only the
//     frame's inclusive value, which carries the noise of the whole task
//     below it, is tested.
//   - One function's growth spread over many calling contexts, each below μ,
//     is tested as one hypothesis on the function's summed value (spread.go),
//     ZAM's main limitation (Sections 5 and 6.1).
//   - Runtime artifacts (artifact.go) are folded into their callers.
//   - A node missing from every base run ("added") is explored like any
//     other, where Algorithm 2 stops at it. In sampled profiles "absent from
//     the base" mostly means "too small to be sampled", and the injected
//     callee below it is the cause; a new function that does the work itself
//     stays the cause, since none of its callees reaches μ.
//
// With one run on a side there is no run-to-run variance of any node to
// test against. The prior then comes from the pair itself: for each node
// the difference of its two values, squared and halved, estimates its
// variance with one degree of freedom if it did not regress, and since
// nearly all nodes of a comparison did not, the trend fitted on them all is
// this pair's noise — sampling and run-to-run jitter together — as a
// function of size. A within-run bootstrap would see sampling noise but not
// a run that is 5% slower throughout, which is what makes one-run diffs
// call noise a regression. model is modelNone when no prior could be fitted with a
// single run on a side and no sampling period to fall back on
// (stats.SamplingPrior): nothing can be tested (modelNone), and the caller
// reports the nodes above μ as untested.
//
// The stages, each a function below: classify the nodes (markUntested)
// while the spread groups are found on another core, fit the prior, choose
// the family and test it, correct it with tree-Holm (and the ladder's
// thresholds below the default μ), and assemble the graph from what
// passed. Improvements are the same stages on the mirrored union.
func statsGraph(in statsInput) (g *graph, oneRun []int32, model noiseModel) {
	s := classify(in)
	// The spread groups' walk of the tree (a fifth of statsGraph's CPU)
	// reads nothing the prior fit and the family below write: on another
	// core meanwhile.
	spread := make(chan spreadOut, 1)
	go func() {
		groups, topmost := spreadGroups(in.u, in.kt, s.skip, in.nBase, s.m)
		spread <- spreadOut{groups, topmost}
	}()
	if !s.choosePrior() {
		<-spread
		return nil, nil, modelNone
	}
	s.chooseFamily()
	s.collectorTime()
	s.testMembers()
	s.testGroups(<-spread)
	s.correct()
	s.climbLadder()
	return s.assemble(), untestedAbove(in.u, s.oneRun, s.m), s.model
}

// spreadOut is what spreadGroups returns.
type spreadOut struct {
	groups  []spreadGroup
	topmost []bool
}

// A statsPass is statsGraph's state from stage to stage.
type statsPass struct {
	statsInput
	n, runs, nNew int
	m             float64 // μ
	class         []uint8 // keyClasses
	skip          []bool  // markUntested's
	oneRun        []int32
	self          foldedSelf
	// pr is the prior the tests read, fitted the one fitted on this
	// union (nil when none was), model where pr came from.
	pr, fitted *stats.Prior
	model      noiseModel
	// gc is per node the mean time of the collector frames in its
	// subtree, nil when there are none (collectorTime).
	gc []float64
	// The family: members (hypotheses on nodes), then the spread
	// groups. testOf and selfOf map a node to 1 + its hypotheses' index
	// in the family, 0 when untested.
	members        []hyp
	testOf, selfOf []int32
	groups         []spreadGroup
	topmost        []bool
	// The family's tests (testMembers, testGroups): p-values, names,
	// whether each p-value is exact (nil: all are), stats.TreeHolm's forest
	// and sizes (nil with st.correct); qs the adjusted p-values, lp the
	// ladder's.
	ps        []float64
	names     []stats.Method
	exact     []bool
	famParent []int32
	famSize   []float64
	qs        []float64
	lp        *ladderPass
}

// classify marks the nodes no test is made for (markUntested).
func classify(in statsInput) *statsPass {
	s := &statsPass{statsInput: in, n: in.u.len(), runs: in.u.runs, m: float64(in.mu)}
	s.nNew = s.runs - in.nBase
	s.class = keyClasses(in.kt)
	oneSide := min(in.nBase, s.nNew) == 1
	s.skip, s.oneRun, s.self = markUntested(in.u, s.class, oneSide, in.st.exactStacks, s.m)
	return s
}

// choosePrior fits the prior the tests read, or takes the one given, and
// says where the noise model comes from; false when there is none (a
// single run on a side, and no sampling period to fall back on).
func (s *statsPass) choosePrior() bool {
	switch {
	case s.st.fitted != nil:
		s.pr = s.st.fitted
	case !s.st.welch:
		s.pr = fitNodePrior(s.u, s.nBase, s.m, s.period)
	}
	s.fitted = s.pr
	s.model = modelRuns
	if min(s.nBase, s.nNew) < 2 {
		s.model = modelPair
		if s.pr == nil {
			if s.pr = stats.SamplingPrior(s.period, maxPairJitter); s.pr == nil {
				s.model = modelNone
				return false
			}
			s.model = modelSampling
		}
	}
	return true
}

// chooseFamily makes the family's members: every hypothesis tested, in
// node order, inclusive before self (the functions' sums follow them,
// testGroups).
func (s *statsPass) chooseFamily() {
	u := s.u
	// Room for an eighth of the nodes, doubled when full: a large
	// comparison tests most nodes (1.6 M-stack pair: 5.4 M of 7.6 M;
	// append's growth by a quarter copied the slice a dozen times, 233 MB
	// allocated for 43), an independent pair few (a pair of 200k-stack Go
	// profiles: 258 of 2.5 M, where room for every node was 10 MB, live at
	// the comparison's peak).
	s.members = make([]hyp, 0, s.n/8+1)
	s.testOf = make([]int32, s.n)
	s.selfOf = make([]int32, s.n)
	selfRow := make([]float64, s.runs)
	for x := int32(1); int(x) < s.n; x++ {
		if s.skip[x] {
			continue
		}
		if sum := u.meanBase[x]*float64(s.nBase) + u.meanNew[x]*float64(s.nNew); sum >= s.m*float64(s.nNew) {
			s.members = appendDoubling(s.members, hyp(x))
			s.testOf[x] = int32(len(s.members))
		}
		// A leaf's self value is its inclusive value: tested once. So is
		// a thread's, which is no function's own time.
		if u.depth[x] < 2 || u.kidLen[x] == 0 {
			continue
		}
		if s.self.sum(x, selfRow) >= s.m*float64(s.nNew) {
			s.members = appendDoubling(s.members, selfHyp(x))
			s.selfOf[x] = int32(len(s.members))
		}
	}
}

// collectorTime sets s.gc: a node's runs vary at least as much as the
// collector time it holds (collectorCV), and the nodes with any get a
// prior with that floor (prOf).
func (s *statsPass) collectorTime() {
	u := s.u
	for x := int32(s.n - 1); x >= 1; x-- {
		if s.class[u.key[x]]&classCollector != 0 {
			if s.gc == nil {
				s.gc = make([]float64, s.n)
			}
			s.gc[x] = (u.meanBase[x]*float64(s.nBase) + u.meanNew[x]*float64(s.nNew)) / float64(s.runs)
		}
		if s.gc != nil && s.gc[x] > 0 {
			s.gc[u.parent[x]] += s.gc[x]
		}
	}
}

// prOf is the prior node x is tested with: pr, floored by the collector
// time x holds.
func (s *statsPass) prOf(x int32) *stats.Prior {
	if s.pr == nil || s.gc == nil || s.gc[x] == 0 {
		return s.pr
	}
	return s.pr.WithFloor(collectorCV * collectorCV * s.gc[x] * s.gc[x])
}

// groupPrior is the prior a spread group is tested with: a group's sum
// varies at least as much as the collector time its contexts hold, as a
// node's does: a collector's contexts are no steadier for being summed
// (without this rule the contexts of (garbage collector) in a browser's
// threads formed a group).
func (s *statsPass) groupPrior(gr *spreadGroup) *stats.Prior {
	if s.pr == nil || s.gc == nil {
		return s.pr
	}
	var held float64
	for _, x := range gr.nodes {
		held += s.gc[x]
	}
	if held == 0 {
		return s.pr
	}
	return s.pr.WithFloor(collectorCV * collectorCV * held * held)
}

// rowOf reads member i's values into row.
func (s *statsPass) rowOf(row []float64, i int) []float64 {
	if h := s.members[i]; h.self() {
		return s.self.row(h.node(), row)
	}
	return s.u.totalRow(s.members[i].node(), row)
}

// testMembers tests the family's members.
//
// The family's tests are held as their p-values (ps) and names, not
// as Tests: a 1.6 M-stack pair tests 5.4 M hypotheses, whose 64-byte
// Tests took 342 MB to make, clear and fill, where the graph reports
// a few thousand (made once the graph is known, makeTests).
//
// The spread groups come last in the family and are tested last: the
// members' tests, most of statsGraph's CPU, run while the spread walk
// finishes (1.6 M-stack pair: that wait was 0.3 s, a core idle). So
// the family's arrays have room for the most groups there can be.
func (s *statsPass) testMembers() {
	nMembers := len(s.members)
	room := nMembers + maxSpreadCandidates
	s.ps = make([]float64, nMembers, room)
	s.names = make([]stats.Method, nMembers, room)
	// With stats.TreeHolm, a p-value surely ≥ c is left at c until the
	// correction or the graph needs it (stats.TreeHolmBounded): a million tests
	// mostly end at adjusted p 1. exact is nil when every p is exact.
	if s.st.correct == nil {
		s.exact = make([]bool, nMembers, room)
	}
	// c is lazyShare over the largest family there can be, at most the
	// family's own: any bound is exact in the end (stats.TreeHolmBounded), a
	// lower one leaves fewer p-values lazy.
	c := lazyShare / float64(room)
	// stats.TreeHolm's forest of the family (familyParent), and each
	// hypothesis's size, are made in the same pass as the tests, from
	// the rows the tests read: a pass of their own read every row again
	// (1.6 M-stack pair: 0.15 s of CPU).
	if s.st.correct == nil {
		s.famParent, s.famSize = make([]int32, nMembers, room), make([]float64, nMembers, room)
	}
	parallel(nMembers, func(from, to int) { s.testRange(from, to, c) })
}

// testRange tests members from to to, leaving p-values surely ≥ c at c
// where exact is kept.
func (s *statsPass) testRange(from, to int, c float64) {
	row := make([]float64, s.runs)
	b := stats.NewBound(c)
	for i := from; i < to; i++ {
		s.rowOf(row, i)
		if s.famParent != nil {
			s.famSize[i] = floatSum(row)
			s.famParent[i] = familyParent(s.u, s.members[i], s.testOf)
		}
		x := s.members[i].node()
		var r stats.Result
		if s.exact == nil {
			r = stats.Greater(row[:s.nBase], row[s.nBase:], s.prOf(x))
		} else {
			r, s.exact[i] = b.Greater(row[:s.nBase], row[s.nBase:], s.prOf(x))
		}
		s.ps[i], s.names[i] = r.P, r.Method
	}
}

// testGroups adds the spread groups to the family, roots of stats.TreeHolm's
// forest, and tests them.
func (s *statsPass) testGroups(sp spreadOut) {
	s.groups, s.topmost = sp.groups, sp.topmost
	nMembers := len(s.members)
	nFamily := nMembers + len(s.groups)
	s.ps, s.names = s.ps[:nFamily], s.names[:nFamily]
	if s.exact != nil {
		s.exact = s.exact[:nFamily]
	}
	if s.famParent != nil {
		s.famParent, s.famSize = s.famParent[:nFamily], s.famSize[:nFamily]
		for i := nMembers; i < nFamily; i++ {
			s.famParent[i] = -1
		}
	}
	for i := range s.groups {
		gr := &s.groups[i]
		r := stats.Greater(gr.sums[:s.nBase], gr.sums[s.nBase:], s.groupPrior(gr))
		s.ps[nMembers+i], s.names[nMembers+i] = r.P, r.Method
		gr.test = int32(nMembers + i + 1)
		if s.exact != nil {
			s.exact[nMembers+i] = true
		}
	}
}

// finish makes hypothesis i's p-value exact.
func (s *statsPass) finish(i int) {
	if s.exact == nil || s.exact[i] {
		return
	}
	row := s.rowOf(make([]float64, s.runs), i)
	s.ps[i] = stats.Greater(row[:s.nBase], row[s.nBase:], s.prOf(s.members[i].node())).P
	s.exact[i] = true
}

// correct adjusts the family's p-values: with st.correct when set,
// otherwise stats.TreeHolm on the family's forest, the p-values it leaves below
// 1 finished.
func (s *statsPass) correct() {
	if s.st.correct != nil {
		// ps stays the tests' p-values: a correction may reorder its input.
		s.qs = s.st.correct(slices.Clone(s.ps))
		return
	}
	s.qs = correctExact(s.ps, s.exact, s.famParent, s.famSize, s.finish)
}

// climbLadder corrects the family at the thresholds above μ (ladder.go):
// what a larger μ finds, a smaller one keeps.
func (s *statsPass) climbLadder() {
	if s.st.correct == nil && s.st.ladderTop > s.m {
		fam := family{ps: s.ps, exact: s.exact, parent: s.famParent, size: s.famSize}
		s.lp = ladder(s.m, s.st.ladderTop, s.alpha, s.nNew, fam, familyDeltas(s.u, s.members, s.groups), s.finish)
	}
}

// passes reports whether family member t-1 (t = 0: none) passes with the
// delta given: at μ, or at a threshold of the ladder.
func (s *statsPass) passes(t int32, delta float64) bool {
	if t == 0 || s.names[t-1] == stats.Untested {
		return false
	}
	return delta >= s.m && s.qs[t-1] <= s.alpha || s.lp.passes(int(t-1), delta)
}

// context is node a as a context node of the graph.
func (s *statsPass) context(a int32) gval {
	u := s.u
	return gval{base: u.meanBase[a], new: u.meanNew[a], added: u.baseRuns(a) == 0, context: true, test: s.testOf[a]}
}

// assemble makes the graph: the nodes and spread groups that passed, with
// their contexts, and the Tests it reports.
func (s *statsPass) assemble() *graph {
	g := newGraph(s.n)
	g.fitted, g.noise = s.fitted, &nodeNoise{pr: s.pr, gc: s.gc}
	if s.model == modelPair {
		g.pairJitter = s.pr.ClaimedJitter()
	}
	s.keepNodes(g)
	spreadGroup := s.keepSpreads(g)
	at := s.makeTests(g)
	s.setIntervals(g, at, spreadGroup)
	// From the family's numbers to the graph's.
	for i := range g.vals {
		if v := &g.vals[i]; v.test != 0 {
			v.test = at[v.test-1]
		}
	}
	for i := range g.spreads {
		if sp := &g.spreads[i]; sp.test != 0 {
			sp.test = at[sp.test-1]
		}
	}
	return g
}

// keptBy returns the family member that keeps node x in the graph: its
// inclusive test, else its self test, ok false when neither passes.
func (s *statsPass) keptBy(x int32) (t int32, ok bool) {
	u := s.u
	t = s.testOf[x]
	if !s.passes(t, u.meanNew[x]-u.meanBase[x]) {
		t = s.selfOf[x]
		if d := u.selfNew[x] - u.selfBase[x]; !s.passes(t, d) || !s.passes(t, d-vanishedCallees(u, x)) {
			return 0, false
		}
	}
	if u.baseRuns(x) == 0 && movedFromCaller(u, x, s.m) {
		return 0, false
	}
	return t, true
}

// keepNodes adds the nodes that passed, less the recursions' moves, and
// their contexts.
func (s *statsPass) keepNodes(g *graph) {
	u := s.u
	var kept, keptTest []int32
	for x := int32(1); int(x) < s.n; x++ {
		if t, ok := s.keptBy(x); ok {
			kept, keptTest = append(kept, x), append(keptTest, t)
		}
	}
	moved := recursionMoves(u, len(s.kt.frames), s.m, kept, s.topmost)
	for i, x := range kept {
		if moved[i] {
			continue
		}
		g.set(x, gval{base: u.meanBase[x], new: u.meanNew[x], added: u.baseRuns(x) == 0, test: keptTest[i]})
		addContext(g, u.parent[x], s.context, u.parent)
	}
}

// keepSpreads adds spread causes: the contexts of each function whose sum
// regressed significantly join the graph as one cause (assemble merges
// them). spreadGroup[k] is the group of spread k+1: groups that do not
// pass take no spread id, so the two numberings differ.
func (s *statsPass) keepSpreads(g *graph) (spreadGroup []int) {
	u := s.u
	for i := range s.groups {
		gr := &s.groups[i]
		if !s.passes(gr.test, gr.delta()) || gr.large && slices.ContainsFunc(gr.nodes, g.has) {
			continue
		}
		gr.spread.test = gr.test
		g.spreads = append(g.spreads, gr.spread)
		spreadGroup = append(spreadGroup, i)
		id := int32(len(g.spreads))
		for _, x := range gr.nodes {
			if u.meanNew[x] <= u.meanBase[x] {
				continue
			}
			v, in := g.get(x)
			if !in || v.context {
				g.set(x, gval{base: u.meanBase[x], new: u.meanNew[x], added: u.baseRuns(x) == 0, test: gr.test, spread: id})
			} else {
				v.spread = id
			}
			addContext(g, u.parent[x], s.context, u.parent)
		}
	}
	return spreadGroup
}

// makeTests makes the Tests the graph reports, numbered in the order the
// graph first names them: at[i] is 1 + family member i's.
func (s *statsPass) makeTests(g *graph) (at []int32) {
	at = make([]int32, len(s.ps))
	made := func(f int32) {
		if f == 0 || at[f-1] != 0 {
			return
		}
		i := int(f - 1)
		g.tests = append(g.tests, s.makeTest(i))
		at[i] = int32(len(g.tests))
	}
	for i := range g.vals {
		made(g.vals[i].test)
	}
	for i := range g.spreads {
		made(g.spreads[i].test)
	}
	return at
}

// makeTest is family member i's Test, its p-value made exact.
func (s *statsPass) makeTest(i int) Test {
	s.finish(i)
	t := Test{Name: s.names[i].String(), P: s.ps[i], Q: s.qs[i]}
	if s.lp != nil {
		t.Q = min(t.Q, s.lp.q[i])
	}
	switch {
	case i >= len(s.members):
		t.Of = OfFunction
	case s.members[i].self():
		t.Of = OfSelf
	}
	return t
}

// setIntervals fills the confidence intervals of the Tests the graph
// reports (and a self test's means), at[i] the Test of family member i.
func (s *statsPass) setIntervals(g *graph, at []int32, spreadGroup []int) {
	u, nBase := s.u, s.nBase
	row := make([]float64, s.runs)
	for i, x := range g.xs {
		v := &g.vals[i]
		if v.test == 0 {
			continue
		}
		t := &g.tests[at[v.test-1]-1]
		switch {
		case v.spread != 0 && v.test == s.groups[spreadGroup[v.spread-1]].test:
			gr := &s.groups[spreadGroup[v.spread-1]]
			t.setIntervalFloats(gr.sums[:nBase], gr.sums[nBase:], s.groupPrior(gr))
			continue
		case v.test == s.selfOf[x]:
			s.self.row(x, row)
			t.SelfBase, t.SelfNew = round(stats.Mean(row[:nBase])), round(stats.Mean(row[nBase:]))
		default:
			u.totalRow(x, row)
		}
		t.setIntervalFloats(row[:nBase], row[nBase:], s.prOf(x))
	}
}

// untested names the Test of a node no test could be made for.
const untested = "untested"

// testFloats is stats.Greater as a Test.
func testFloats(x, y []float64, pr *stats.Prior) Test {
	r := stats.Greater(x, y, pr)
	return Test{Name: r.Method.String(), P: r.P}
}

// setIntervalFloats fills the 95% confidence interval of the mean delta,
// with the variance the test used. Only reported nodes get one: the t
// quantile costs far more than the test.
func (t *Test) setIntervalFloats(x, y []float64, pr *stats.Prior) {
	m := stats.Welch
	if t.Name == stats.Moderated.String() {
		m = stats.Moderated
	}
	lo, hi := stats.Interval(m, x, y, pr)
	t.Low, t.High = round(lo), round(hi)
}
