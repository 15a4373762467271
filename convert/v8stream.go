package convert

import (
	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// A v8Run is the samples of a thread's only profile that streamTimed
// left packed: they come before the at'th sample collected in
// stacks.Samples, and each lasts until the next, the last lastDur.
type v8Run struct {
	at      int
	thread  int32
	p       *v8Profile
	lastDur int64
}

// each calls f with the run's samples in order: the stack of each, its
// duration and time, as streamTimed's fill gives them.
func (r *v8Run) each(f func(ref stackRef, dur, time int64)) {
	refs := r.p.tree.stacks
	prev, prevTime, started := int32(0), int64(0), false
	add := func(node int32, time int64) {
		if started {
			f(refs[prev], time-prevTime, prevTime)
		}
		prev, prevTime, started = node, time, true
	}
	if pk := r.p.packed; pk != nil {
		pk.each(r.p.tree, add)
	} else {
		for k, node := range r.p.nodes {
			add(node, r.p.times[k])
		}
	}
	f(refs[prev], r.lastDur, prevTime)
}

// A v8Stream is the samples of a V8 profile for a caller that only
// writes them (Options.CompleteStacks, pprofio.Stream): the threads
// streamTimed takes stay packed (runs) and are written from their
// chunks, without stacks.Samples' arrays (1 GB for the 28.8 M samples
// of a 525 MB trace, and 1.3 s of CPU to fill them). As a stacks.Source
// its samples are made (full) at the first method that needs them one
// by one.
type v8Stream struct {
	base   *stacks.Samples // the samples collected, the pool and threads
	runs   []v8Run
	n      int
	frames int64 // the frames of every sample's stack
	full   *stacks.Samples
}

var _ pprofio.Stream = (*v8Stream)(nil)

// newV8Stream returns the samples of base and runs.
func newV8Stream(base *stacks.Samples, runs []v8Run) *v8Stream {
	v := &v8Stream{base: base, runs: runs, n: base.Len()}
	for i := range base.Len() {
		v.frames += int64(base.Depth(i))
	}
	for _, r := range runs {
		v.n += r.p.len()
		v.frames += r.p.frames
	}
	return v
}

// Pool returns the collected samples, whose Locations and ThreadList the
// runs' samples share, and the frames of every sample.
func (v *v8Stream) Pool() (*stacks.Samples, int64) { return v.pool(), v.frames }

func (v *v8Stream) pool() *stacks.Samples {
	if v.full != nil {
		return v.full
	}
	return v.base
}

// EachSample calls f with every sample in order.
func (v *v8Stream) EachSample(f func(start, end int32, values []int64, thread int32, time int64, timed bool)) {
	each := func(s *stacks.Samples, from, to int) {
		for i := from; i < to; i++ {
			ts, ok := s.Time(i)
			f(int32(s.Start(i)), s.Ends[i], s.Value(i), s.SampleThreads[i], ts, ok)
		}
	}
	if v.full != nil {
		each(v.full, 0, v.full.Len())
		return
	}
	var values [2]int64
	i := 0
	for k := range v.runs {
		r := &v.runs[k]
		each(v.base, i, r.at)
		i = r.at
		r.each(func(ref stackRef, dur, time int64) {
			values[0], values[1] = 1, dur
			f(int32(ref.start), int32(ref.end), values[:], r.thread, time, true)
		})
	}
	each(v.base, i, v.base.Len())
}

// limitsMet reports whether checkSamples passes the samples, without
// reading them one by one: stacks of no more than MaxStackDepth frames
// (layout refused deeper ones), the frames within the input's budget,
// values not negative and their totals within an int64. When it reports
// false, checkSamples reads them (made: samples) for its error.
func (v *v8Stream) limitsMet(inputBytes int64) bool {
	if v.full != nil || v.frames > stackFrameLimit(inputBytes) {
		return false
	}
	types := len(v.base.Profile().SampleType)
	sums := make([]int64, types)
	add := func(j int, x int64) bool {
		if x < 0 || sums[j]+x < 0 {
			return false
		}
		sums[j] += x
		return true
	}
	for i, x := range v.base.Values {
		if !add(i%types, x) {
			return false
		}
	}
	for _, r := range v.runs {
		// The durations, not negative in time order, add up to the
		// span and the last one's: no partial sum overflows if these do
		// not.
		p := r.p
		var first, last int64
		if pk := p.packed; pk != nil {
			first, last = pk.first, pk.last
		} else {
			first, last = p.times[0], p.times[len(p.times)-1]
		}
		if types != 2 || last < first || !add(0, int64(p.len())) || !add(1, last-first) || !add(1, r.lastDur) {
			return false
		}
	}
	return true
}

// collected returns the samples e collected (nil without collect), or
// nil when it left runs of them packed: the samples are then a v8Stream,
// in e.in.samples for Read.
func (e *v8Emitter) collected() *stacks.Samples {
	s := e.b.Stacks()
	if len(e.runs) == 0 {
		return s
	}
	e.in.samples = newV8Stream(s, e.runs)
	return nil
}

// samples returns the samples made as stacks.Samples, made at the first
// call.
func (v *v8Stream) samples() *stacks.Samples {
	if v.full != nil {
		return v.full
	}
	s := stacks.New(v.base.Profile())
	s.Locations, s.ThreadList = v.base.Locations, v.base.ThreadList
	s.Starts, s.Ends = make([]int32, 0, v.n), make([]int32, 0, v.n)
	s.Values = make([]int64, 0, v.n*len(s.Profile().SampleType))
	s.SampleThreads = make([]int32, 0, v.n)
	times, timed, all, some := make([]int64, 0, v.n), make([]bool, 0, v.n), true, false
	v.EachSample(func(start, end int32, values []int64, thread int32, time int64, ok bool) {
		s.Starts, s.Ends = append(s.Starts, start), append(s.Ends, end)
		s.Values = append(s.Values, values...)
		s.SampleThreads = append(s.SampleThreads, thread)
		times, timed = append(times, time), append(timed, ok)
		all, some = all && ok, some || ok
	})
	if some {
		s.Times = times
		if !all {
			s.Timed = timed
		}
	}
	v.full, v.base, v.runs = s, nil, nil
	return s
}

// The stacks.Source methods, of the samples made.

func (v *v8Stream) Profile() *profile.Profile          { return v.pool().Profile() }
func (v *v8Stream) Len() int                           { return v.n }
func (v *v8Stream) Depth(i int) int                    { return v.samples().Depth(i) }
func (v *v8Stream) Stack(i int) []int32                { return v.samples().Stack(i) }
func (v *v8Stream) Location(x int32) *profile.Location { return v.Profile().Location[x] }
func (v *v8Stream) Value(i int) []int64                { return v.samples().Value(i) }
func (v *v8Stream) Time(i int) (int64, bool)           { return v.samples().Time(i) }
func (v *v8Stream) Thread(i int) int32                 { return v.samples().Thread(i) }
func (v *v8Stream) Threads() []stacks.Thread           { return v.pool().ThreadList }
func (v *v8Stream) Keep(keep func(i int) bool) {
	s := v.samples()
	s.Keep(keep)
	v.n = s.Len()
}
