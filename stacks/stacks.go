// Package stacks is the one form in which a profile's samples travel from
// convert to cct: a Source, read by index. Two forms implement it. A
// *profile.Profile's own samples (FromProfile) are what most readers make.
// Samples holds them compactly — stacks as location indexes in one array,
// values in another, thread identities shared — and is what readers that
// can produce it return (convert's pprof and call tree readers, with
// convert.Options.Stacks): without a profile.Sample, a location slice and
// label maps per sample, a 200,000-stack profile takes a third of the
// memory and most of the garbage collector's work goes.
//
// A Source keeps what trees are built from (stacks, values, the labels
// that name threads, timestamps); Samples keeps no other label.
//
// It is below convert and cct, and imports neither.
package stacks

import (
	"math"

	"github.com/google/pprof/profile"
)

// A Source is one profile's samples. The profile (Profile) holds what is
// not per sample: sample types, locations, functions, period.
type Source interface {
	// Profile returns the profile the samples belong to. Its Sample is
	// nil unless the samples are its own (FromProfile).
	Profile() *profile.Profile
	// Len returns the number of samples.
	Len() int
	// Depth returns the number of locations of sample i's stack.
	Depth(i int) int
	// Stack returns sample i's stack, leaf first as in pprof, as indexes
	// for Location. The slice is valid until the next call and must not be
	// modified.
	Stack(i int) []int32
	// Location returns the location of a stack index: Profile().Location[x]
	// where the profile holds it.
	Location(x int32) *profile.Location
	// Value returns sample i's values, one per sample type; not to be
	// modified.
	Value(i int) []int64
	// Time returns sample i's timestamp_ns label, if it has one.
	Time(i int) (ns int64, ok bool)
	// Thread returns the index in Threads of sample i's thread.
	Thread(i int) int32
	// Threads returns the thread identities of the samples: at least
	// those of every index Thread has returned.
	Threads() []Thread
	// Keep keeps the samples for which keep returns true, in order, in
	// place. It calls keep for each sample in order, before it moves any
	// sample after it, so keep may read sample i through the Source.
	Keep(keep func(i int) bool)
}

// A Thread is the thread identity of samples: the first values of their
// thread, process, pid and tid labels (internal/labels).
type Thread struct {
	Thread, Process string
	PID, TID        int64
	HasPID, HasTID  bool
}

// Name is the name a thread is selected by (convert's --thread):
// "process/thread" when both are set, else whichever is set.
func (th Thread) Name() string {
	switch {
	case th.Process != "" && th.Thread != "":
		return th.Process + "/" + th.Thread
	case th.Thread != "":
		return th.Thread
	}
	return th.Process
}

// AllTimed reports whether every sample has a timestamp (and there is at
// least one sample): whether samples in time order are in execution order.
func AllTimed(src Source) bool {
	if s, ok := src.(*Samples); ok {
		return s.allTimed()
	}
	for i := range src.Len() {
		if _, ok := src.Time(i); !ok {
			return false
		}
	}
	return src.Len() > 0
}

// Samples are the samples of one profile, compactly. Make them with New.
type Samples struct {
	p *profile.Profile
	// Locations holds every sample's stack as indexes into the profile's
	// Location slice, leaf first as in pprof, one sample after another;
	// sample i's stack ends at Ends[i]. Ends and Starts are int32 (8
	// bytes a sample less, a quarter of a DevTools trace's samples), so
	// Locations holds at most MaxLocations indexes.
	Locations []int32
	Ends      []int32
	// Starts, when not nil, says where each sample's stack starts in
	// Locations, which then need not follow one another: samples may share
	// a stack, or its tail (readers of call trees, whose nodes are sampled
	// many times, lay each node's stack out once). Samples with the same
	// start and end have the same stack.
	Starts []int32
	// Values holds the values of every sample, one per sample type.
	Values []int64
	// SampleThreads is each sample's index into ThreadList.
	SampleThreads []int32
	ThreadList    []Thread
	// Times holds each sample's timestamp_ns label, nil when no sample has
	// one. Timed, when not nil, says which samples have one; it is nil
	// when every sample has one (the usual case, which saves a byte a
	// sample: 28.8 M samples of a 500 MB DevTools trace).
	Times []int64
	Timed []bool
	// Frames, when not nil, holds the locations Locations indexes as
	// compact frames, and the profile holds no locations or functions:
	// readers of deep stacks of distinct frames that only trees are built
	// from make them so, at about 80 bytes a frame with its name, where a
	// pprof Function, Location and Line took some 200 and the maps that
	// interned them as much again. Location makes a location of one for
	// those who need it.
	Frames []Frame
}

// A Frame is a location of one line, compactly: the line's function
// (Name, SystemName, File, StartLine, as pprof's Function) and its line
// and column. SystemName is empty when it is Name.
type Frame struct {
	Name, SystemName, File  string
	Line, Column, StartLine int64
}

// FrameLocation returns the location of frame x of fr as pprof has it:
// location and function id x+1, one line, SystemName the name when it is
// empty. Each call makes a new one.
func FrameLocation(fr []Frame, x int32) *profile.Location {
	f := &fr[x]
	sys := f.SystemName
	if sys == "" {
		sys = f.Name
	}
	fn := &profile.Function{ID: uint64(x) + 1, Name: f.Name, SystemName: sys, Filename: f.File, StartLine: f.StartLine}
	return &profile.Location{ID: uint64(x) + 1, Line: []profile.Line{{Function: fn, Line: f.Line, Column: f.Column}}}
}

// MaxLocations is the most indexes Samples.Locations may hold: an end of
// a stack must fit Ends.
const MaxLocations = math.MaxInt32

// New returns empty Samples of the profile p, whose Sample should be nil.
func New(p *profile.Profile) *Samples { return &Samples{p: p} }

// Profile returns the profile the samples belong to.
func (s *Samples) Profile() *profile.Profile { return s.p }

// Len returns the number of samples.
func (s *Samples) Len() int { return len(s.Ends) }

// Depth returns the number of locations of sample i's stack.
func (s *Samples) Depth(i int) int { return int(s.Ends[i]) - s.Start(i) }

// Stack returns sample i's stack, leaf first, a part of Locations.
func (s *Samples) Stack(i int) []int32 {
	return s.Locations[s.Start(i):int(s.Ends[i])]
}

// FrameProfile returns the profile of samples with Frames as pprof has
// it: a copy of the profile with a location per frame (id x+1, as
// FrameLocation makes it) and a function per distinct function of the
// frames, numbered in the order of their first frames, as convert's
// readers number them when they make pprof's. Without Frames, the profile.
func (s *Samples) FrameProfile() *profile.Profile {
	if s.Frames == nil {
		return s.p
	}
	p := s.p
	q := &profile.Profile{
		SampleType: p.SampleType, DefaultSampleType: p.DefaultSampleType, Sample: p.Sample,
		Mapping: p.Mapping, Location: make([]*profile.Location, len(s.Frames)),
		Comments: p.Comments, DocURL: p.DocURL, DropFrames: p.DropFrames, KeepFrames: p.KeepFrames,
		TimeNanos: p.TimeNanos, DurationNanos: p.DurationNanos, PeriodType: p.PeriodType, Period: p.Period,
	}
	type fnKey struct {
		name, sys, file string
		start           int64
	}
	fns := map[fnKey]*profile.Function{}
	for x := range s.Frames {
		l := FrameLocation(s.Frames, int32(x))
		ln := &l.Line[0]
		k := fnKey{ln.Function.Name, ln.Function.SystemName, ln.Function.Filename, ln.Function.StartLine}
		fn, ok := fns[k]
		if !ok {
			fn = ln.Function
			fn.ID = uint64(len(q.Function)) + 1
			q.Function = append(q.Function, fn)
			fns[k] = fn
		}
		ln.Function = fn
		q.Location[x] = l
	}
	return q
}

// Location returns the profile's location x, or with Frames a location
// made of frame x (FrameLocation).
func (s *Samples) Location(x int32) *profile.Location {
	if s.Frames != nil {
		return FrameLocation(s.Frames, x)
	}
	return s.p.Location[x]
}

// Start returns where sample i's stack starts in Locations.
func (s *Samples) Start(i int) int {
	switch {
	case s.Starts != nil:
		return int(s.Starts[i])
	case i > 0:
		return int(s.Ends[i-1])
	}
	return 0
}

// Value returns sample i's values.
func (s *Samples) Value(i int) []int64 {
	n := len(s.p.SampleType)
	return s.Values[i*n : i*n+n : i*n+n]
}

// Time returns sample i's timestamp, if it has one.
func (s *Samples) Time(i int) (int64, bool) {
	if s.Times == nil || s.Timed != nil && !s.Timed[i] {
		return 0, false
	}
	return s.Times[i], true
}

// Thread returns the index in ThreadList of sample i's thread.
func (s *Samples) Thread(i int) int32 { return s.SampleThreads[i] }

// Threads returns ThreadList.
func (s *Samples) Threads() []Thread { return s.ThreadList }

func (s *Samples) allTimed() bool {
	if s.Times == nil || s.Len() == 0 {
		return false
	}
	for _, t := range s.Timed {
		if !t {
			return false
		}
	}
	return true
}

// Keep keeps the samples for which keep returns true, in order, in place.
// Shared stacks (Starts) stay where they are.
func (s *Samples) Keep(keep func(i int) bool) {
	types := len(s.p.SampleType)
	loc, n := 0, 0
	start := int32(0)
	for i, end := range s.Ends {
		if s.Starts != nil {
			start = s.Starts[i]
		}
		if keep(i) {
			if s.Starts != nil {
				s.Starts[n], s.Ends[n] = start, end
			} else {
				loc += copy(s.Locations[loc:], s.Locations[start:end])
				s.Ends[n] = int32(loc)
			}
			copy(s.Values[n*types:], s.Values[i*types:i*types+types])
			s.SampleThreads[n] = s.SampleThreads[i]
			if s.Times != nil {
				s.Times[n] = s.Times[i]
			}
			if s.Timed != nil {
				s.Timed[n] = s.Timed[i]
			}
			n++
		}
		start = end
	}
	if s.Starts != nil {
		s.Starts, loc = s.Starts[:n], len(s.Locations)
	}
	s.Locations, s.Ends, s.Values, s.SampleThreads = s.Locations[:loc], s.Ends[:n], s.Values[:n*types], s.SampleThreads[:n]
	if s.Times != nil {
		s.Times = s.Times[:n]
	}
	if s.Timed != nil {
		s.Timed = s.Timed[:n]
	}
}
