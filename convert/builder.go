package convert

import (
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/ctdiff/ctdiff/internal/hashindex"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// A stackFrame is one stack frame as a converter sees it.
type stackFrame struct {
	// Name is the function name shown to users and used for matching.
	Name string
	// SystemName is the raw name from the source when it differs from Name
	// (e.g. async-profiler's "run_[j]" frame-kind suffix, a mangled symbol).
	SystemName string
	// File is the source file, script URL, or module for native frames.
	File string
	// Line and Column are 1-based; 0 means unknown. For a caller frame, Line
	// is the call site's line where the source has it.
	Line, Column int64
	// StartLine is the line where the function is defined, when the source
	// says so; 0 otherwise. It becomes Function.StartLine, and functions
	// of one name and file that start on different lines stay different
	// functions (two "(anonymous)" functions of one script).
	StartLine int64
}

// sampleMeta is the per-sample context a converter knows.
type sampleMeta struct {
	Thread, Process string
	PID, TID        int64
	HasPID, HasTID  bool
	// Time is the sample's timestamp in nanoseconds; HasTime says it is set.
	Time    int64
	HasTime bool
	// Labels are further string labels (e.g. labels.State).
	Labels map[string]string
}

// A profileBuilder assembles a pprof profile from frames and samples, interning
// functions and locations so converters deal only with names. It writes no
// mappings: ctdiff's converters produce symbolized locations.
//
// Each frame is one location (of one line), found by its hash: readers
// of one stack of a million distinct frames made a million of each, and
// maps keyed by the whole function and location held a copy of every key
// (a quarter of such a read's peak). With useFrames the locations are
// compact frames (stacks.Samples.Frames) and the profile has none.
type profileBuilder struct {
	p *profile.Profile
	// funcs and locs find p.Function and p.Location by the hash of their
	// frame (seed); frames, with useFrames, holds the locations instead.
	funcs, locs hashindex.Index
	seed        maphash.Seed
	frames      *hashindex.Table[stacks.Frame]
	// later counts the frames locLater reserved that addLater has not
	// added yet: they have the indexes after the frames'.
	later  int
	labels map[threadKey]map[string][]string

	// With CollectStacks, the samples (stacks.Samples) and their threads.
	stacks     *stacks.Samples
	threads    map[stacks.Thread]int32
	lastThread int32 // the previous sample's index in ThreadList, or -1

	// With usePool, the stacks samples share (stackpool.go); ptrs is the
	// pool as locations, for profile.Samples.
	pool *stackPool
	ptrs []*profile.Location
}

type threadKey struct {
	thread, process, extra string
}

var timestampUnits = map[string][]string{labels.Timestamp: {labels.TimestampUnit}}

// newProfileBuilder starts a profile with the given sample types, in order.
func newProfileBuilder(sampleTypes ...*profile.ValueType) *profileBuilder {
	return &profileBuilder{
		p:      &profile.Profile{SampleType: sampleTypes},
		seed:   maphash.MakeSeed(),
		labels: map[threadKey]map[string][]string{},
	}
}

// Profile returns the profile built so far. Set its PeriodType, Period,
// TimeNanos, DurationNanos and Comments directly.
func (b *profileBuilder) Profile() *profile.Profile { return b.p }

// useFrames makes the builder keep its locations as compact frames
// (stacks.Samples.Frames), which Stacks returns with the samples, instead
// of as pprof's Function, Location and Line: for samples that only trees
// are built from. It needs CollectStacks, and readers that name locations
// by index (loc, addIdx, frameName). Call it before the first location.
func (b *profileBuilder) useFrames() {
	if b.stacks == nil {
		panic("convert: profileBuilder.useFrames without CollectStacks")
	}
	b.frames = &hashindex.Table[stacks.Frame]{}
}

// Location returns the interned location of a frame. Without useFrames only.
func (b *profileBuilder) Location(f stackFrame) *profile.Location {
	if b.frames != nil {
		panic("convert: profileBuilder.Location with useFrames: name locations by index (loc)")
	}
	return b.p.Location[b.loc(f)]
}

// compactFrame is a frame as stacks.Frame holds it: SystemName empty when
// it is the name.
func compactFrame(f stackFrame) stacks.Frame {
	fr := stacks.Frame{Name: f.Name, SystemName: f.SystemName, File: f.File, Line: f.Line, Column: f.Column, StartLine: f.StartLine}
	if fr.SystemName == fr.Name {
		fr.SystemName = ""
	}
	return fr
}

// loc returns the index of the location of a frame (in the profile's
// Location, or with useFrames in the frames), adding it when new.
func (b *profileBuilder) loc(f stackFrame) int32 {
	fr := compactFrame(f)
	if b.frames != nil {
		x, _ := b.frames.Intern(fr)
		return x
	}
	h := maphash.Comparable(b.seed, fr)
	if x, ok := b.locs.Find(h, func(x int32) bool { return locationIs(b.p.Location[x], &fr) }); ok {
		return x
	}
	fn := b.function(fr)
	x := int32(len(b.p.Location))
	b.p.Location = append(b.p.Location, &profile.Location{
		ID:   uint64(x) + 1,
		Line: []profile.Line{{Function: fn, Line: fr.Line, Column: fr.Column}},
	})
	b.locs.Add(h, x)
	return x
}

// locLater is loc for readers that hold the frames in a form of their own
// until they let go of it: with useFrames a new frame only gets the next
// index, and later says so; the reader adds such frames with addLater, in
// that order, once it has released what it no longer needs (a call tree's
// nodes), so that a million distinct frames are not held twice over
// while the nodes are. Until then no frame is looked up or added.
func (b *profileBuilder) locLater(f stackFrame) (x int32, later bool) {
	if b.frames == nil {
		return b.loc(f), false
	}
	if x, ok := b.findLoc(f); ok {
		return x, false
	}
	b.later++
	return int32(b.frames.Len() + b.later - 1), true
}

// addLater adds the n frames locLater left for later, frame(k) the k-th
// of them in the order it gave them their indexes.
func (b *profileBuilder) addLater(n int, frame func(k int) stackFrame) {
	if n == 0 {
		return
	}
	tb := b.frames
	tb.Values = slices.Grow(tb.Values, n)
	for k := range n {
		want := tb.Len()
		if x, added := tb.Intern(compactFrame(frame(k))); !added || int(x) != want {
			panic("convert: profileBuilder.addLater: a frame locLater did not leave for later, or out of order")
		}
		b.later--
	}
}

// findLoc returns the index of the location of a frame, if there is one.
// It keeps no reference to the frame's strings.
func (b *profileBuilder) findLoc(f stackFrame) (int32, bool) {
	fr := compactFrame(f)
	if b.frames != nil {
		return b.frames.Find(fr)
	}
	return b.locs.Find(maphash.Comparable(b.seed, fr), func(x int32) bool { return locationIs(b.p.Location[x], &fr) })
}

// sampleValues returns the values of sample x added before, to add to
// (merging samples as they are read).
func (b *profileBuilder) sampleValues(x int) []int64 {
	if b.stacks != nil {
		return b.stacks.Value(x)
	}
	return b.p.Sample[x].Value
}

// function returns the interned function of a frame.
func (b *profileBuilder) function(fr stacks.Frame) *profile.Function {
	fr.Line, fr.Column = 0, 0
	h := maphash.Comparable(b.seed, fr)
	if x, ok := b.funcs.Find(h, func(x int32) bool { return functionIs(b.p.Function[x], &fr) }); ok {
		return b.p.Function[x]
	}
	sys := fr.SystemName
	if sys == "" {
		sys = fr.Name
	}
	x := int32(len(b.p.Function))
	fn := &profile.Function{ID: uint64(x) + 1, Name: fr.Name, SystemName: sys, Filename: fr.File, StartLine: fr.StartLine}
	b.p.Function = append(b.p.Function, fn)
	b.funcs.Add(h, x)
	return fn
}

func functionIs(fn *profile.Function, fr *stacks.Frame) bool {
	sys := fr.SystemName
	if sys == "" {
		sys = fr.Name
	}
	return fn.Name == fr.Name && fn.SystemName == sys && fn.Filename == fr.File && fn.StartLine == fr.StartLine
}

func locationIs(l *profile.Location, fr *stacks.Frame) bool {
	ln := &l.Line[0]
	return ln.Line == fr.Line && ln.Column == fr.Column && functionIs(ln.Function, fr)
}

// frameName returns the function name of location x.
func (b *profileBuilder) frameName(x int32) string {
	if b.frames != nil {
		return b.frames.Values[x].Name
	}
	return b.p.Location[x].Line[0].Function.Name
}

// rawName returns the system name of location x's function (its name
// when it has none) and its file.
func (b *profileBuilder) rawName(x int32) (sys, file string) {
	if b.frames != nil {
		f := &b.frames.Values[x]
		if f.SystemName != "" {
			return f.SystemName, f.File
		}
		return f.Name, f.File
	}
	fn := b.p.Location[x].Line[0].Function
	return fn.SystemName, fn.Filename
}

// locations returns how many locations the builder made.
func (b *profileBuilder) locations() int {
	if b.frames != nil {
		return b.frames.Len() + b.later
	}
	return len(b.p.Location)
}

// addIdx appends a sample whose stack, leaf first, is location indexes
// (loc). The stack is copied; values are retained unless collected.
func (b *profileBuilder) addIdx(stack []int32, values []int64, m sampleMeta) {
	if b.stacks == nil {
		locs := make([]*profile.Location, len(stack))
		for i, x := range stack {
			locs[i] = b.p.Location[x]
		}
		b.Add(locs, values, m)
		return
	}
	locs := b.stackRoom(len(stack), "addIdx")
	for _, x := range stack {
		if x < 0 || int(x) >= b.locations() {
			panic("convert: profileBuilder.addIdx: a location index not made by this profileBuilder's loc")
		}
	}
	*locs = append(*locs, stack...)
	b.addMeta(len(*locs), values, m)
}

// Add appends a sample. stack is leaf first, as in pprof; values has one
// entry per sample type. The slices are retained: do not reuse them
// (unless the profileBuilder collects stacks).
func (b *profileBuilder) Add(stack []*profile.Location, values []int64, m sampleMeta) {
	if b.frames != nil {
		panic("convert: profileBuilder.Add with useFrames: add stacks of location indexes (addIdx)")
	}
	if b.stacks != nil {
		b.addStack(stack, values, m)
		return
	}
	s := &profile.Sample{Location: stack, Value: values, Label: b.threadLabels(m)}
	if m.HasTime || m.HasPID || m.HasTID {
		s.NumLabel = make(map[string][]int64, 3)
		if m.HasTime {
			s.NumLabel[labels.Timestamp] = []int64{m.Time}
			// One unit map for every timestamped sample: it never differs,
			// and a map per sample was most of a large recording's memory.
			s.NumUnit = timestampUnits
		}
		if m.HasPID {
			s.NumLabel[labels.PID] = []int64{m.PID}
		}
		if m.HasTID {
			s.NumLabel[labels.TID] = []int64{m.TID}
		}
	}
	b.p.Sample = append(b.p.Sample, s)
}

// threadLabels returns a label map shared by all samples with the same
// string labels: one map per thread instead of one per sample.
func (b *profileBuilder) threadLabels(m sampleMeta) map[string][]string {
	if m.Thread == "" && m.Process == "" && len(m.Labels) == 0 {
		return nil
	}
	k := threadKey{thread: m.Thread, process: m.Process}
	if len(m.Labels) > 0 {
		for key, v := range m.Labels { // few keys; order does not matter for a set of one
			k.extra += key + "\x00" + v + "\x00"
		}
		if len(m.Labels) > 1 { // map order varies; don't cache multi-label sets
			return b.newLabels(m)
		}
	}
	if l, ok := b.labels[k]; ok {
		return l
	}
	l := b.newLabels(m)
	b.labels[k] = l
	return l
}

func (b *profileBuilder) newLabels(m sampleMeta) map[string][]string {
	l := make(map[string][]string, 2+len(m.Labels))
	if m.Thread != "" {
		l[labels.Thread] = []string{m.Thread}
	}
	if m.Process != "" {
		l[labels.Process] = []string{m.Process}
	}
	for k, v := range m.Labels {
		l[k] = []string{v}
	}
	return l
}

// CollectStacks makes Add collect the samples as stacks.Samples (Stacks)
// instead of profile.Samples, for readers' inputFormat.ParseStacks: a
// timestamped sample then takes about 40 bytes and 4 per frame instead of
// about 550 (a profile.Sample and its own NumLabel map for the
// timestamp). It keeps what stacks.Samples keeps: the stack, the values,
// the thread identity and the time; SampleMeta.Labels are not kept. Add
// copies the stack and values, and panics if the stack holds a location
// this profileBuilder did not make or values do not match the sample types (a
// reader's bug). Call it before the first Add.
func (b *profileBuilder) CollectStacks() {
	b.stacks = stacks.New(b.p)
	b.threads = map[stacks.Thread]int32{}
	b.lastThread = -1
}

// Stacks returns the samples Add collected since CollectStacks, nil
// without CollectStacks. The profile's Sample stays nil.
func (b *profileBuilder) Stacks() *stacks.Samples {
	if b.stacks != nil && b.pool != nil {
		b.stacks.Locations = b.pool.locs
	}
	if b.stacks != nil && b.frames != nil {
		b.stacks.Frames = b.frames.Values
		if b.stacks.Frames == nil {
			b.stacks.Frames = []stacks.Frame{}
		}
	}
	return b.stacks
}

// usePool has samples share the stacks laid out in sp (addRef); Add then
// lays a stack out in it too. Call it before the first Add.
func (b *profileBuilder) usePool(sp *stackPool) {
	b.pool = sp
	if b.stacks != nil {
		b.stacks.Starts = []int32{}
	}
}

// addRef appends a sample whose stack is laid out in the pool.
func (b *profileBuilder) addRef(ref stackRef, values []int64, m sampleMeta) {
	if b.stacks == nil {
		b.Add(b.poolStack(ref), values, m)
		return
	}
	b.stacks.Starts = append(b.stacks.Starts, int32(ref.start)) // the pool holds at most stacks.MaxLocations
	b.addMeta(ref.end, values, m)
}

// poolStack returns a laid out stack as locations, sharing their array.
func (b *profileBuilder) poolStack(ref stackRef) []*profile.Location {
	for _, x := range b.pool.locs[len(b.ptrs):] {
		b.ptrs = append(b.ptrs, b.p.Location[x])
	}
	return b.ptrs[ref.start:ref.end:ref.end]
}

// Grow makes room for n more samples holding frames frames in all, so
// that collecting millions of samples does not copy them as it grows.
func (b *profileBuilder) Grow(n, frames int) {
	s := b.stacks
	if s == nil {
		b.p.Sample = slices.Grow(b.p.Sample, n)
		return
	}
	s.Locations = slices.Grow(s.Locations, frames)
	s.Ends = slices.Grow(s.Ends, n)
	if s.Starts != nil {
		s.Starts = slices.Grow(s.Starts, n)
	}
	s.Values = slices.Grow(s.Values, n*len(b.p.SampleType))
	s.SampleThreads = slices.Grow(s.SampleThreads, n)
	if s.Times != nil {
		s.Times = slices.Grow(s.Times, n)
	}
	if s.Timed != nil {
		s.Timed = slices.Grow(s.Timed, n)
	}
}

// stackRoom returns where a collected stack of n frames is laid out: the
// pool when the reader has one (its start recorded), else the stacks'
// Locations. caller names the method in the panic of a stack past
// stacks.MaxLocations, which readers' own, lower limits rule out.
func (b *profileBuilder) stackRoom(n int, caller string) *[]int32 {
	s := b.stacks
	locs := &s.Locations
	if b.pool != nil {
		locs = &b.pool.locs
		s.Starts = append(s.Starts, int32(len(*locs)))
	}
	if len(*locs)+n > stacks.MaxLocations {
		panic("convert: profileBuilder." + caller + ": more than stacks.MaxLocations frames collected")
	}
	return locs
}

func (b *profileBuilder) addStack(stack []*profile.Location, values []int64, m sampleMeta) {
	locs := b.stackRoom(len(stack), "Add")
	for _, l := range stack {
		// Location gives location i the id i+1.
		if l.ID == 0 || l.ID > uint64(len(b.p.Location)) || b.p.Location[l.ID-1] != l {
			panic("convert: profileBuilder.Add: a location not made by this profileBuilder's Location")
		}
		*locs = append(*locs, int32(l.ID-1))
	}
	b.addMeta(len(*locs), values, m)
}

// addMeta appends the rest of a collected sample whose stack ends at end.
func (b *profileBuilder) addMeta(end int, values []int64, m sampleMeta) {
	s := b.stacks
	if len(values) != len(b.p.SampleType) {
		panic(fmt.Sprintf("convert: profileBuilder.Add: %d values for %d sample types", len(values), len(b.p.SampleType)))
	}
	s.Ends = append(s.Ends, int32(end))
	s.Values = append(s.Values, values...)
	s.SampleThreads = append(s.SampleThreads, b.threadIndex(m))
	// Timed is made only when a sample has a time and another has not
	// (stacks.Samples.Times).
	n := len(s.Ends) - 1
	switch {
	case m.HasTime && s.Times == nil:
		s.Times = make([]int64, n, cap(s.Ends))
		if n > 0 {
			s.Timed = make([]bool, n, cap(s.Ends))
		}
	case !m.HasTime && s.Times != nil && s.Timed == nil:
		s.Timed = make([]bool, n, cap(s.Ends))
		for i := range s.Timed {
			s.Timed[i] = true
		}
	}
	if s.Times != nil {
		s.Times = append(s.Times, m.Time)
	}
	if s.Timed != nil {
		s.Timed = append(s.Timed, m.HasTime)
	}
}

// threadIndex returns the index of a sample's thread in stacks.Samples.ThreadList.
func (b *profileBuilder) threadIndex(m sampleMeta) int32 {
	th := stacks.Thread{Thread: m.Thread, Process: m.Process, PID: m.PID, TID: m.TID, HasPID: m.HasPID, HasTID: m.HasTID}
	s := b.stacks
	if b.lastThread >= 0 && s.ThreadList[b.lastThread] == th {
		return b.lastThread // a thread's samples mostly come together
	}
	x, ok := b.threads[th]
	if !ok {
		x = int32(len(s.ThreadList))
		s.ThreadList = append(s.ThreadList, th)
		b.threads[th] = x
	}
	b.lastThread = x
	return x
}
