package eval

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"
)

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0)) }

func runTime(t *template, r *run) (sum int64) {
	for _, seq := range r.seq {
		for _, s := range seq {
			sum += s.v[t.timeIdx]
		}
	}
	return sum
}

func TestPoisson(t *testing.T) {
	for _, lambda := range []float64{1, 0.95, 1.05} {
		rng := seeded(1)
		const n = 200_000
		var sum, sq float64
		for range n {
			k := float64(poisson(rng, lambda))
			sum += k
			sq += k * k
		}
		mean := sum / n
		variance := sq/n - mean*mean
		if math.Abs(mean-lambda) > 0.01 || math.Abs(variance-lambda) > 0.02 {
			t.Errorf("Poisson(%g): mean %.4f, variance %.4f; want both %g", lambda, mean, variance, lambda)
		}
	}
}

// TestRescale: sampling noise keeps the expected time and varies it by
// about √n ticks; without sampling noise a factor of 1 changes nothing.
func TestRescale(t *testing.T) {
	tm := mustTemplate(t, app(t))
	want := runTime(tm, tm.base)
	n := float64(want / ms)
	var sum, sq float64
	const runs = 400
	for i := range runs {
		r := tm.base.clone()
		rescale(r, nil, true, seeded(uint64(i)))
		x := float64(runTime(tm, r) / ms)
		sum += x
		sq += x * x
	}
	mean := sum / runs
	sd := math.Sqrt(sq/runs - mean*mean)
	if math.Abs(mean-n) > 0.02*n || math.Abs(sd-math.Sqrt(n)) > 0.2*math.Sqrt(n) {
		t.Errorf("sampling noise: mean %.1f ticks, sd %.1f; want %.0f and about %.1f", mean, sd, n, math.Sqrt(n))
	}
	r := tm.base.clone()
	ones := make([]float64, len(tm.stacks))
	for i := range ones {
		ones[i] = 1
	}
	rescale(r, ones, false, seeded(1))
	if !reflect.DeepEqual(r, tm.base) {
		t.Error("a factor of 1 without sampling noise changed the run")
	}
}

func TestJitterFactors(t *testing.T) {
	tm := mustTemplate(t, app(t))
	if f := jitterFactors(tm, &tm.world, 0, 0.05, time.Millisecond, seeded(1)); f != nil {
		t.Errorf("p = 0: factors %v, want nil", f)
	}
	// p = 1: every node of at least 1 ms draws a factor, and a stack gets
	// the product over its path.
	f := jitterFactors(tm, &tm.world, 1, 0.05, time.Millisecond, seeded(1))
	for i, s := range tm.stacks {
		depth := float64(tm.nodes[s.node].depth)
		if f[i] < math.Pow(0.95, depth) || f[i] > math.Pow(1.05, depth) || (depth > 0 && f[i] == 1) {
			t.Errorf("stack %d at depth %g has factor %g", i, depth, f[i])
		}
	}
	// A stack and the stack of its caller share the caller's factor.
	layout := tm.stacks[tm.stackID(0, mustLocs(t, tm, nodeAt(t, &tm.world, 0, "onClick", "render", "layout")))]
	render := tm.stacks[tm.stackID(0, mustLocs(t, tm, nodeAt(t, &tm.world, 0, "onClick", "render")))]
	ratio := f[tm.stackID(0, layout.locs)] / f[tm.stackID(0, render.locs)]
	if ratio < 0.95 || ratio > 1.05 {
		t.Errorf("layout/render factor ratio %g, want within one factor", ratio)
	}
	// Only nodes of at least min draw: nothing is 2 s.
	if f := jitterFactors(tm, &tm.world, 1, 0.05, 2*time.Second, seeded(1)); slices.ContainsFunc(f, func(x float64) bool { return x != 1 }) {
		t.Error("a node below min was jittered")
	}
}

func mustLocs(tb testing.TB, tm *template, n int32) []int32 {
	tb.Helper()
	l, ok := tm.locsTo(n)
	if !ok {
		tb.Fatal("no locations")
	}
	return l
}

// TestReorder: blocks move whole, nothing is lost or duplicated.
func TestReorder(t *testing.T) {
	tm := mustTemplate(t, app(t))
	r := tm.base.clone()
	reorder(&tm.world, r, 0, seeded(1))
	if !reflect.DeepEqual(r, tm.base) {
		t.Error("p = 0 changed the order")
	}
	r = tm.base.clone()
	reorder(&tm.world, r, 1, seeded(3))
	before, after := blocks(&tm.world, tm.base.seq[0]), blocks(&tm.world, r.seq[0])
	if slices.EqualFunc(before, after, func(a, b block) bool { return a.top == b.top }) {
		t.Error("p = 1 kept the order of top-level blocks")
	}
	count := func(seq []sample) map[int32]int {
		m := map[int32]int{}
		for _, s := range seq {
			m[s.stack]++
		}
		return m
	}
	if !reflect.DeepEqual(count(r.seq[0]), count(tm.base.seq[0])) {
		t.Error("reordering lost or added samples")
	}
	// The render call (layout, render self, getComputedStyle, fetchData)
	// stays together: onClick blocks only split where the original had
	// another top-level function in between.
	if len(after) > len(before) {
		t.Errorf("%d blocks after reordering, %d before: a block was split", len(after), len(before))
	}
}

func TestRecord(t *testing.T) {
	tm := mustTemplate(t, app(t))
	for seed := range uint64(20) {
		r := tm.base.clone()
		record(tm, r, int64(200*time.Millisecond), seeded(seed))
		added := len(r.seq[0]) - len(tm.base.seq[0])
		if added < 0 || added > 400 {
			t.Fatalf("seed %d: %d idle ticks added, want 0 to 400", seed, added)
		}
		if !reflect.DeepEqual(r.seq[1], tm.base.seq[1]) {
			t.Fatal("the worker has no idle stack and must not change")
		}
		idle := 0
		for _, s := range r.seq[0] {
			if s.stack == tm.idle[0] {
				idle++
			}
		}
		if idle != 180+added {
			t.Fatalf("seed %d: %d idle ticks, want the template's 180 and the %d added", seed, idle, added)
		}
	}
}

func TestHandlers(t *testing.T) {
	tm := mustTemplate(t, app(t))
	w := tm.fork()
	pool := newHandlers(tm, w, seeded(1))
	var replay, synthetic int
	for _, h := range pool {
		if h.replay != nil {
			replay++
		} else {
			synthetic++
		}
	}
	if replay != 3 || synthetic != 3 {
		t.Fatalf("pool has %d replays and %d synthetic handlers, want 3 and 3", replay, synthetic)
	}
	for _, h := range pool {
		if h.replay != nil && special(w.frames[w.nodes[w.ancestorAt(w.stacks[h.replay[0].stack].node, 1)].frame].Function) {
			t.Error("a replayed handler is not JavaScript")
		}
	}
	for seed := range uint64(20) {
		r := tm.base.clone()
		addHandlers(tm, w, r, pool, 1, int64(10*time.Millisecond), int64(40*time.Millisecond), seeded(seed))
		added := runTime(tm, r) - runTime(tm, tm.base)
		if added < 10*ms || added > 40*ms+ms {
			t.Errorf("seed %d: handler of %v, want 10-41ms", seed, time.Duration(added))
		}
	}
}

func TestNoiseDeterministic(t *testing.T) {
	tm := mustTemplate(t, app(t))
	gen := func(seed uint64) *run {
		w := tm.fork()
		pool := newHandlers(tm, w, seeded(seed))
		r := tm.base.clone()
		n := DefaultNoise
		n.HandlerRuns = 1
		n.apply(tm, w, r, pool, nil, seeded(seed))
		return r
	}
	if !reflect.DeepEqual(gen(7), gen(7)) {
		t.Error("the same seed gave different runs")
	}
	if reflect.DeepEqual(gen(7), gen(8)) {
		t.Error("different seeds gave the same run")
	}
}
