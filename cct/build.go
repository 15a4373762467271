package cct

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"unicode/utf8"

	"github.com/ctdiff/ctdiff/internal/labels"
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
}

// A Builder merges profiles into one tree.
type Builder struct {
	opts Options
	t    *Tree
	locs locationCache
	ins  inserter
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
	t := b.t
	t.Profiles++
	b.locs.reset(p)
	t.DurationNanos += p.DurationNanos
	order := sampleOrder(p)
	threads := threadFrames{t: t, ids: map[threadKey]FrameID{}, ordinals: map[[2]string]int32{}}
	if b.opts.Timeline {
		t.Timeline = slices.Grow(t.Timeline, len(order))
	}
	firstTimed := len(t.Timeline)
	ins := &b.ins
	ins.start(t, b.opts.Timeline, int32(t.Profiles-1), p)
	for _, si := range order {
		s := p.Sample[si]
		// The thread is the first frame of the path below the root.
		ins.frames = append(ins.frames, threads.frame(s))
		ins.frames = b.stackFrames(s, ins.frames)
		ins.endSample(s)
	}
	ins.flush()
	if b.opts.Timeline {
		sortTimeline(t.Timeline[firstTimed:])
	}
	return nil
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
func sampleOrder(p *profile.Profile) []int {
	order := make([]int, len(p.Sample))
	for i := range order {
		order[i] = i
	}
	times := make([]int64, len(p.Sample))
	sorted := true
	for i, s := range p.Sample {
		ts, ok := s.NumLabel[labels.Timestamp]
		if !ok || len(ts) == 0 {
			return order
		}
		times[i] = ts[0]
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
		if ln.Function != nil {
			f.Function, f.File = ln.Function.Name, ln.Function.Filename
			if ln.Function.SystemName != ln.Function.Name {
				info.SystemName = ln.Function.SystemName
			}
			if ln.Function.StartLine > 0 { // where the function is, not where it was sampled
				info.Line, info.Column = ln.Function.StartLine, 0
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
	f, ok := tn.ids[k]
	if !ok {
		name := [2]string{k.process, k.thread}
		ord := tn.ordinals[name]
		tn.ordinals[name] = ord + 1
		f = tn.t.Intern(Frame{Function: k.thread, File: k.process, Ordinal: ord, Kind: KindThread}, FrameInfo{})
		tn.ids[k] = f
	}
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
	byID   []*profile.Location
	frames [][]FrameID
	known  []bool
	m      map[*profile.Location][]FrameID
}

func (c *locationCache) reset(p *profile.Profile) {
	c.m = map[*profile.Location][]FrameID{}
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
