package eval

import (
	"math"
	"math/rand/v2"
	"slices"
	"time"
)

// Noise says how a run differs from the profile it is made from, in the
// ways ZAM's timelines of one version differ from each other (Sections 2.3
// and 5.3: variance in performance numbers, reordered calls, event handlers
// triggered by accident). Every run draws its own noise.
type Noise struct {
	// Sampling keeps each sample k ~ Poisson(1) times: a bootstrap of the
	// sampling process, so a context of n samples varies by about √n
	// samples, as sampled time does.
	Sampling bool
	// Jitter is the probability that a subtree has its time scaled by a
	// factor drawn uniformly from [1−JitterScale, 1+JitterScale] in a run:
	// execution-time variance of whole calls (caches, JIT tiers, GC). Every
	// node of at least JitterMin in the template draws on its own, so a
	// function varies alike in a small profile and in a large one, and a
	// deep one inherits its callers' factors.
	Jitter      float64
	JitterScale float64
	JitterMin   time.Duration
	// Reorder is the probability that a top-level call block (consecutive
	// samples under one top-level function) moves to a random place in its
	// thread's timeline: asynchronous events arriving in another order,
	// which changes the order of first execution ZAM's LCS relies on.
	Reorder float64
	// Recording is the most idle time a run gains at each end of the
	// threads that have idle samples (V8's "(idle)"): recordings are
	// started and stopped by hand, so their length varies by much more than
	// any μ. Each end draws uniformly from [0, Recording], once per run.
	Recording time.Duration
	// HandlerRuns is the probability that a run gets 1 to HandlerCount
	// extraneous handlers of HandlerMin to HandlerMax each: half replay a
	// piece of a real top-level JavaScript call (an event handler fired by
	// an accidental hover), half are handlers of functions the profile does
	// not have (an extension, a tracking script).
	HandlerRuns            float64
	HandlerCount           int
	HandlerMin, HandlerMax time.Duration
}

// DefaultNoise is the noise of the published benchmark.
var DefaultNoise = Noise{
	Sampling:     true,
	Jitter:       0.05,
	JitterScale:  0.05,
	JitterMin:    time.Millisecond,
	Reorder:      0.1,
	Recording:    500 * time.Millisecond,
	HandlerRuns:  0.5,
	HandlerCount: 2,
	HandlerMin:   10 * time.Millisecond,
	HandlerMax:   40 * time.Millisecond,
}

// poisson draws from Poisson(λ) by Knuth's method, which is short for the
// λ ≈ 1 used here.
func poisson(rng *rand.Rand, lambda float64) int {
	l, k, p := math.Exp(-lambda), 0, rng.Float64()
	for p > l {
		k++
		p *= rng.Float64()
	}
	return k
}

// jitterFactors gives every node of at least min in the template, with
// probability p, a factor in [1−scale, 1+scale], and returns per stack the
// product of the factors of its node and the node's ancestors (nil when p
// is 0). Parents come before their children in w.nodes, so one pass
// suffices.
func jitterFactors(t *template, w *world, p, scale float64, min time.Duration, rng *rand.Rand) []float64 {
	if p <= 0 || scale == 0 {
		return nil
	}
	node := make([]float64, len(w.nodes))
	for i, n := range w.nodes {
		f := 1.0
		if n.parent >= 0 {
			f = node[n.parent]
		}
		if n.depth >= 1 && i < len(t.total) && t.total[i] >= int64(min) && rng.Float64() < p {
			f *= 1 + scale*(2*rng.Float64()-1)
		}
		node[i] = f
	}
	out := make([]float64, len(w.stacks))
	for i, s := range w.stacks {
		out[i] = node[s.node]
	}
	return out
}

// rescale keeps each sample a random number of times with mean f[stack]
// (1 where f is nil): Poisson-distributed when sampling noise is on (a
// bootstrap of the sampling process; thinning or thickening a Poisson
// process keeps it Poisson, so jitter and sampling noise combine in one
// draw), otherwise floor(f) or floor(f)+1 times. Copies stay beside their
// original, as more time in the same call would.
func rescale(r *run, f []float64, sampling bool, rng *rand.Rand) {
	if f == nil && !sampling {
		return
	}
	for th, seq := range r.seq {
		out := make([]sample, 0, len(seq)+len(seq)/8)
		for _, s := range seq {
			m := 1.0
			if f != nil && int(s.stack) < len(f) {
				m = f[s.stack]
			}
			var k int
			if sampling {
				k = poisson(rng, m)
			} else {
				k = int(m)
				if rng.Float64() < m-float64(k) {
					k++
				}
			}
			for range k {
				out = append(out, s)
			}
		}
		r.seq[th] = out
	}
}

// A block is a run of consecutive samples of one thread under one top-level
// node (or the thread itself, for samples whose frames were all pruned).
type block struct {
	start, end int
	top        int32
}

func blocks(w *world, seq []sample) []block {
	var bs []block
	for i, s := range seq {
		top := w.ancestorAt(w.stacks[s.stack].node, 1)
		if len(bs) > 0 && bs[len(bs)-1].top == top {
			bs[len(bs)-1].end = i + 1
			continue
		}
		bs = append(bs, block{i, i + 1, top})
	}
	return bs
}

// reorder moves each top-level call block, with probability p, to a random
// place in its thread's timeline.
func reorder(w *world, r *run, p float64, rng *rand.Rand) {
	for th, seq := range r.seq {
		bs := blocks(w, seq)
		keys := make([]float64, len(bs))
		moved := false
		for i := range bs {
			keys[i] = float64(i)
			if rng.Float64() < p {
				keys[i] = rng.Float64() * float64(len(bs))
				moved = true
			}
		}
		if !moved {
			continue
		}
		idx := make([]int, len(bs))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			switch {
			case keys[a] < keys[b]:
				return -1
			case keys[a] > keys[b]:
				return 1
			}
			return 0
		})
		out := make([]sample, 0, len(seq))
		for _, i := range idx {
			out = append(out, seq[bs[i].start:bs[i].end]...)
		}
		r.seq[th] = out
	}
}

// A handler is an extraneous event handler a run may contain.
type handler struct {
	thread int32
	// replay holds the samples of a real top-level call to copy from.
	replay []sample
	// chain holds the stacks of a synthetic handler, outermost first;
	// its samples spread over them.
	chain []int32
}

// newHandlers makes a case's pool of handlers: replays of real top-level
// JavaScript calls, and synthetic handlers of new functions.
func newHandlers(t *template, w *world, rng *rand.Rand) []handler {
	var js []handler
	for th, seq := range t.base.seq {
		for _, b := range blocks(&t.world, seq) {
			if b.top == t.roots[th] || special(t.frames[t.nodes[b.top].frame].Function) {
				continue
			}
			js = append(js, handler{thread: int32(th), replay: seq[b.start:b.end]})
		}
	}
	if len(js) == 0 {
		return nil
	}
	names := []string{"onPointerMove", "onScroll", "onVisibilityChange", "trackInteraction", "onMessage", "flushQueue", "measureLayout", "reportMetrics"}
	var pool []handler
	for i := range 3 {
		pool = append(pool, js[rng.IntN(len(js))])
		h := handler{thread: js[rng.IntN(len(js))].thread}
		var locs []int32
		for d := range 2 + rng.IntN(3) {
			name := names[rng.IntN(len(names))] + "_h" + string(rune('a'+i)) + string(rune('0'+d))
			locs = append([]int32{w.newFunction(name, "extension://handler.js", "extraneous handler")}, locs...)
			h.chain = append(h.chain, w.stackID(h.thread, slices.Clone(locs)))
		}
		pool = append(pool, h)
	}
	return pool
}

// addHandlers inserts 1..n handlers from pool, of dmin..dmax each, at
// random block boundaries.
func addHandlers(t *template, w *world, r *run, pool []handler, n int, dmin, dmax int64, rng *rand.Rand) {
	if len(pool) == 0 {
		return
	}
	for range 1 + rng.IntN(n) {
		h := pool[rng.IntN(len(pool))]
		d := dmin + rng.Int64N(dmax-dmin+1)
		var add []sample
		var sum int64
		if h.replay != nil {
			for i := rng.IntN(len(h.replay)); sum < d; i = (i + 1) % len(h.replay) {
				s := h.replay[i]
				add = append(add, s)
				sum += max(s.v[t.timeIdx], 1)
			}
		} else {
			tick := t.tick()
			for sum < d {
				add = append(add, sample{stack: h.chain[rng.IntN(len(h.chain))], v: tick})
				sum += t.period
			}
		}
		seq := r.seq[h.thread]
		at := rng.IntN(len(seq) + 1)
		for at < len(seq) && at > 0 && w.ancestorAt(w.stacks[seq[at].stack].node, 1) == w.ancestorAt(w.stacks[seq[at-1].stack].node, 1) {
			at++
		}
		r.seq[h.thread] = slices.Insert(seq, at, add...)
	}
}

// record adds idle time at both ends of every thread that has an idle
// stack, up to most at each end: one recording covers all threads, so all
// get the same.
func record(t *template, r *run, most int64, rng *rand.Rand) {
	tick := t.tick()
	head := int(rng.Int64N(most+1) / t.period)
	tail := int(rng.Int64N(most+1) / t.period)
	for th, idle := range t.idle {
		if idle < 0 {
			continue
		}
		s := sample{stack: idle, v: tick}
		seq := make([]sample, 0, head+len(r.seq[th])+tail)
		for range head {
			seq = append(seq, s)
		}
		seq = append(seq, r.seq[th]...)
		for range tail {
			seq = append(seq, s)
		}
		r.seq[th] = seq
	}
}

// tick returns the values of one sample the harness adds: the template's
// median sampling period for time types, 1 for counts.
func (t *template) tick() []int64 {
	v := make([]int64, len(t.prof.SampleType))
	for i, st := range t.prof.SampleType {
		switch {
		case i == t.timeIdx || st.Unit == "nanoseconds":
			v[i] = t.period
		case st.Unit == "count":
			v[i] = 1
		}
	}
	return v
}

// apply applies the noise to a run, in the order a recording would
// accumulate it: extra handlers, reordered calls, then per-subtree variance
// and sampling. extra, if not nil, scales each stack's time further (a case
// family's own variance: family.go).
func (n *Noise) apply(t *template, w *world, r *run, pool []handler, extra []float64, rng *rand.Rand) {
	if n.HandlerRuns > 0 && rng.Float64() < n.HandlerRuns {
		addHandlers(t, w, r, pool, max(n.HandlerCount, 1), int64(n.HandlerMin), int64(n.HandlerMax), rng)
	}
	if n.Reorder > 0 {
		reorder(w, r, n.Reorder, rng)
	}
	if n.Recording > 0 {
		record(t, r, int64(n.Recording), rng)
	}
	f := jitterFactors(t, w, n.Jitter, n.JitterScale, n.JitterMin, rng)
	if extra != nil {
		if f == nil {
			f = extra
		} else {
			for i := range min(len(f), len(extra)) {
				f[i] *= extra[i]
			}
		}
	}
	rescale(r, f, n.Sampling, rng)
}
