package cct

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// Options control how profiles become a tree. Start from the zero value;
// new fields keep the zero value's behaviour.
type Options struct {
	// CallSites adds the caller's line to each frame's identity (PARCS
	// Section 2.1 call-site CCTs), so calls from different lines of one
	// function are different nodes.
	CallSites bool
	// Prune drops frames that carry no identity — empty names,
	// "(anonymous)" and one-character (minified) names — re-parenting their
	// children (ZAM Section 3.1, pruneTree).
	Prune bool
	// Timeline keeps one TimedSample per timestamped sample, for latency
	// inference.
	Timeline bool
	// OneSampleType keeps every node's values of one sample type only,
	// the one Tree.SampleIndex(SampleType) names ("" for the profile's
	// default), and the root's of every type: a diff compares one type,
	// and the others' were half the values of a profile of two types (a
	// sixth of a 1 + 1 diff's peak memory). Tree.Values reads them; Self
	// and Total of a node but the root panic. A profile without that
	// type, or of one type, keeps every type's.
	OneSampleType bool
	SampleType    string
	// Pools makes the threads of a pool one thread: threads whose names
	// are equal but for their numbers (pool-1-thread-7, "worker" #3)
	// become one thread frame per pool, named with each run of digits as
	// "#" (PoolName) and without an ordinal. A pool resized between two
	// versions, or by the cores of the machine it ran on, then compares as
	// a whole, where thread by thread the threads one side lacks read as
	// added (8 workers before and 16 after, for the same work, made the 8
	// new threads' contexts causes).
	Pools bool
	// PoolNames, when not empty, limits Pools to the pools of these names
	// (PoolName's): the others keep a thread node per thread.
	PoolNames []string
	// Filter, when not nil, applies pprof's focus, ignore, hide and show
	// filters to every profile's samples before they are added
	// (filter.go).
	Filter *Filter

	// batchFrames, when positive, replaces the inserter's batch limit
	// (insert.go), so tests can force many batches.
	batchFrames int
	// byDepth makes the inserter insert every batch depth by depth, also
	// those insertByGroup would (insert.go), so tests can check both.
	byDepth bool
}

// A Builder merges profiles into one tree.
type Builder struct {
	opts Options
	t    *Tree
	// sc holds the buffers of the profile being added (scratchPool or
	// buf), nil between profiles.
	sc  *scratch
	buf *Buffers
	// nodesPerFrame is the new nodes per frame of the last batch inserted,
	// for the room the next profile's first batch makes (inserter.roomFor).
	nodesPerFrame float64
	// starts is knownStarts of the profile being added, made when a frame
	// without a position needs it.
	starts map[[2]string][2]int64
	// sums are the totals of the profiles added so far, per sample type.
	sums []int64
	// finished says Finish computed the tree's totals: a Finish after
	// more profiles must clear them first.
	finished bool
}

// NewBuilder returns a builder; the first profile added fixes the sample
// types.
func NewBuilder(opts Options) *Builder { return &Builder{opts: opts} }

// FromProfile builds the tree of a single profile.
func FromProfile(p *profile.Profile, opts Options) (*Tree, error) {
	b := NewBuilder(opts)
	if err := b.Add(p); err != nil {
		return nil, err
	}
	return b.Finish(), nil
}

// Add merges one profile into the tree: AddSamples of its own samples.
func (b *Builder) Add(p *profile.Profile) error {
	return b.AddSamples(stacks.FromProfile(p))
}

// AddSamples merges one profile's samples into the tree. Its sample types
// must equal those of the first profile (same types and units, same
// order). It does not modify src. Of compact samples (*stacks.Samples, as
// convert returns them with convert.Options.Stacks) it holds on to no more
// than the values and times once every stack is read: a caller that keeps
// no other reference lets the stacks be collected while the tree is built.
//
// The stacks are collected first, as frame ids, in sample order, and
// inserted into the tree in batches, one depth at a time (insert.go): a
// stack shares the prefix of its path with the one before it, and the new
// nodes are renumbered so the tree is exactly the one inserting the
// samples one by one in order would give.
func (b *Builder) AddSamples(src stacks.Source) error {
	if b.opts.Filter != nil {
		src = b.opts.Filter.Apply(src)
	}
	r := &sampleReader{src: src}
	r.compact, _ = src.(*stacks.Samples)
	return b.add(r)
}

// A sampleReader reads a profile's samples for the builder.
type sampleReader struct {
	src stacks.Source
	// compact is src when the samples are compact: their shared stacks
	// identify paths (pathKey), and their stacks can go early (pathsRead).
	compact *stacks.Samples
	threads []FrameID // per thread index of src, once seen
	seen    []bool
}

// A pathKey is a sample's stack in a shared array and its thread.
type pathKey struct {
	start, end int
	thread     int32
}

func (r *sampleReader) len() int { return r.src.Len() }

// frames returns the compact frames of compact samples that have them
// (stacks.Samples.Frames), else nil.
func (r *sampleReader) frames() []stacks.Frame {
	if r.compact != nil {
		return r.compact.Frames
	}
	return nil
}
func (r *sampleReader) values(i int) []int64     { return r.src.Value(i) }
func (r *sampleReader) time(i int) (int64, bool) { return r.src.Time(i) }

// pathKey, when ok, identifies sample i's path: samples with equal keys
// have equal paths. A call tree reader's samples of one node share a
// stack (stacks.Samples.Starts).
func (r *sampleReader) pathKey(i int) (pathKey, bool) {
	s := r.compact
	if s == nil || s.Starts == nil {
		return pathKey{}, false
	}
	return pathKey{int(s.Starts[i]), int(s.Ends[i]), s.SampleThreads[i]}, true
}

// pathsRead says appendPath will not be called again: only len, values
// and time are. Of compact samples it keeps only what those need, so that
// the stacks (a quarter of a profile's memory) can be collected while the
// tree is built, when the caller keeps no reference to them either.
func (r *sampleReader) pathsRead() {
	if s := r.compact; s != nil {
		kept := stacks.New(s.Profile())
		kept.Ends, kept.Values, kept.Times, kept.Timed = s.Ends, s.Values, s.Times, s.Timed
		r.src, r.compact = kept, nil
	}
}

// appendPath appends sample i's thread frame and its stack's frames, root
// first, given prev, the path appendPath returned last for this profile.
// It returns the path and the length of its prefix copied from prev.
func (r *sampleReader) appendPath(b *Builder, tn *threadFrames, i int, prev, frames []FrameID) ([]FrameID, int) {
	x := r.src.Thread(i)
	if int(x) >= len(r.seen) { // a source may number threads as it meets them
		n := len(r.src.Threads())
		r.threads = append(r.threads, make([]FrameID, n-len(r.threads))...)
		r.seen = append(r.seen, make([]bool, n-len(r.seen))...)
	}
	if !r.seen[x] {
		r.threads[x], r.seen[x] = tn.frameOf(r.src.Threads()[x]), true
	}
	stack := r.src.Stack(i)
	pp := &b.sc.prefix
	shared := 0
	if x == pp.thread {
		n := min(len(stack), len(pp.stack))
		for shared < n && stack[len(stack)-1-shared] == pp.stack[len(pp.stack)-1-shared] {
			shared++
		}
	}
	pp.ends = pp.ends[:shared+1]
	known := 0
	if shared > 0 {
		known = int(pp.ends[shared])
		frames = append(frames, prev[:known]...)
	} else {
		frames = append(frames, r.threads[x])
	}
	frames = b.stackFramesFrom(r.src, stack, shared, frames, &pp.ends)
	pp.stack = append(pp.stack[:0], stack...)
	pp.thread = x
	return frames, known
}

// A pathPrefix is the previous sample's stack (a copy) and thread, and
// where its path ends after its thread and each location: ends[j] after
// the first j locations, root first. A sample's stack that shares its
// first locations with it shares their frames (each location's frames
// depend on it and, with call sites, its caller only), which are copied
// instead of computed again: half the frames of a time-ordered profile.
type pathPrefix struct {
	thread int32 // -1 for none
	stack  []int32
	ends   []int32
}

// reset starts a profile: its indexes of threads and locations are its own.
func (pp *pathPrefix) reset() {
	pp.thread, pp.stack, pp.ends = -1, pp.stack[:0], append(pp.ends[:0], 1)
}

func (b *Builder) add(src *sampleReader) error {
	p := src.src.Profile()
	if b.t == nil {
		st := make([]ValueType, len(p.SampleType))
		for i, v := range p.SampleType {
			st[i] = ValueType{v.Type, v.Unit}
		}
		b.t = New(st)
		// Room for the profile's frames: interning them into a growing
		// map rehashed its frames five times over, a tenth of building
		// a 20,000-stack run's tree.
		room := frameRoom(p, b.opts.CallSites)
		if fr := src.frames(); fr != nil {
			room = len(fr) + 8 // a frame's frame, and room for threads
		}
		b.t.frameIdx.Reserve(room)
		b.t.Frames = slices.Grow(b.t.Frames, room)
		b.t.FrameInfo = slices.Grow(b.t.FrameInfo, room)
		b.t.DefaultSampleType = p.DefaultSampleType
		if p.PeriodType != nil {
			b.t.PeriodType = ValueType{p.PeriodType.Type, p.PeriodType.Unit}
		}
		b.t.Period = p.Period
		if b.opts.OneSampleType && len(st) > 1 {
			if k, err := b.t.SampleIndex(b.opts.SampleType); err == nil {
				b.t.keepOnly(k)
			}
		}
	} else if err := b.compatible(p); err != nil {
		return err
	}
	if err := b.addSums(src); err != nil {
		return err
	}
	t := b.t
	t.Profiles++
	if b.sc == nil { // (a test may give its own, kept after)
		b.sc = b.scratch()
		defer b.release()
	}
	b.sc.locs.reset(p, src.frames())
	b.sc.locs.share(p, b.opts)
	b.sc.prefix.reset()
	b.starts = nil
	t.DurationNanos += p.DurationNanos
	if p.TimeNanos > 0 && (t.TimeNanos == 0 || p.TimeNanos < t.TimeNanos) {
		t.TimeNanos = p.TimeNanos
	}
	if src.len() > math.MaxInt32 {
		return fmt.Errorf("%d samples: more than the %d a profile may have", src.len(), math.MaxInt32)
	}
	threads := threadFrames{t: t, ids: map[stacks.Thread]FrameID{}, ordinals: map[[2]string]int32{}, pools: b.opts.Pools, poolNames: b.opts.PoolNames}
	if b.opts.Timeline {
		t.Timeline = withRoom(t.Timeline, len(t.Timeline)+src.len())
	}
	firstTimed := len(t.Timeline)
	ins := &b.sc.ins
	ins.nodesPerFrame = b.nodesPerFrame
	ins.start(t, b.opts, int32(t.Profiles-1), src)
	inSampleOrder(src, func(si int) {
		key, keyed := src.pathKey(si)
		if keyed && ins.repeat(key, si) {
			return // a path of this batch: no frames to copy and compare
		}
		// The thread is the first frame of the path below the root.
		var known int
		ins.path, known = src.appendPath(b, &threads, si, ins.prev, ins.path[:0])
		ins.endSample(si, known)
		if keyed {
			ins.keyed()
		}
	})
	src.pathsRead()
	b.sc.locs.compact = nil // nor does the cache: the frames can go
	ins.last = true
	ins.flush()
	ins.last = false
	b.nodesPerFrame = ins.nodesPerFrame
	if b.opts.Timeline {
		sortTimeline(t.Timeline[firstTimed:])
	}
	return nil
}

// frameRoom is the most frames a profile's locations make (and room for a
// few threads): without call sites a line's frame is its function's, so
// there are no more than its functions or lines, and one per location
// without lines; with call sites, a frame per location was room enough
// before. Room for a frame per location was 10 MB of map and frames for a
// Go profile's 32,000 locations, of 11,000 functions, in each of a 1 + 1
// diff's two builds.
func frameRoom(p *profile.Profile, callSites bool) int {
	if callSites {
		return len(p.Location) + 8
	}
	lines, bare := 0, 0
	for _, loc := range p.Location {
		lines += len(loc.Line)
		if len(loc.Line) == 0 {
			bare++
		}
	}
	return min(len(p.Function)+1, lines) + bare + 8
}

// addSums adds a profile's totals to the builder's, refusing totals that
// do not fit in an int64: wrapped around, they would turn into negative
// times (two samples of 2^63-1 ns made a total of -2 ns). No node's value
// exceeds the total, so no node's can overflow either.
func (b *Builder) addSums(src *sampleReader) error {
	sums := slices.Clone(b.sums)
	if sums == nil {
		sums = make([]int64, len(b.t.SampleTypes))
	}
	for i := range src.len() {
		for j, v := range src.values(i) {
			s, ok := addInt64(sums[j], v)
			if !ok {
				return fmt.Errorf("the %s values add up to more than %d (with the profiles before it, if any)", b.t.SampleTypes[j], int64(math.MaxInt64))
			}
			sums[j] = s
		}
	}
	b.sums = sums
	return nil
}

// addInt64 returns a+b and whether it did not overflow.
func addInt64(a, b int64) (int64, bool) {
	s := a + b
	return s, (b >= 0) == (s >= a)
}

// Finish computes totals and returns the tree. A builder with no profile
// returns an empty tree.
func (b *Builder) Finish() *Tree {
	if b.t == nil {
		b.t = New(nil)
	}
	if b.finished {
		b.t.ComputeTotals()
	} else {
		b.t.addTotals() // no total was set since the arrays were made
		b.finished = true
	}
	return b.t
}

func (b *Builder) compatible(p *profile.Profile) error {
	st := b.t.SampleTypes
	ok := len(st) == len(p.SampleType)
	for i := 0; ok && i < len(st); i++ {
		ok = st[i].Type == p.SampleType[i].Type && st[i].Unit == p.SampleType[i].Unit
	}
	if ok {
		return nil
	}
	got := make([]string, len(p.SampleType))
	for i, v := range p.SampleType {
		got[i] = v.Type + "/" + v.Unit
	}
	want := make([]string, len(st))
	for i, v := range st {
		want[i] = v.String()
	}
	return fmt.Errorf("sample types %v differ from the first profile's %v", got, want)
}

// inSampleOrder visits the sample indices in time order when every sample
// has a timestamp (equal times in file order), else in file order.
// Children are created in this order, which makes their order the order of
// first execution.
//
// Samples come as a few runs already in time order (one per thread or
// profile of a trace, 8 runs for 28.8 M samples of a DevTools trace): runs
// up to maxMergeRuns are merged as they are visited, with no array of the
// order; more are sorted by (time, index), which orders as a stable sort of
// the times does.
func inSampleOrder(src *sampleReader, visit func(si int)) {
	times := src.times()
	runs := []int{0} // where each run in time order starts
	for i := 1; i < len(times); i++ {
		if times[i] < times[i-1] {
			if len(runs) > maxMergeRuns {
				for _, si := range sortedOrder(times) {
					visit(int(si))
				}
				return
			}
			runs = append(runs, i)
		}
	}
	if len(runs) == 1 {
		for si := range src.len() {
			visit(si)
		}
		return
	}
	mergeRuns(times, append(runs, len(times)), visit)
}

// maxMergeRuns is the most runs inSampleOrder merges: the merge compares
// each sample with the head of every run.
const maxMergeRuns = 16

// times returns every sample's timestamp, or nil if some sample has none
// (or there are none). Compact samples that are all timed give their own
// slice.
func (r *sampleReader) times() []int64 {
	n := r.len()
	if n == 0 {
		return nil
	}
	if s := r.compact; s != nil && s.Times != nil && s.Timed == nil {
		return s.Times[:n]
	}
	var times []int64
	for i := range n {
		ts, ok := r.time(i)
		if !ok {
			return nil
		}
		if times == nil {
			times = make([]int64, n)
		}
		times[i] = ts
	}
	return times
}

// mergeRuns visits, merged, the runs of samples in time order that start
// at runs[k] and end at runs[k+1]; of equal times the earlier run's come
// first, which is file order.
func mergeRuns(times []int64, runs []int, visit func(si int)) {
	heads := slices.Clone(runs[:len(runs)-1])
	ends := runs[1:]
	for done := 0; done < len(times); {
		// The first head in (time, run) order, and the next one after it:
		// the first run's samples are taken while they come before that
		// one, so long stretches of one thread cost one scan of the heads.
		best, next := -1, -1
		for k, h := range heads {
			switch {
			case h == ends[k]:
			case best < 0 || times[h] < times[heads[best]]:
				best, next = k, best
			case next < 0 || times[h] < times[heads[next]]:
				next = k
			}
		}
		h := heads[best]
		if next < 0 {
			for ; h < ends[best]; h++ {
				visit(h)
			}
		} else {
			limit := times[heads[next]]
			for ; h < ends[best] && (times[h] < limit || times[h] == limit && best < next); h++ {
				visit(h)
			}
		}
		done += h - heads[best]
		heads[best] = h
	}
}

// sortedOrder returns the indices of times sorted by (time, index).
func sortedOrder(times []int64) []int32 {
	type entry struct {
		t int64
		i int32
	}
	e := make([]entry, len(times))
	for i, t := range times {
		e[i] = entry{t, int32(i)}
	}
	slices.SortFunc(e, func(a, b entry) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	order := make([]int32, len(e))
	for k, x := range e {
		order[k] = x.i
	}
	return order
}

// stackFrames appends the root-first frame ids of a sample's stack (leaf
// first, as indexes for src.Location). pprof stacks are leaf first, and a
// location's inlined lines are innermost first; both are reversed here,
// the one place that flips the order.
//
// Without call sites a location always yields the same frames, so they are
// computed once per location (locations are shared by many samples); in
// call-site mode the outermost frame depends on the caller's line.
func (b *Builder) stackFrames(src stacks.Source, stack []int32, frames []FrameID) []FrameID {
	var ends []int32
	return b.stackFramesFrom(src, stack, 0, frames, &ends)
}

// stackFramesFrom appends the frames of a stack's locations after its
// first from (root first), and to *ends the length of frames after each.
func (b *Builder) stackFramesFrom(src stacks.Source, stack []int32, from int, frames []FrameID, ends *[]int32) []FrameID {
	e := *ends
	if !b.opts.CallSites {
		c := &b.sc.locs
		for j := len(stack) - 1 - from; j >= 0; j-- {
			// A location's frames computed already, one or several
			// (inlined calls: most of a Go program's), are appended here
			// without a call: a call per frame of the several was a
			// twentieth of building a Go profile's tree.
			x := stack[j]
			if int(x) < len(c.one) {
				if v := c.one[x]; v >= 0 {
					frames = append(frames, v)
				} else if v != noFrames {
					sp := c.spans[-2-v]
					frames = append(frames, c.more[sp[0]:sp[1]]...)
				} else {
					frames = c.appendSlow(b, src, x, frames)
				}
			} else {
				frames = c.appendSlow(b, src, x, frames)
			}
			e = append(e, int32(len(frames)))
		}
		*ends = e
		return frames
	}
	if fr := b.sc.locs.compact; fr != nil {
		return b.callSiteFrames(fr, stack, from, frames, ends)
	}
	callerLine := int64(0)
	if from > 0 {
		if loc := src.Location(stack[len(stack)-from]); len(loc.Line) > 0 {
			callerLine = loc.Line[0].Line
		}
	}
	for j := len(stack) - 1 - from; j >= 0; j-- {
		loc := src.Location(stack[j])
		frames = b.locationFrames(loc, callerLine, frames)
		e = append(e, int32(len(frames)))
		callerLine = 0
		if len(loc.Line) > 0 {
			callerLine = loc.Line[0].Line
		}
	}
	*ends = e
	return frames
}

// callSiteFrames is stackFramesFrom with call sites for compact frames:
// a frame's call site is its caller's line.
func (b *Builder) callSiteFrames(fr []stacks.Frame, stack []int32, from int, frames []FrameID, ends *[]int32) []FrameID {
	e := *ends
	callerLine := int64(0)
	if from > 0 {
		callerLine = fr[stack[len(stack)-from]].Line
	}
	for j := len(stack) - 1 - from; j >= 0; j-- {
		f := &fr[stack[j]]
		frames = b.frameFrames(f, callerLine, frames)
		e = append(e, int32(len(frames)))
		callerLine = f.Line
	}
	*ends = e
	return frames
}

// frameFrames appends the frame of a compact frame (stacks.Samples.Frames):
// what locationFrames makes of the location stacks.FrameLocation makes of
// it, without making the location.
func (b *Builder) frameFrames(fr *stacks.Frame, callerLine int64, frames []FrameID) []FrameID {
	f := Frame{Function: fr.Name, File: fr.File}
	if !goSource(f.File) {
		f.StartLine, f.StartColumn = b.startOf(fr.Name, fr.File, fr.StartLine, fr.Line, fr.Column)
	}
	if b.opts.Prune && Prunable(f.Function) {
		return frames
	}
	if b.opts.CallSites {
		f.CallSite = callerLine
	}
	return append(frames, b.t.Intern(f, frameInfo(fr.Line, fr.Column, fr.StartLine, fr.SystemName)))
}

// locationFrames appends the frames of one location, outermost first.
func (b *Builder) locationFrames(loc *profile.Location, callerLine int64, frames []FrameID) []FrameID {
	t := b.t
	if len(loc.Line) == 0 {
		// Unsymbolized: keep it as module!0xADDR, never drop it.
		f := Frame{Function: unsymbolizedName(loc), File: mappingFile(loc)}
		if b.opts.CallSites {
			f.CallSite = callerLine
		}
		return append(frames, t.Intern(f, FrameInfo{}))
	}
	c := &b.sc.locs
	for j := len(loc.Line) - 1; j >= 0; j-- {
		ln := loc.Line[j]
		fn := ln.Function
		// A Go function's frame is its name and file alone (no start:
		// it moves between builds; no call site without CallSites), so
		// the frame of a function met before, in another location or
		// line, is known without hashing it again: interning was a
		// tenth of building a Go profile's tree. (Intern keeps a
		// frame's first info, as this does.) Such a line reads its
		// function's id and nothing else of it: its name, file and
		// info, cache misses for most of a profile's locations, were a
		// twentieth of building the tree of a 200k-stack Go profile.
		fx := c.functionIndex(fn, b.opts.CallSites)
		if fx > 0 && c.fns[fx] != noFrames {
			id := c.fns[fx]
			if id == prunedFrames {
				continue
			}
			frames = append(frames, id)
			callerLine = ln.Line
			continue
		}
		if fx > 0 && !goSource(fn.Filename) {
			fx = 0
		}
		f := Frame{}
		if fn != nil {
			f.Function, f.File = fn.Name, fn.Filename
			if !goSource(f.File) {
				f.StartLine, f.StartColumn = b.start(ln)
			}
		}
		if b.opts.Prune && Prunable(f.Function) {
			if fx > 0 {
				c.fns[fx] = prunedFrames
			}
			continue
		}
		if b.opts.CallSites {
			f.CallSite = callerLine
		}
		id := t.Intern(f, lineInfo(ln))
		if fx > 0 {
			c.fns[fx] = id
		}
		frames = append(frames, id)
		callerLine = ln.Line
	}
	return frames
}

// lineInfo is the display info of a line's frame: where its function is
// (Function.StartLine) when the profile says so, else the line sampled.
func lineInfo(ln profile.Line) FrameInfo {
	fn := ln.Function
	if fn == nil {
		return FrameInfo{Line: ln.Line, Column: ln.Column}
	}
	sys := fn.SystemName
	if sys == fn.Name {
		sys = ""
	}
	return frameInfo(ln.Line, ln.Column, fn.StartLine, sys)
}

// frameInfo is lineInfo of a line and column of a function that starts
// at start (0: unknown) and whose system name is sys ("" for its name).
func frameInfo(line, col, start int64, sys string) FrameInfo {
	info := FrameInfo{Line: line, Column: col, SystemName: sys}
	if start > 0 { // where the function is, not where it was sampled
		info.Line = start
		if line != start {
			info.Column = 0
		}
	}
	return info
}

// start returns where the function of a line is defined (Frame.StartLine
// and StartColumn): its Function.StartLine, with the line's column when
// the line is that very line, as in V8's call frames, whose position is
// their function's. A function without a position takes the one position
// the profile gives its (name, file) elsewhere, when there is exactly one:
// V8 leaves some frames of a function without one (lineNumber -1 in 1,695
// of the 3,493 nodes of speedscope's Chrome 65 sucrase profile, beside
// frames of the same functions that have it), and they are the same
// function, not another one.
func (b *Builder) start(ln profile.Line) (line, col int64) {
	fn := ln.Function
	return b.startOf(fn.Name, fn.Filename, fn.StartLine, ln.Line, ln.Column)
}

// startOf is start of a line and column of the function name of file,
// which starts at start (0: unknown).
func (b *Builder) startOf(name, file string, start, line, col int64) (int64, int64) {
	if start > 0 {
		if line != start {
			col = 0
		}
		return start, col
	}
	if b.starts == nil {
		if fr := b.sc.locs.compact; fr != nil {
			b.starts = knownFrameStarts(fr)
		} else {
			b.starts = KnownStarts(b.sc.locs.p)
		}
	}
	if s, ok := b.starts[[2]string{name, file}]; ok && s[0] > 0 {
		return s[0], s[1]
	}
	return 0, 0
}

// KnownStarts maps each (name, file) of a profile's functions with a known
// start (line, and column where a line of the function is its start) to
// that start, or to {-1, -1} when it has several (two functions of one
// name: a frame without a position could be either). The accuracy harness
// places the frames it makes with it, as the builder does.
func KnownStarts(p *profile.Profile) map[[2]string][2]int64 {
	m := map[[2]string][2]int64{}
	for _, loc := range p.Location {
		for _, ln := range loc.Line {
			if fn := ln.Function; fn != nil {
				addKnownStart(m, fn.Name, fn.Filename, fn.StartLine, ln.Line, ln.Column)
			}
		}
	}
	return m
}

// knownFrameStarts is KnownStarts of compact frames.
func knownFrameStarts(frames []stacks.Frame) map[[2]string][2]int64 {
	m := map[[2]string][2]int64{}
	for i := range frames {
		f := &frames[i]
		addKnownStart(m, f.Name, f.File, f.StartLine, f.Line, f.Column)
	}
	return m
}

// addKnownStart adds the start of the function of a line to m.
func addKnownStart(m map[[2]string][2]int64, name, file string, start, line, col int64) {
	if start <= 0 {
		return
	}
	s := [2]int64{start, 0}
	if line == start {
		s[1] = col
	}
	k := [2]string{name, file}
	if old, ok := m[k]; ok && old != s {
		s = [2]int64{-1, -1}
	}
	m[k] = s
}

// GoSymbol reports a Go function: its name is qualified by its package's
// import path (runtime.mallocgc, github.com/x/y.(*T).M), which is ZAM's
// "component" already, so neither its file nor its line is needed to tell
// it from others. The file is where the source was checked out
// (/home/ci/build-123/pkg/f.go, or pkg/f.go with -trimpath) and the line
// moves with every edit above the function: two builds of one program
// would otherwise share no frame but the runtime's. Found by comparing
// ctdiff's own profiles of two checkouts (bench/selfdiff.sh).
func GoSymbol(f Frame) bool {
	return f.Kind == KindFunction && strings.Contains(f.Function, ".") &&
		(strings.HasSuffix(f.File, ".go") || strings.HasSuffix(f.File, ".s"))
}

// goSource reports a Go source or assembly file. A Go binary's symbols are
// unique, package-qualified (GoSymbol) or assembly TEXT symbols
// (indexbody), so their start lines add nothing to their identity and
// would split a function that moved when profiles of two builds are merged.
func goSource(file string) bool {
	return strings.HasSuffix(file, ".go") || strings.HasSuffix(file, ".s")
}

func unsymbolizedName(loc *profile.Location) string {
	if loc.Mapping != nil && loc.Mapping.File != "" {
		return fmt.Sprintf("%s!0x%x", baseName(loc.Mapping.File), loc.Address)
	}
	return fmt.Sprintf("0x%x", loc.Address)
}

func mappingFile(loc *profile.Location) string {
	if loc.Mapping != nil {
		return loc.Mapping.File
	}
	return ""
}

func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' || p[i] == '\\' {
			return p[i+1:]
		}
	}
	return p
}

// Prunable reports whether ZAM's pruneTree drops a frame with this name:
// empty, "(anonymous)" or a single character (minified code), which carry
// no identity that could match across versions.
func Prunable(name string) bool {
	return name == "" || name == "(anonymous)" || (len(name) <= utf8.UTFMax && utf8.RuneCountInString(name) == 1)
}

// threadFrames maps a profile's thread instances to thread frames: a
// thread's node is the child of the root with that frame.
type threadFrames struct {
	t         *Tree
	ids       map[stacks.Thread]FrameID
	ordinals  map[[2]string]int32
	pools     bool     // Options.Pools
	poolNames []string // Options.PoolNames
}

// frameOf returns the frame of a thread, interning it (and numbering it
// among threads of its name) when new.
func (tn *threadFrames) frameOf(k stacks.Thread) FrameID {
	f, ok := tn.ids[k]
	if !ok {
		if tn.pools && (len(tn.poolNames) == 0 || slices.Contains(tn.poolNames, PoolName(k.Thread))) {
			// Every thread of a pool is its one frame, ordinal 0:
			// Intern returns the frame the first made.
			f = tn.t.Intern(Frame{Thread: PoolName(k.Thread), Process: k.Process, Kind: KindThread}, FrameInfo{})
			tn.ids[k] = f
			return f
		}
		name := [2]string{k.Process, k.Thread}
		ord := tn.ordinals[name]
		tn.ordinals[name] = ord + 1
		f = tn.t.Intern(Frame{Thread: k.Thread, Process: k.Process, Ordinal: ord, Kind: KindThread}, FrameInfo{})
		tn.ids[k] = f
	}
	return f
}

// PoolName is a thread name with each run of digits as one "#": the name
// of the pool the thread belongs to (pool-1-thread-7 and pool-1-thread-12
// are pool-#-thread-#).
func PoolName(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= '0' && c <= '9' {
			if len(b) == 0 || b[len(b)-1] != '#' {
				b = append(b, '#')
			}
			for i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				i++
			}
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

// ThreadLabel is how a thread frame is shown: "process/thread #2".
func ThreadLabel(f Frame) string {
	s := f.Thread
	if s == "" {
		s = "(all threads)"
		if f.Ordinal > 0 || f.Process != "" {
			s = "(thread)"
		}
	}
	if f.Process != "" {
		s = f.Process + "/" + s
	}
	if f.Ordinal > 0 {
		s += fmt.Sprintf(" #%d", f.Ordinal+1)
	}
	return s
}

// Label is how a node's frame is shown: the function name, or the thread
// label for thread nodes.
func (t *Tree) Label(id NodeID) string {
	f := t.FrameOf(id)
	switch f.Kind {
	case KindThread:
		return ThreadLabel(f)
	case KindRoot:
		return "(root)"
	}
	if f.Function == "" {
		return "(unknown)"
	}
	return f.Function
}

// locationCache holds the frames of each location of one profile, by
// stack index (stacks.Source.Stack). Samples share locations, so their
// frames are computed once. Most locations have one frame, held in one;
// the others' are a range of more (an array per location was an
// allocation per location and profile, and a slice copy per frame).
type locationCache struct {
	p *profile.Profile
	// compact are the profile's compact frames (stacks.Samples.Frames),
	// nil when its locations are pprof's.
	compact []stacks.Frame
	// one is a location's frame; noFrames before it is computed; for a
	// location of several frames (or none), -2-k: its frames are
	// more[spans[k][0]:spans[k][1]].
	one   []FrameID
	spans [][2]int32
	more  []FrameID
	// kept are the frames of the locations of an earlier profile, which
	// a profile with the same locations takes (use) instead of computing
	// them again, or of this one's (fill). ids maps a kept frame to its
	// id in this profile's tree (noFrames before it is interned).
	kept      keptFrames
	use, fill bool
	ids       []FrameID
	// fns is the frame of each function (by id, when the profile's ids
	// are its indexes + 1) whose frame functionIndex says is its own:
	// noFrames before it is computed, prunedFrames when pruned.
	fns []FrameID
}

// keptFrames are the frames, as values, that the locations of a
// profile's table make: runs of one program read with convert.Buffers
// share their tables when the bytes repeat (the same *profile.Location
// objects, never modified), and computing each location's frames again
// for each run's tree (reading the location, its lines and functions,
// hashing the frame to intern it) was 0.3 s of a diff of 100 + 100 runs
// of 5,000 locations. A frame is kept by its id (u) in the tree that
// filled the cache, with the frame's info per location.
//
// The entries are made when the scratch is released for a next profile
// (keepEntries), from the locations the profile computed: a profile
// whose scratch is too large to keep (a 200,000-stack one) makes none,
// where recording them as its locations were computed cost 5 ms of
// building the tree of a 200k-stack Go profile.
type keptFrames struct {
	locs  []*profile.Location
	prune bool
	// span is, per location, its entries; {-1, -1} when not kept, and
	// {0, 0} while the cache is filled for a location computed from
	// locs.
	span    [][2]int32
	entries []keptEntry
	frames  []Frame // by u
	top     FrameID // the largest u kept + 1
	// ready says the entries were made for locs (keepEntries).
	ready bool
}

type keptEntry struct {
	u    FrameID
	info FrameInfo
}

// maxKeptLocations bounds the locations whose frames a scratch keeps
// (keptFrames): the kept locations, and what they refer to, stay in
// memory with the scratch. Runs of 20,000 stacks have a few thousand.
const maxKeptLocations = 1 << 16

// share readies the kept frames for a profile built into t: used when
// its locations are the kept ones, else filled from this profile.
func (c *locationCache) share(p *profile.Profile, opts Options) {
	k := &c.kept
	c.use, c.fill = false, false
	if opts.CallSites || len(p.Location) > maxKeptLocations || c.compact != nil {
		*k = keptFrames{} // its locations are not kept either
		return
	}
	if k.ready && k.prune == opts.Prune && slices.Equal(k.locs, p.Location) {
		c.use = true
		c.ids = resize(c.ids, len(k.frames))
		for i := range c.ids {
			c.ids[i] = noFrames
		}
		return
	}
	c.fill, k.ready = true, false
	k.locs, k.prune = append(k.locs[:0], p.Location...), opts.Prune
	k.span = resize(k.span, len(p.Location))
	for i := range k.span {
		k.span[i] = [2]int32{-1, -1}
	}
	k.entries, k.frames, k.top = k.entries[:0], k.frames[:0], 0
}

// keepEntries makes the kept entries of a filled cache's profile, built
// into t, from the locations it computed: each line of a location that
// makes a frame (every one, but for those Prune drops), outermost first,
// as locationFrames makes them, and copies the frames they name (and those
// between them).
func (c *locationCache) keepEntries(t *Tree) {
	if !c.fill {
		return
	}
	k := &c.kept
	k.entries, k.top = k.entries[:0], 0
	for x, sp := range k.span {
		if sp[0] < 0 {
			continue
		}
		frames := c.frames(x)
		mark, n := len(k.entries), 0
		if loc := k.locs[x]; len(loc.Line) == 0 {
			k.entries, n = append(k.entries, keptEntry{frames[0], FrameInfo{}}), 1
		} else {
			for j := len(loc.Line) - 1; j >= 0; j-- {
				ln := loc.Line[j]
				if k.prune && Prunable(functionName(ln.Function)) {
					continue
				}
				if n < len(frames) {
					k.entries = append(k.entries, keptEntry{frames[n], lineInfo(ln)})
				}
				n++
			}
		}
		if n != len(frames) { // not as computed: the next profile computes it
			k.entries, k.span[x] = k.entries[:mark], [2]int32{-1, -1}
			continue
		}
		k.span[x] = [2]int32{int32(mark), int32(len(k.entries))}
		for _, e := range k.entries[mark:] {
			k.top = max(k.top, e.u+1)
		}
	}
	k.frames = append(k.frames[:0], t.Frames[:k.top]...)
	k.ready = true
}

// frames returns the frames computed for location x.
func (c *locationCache) frames(x int) []FrameID {
	if v := c.one[x]; v >= 0 {
		return c.one[x : x+1]
	}
	sp := c.spans[-2-c.one[x]]
	return c.more[sp[0]:sp[1]]
}

func functionName(fn *profile.Function) string {
	if fn == nil {
		return ""
	}
	return fn.Name
}

const noFrames FrameID = -1

// prunedFrames is, in locationCache.fns, a function whose frames Prune drops.
const prunedFrames FrameID = -2

// functionIndex returns where fns holds the frame of fn, a function of the
// profile, or 0 when its frame may depend on more than the function (call
// sites). Only a Go function's frame depends on it alone (goSource), which
// the caller checks before it keeps one there.
func (c *locationCache) functionIndex(fn *profile.Function, callSites bool) int {
	if fn == nil || callSites || fn.ID == 0 || fn.ID >= uint64(len(c.fns)) || c.p.Function[fn.ID-1] != fn {
		return 0
	}
	return int(fn.ID)
}

// appendSlow appends the frames of location x (without call sites),
// computing them when new.
func (c *locationCache) appendSlow(b *Builder, src stacks.Source, x int32, frames []FrameID) []FrameID {
	for int(x) >= len(c.one) { // a source may index more locations than the profile lists
		c.one = append(c.one, noFrames)
	}
	if c.one[x] == noFrames {
		start := len(c.more)
		if c.compact != nil {
			c.more = b.frameFrames(&c.compact[x], 0, c.more)
			return c.spanOf(x, start, frames)
		}
		loc := src.Location(x)
		k := &c.kept
		ours := int(x) < len(k.locs) && k.locs[x] == loc // a source may have others
		switch {
		case c.use && ours && k.span[x][0] >= 0:
			for _, e := range k.entries[k.span[x][0]:k.span[x][1]] {
				id := c.ids[e.u]
				if id == noFrames {
					id = b.t.Intern(k.frames[e.u], e.info)
					c.ids[e.u] = id
				}
				c.more = append(c.more, id)
			}
		case c.fill && ours:
			c.more = b.locationFrames(loc, 0, c.more)
			k.span[x] = [2]int32{0, 0} // keepEntries makes its entries
		default:
			c.more = b.locationFrames(loc, 0, c.more)
		}
		return c.spanOf(x, start, frames)
	}
	sp := c.spans[-2-c.one[x]]
	return append(frames, c.more[sp[0]:sp[1]]...)
}

// spanOf records location x's frames, computed into more from start, and
// appends them to frames.
func (c *locationCache) spanOf(x int32, start int, frames []FrameID) []FrameID {
	if len(c.more) == start+1 {
		c.one[x] = c.more[start]
		c.more = c.more[:start]
		return append(frames, c.one[x])
	}
	c.one[x] = FrameID(-2 - len(c.spans))
	c.spans = append(c.spans, [2]int32{int32(start), int32(len(c.more))})
	sp := c.spans[len(c.spans)-1]
	return append(frames, c.more[sp[0]:sp[1]]...)
}

// reset starts a profile, keeping the arrays.
func (c *locationCache) reset(p *profile.Profile, frames []stacks.Frame) {
	c.p, c.compact = p, frames
	n := len(p.Location)
	if frames != nil {
		n = len(frames)
	}
	c.one = slices.Grow(c.one[:0], n)[:n]
	for i := range c.one {
		c.one[i] = noFrames
	}
	c.spans, c.more = c.spans[:0], c.more[:0]
	c.fns = slices.Grow(c.fns[:0], len(p.Function)+1)[:len(p.Function)+1]
	for i := range c.fns {
		c.fns[i] = noFrames
	}
}
