package convert

import (
	"cmp"
	"fmt"
	"maps"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/google/pprof/profile"
)

// v8SampleTypes are the sample types of every V8 profile. V8's sampler
// ticks on a wall-clock timer whatever the thread does and records waiting
// as (idle), so its time is wall time, not CPU time.
func v8SampleTypes() []*profile.ValueType {
	return []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "wall", Unit: "nanoseconds"}}
}

// A v8Profile is one sampling profile of one thread: the sampled node ids
// and their times, in the order the producer wrote them.
type v8Profile struct {
	tree *v8Tree
	ids  []int64
	// nodes are the samples' nodes in tree, resolved from ids by layout.
	nodes []int32
	// times are the samples' timestamps in ns, on the clock of start.
	times []int64
	// untimed says the source has counts only (a .cpuprofile with hitCount
	// and no samples): then times is nil, counts[i] is how many samples
	// ids[i] stands for, and each weighs interval.
	untimed  bool
	counts   []int64
	interval int64
	start    int64 // ns; the Profile event's ts or the profile's startTime
	// end is where the last sample ends, when the source says so (legacy
	// timestamps with one more entry than samples).
	end    int64
	hasEnd bool
	// name says which profile this is in warnings ("profile 0x2 of pid 9").
	name string
	// packed, when not nil, holds the samples instead of ids, nodes and
	// times: a trace's, still packed in their chunks (chunkProfile).
	packed *v8Packed
	// seen, when not nil, is how many of the samples each node of tree
	// has, by index, and firstSeen the sampled nodes in the order they are
	// first sampled: counted as the samples' ids were resolved
	// (chunkProfile), so that layout's walk goes over the sampled nodes
	// rather than over every sample (28.8 M in a 525 MB trace).
	seen      []int64
	firstSeen []int32
	// frames is how many frames the samples' stacks hold in all (layout).
	frames int64
	// merged, when not nil, says ids and times are the profile's samples
	// merged by node (mergeRuns): a sample per node, its first time.
	merged *v8Merged
}

// v8Packed is a profile's samples as its trace chunks hold them
// (devtools_packed.go), with what the emitter asks of their times.
type v8Packed struct {
	chunks []*traceChunk
	n      int
	base   int64 // the time the first delta counts from
	// first, last and least are the first, last and earliest times, sorted
	// whether they never decrease.
	first, last, least int64
	sorted             bool
}

// each calls f with every sample's node and time, in order. The ids must
// have been resolved (chunkProfile).
func (pk *v8Packed) each(t *v8Tree, f func(node int32, time int64)) {
	tm := pk.base
	for _, ch := range pk.chunks {
		ids, deltas := idReader{b: ch.ids}, deltaReader{ch.deltas}
		for range ch.n {
			tm += deltas.next()
			f(t.resolve(ids.next()), tm)
		}
	}
}

// len returns the number of samples.
func (p *v8Profile) len() int {
	switch {
	case p.packed != nil:
		return p.packed.n
	case p.nodes != nil:
		return len(p.nodes)
	}
	return len(p.ids)
}

// unpack turns packed samples into nodes and times.
func (p *v8Profile) unpack() {
	pk := p.packed
	if pk == nil {
		return
	}
	p.nodes, p.times = make([]int32, 0, pk.n), make([]int64, 0, pk.n)
	pk.each(p.tree, func(node int32, time int64) {
		p.nodes = append(p.nodes, node)
		p.times = append(p.times, time)
	})
	p.packed = nil
}

// A v8Thread is a sampled thread and its profiles, in start order.
type v8Thread struct {
	name, process  string
	pid, tid       int64
	hasPID, hasTID bool
	profiles       []*v8Profile
}

// firstTime is the time of the thread's earliest sample (0 if untimed).
func (th *v8Thread) firstTime() int64 {
	t, seen := int64(0), false
	for _, p := range th.profiles {
		if pk := p.packed; pk != nil && pk.n > 0 {
			if !seen || pk.least < t {
				t, seen = pk.least, true
			}
			continue
		}
		for _, v := range p.times {
			if !seen || v < t {
				t, seen = v, true
			}
		}
	}
	return t
}

// v8Emitter turns V8 profiles into pprof samples: one sample per CPU sample
// with its timestamp and thread labels (docs/formats.md, "The interchange"),
// threads in the order they started, samples in time order per thread. It
// consumes the profiles: their sample arrays are released as it goes.
type v8Emitter struct {
	in        *parserInput
	b         *profileBuilder
	aggregate bool // merge identical stacks per thread, without timestamps
	threads   []*v8Thread
	warnf     func(format string, args ...any)
	// stream leaves the samples of the threads streamTimed takes packed,
	// for the writer (v8Stream) rather than in stacks.Samples: runs
	// says where they go.
	stream bool
	runs   []v8Run

	minStart, maxEnd int64
	spanned          bool
	span             float64 // ns, over gaps intervals: the mean sampling interval
	gaps             int64
}

// newV8Emitter returns an emitter that makes profile.Samples or, with
// collect (inputFormat.ParseStacks), stacks.Samples (profileBuilder.CollectStacks).
func newV8Emitter(in *parserInput, collect bool) *v8Emitter {
	e := &v8Emitter{in: in, b: newProfileBuilder(v8SampleTypes()...), aggregate: in.Options.Aggregate, warnf: in.Warnf}
	if collect {
		e.b.CollectStacks()
		in.useFrames(e.b)
		// A caller that writes the samples (convert) does not need them
		// one by one; a selection of threads does.
		o := in.Options
		e.stream = o.CompleteStacks && o.Thread == nil && len(o.PIDs) == 0
	}
	return e
}

// layout resolves every sample's node, charges its stack depth to the
// input's budget, and lays the stacks of the sampled nodes out in one pool
// the samples share (stackpool.go): a small tree can name deep nodes many
// times. It returns the number of samples.
func (e *v8Emitter) layout() (samples int, err error) {
	budget := e.in.stackBudget()
	// The profiles in order, and their trees in the order they first
	// appear.
	var profiles []*v8Profile
	var trees []*v8Tree
	byTree := map[*v8Tree][]int{}
	nodes := 0
	for _, th := range e.threads {
		for _, p := range th.profiles {
			if _, ok := byTree[p.tree]; !ok {
				trees = append(trees, p.tree)
				nodes += len(p.tree.nodes)
			}
			byTree[p.tree] = append(byTree[p.tree], len(profiles))
			profiles = append(profiles, p)
		}
	}
	pool := e.in.newStackPool(nodes)
	e.b.usePool(pool)
	// Each tree's profiles are walked in order, the trees in parallel
	// (0.8 s of one core for the 8 of a 515 MB trace): a sample's node
	// gets its depth and joins the tree's sampled nodes the first time it
	// is seen, and each profile sums its stacks' depths.
	sampled := make([][]int32, len(trees))
	walks := make([]stackWalk, len(profiles))
	var wg sync.WaitGroup
	var next atomic.Int64
	for range min(runtime.GOMAXPROCS(0), len(trees)) {
		wg.Go(func() {
			for {
				k := int(next.Add(1)) - 1
				if k >= len(trees) {
					return
				}
				t := trees[k]
				// depth[n] is node n's stack depth once it is sampled, 0
				// before: looked up per sample in a small array rather than
				// walked up to in the nodes (28.8 M samples of 645,636 nodes
				// in a 500 MB trace).
				var depth []int32
				for _, x := range byTree[t] {
					p := profiles[x]
					if p.nodes == nil && p.packed == nil {
						p.nodes = make([]int32, len(p.ids))
						for k, id := range p.ids {
							p.nodes[k] = t.resolve(id)
						}
					}
					if len(depth) < len(t.nodes) {
						depth = append(depth, make([]int32, len(t.nodes)-len(depth))...)
					}
					w := &walks[x]
					w.depth = depth
					visit := func(n int32) {
						if depth[n] == 0 {
							depth[n] = int32(t.stackDepth(n)) // at most the nodes: fits
							sampled[k] = append(sampled[k], n)
						}
						w.sum += int64(depth[n])
						w.deep = w.deep || depth[n] > MaxStackDepth
					}
					if p.seen != nil {
						for _, n := range p.firstSeen {
							visit(n) // for its depth, and to join sampled
							w.sum += (p.seen[n] - 1) * int64(depth[n])
						}
						p.seen, p.firstSeen = nil, nil
					} else if pk := p.packed; pk != nil {
						pk.each(t, func(n int32, _ int64) { visit(n) })
					} else {
						for _, n := range p.nodes {
							visit(n)
						}
					}
				}
			}
		})
	}
	wg.Wait()
	// The budget is charged in the profiles' order; a profile that
	// overdraws it is charged again sample by sample for the error that
	// charging samples one at a time meets.
	for x, p := range profiles {
		w := &walks[x]
		if w.deep || budget.used+w.sum > budget.limit {
			var err error
			charge := func(n int32) {
				if err == nil {
					err = budget.take(int(w.depth[n]))
				}
			}
			if pk := p.packed; pk != nil {
				pk.each(p.tree, func(n int32, _ int64) { charge(n) })
			} else {
				for _, n := range p.nodes {
					if charge(n); err != nil {
						break
					}
				}
			}
			if err != nil { // always: the sum overdraws
				return 0, fmt.Errorf("%s: %w", p.name, err)
			}
			samples += p.len()
			p.ids = nil
			continue
		}
		budget.used += w.sum
		p.frames = w.sum
		samples += p.len()
		p.ids = nil
	}
	for k, t := range trees {
		if err := t.layout(pool, e.b, sampled[k]); err != nil {
			return 0, err
		}
		t.release(e.b)
	}
	return samples, nil
}

// A stackWalk is what layout's walk found of one profile: its tree's
// stack depths by node, their sum over its samples, and whether one is
// over MaxStackDepth.
type stackWalk struct {
	depth []int32
	sum   int64
	deep  bool
}

// bigSamples is the number of samples (36 bytes each as stacks.Samples)
// from which the emitter collects garbage before it makes their arrays.
const bigSamples = 1 << 22

// v8Entry is one sample on its way out.
type v8Entry struct {
	time, dur, count int64
	stack            stackRef
}

// timing returns the profile's samples in time order with their durations.
//
// A sample lasts until the next one, as DevTools counts it; the last sample
// of a profile gets the mean interval of the profile (DevTools'
// CPUProfileDataModel.normalizeTimestamps), or its end when the source
// gives one. Deltas can be negative (seen in lighthouse-cpu-profiler-m86):
// like DevTools (sortSamples), samples are stably sorted by time, so no
// duration is negative and the durations add up to the profile's span.
func (e *v8Emitter) timing(p *v8Profile, dst []v8Entry) []v8Entry {
	if p.merged != nil {
		return e.timingMerged(p, dst)
	}
	base := len(dst)
	for i, n := range p.nodes {
		en := v8Entry{stack: p.tree.stacks[n], count: 1}
		if p.untimed {
			en.count = p.counts[i]
			en.dur = p.interval * p.counts[i]
		} else {
			en.time = p.times[i]
		}
		dst = append(dst, en)
	}
	if t := p.tree; t.missing > 0 {
		e.warnf("%s: %d samples or parent links name %d node ids that no node has (lost chunks?); kept under \"(missing node ID)\" frames",
			p.name, t.refs, t.missing)
	}
	if p.untimed {
		for _, c := range p.counts {
			e.span += float64(p.interval) * float64(c)
			e.gaps += c
		}
		if p.hasEnd {
			e.extend(p.start, p.end)
		}
		return dst
	}
	out := dst[base:]
	n := len(out)
	if n == 0 {
		return dst
	}
	if !slices.IsSortedFunc(out, cmpTime) {
		slices.SortStableFunc(out, cmpTime)
	}
	for i := 0; i < n-1; i++ {
		out[i].dur = out[i+1].time - out[i].time
	}
	first, last := out[0].time, out[n-1].time
	switch {
	case p.hasEnd && p.end >= last:
		out[n-1].dur = p.end - last
	case n > 1:
		out[n-1].dur = (last - first) / int64(n-1)
	default:
		e.warnf("%s has a single sample and no end time: with no interval to go by, it weighs 0 ns", p.name)
	}
	e.span += float64(last - first)
	e.gaps += int64(n - 1)
	e.extend(min(p.start, first), last+out[n-1].dur)
	return dst
}

// timingMerged is timing for a profile whose samples mergeRuns merged:
// their durations are summed already, and they are in time order.
func (e *v8Emitter) timingMerged(p *v8Profile, dst []v8Entry) []v8Entry {
	m := p.merged
	for i, n := range p.nodes {
		dst = append(dst, v8Entry{stack: p.tree.stacks[n], count: m.counts[i], dur: m.durs[i], time: p.times[i]})
	}
	if t := p.tree; t.missing > 0 {
		e.warnf("%s: %d samples or parent links name %d node ids that no node has (lost chunks?); kept under \"(missing node ID)\" frames",
			p.name, t.refs, t.missing)
	}
	e.span += float64(m.last - m.first)
	e.gaps += m.n - 1
	e.extend(min(p.start, m.first), m.last+m.lastDur)
	return dst
}

func cmpTime(a, b v8Entry) int { return cmp.Compare(a.time, b.time) }

func (e *v8Emitter) extend(start, end int64) {
	if !e.spanned {
		e.minStart, e.maxEnd, e.spanned = start, end, true
		return
	}
	e.minStart, e.maxEnd = min(e.minStart, start), max(e.maxEnd, end)
}

// profile writes every thread's samples and returns the profile; with
// collect (newV8Emitter), its samples are e.b.Stacks().
func (e *v8Emitter) profile() (*profile.Profile, error) {
	samples, err := e.layout()
	if err != nil {
		return nil, err
	}
	if e.b.Stacks() != nil {
		if samples >= bigSamples {
			// What reading, the trees and layout left is garbage now:
			// collected and its pages given back before the samples'
			// arrays are made, it does not add to the peak. (runtime.GC
			// alone leaves the pages with the process: the arrays, each
			// one large span, take fresh ones.)
			debug.FreeOSMemory()
		}
		// Timed samples are collected one by one: their arrays can be
		// sized exactly (untimed ones, merged, take less). Every sample
		// names its stack in the pool (addRef), so Starts is sized too:
		// made at the first sample, it grew thread by thread, copied five
		// times for the deep 525 MB trace's 28.8 M samples.
		if !e.stream {
			e.presize(samples)
			e.b.Grow(samples, 0)
		}
	}
	// Threads in order of their first sample: the ordinal cct gives
	// same-named threads then means "the second worker to start".
	threads := slices.Clone(e.threads)
	first := make(map[*v8Thread]int64, len(threads))
	for _, th := range threads {
		first[th] = th.firstTime()
	}
	slices.SortStableFunc(threads, func(a, b *v8Thread) int {
		return cmp.Or(cmp.Compare(first[a], first[b]), cmp.Compare(a.pid, b.pid), cmp.Compare(a.tid, b.tid))
	})
	// One thread at a time, releasing each profile's arrays once its
	// samples exist: memory peaks at the pprof samples themselves. The
	// samples of a thread's only profile are filled in at the end, in
	// parallel (streamTimed).
	var fills []func()
	for _, th := range threads {
		n := 0
		for _, p := range th.profiles {
			n += p.len()
		}
		if n == 0 {
			continue
		}
		if len(th.profiles) == 1 {
			if fill, ok := e.streamTimed(th, th.profiles[0]); ok {
				fills = append(fills, fill)
				continue
			}
		}
		entries := make([]v8Entry, 0, n)
		timed := true
		for _, p := range th.profiles {
			p.unpack()
			entries = e.timing(p, entries)
			timed = timed && !p.untimed
			p.nodes, p.times, p.counts = nil, nil, nil
		}
		// Profiles of one thread follow each other; should two overlap,
		// the thread's samples must still come out in time order.
		if timed && !slices.IsSortedFunc(entries, cmpTime) {
			slices.SortStableFunc(entries, cmpTime)
		}
		if e.aggregate || !timed {
			e.addAggregated(th, entries)
		} else {
			e.addTimed(th, entries)
		}
	}
	fillAll(fills)
	p := e.b.Profile()
	p.PeriodType = &profile.ValueType{Type: "wall", Unit: "nanoseconds"}
	if e.gaps > 0 {
		p.Period = int64(e.span / float64(e.gaps))
	}
	if e.spanned {
		p.DurationNanos = e.maxEnd - e.minStart
	}
	p.DefaultSampleType = "wall"
	return p, nil
}

// presize makes the empty arrays of the collected samples with room for n
// samples. Made, a large array is not cleared when its pages are fresh
// (grown, it is: slices.Grow appends zeroes), so the pages are first
// touched by the fills, on every core: 0.45 s of clearing on one core for
// the 28.8 M samples of a 525 MB trace.
func (e *v8Emitter) presize(n int) {
	s := e.b.stacks
	if n == 0 || s == nil {
		return
	}
	s.Starts = makeIfEmpty(s.Starts, n)
	s.Ends = makeIfEmpty(s.Ends, n)
	s.Values = makeIfEmpty(s.Values, n*len(e.b.p.SampleType))
	s.SampleThreads = makeIfEmpty(s.SampleThreads, n)
}

// makeIfEmpty returns x, or when it has no room, an empty slice with room
// for n.
func makeIfEmpty[T any](x []T, n int) []T {
	if cap(x) == 0 {
		return make([]T, 0, n)
	}
	return x
}

// streamTimed collects the samples of a thread's only profile straight
// from its arrays, when they are timed and in time order (as V8 writes
// them, but for rare negative deltas) and collected as stacks.Samples: the
// same samples, durations and totals as timing and addTimed give, without
// their 40-byte entry per sample (3.6 M samples a thread in a 500 MB
// trace). It
// reports false, having done nothing, when the profile needs timing.
//
// It only reserves the samples' places, after those collected before;
// the returned fill fills them in, and may run beside other threads'
// fills once every thread has been collected or reserved (fillAll).
func (e *v8Emitter) streamTimed(th *v8Thread, p *v8Profile) (fill func(), ok bool) {
	n := p.len()
	if e.b.Stacks() == nil || e.aggregate || p.untimed || p.merged != nil || n < 2 {
		return nil, false
	}
	var first, last int64
	if pk := p.packed; pk != nil {
		if !pk.sorted {
			return nil, false
		}
		first, last = pk.first, pk.last
	} else {
		if !slices.IsSorted(p.times) {
			return nil, false
		}
		first, last = p.times[0], p.times[n-1]
	}
	if t := p.tree; t.missing > 0 {
		e.warnf("%s: %d samples or parent links name %d node ids that no node has (lost chunks?); kept under \"(missing node ID)\" frames",
			p.name, t.refs, t.missing)
	}
	lastDur := (last - first) / int64(n-1)
	if p.hasEnd && p.end >= last {
		lastDur = p.end - last
	}
	e.span += float64(last - first)
	e.gaps += int64(n - 1)
	e.extend(min(p.start, first), last+lastDur)
	m := th.meta()
	m.HasTime = true
	if e.stream {
		// Written from the packed samples (v8Stream.EachSample): the
		// thread's index is taken where addRef would take it.
		e.runs = append(e.runs, v8Run{at: len(e.b.stacks.Ends), thread: e.b.threadIndex(m), p: p, lastDur: lastDur})
		return func() {}, true
	}
	// The first sample goes through addRef, which finds the thread's
	// index and makes the arrays of times (and timed flags) as the samples
	// before need; its stack, duration and time are filled in with the
	// others', whose places are made here: two values each, timed, the
	// same thread.
	s := e.b.stacks
	e.b.addRef(stackRef{}, []int64{1, 0}, m)
	at := len(s.Ends) - 1
	thread := s.SampleThreads[at]
	more := n - 1
	s.Starts = reserve(s.Starts, more)
	s.Ends = reserve(s.Ends, more)
	s.Values = reserve(s.Values, 2*more)
	s.SampleThreads = reserve(s.SampleThreads, more)
	s.Times = reserve(s.Times, more)
	if s.Timed != nil {
		s.Timed = reserve(s.Timed, more)
	}
	fill = func() {
		// The arrays are read here, after every reservation: one may have
		// moved them.
		starts, ends, values, times := s.Starts[at:at+n], s.Ends[at:at+n], s.Values[2*at:2*(at+n)], s.Times[at:at+n]
		threads := s.SampleThreads[at : at+n]
		if s.Timed != nil {
			for k := range s.Timed[at : at+n] {
				s.Timed[at+k] = true
			}
		}
		refs := p.tree.stacks
		// Each sample is filled in once the next one's time gives its
		// duration.
		prev, prevTime, i := int32(-1), int64(0), 0
		put := func(node int32, time, dur int64) {
			ref := refs[node]
			starts[i-1], ends[i-1] = int32(ref.start), int32(ref.end)
			values[2*(i-1)], values[2*(i-1)+1] = 1, dur
			threads[i-1], times[i-1] = thread, time
		}
		add := func(node int32, time int64) {
			if i > 0 {
				put(prev, prevTime, time-prevTime)
			}
			prev, prevTime = node, time
			i++
		}
		if pk := p.packed; pk != nil {
			pk.each(p.tree, add)
		} else {
			for k, node := range p.nodes {
				add(node, p.times[k])
			}
		}
		put(prev, prevTime, lastDur) // i is n: the last sample

		p.nodes, p.times, p.counts, p.packed = nil, nil, nil, nil
	}
	return fill, true
}

// reserve extends x by n elements, to be filled in.
func reserve[T any](x []T, n int) []T {
	return slices.Grow(x, n)[:len(x)+n]
}

// fillAll runs the fills streamTimed returned, on as many goroutines as
// there are processors: each fills its own thread's samples.
func fillAll(fills []func()) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(fills)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(fills) {
					return
				}
				fills[i]()
			}
		})
	}
	wg.Wait()
}

// threadLabels returns the maps every sample of a thread shares. Sharing
// them (and the pid/tid value slices) halves the memory of a sample, which
// matters at millions of samples; nothing in pprof mutates them.
func threadLabels(th *v8Thread) (map[string][]string, map[string][]int64) {
	var str map[string][]string
	if th.name != "" || th.process != "" {
		str = make(map[string][]string, 2)
		if th.name != "" {
			str[labels.Thread] = []string{th.name}
		}
		if th.process != "" {
			str[labels.Process] = []string{th.process}
		}
	}
	num := make(map[string][]int64, 2)
	if th.hasPID {
		num[labels.PID] = []int64{th.pid}
	}
	if th.hasTID {
		num[labels.TID] = []int64{th.tid}
	}
	return str, num
}

var timestampUnit = []string{labels.TimestampUnit}

func (e *v8Emitter) addTimed(th *v8Thread, entries []v8Entry) {
	if e.b.Stacks() != nil {
		m := th.meta()
		var v [2]int64
		for _, en := range entries {
			v[0], v[1] = en.count, en.dur
			m.Time, m.HasTime = en.time, true
			e.b.addRef(en.stack, v[:], m) // copies v
		}
		return
	}
	str, ids := threadLabels(th)
	units := map[string][]string{labels.Timestamp: timestampUnit}
	template := maps.Clone(ids)
	template[labels.Timestamp] = nil
	n := len(entries)
	samples := make([]profile.Sample, n)
	values := make([]int64, 2*n)
	stamps := make([]int64, n)
	p := e.b.Profile()
	p.Sample = slices.Grow(p.Sample, n)
	for i, en := range entries {
		s := &samples[i]
		s.Location = e.b.poolStack(en.stack)
		s.Value = values[2*i : 2*i+2 : 2*i+2]
		s.Value[0], s.Value[1] = en.count, en.dur
		s.Label = str
		stamps[i] = en.time
		// Cloning a filled map copies its one group, cheaper than inserts.
		s.NumLabel = maps.Clone(template)
		s.NumLabel[labels.Timestamp] = stamps[i : i+1 : i+1]
		s.NumUnit = units
		p.Sample = append(p.Sample, s)
	}
}

// meta is the SampleMeta of the thread's samples.
func (th *v8Thread) meta() sampleMeta {
	return sampleMeta{Thread: th.name, Process: th.process, PID: th.pid, TID: th.tid, HasPID: th.hasPID, HasTID: th.hasTID}
}

// addAggregated merges samples with the same stack: --aggregate needs no
// timestamps, and a profile without times has none to keep.
func (e *v8Emitter) addAggregated(th *v8Thread, entries []v8Entry) {
	type merged struct {
		stack  stackRef
		values []int64
	}
	// Stacks are laid out once per node (layout), so their place
	// identifies them.
	byStack := map[stackRef]int{}
	var out []merged
	for _, en := range entries {
		key := en.stack
		i, ok := byStack[key]
		if !ok {
			i = len(out)
			byStack[key] = i
			out = append(out, merged{en.stack, make([]int64, 2)})
		}
		out[i].values[0] += en.count
		out[i].values[1] += en.dur
	}
	m := th.meta()
	for _, s := range out {
		e.b.addRef(s.stack, s.values, m)
	}
}
