package cct

import (
	"fmt"
	"slices"
	"sort"
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
	opts      Options
	t         *Tree
	locFrames map[*profile.Location][]FrameID
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
	b.locFrames = make(map[*profile.Location][]FrameID, len(p.Location))
	t.DurationNanos += p.DurationNanos
	order := sampleOrder(p)
	threads := threadNodes{t: t, ids: map[threadKey]NodeID{}, ordinals: map[[2]string]int32{}}
	var frames, prevFrames []FrameID
	var path []NodeID // path[i] is the node of prevFrames[i]
	prevThread := NoNode
	firstTimed := len(t.Timeline)
	if b.opts.Timeline {
		t.Timeline = slices.Grow(t.Timeline, len(order))
	}
	for _, si := range order {
		s := p.Sample[si]
		thread := threads.node(s)
		frames = b.stackFrames(s, frames[:0])
		// Consecutive samples share most of their stack: reuse the nodes of
		// the common prefix with the previous sample instead of looking
		// each one up again.
		common := 0
		if thread == prevThread {
			for common < len(frames) && common < len(prevFrames) && frames[common] == prevFrames[common] {
				common++
			}
		}
		path = path[:common]
		id := thread
		if common > 0 {
			id = path[common-1]
		}
		for _, f := range frames[common:] {
			id = t.AddChild(id, f)
			path = append(path, id)
		}
		prevThread, prevFrames, frames = thread, frames, prevFrames
		self := t.Nodes[id].Self
		for k, v := range s.Value {
			self[k] += v
		}
		if b.opts.Timeline {
			if ts, ok := s.NumLabel[labels.Timestamp]; ok && len(ts) > 0 {
				t.Timeline = append(t.Timeline, TimedSample{Thread: thread, Leaf: id, Time: ts[0], Value: s.Value, Profile: int32(t.Profiles - 1)})
			}
		}
	}
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
		sort.SliceStable(order, func(a, b int) bool { return times[order[a]] < times[order[b]] })
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
			fs, ok := b.locFrames[loc]
			if !ok {
				fs = b.locationFrames(loc, 0, nil)
				b.locFrames[loc] = fs
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

// threadNodes maps a profile's thread instances to thread nodes.
type threadNodes struct {
	t        *Tree
	ids      map[threadKey]NodeID
	ordinals map[[2]string]int32
}

type threadKey struct {
	process, thread string
	pid, tid        int64
	hasPID, hasTID  bool
}

func (tn *threadNodes) node(s *profile.Sample) NodeID {
	var k threadKey
	if v := s.Label[labels.Process]; len(v) > 0 {
		k.process = v[0]
	}
	if v := s.Label[labels.Thread]; len(v) > 0 {
		k.thread = v[0]
	}
	if v := s.NumLabel[labels.PID]; len(v) > 0 {
		k.pid, k.hasPID = v[0], true
	}
	if v := s.NumLabel[labels.TID]; len(v) > 0 {
		k.tid, k.hasTID = v[0], true
	}
	if id, ok := tn.ids[k]; ok {
		return id
	}
	name := [2]string{k.process, k.thread}
	ord := tn.ordinals[name]
	tn.ordinals[name] = ord + 1
	f := tn.t.Intern(Frame{Function: k.thread, File: k.process, Ordinal: ord, Kind: KindThread}, FrameInfo{})
	id := tn.t.AddChild(RootID, f)
	tn.ids[k] = id
	return id
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
