package cct

import (
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// Filters are pprof's four filters of samples and frames, as regular
// expressions (Go syntax, unanchored; "" for none), with pprof's meaning
// (profile.FilterSamplesByName):
//
//   - Focus keeps the samples with a location that matches it;
//   - Ignore drops the samples with a location that matches it (of a
//     location that matches both, Ignore wins);
//   - Hide removes the frames that match it from every stack;
//   - Show keeps only the frames that match it in every stack.
//
// A location matches when a function name or file name of one of its lines
// (a location holds its inlined calls) or its mapping's file matches. Focus
// and Ignore see the stacks as recorded, before Hide and Show remove frames.
// Hide and Show remove a location's lines that match (or do not), and the
// whole location when its mapping's file matches (or, for Show, when no
// line is left); a sample left without frames is dropped. Any filter drops
// the samples that have no location at all, as pprof does.
type Filters struct {
	Focus, Ignore, Hide, Show string
}

// IsZero reports whether no filter is set.
func (f Filters) IsZero() bool { return f == Filters{} }

// String lists the filters set as "focus=RE, hide=RE", in pprof's order.
func (f Filters) String() string {
	var parts []string
	for i, re := range f.list() {
		if re != "" {
			parts = append(parts, filterNames[i]+"="+re)
		}
	}
	return strings.Join(parts, ", ")
}

func (f Filters) list() [4]string { return [4]string{f.Focus, f.Ignore, f.Hide, f.Show} }

// filterNames are the filters' names, in Filters' order.
var filterNames = [4]string{"focus", "ignore", "hide", "show"}

// A FilterError says which filter's expression does not compile.
type FilterError struct {
	// Name is the filter's name: focus, ignore, hide or show.
	Name, Expr string
	Err        error
}

func (e *FilterError) Error() string {
	return fmt.Sprintf("%s %q: %v", e.Name, e.Expr, e.Err)
}

func (e *FilterError) Unwrap() error { return e.Err }

// A Filter is Filters compiled, for Options.Filter. It records which
// filters matched a location of any profile it filtered (Unmatched); it is
// safe for builders on several goroutines to share.
type Filter struct {
	spec Filters
	// re holds focus, ignore, hide and show, nil where not set.
	re [4]*regexp.Regexp
	// matched says, per filter, that it matched a location (for Show:
	// that a location kept a line), as pprof's warnings count them.
	matched [4]atomic.Bool
}

// Compile compiles the filters; it returns nil for no filter, and a
// *FilterError for an expression that does not compile.
func (f Filters) Compile() (*Filter, error) {
	if f.IsZero() {
		return nil, nil
	}
	out := &Filter{spec: f}
	for i, s := range f.list() {
		if s == "" {
			continue
		}
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, &FilterError{Name: filterNames[i], Expr: s, Err: err}
		}
		out.re[i] = re
	}
	return out, nil
}

// Filters returns the filters f was compiled from.
func (f *Filter) Filters() Filters { return f.spec }

// Unmatched names the filters that matched no location of the profiles
// filtered so far (for Show: that kept no line), in pprof's order: a
// filter that matches nothing is usually a misspelt name.
func (f *Filter) Unmatched() []string {
	var out []string
	for i, re := range f.re {
		if re != nil && !f.matched[i].Load() {
			out = append(out, filterNames[i])
		}
	}
	return out
}

const (
	focusFilter = iota
	ignoreFilter
	hideFilter
	showFilter
)

// locationState is what the filters make of one location.
type locationState struct {
	done bool
	// focus and ignore: the location is focused (a focus match, or any
	// location without Focus) or ignored; neither when Focus is set and
	// does not match.
	focus, ignore bool
	// at is the location's index in the filtered profile, -1 when Hide or
	// Show removed it.
	at int32
}

// filtering is the filtering of one profile's samples.
type filtering struct {
	f     *Filter
	src   stacks.Source
	out   *stacks.Samples
	state []locationState
	locs  []*profile.Location
	stack []int32
	timed int // timedSamples
}

// Apply returns the samples of src that the filters keep, with the frames
// they keep, as new compact samples of a profile that shares src's
// profile's tables (functions, mappings) and holds the locations kept,
// with the lines Hide and Show left. It neither modifies src nor keeps a
// reference to it or its arrays: the caller may reuse them.
func (f *Filter) Apply(src stacks.Source) *stacks.Samples {
	p := src.Profile()
	fl := &filtering{f: f, src: src}
	n := src.Len()
	// Room for every sample, so that no array grows by doubling: the
	// copy is beside its source until the tree is built.
	out := &stacks.Samples{
		Ends: make([]int32, 0, n), SampleThreads: make([]int32, 0, n),
		Values: make([]int64, 0, n*len(p.SampleType)), Locations: make([]int32, 0, locationRoom(src)),
	}
	fl.out = out
	fl.timed = timedSamples(src)
	if c, ok := src.(*stacks.Samples); ok && c.Starts != nil {
		fl.shared(c)
	} else {
		for i := range n {
			if fl.keep(src.Stack(i)) {
				out.Ends = append(out.Ends, int32(len(out.Locations)))
				fl.sample(i)
			}
		}
	}
	out.ThreadList = append([]stacks.Thread(nil), src.Threads()...)
	fl.times()
	if len(out.Ends) == 0 {
		out.Starts = nil // no sample: nothing shares a stack
	}
	q := &profile.Profile{
		SampleType: p.SampleType, DefaultSampleType: p.DefaultSampleType,
		Mapping: p.Mapping, Location: fl.locs, Function: p.Function,
		Comments: p.Comments, DocURL: p.DocURL, DropFrames: p.DropFrames, KeepFrames: p.KeepFrames,
		TimeNanos: p.TimeNanos, DurationNanos: p.DurationNanos, PeriodType: p.PeriodType, Period: p.Period,
	}
	kept := stacks.New(q)
	kept.Locations, kept.Ends, kept.Starts = out.Locations, out.Ends, out.Starts
	kept.Values, kept.SampleThreads, kept.ThreadList = out.Values, out.SampleThreads, out.ThreadList
	kept.Times, kept.Timed = out.Times, out.Timed
	return kept
}

// shared filters samples whose stacks are shared (stacks.Samples.Starts,
// from call tree readers, whose nodes are sampled many times): each
// stack is filtered once, and the samples of a kept stack share its
// filtered copy.
func (fl *filtering) shared(c *stacks.Samples) {
	out := fl.out
	out.Starts = make([]int32, 0, c.Len())
	type span struct{ start, end int32 }
	done := map[span]span{} // a dropped stack maps to {-1, -1}
	for i := range c.Len() {
		in := span{c.Starts[i], c.Ends[i]}
		to, ok := done[in]
		if !ok {
			to = span{-1, -1}
			start := int32(len(out.Locations))
			if fl.keep(c.Stack(i)) {
				to = span{start, int32(len(out.Locations))}
			}
			done[in] = to
		}
		if to.start < 0 {
			continue
		}
		out.Starts = append(out.Starts, to.start)
		out.Ends = append(out.Ends, to.end)
		fl.sample(i)
	}
}

// keep reports whether the filters keep a stack (leaf first), and when
// they do appends its kept locations' indexes to the output's Locations.
func (fl *filtering) keep(stack []int32) bool {
	focused := false
	kept := fl.stack[:0]
	for _, x := range stack {
		st := fl.location(x)
		if st.ignore {
			return false
		}
		focused = focused || st.focus
		if st.at >= 0 {
			kept = append(kept, st.at)
		}
	}
	fl.stack = kept
	if !focused || len(kept) == 0 {
		return false
	}
	fl.out.Locations = append(fl.out.Locations, kept...)
	return true
}

// sample appends sample i's values, thread and time to the output.
func (fl *filtering) sample(i int) {
	out := fl.out
	out.Values = append(out.Values, fl.src.Value(i)...)
	out.SampleThreads = append(out.SampleThreads, fl.src.Thread(i))
	if fl.timed == noneTimed {
		return
	}
	if out.Times == nil {
		out.Times = make([]int64, 0, cap(out.Ends))
		if fl.timed == someTimed {
			out.Timed = make([]bool, 0, cap(out.Ends))
		}
	}
	t, ok := fl.src.Time(i)
	out.Times = append(out.Times, t)
	if out.Timed != nil {
		out.Timed = append(out.Timed, ok)
	}
}

// times drops the output's Timed when every sample kept has a time, and
// both when none has.
func (fl *filtering) times() {
	out := fl.out
	some, all := false, true
	for _, ok := range out.Timed {
		some = some || ok
		all = all && ok
	}
	switch {
	case out.Timed == nil:
	case !some:
		out.Times, out.Timed = nil, nil
	case all:
		out.Timed = nil
	}
}

// Which samples of a source have a time (timedSamples).
const (
	noneTimed = iota
	someTimed
	allTimed
)

// timedSamples says which samples of src have a time.
func timedSamples(src stacks.Source) int {
	if c, ok := src.(*stacks.Samples); ok && c.Times == nil {
		return noneTimed
	}
	timed := 0
	for i := range src.Len() {
		if _, ok := src.Time(i); ok {
			timed++
		}
	}
	switch timed {
	case 0:
		return noneTimed
	case src.Len():
		return allTimed
	}
	return someTimed
}

// locationRoom is room enough for the output's Locations: the source's
// (every sample's stack, or the shared stacks laid out once).
func locationRoom(src stacks.Source) int {
	if c, ok := src.(*stacks.Samples); ok {
		return len(c.Locations)
	}
	n := 0
	for i := range src.Len() {
		n += src.Depth(i)
	}
	return n
}

// location returns what the filters make of location x, deciding it the
// first time x is met.
func (fl *filtering) location(x int32) locationState {
	if int(x) >= len(fl.state) {
		fl.state = append(fl.state, make([]locationState, int(x)+1-len(fl.state))...)
	}
	st := &fl.state[x]
	if st.done {
		return *st
	}
	f := fl.f
	loc := fl.src.Location(x)
	st.done = true
	focus, ignore, hide, show := f.re[focusFilter], f.re[ignoreFilter], f.re[hideFilter], f.re[showFilter]
	switch {
	case ignore != nil && locationMatches(loc, ignore):
		st.ignore = true
		f.matched[ignoreFilter].Store(true)
	case focus == nil:
		st.focus = true
	case locationMatches(loc, focus):
		st.focus = true
		f.matched[focusFilter].Store(true)
	}
	// As pprof: a location Hide matches, or any location under Show, is
	// hidden when it is left without lines (an unsymbolized one too).
	lines, hidden := loc.Line, false
	if hide != nil && locationMatches(loc, hide) {
		f.matched[hideFilter].Store(true)
		lines = unmatchedLines(loc, hide)
		hidden = len(lines) == 0
	}
	if show != nil && !hidden {
		lines = matchedLines(loc, lines, show)
		hidden = len(lines) == 0
		if !hidden {
			f.matched[showFilter].Store(true)
		}
	}
	st.at = -1
	if hidden {
		return *st
	}
	if len(lines) != len(loc.Line) {
		c := *loc
		c.Line = lines
		loc = &c
	}
	st.at = int32(len(fl.locs))
	fl.locs = append(fl.locs, loc)
	return *st
}

// locationMatches is pprof's Location.matchesName: a line's function name
// or file name, or the mapping's file, matches re.
func locationMatches(loc *profile.Location, re *regexp.Regexp) bool {
	for _, ln := range loc.Line {
		if fn := ln.Function; fn != nil && (re.MatchString(fn.Name) || re.MatchString(fn.Filename)) {
			return true
		}
	}
	return loc.Mapping != nil && re.MatchString(loc.Mapping.File)
}

// unmatchedLines is pprof's Location.unmatchedLines: the lines whose
// function matches re go, and all of them when the mapping's file does.
func unmatchedLines(loc *profile.Location, re *regexp.Regexp) []profile.Line {
	if loc.Mapping != nil && re.MatchString(loc.Mapping.File) {
		return nil
	}
	var lines []profile.Line
	for _, ln := range loc.Line {
		if fn := ln.Function; fn != nil && (re.MatchString(fn.Name) || re.MatchString(fn.Filename)) {
			continue
		}
		lines = append(lines, ln)
	}
	return lines
}

// matchedLines is pprof's Location.matchedLines on the lines Hide left:
// those whose function matches re stay, and lines without a function;
// all of them when the mapping's file matches.
func matchedLines(loc *profile.Location, lines []profile.Line, re *regexp.Regexp) []profile.Line {
	if loc.Mapping != nil && re.MatchString(loc.Mapping.File) {
		return lines
	}
	var out []profile.Line
	for _, ln := range lines {
		if fn := ln.Function; fn != nil && !re.MatchString(fn.Name) && !re.MatchString(fn.Filename) {
			continue
		}
		out = append(out, ln)
	}
	return out
}
