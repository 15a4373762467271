package cct

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/internal/stacks"
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

	// batchFrames, when positive, replaces the inserter's batch limit
	// (insert.go), so tests can force many batches.
	batchFrames int
}

// A Builder merges profiles into one tree.
type Builder struct {
	opts Options
	t    *Tree
	locs locationCache
	ins  inserter
	// starts is knownStarts of the profile being added, made when a frame
	// without a position needs it.
	starts map[[2]string][2]int64
	// sums are the totals of the profiles added so far, per sample type.
	sums []int64
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

// Add merges one profile into the tree. Its sample types must equal those
// of the first profile (same types and units, same order).
//
// The stacks are collected first, as frame ids, and inserted into the tree
// in batches (insert.go): sorted, so that a stack shares its path with the
// one before it and finds or creates its nodes without a lookup, then
// renumbered so the tree is exactly the one inserting the samples one by
// one in order would give.
func (b *Builder) Add(p *profile.Profile) error {
	return b.add(p, profileSamples{p})
}

// AddSamples is Add for a profile whose samples are given as s (and not in
// p.Sample), as convert returns them with convert.Options.Stacks. It does
// not modify s, and holds on to no more of it than the values and times
// once every stack is read: a caller that drops s before the call lets the
// stacks be collected while the tree is built.
func (b *Builder) AddSamples(p *profile.Profile, s *stacks.Samples) error {
	return b.add(p, &compactSamples{s: s, types: len(p.SampleType)})
}

// A sampleSource is a profile's samples, either form.
type sampleSource interface {
	len() int
	values(i int) []int64
	time(i int) (int64, bool)
	// appendPath appends sample i's thread frame and its stack's frames,
	// root first.
	appendPath(b *Builder, tn *threadFrames, i int, frames []FrameID) []FrameID
	// pathsRead says appendPath will not be called again: only len,
	// values and time are.
	pathsRead()
	// pathKey, when ok, identifies sample i's path: samples with equal
	// keys have equal paths (a stack shared by many samples).
	pathKey(i int) (key pathKey, ok bool)
}

// A pathKey is a sample's stack in a shared array and its thread.
type pathKey struct {
	start, end int
	thread     int32
}

type profileSamples struct{ p *profile.Profile }

func (ps profileSamples) len() int             { return len(ps.p.Sample) }
func (ps profileSamples) values(i int) []int64 { return ps.p.Sample[i].Value }
func (ps profileSamples) time(i int) (int64, bool) {
	if ts := ps.p.Sample[i].NumLabel[labels.Timestamp]; len(ts) > 0 {
		return ts[0], true
	}
	return 0, false
}
func (ps profileSamples) pathsRead()                  {}
func (ps profileSamples) pathKey(int) (pathKey, bool) { return pathKey{}, false }
func (ps profileSamples) appendPath(b *Builder, tn *threadFrames, i int, frames []FrameID) []FrameID {
	s := ps.p.Sample[i]
	return b.stackFrames(s, append(frames, tn.frame(s)))
}

type compactSamples struct {
	s       *stacks.Samples
	types   int
	threads []FrameID // per stacks.Thread, once seen
	seen    []bool
}

// pathsRead keeps of the samples only what values and times need, so that
// the stacks (a quarter of a profile's memory) can be collected while the
// tree is built, when the caller keeps no reference to them either.
func (cs *compactSamples) pathsRead() {
	s := cs.s
	cs.s = &stacks.Samples{Ends: s.Ends, Values: s.Values, Times: s.Times, Timed: s.Timed}
}

// pathKey identifies shared stacks (stacks.Samples.Starts): a call tree
// reader's samples of one node share one.
func (cs *compactSamples) pathKey(i int) (pathKey, bool) {
	if cs.s.Starts == nil {
		return pathKey{}, false
	}
	return pathKey{cs.s.Starts[i], cs.s.Ends[i], cs.s.Thread[i]}, true
}

func (cs *compactSamples) len() int                 { return cs.s.Len() }
func (cs *compactSamples) values(i int) []int64     { return cs.s.Value(i, cs.types) }
func (cs *compactSamples) time(i int) (int64, bool) { return cs.s.Time(i) }
func (cs *compactSamples) appendPath(b *Builder, tn *threadFrames, i int, frames []FrameID) []FrameID {
	if cs.threads == nil {
		cs.threads, cs.seen = make([]FrameID, len(cs.s.Threads)), make([]bool, len(cs.s.Threads))
	}
	x := cs.s.Thread[i]
	if !cs.seen[x] {
		th := cs.s.Threads[x]
		cs.threads[x] = tn.frameOf(threadKey{process: th.Process, thread: th.Thread,
			threadNum: threadNum{pid: th.PID, tid: th.TID, hasPID: th.HasPID, hasTID: th.HasTID}})
		cs.seen[x] = true
	}
	frames = append(frames, cs.threads[x])
	stack := cs.s.Stack(i)
	if !b.opts.CallSites {
		for j := len(stack) - 1; j >= 0; j-- {
			frames = append(frames, b.locs.byIndex(b, stack[j])...)
		}
		return frames
	}
	callerLine := int64(0)
	for j := len(stack) - 1; j >= 0; j-- {
		loc := b.locs.p.Location[stack[j]]
		frames = b.locationFrames(loc, callerLine, frames)
		callerLine = 0
		if len(loc.Line) > 0 {
			callerLine = loc.Line[0].Line
		}
	}
	return frames
}

func (b *Builder) add(p *profile.Profile, src sampleSource) error {
	if b.t == nil {
		st := make([]ValueType, len(p.SampleType))
		for i, v := range p.SampleType {
			st[i] = ValueType{v.Type, v.Unit}
		}
		b.t = New(st)
		b.t.DefaultSampleType = p.DefaultSampleType
		if p.PeriodType != nil {
			b.t.PeriodType = ValueType{p.PeriodType.Type, p.PeriodType.Unit}
		}
		b.t.Period = p.Period
	} else if err := b.compatible(p); err != nil {
		return err
	}
	if err := b.addSums(src); err != nil {
		return err
	}
	t := b.t
	t.Profiles++
	b.locs.reset(p)
	b.starts = nil
	t.DurationNanos += p.DurationNanos
	order := sampleOrder(src)
	threads := threadFrames{t: t, ids: map[threadKey]FrameID{}, ordinals: map[[2]string]int32{}}
	if b.opts.Timeline {
		t.Timeline = slices.Grow(t.Timeline, len(order))
	}
	firstTimed := len(t.Timeline)
	ins := &b.ins
	ins.start(t, b.opts, int32(t.Profiles-1), src, pathFrames(p, src))
	for _, si := range order {
		key, keyed := src.pathKey(si)
		if keyed && ins.repeat(key, si) {
			continue // a path of this batch: no frames to copy and compare
		}
		// The thread is the first frame of the path below the root.
		ins.frames = src.appendPath(b, &threads, si, ins.frames)
		ins.endSample(si)
		if keyed {
			ins.keyed(key)
		}
	}
	src.pathsRead()
	ins.last = true
	ins.flush()
	ins.last = false
	ins.src = nil // let the profile go
	if b.opts.Timeline {
		sortTimeline(t.Timeline[firstTimed:])
	}
	return nil
}

// addSums adds a profile's totals to the builder's, refusing totals that
// do not fit in an int64: wrapped around, they would turn into negative
// times (two samples of 2^63-1 ns made a total of -2 ns). No node's value
// exceeds the total, so no node's can overflow either.
func (b *Builder) addSums(src sampleSource) error {
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
	b.t.ComputeTotals()
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

// sampleOrder returns sample indices in time order when every sample has a
// timestamp (stable, so equal times keep file order), else in file order.
// Children are created in this order, which makes their order the order of
// first execution.
func sampleOrder(src sampleSource) []int {
	order := make([]int, src.len())
	for i := range order {
		order[i] = i
	}
	times := make([]int64, src.len())
	sorted := true
	for i := range times {
		ts, ok := src.time(i)
		if !ok {
			return order
		}
		times[i] = ts
		if i > 0 && times[i] < times[i-1] {
			sorted = false
		}
	}
	if !sorted {
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(times[a], times[b]) })
	}
	return order
}

// stackFrames appends the root-first frame ids of a sample's stack.
// pprof stacks are leaf first, and a location's inlined lines are innermost
// first; both are reversed here, the one place that flips the order.
//
// Without call sites a location always yields the same frames, so they are
// computed once per location (locations are shared by many samples); in
// call-site mode the outermost frame depends on the caller's line.
func (b *Builder) stackFrames(s *profile.Sample, frames []FrameID) []FrameID {
	if !b.opts.CallSites {
		for i := len(s.Location) - 1; i >= 0; i-- {
			loc := s.Location[i]
			fs, ok := b.locs.get(loc)
			if !ok {
				fs = b.locationFrames(loc, 0, nil)
				b.locs.set(loc, fs)
			}
			frames = append(frames, fs...)
		}
		return frames
	}
	callerLine := int64(0)
	for i := len(s.Location) - 1; i >= 0; i-- {
		loc := s.Location[i]
		frames = b.locationFrames(loc, callerLine, frames)
		callerLine = 0
		if len(loc.Line) > 0 {
			callerLine = loc.Line[0].Line
		}
	}
	return frames
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
	for j := len(loc.Line) - 1; j >= 0; j-- {
		ln := loc.Line[j]
		f := Frame{}
		info := FrameInfo{Line: ln.Line, Column: ln.Column}
		if fn := ln.Function; fn != nil {
			f.Function, f.File = fn.Name, fn.Filename
			if fn.SystemName != fn.Name {
				info.SystemName = fn.SystemName
			}
			if fn.StartLine > 0 { // where the function is, not where it was sampled
				info.Line = fn.StartLine
				if ln.Line != fn.StartLine {
					info.Column = 0
				}
			}
			if !goSource(f.File) {
				f.StartLine, f.StartColumn = b.start(ln)
			}
		}
		if b.opts.Prune && Prunable(f.Function) {
			continue
		}
		if b.opts.CallSites {
			f.CallSite = callerLine
		}
		frames = append(frames, t.Intern(f, info))
		callerLine = ln.Line
	}
	return frames
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
	if fn.StartLine > 0 {
		if ln.Line == fn.StartLine {
			col = ln.Column
		}
		return fn.StartLine, col
	}
	if b.starts == nil {
		b.starts = KnownStarts(b.locs.p)
	}
	if s, ok := b.starts[[2]string{fn.Name, fn.Filename}]; ok && s[0] > 0 {
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
			fn := ln.Function
			if fn == nil || fn.StartLine <= 0 {
				continue
			}
			s := [2]int64{fn.StartLine, 0}
			if ln.Line == fn.StartLine {
				s[1] = ln.Column
			}
			k := [2]string{fn.Name, fn.Filename}
			if old, ok := m[k]; ok && old != s {
				s = [2]int64{-1, -1}
			}
			m[k] = s
		}
	}
	return m
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
	t        *Tree
	ids      map[threadKey]FrameID
	ordinals map[[2]string]int32
	// The previous sample's labels and frame: samples of one thread
	// usually share their label maps, and come in runs.
	lastLabel map[string][]string
	lastNum   threadNum
	last      FrameID
	hasLast   bool
}

type threadKey struct {
	process, thread string
	threadNum
}

type threadNum struct {
	pid, tid       int64
	hasPID, hasTID bool
}

// frameOf returns the frame of a thread, interning it (and numbering it
// among threads of its name) when new.
func (tn *threadFrames) frameOf(k threadKey) FrameID {
	f, ok := tn.ids[k]
	if !ok {
		name := [2]string{k.process, k.thread}
		ord := tn.ordinals[name]
		tn.ordinals[name] = ord + 1
		f = tn.t.Intern(Frame{Function: k.thread, File: k.process, Ordinal: ord, Kind: KindThread}, FrameInfo{})
		tn.ids[k] = f
	}
	return f
}

func (tn *threadFrames) frame(s *profile.Sample) FrameID {
	var num threadNum
	if len(s.NumLabel) > 0 {
		if v := s.NumLabel[labels.PID]; len(v) > 0 {
			num.pid, num.hasPID = v[0], true
		}
		if v := s.NumLabel[labels.TID]; len(v) > 0 {
			num.tid, num.hasTID = v[0], true
		}
	}
	if tn.hasLast && num == tn.lastNum && sameMap(s.Label, tn.lastLabel) {
		return tn.last
	}
	k := threadKey{threadNum: num}
	if v := s.Label[labels.Process]; len(v) > 0 {
		k.process = v[0]
	}
	if v := s.Label[labels.Thread]; len(v) > 0 {
		k.thread = v[0]
	}
	f := tn.frameOf(k)
	tn.lastLabel, tn.lastNum, tn.last, tn.hasLast = s.Label, num, f, true
	return f
}

// sameMap reports whether a and b are the same map (not merely equal maps).
func sameMap(a, b map[string][]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// ThreadLabel is how a thread frame is shown: "process/thread #2".
func ThreadLabel(f Frame) string {
	s := f.Function
	if s == "" {
		s = "(all threads)"
		if f.Ordinal > 0 || f.File != "" {
			s = "(thread)"
		}
	}
	if f.File != "" {
		s = f.File + "/" + s
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

// locationCache holds the frames of each location of one profile. Samples
// share locations, so their frames are computed once; locations are found
// by id in a slice when the ids are small and unique, as pprof writes
// them, else in a map.
type locationCache struct {
	p      *profile.Profile
	byID   []*profile.Location
	frames [][]FrameID
	known  []bool
	m      map[*profile.Location][]FrameID
	// By index in p.Location, for stacks.Samples.
	idxFrames [][]FrameID
	idxKnown  []bool
}

// byIndex returns the frames of p.Location[i] (without call sites).
func (c *locationCache) byIndex(b *Builder, i int32) []FrameID {
	if c.idxFrames == nil {
		c.idxFrames, c.idxKnown = make([][]FrameID, len(c.p.Location)), make([]bool, len(c.p.Location))
	}
	if !c.idxKnown[i] {
		c.idxFrames[i], c.idxKnown[i] = b.locationFrames(c.p.Location[i], 0, nil), true
	}
	return c.idxFrames[i]
}

func (c *locationCache) reset(p *profile.Profile) {
	c.p = p
	c.m = map[*profile.Location][]FrameID{}
	c.idxFrames, c.idxKnown = nil, nil
	c.byID, c.frames, c.known = nil, nil, nil
	limit := uint64(2*len(p.Location) + 64)
	byID := make([]*profile.Location, len(p.Location)+1)
	for _, loc := range p.Location {
		if loc.ID == 0 || loc.ID > limit {
			return
		}
		if int(loc.ID) >= len(byID) {
			byID = append(byID, make([]*profile.Location, int(loc.ID)+1-len(byID))...)
		}
		if byID[loc.ID] != nil {
			return
		}
		byID[loc.ID] = loc
	}
	c.byID = byID
	c.frames = make([][]FrameID, len(byID))
	c.known = make([]bool, len(byID))
}

func (c *locationCache) get(loc *profile.Location) ([]FrameID, bool) {
	if id := loc.ID; id < uint64(len(c.byID)) && c.byID[id] == loc {
		return c.frames[id], c.known[id]
	}
	fs, ok := c.m[loc]
	return fs, ok
}

func (c *locationCache) set(loc *profile.Location, fs []FrameID) {
	if id := loc.ID; id < uint64(len(c.byID)) && c.byID[id] == loc {
		c.frames[id], c.known[id] = fs, true
		return
	}
	c.m[loc] = fs
}
