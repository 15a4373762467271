package report

import (
	"fmt"
	"io"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/google/pprof/profile"
)

// Sample types of a tree written with its inferred latencies (IntroPerf's
// PA-CCT): per calling context the instance count C and the own
// (normalized) latency of each mode.
var (
	callsType               = &profile.ValueType{Type: "calls", Unit: "count"}
	latencyConservativeType = &profile.ValueType{Type: "latency_conservative", Unit: "nanoseconds"}
	latencyAggressiveType   = &profile.ValueType{Type: "latency_aggressive", Unit: "nanoseconds"}
)

// threadOrdinalLabel is the numeric label that tells apart threads of the
// same name (cct.Frame.Ordinal) in a tree written as pprof.
const threadOrdinalLabel = "thread_ordinal"

// maxPprofFrames bounds the frames a tree's pprof form may list in all: pprof
// repeats the whole stack in every sample, so one sample per node of a very
// deep tree is quadratic in its depth.
const maxPprofFrames = 1 << 28

// writeTreePprof writes a top-down tree as a gzipped pprof profile (see
// treeProfile).
func writeTreePprof(w io.Writer, t *cct.Tree, o TreeOptions) error {
	p, err := treeProfile(t, o)
	if err != nil {
		return err
	}
	return p.Write(w)
}

// treeProfile returns a top-down tree as a pprof profile whose views equal
// the tree: one sample per calling context, its stack the node's path (the
// thread as labels thread, process and, for a second thread of the same name,
// thread_ordinal), its values the node's self values, so pprof's flat values
// are the nodes' self and its cumulative values their totals.
//
// When the tree carries inferred latencies (Tree.Latency), the sample types
// are calls/count, latency_conservative/nanoseconds and
// latency_aggressive/nanoseconds followed by the tree's own types, and each
// sample carries the node's C and own latencies: the own latencies of a
// subtree add up to its root's total, so pprof's cumulative latency of a
// calling context is its inferred total latency, and its flat calls are its
// instance count. The default sample type is the latency of o.LatencyMode.
// Nodes without any value get no sample; a thread's own latency (time in no
// function instance) is a sample without frames.
func treeProfile(t *cct.Tree, o TreeOptions) (*profile.Profile, error) {
	p := &profile.Profile{
		Period:        t.Period,
		DurationNanos: t.DurationNanos,
		Comments:      []string{"ctdiff cct: one sample per calling context"},
	}
	if t.PeriodType != (cct.ValueType{}) {
		p.PeriodType = &profile.ValueType{Type: t.PeriodType.Type, Unit: t.PeriodType.Unit}
	}
	lat := t.Latency
	if lat != nil {
		p.SampleType = []*profile.ValueType{callsType, latencyConservativeType, latencyAggressiveType}
		p.DefaultSampleType = latencyConservativeType.Type
		if o.LatencyMode == cct.Aggressive {
			p.DefaultSampleType = latencyAggressiveType.Type
		}
		p.Comments = append(p.Comments, fmt.Sprintf(
			"latency inferred from stack continuity (IntroPerf): %d instances, gap threshold %d ns", lat.InstanceCount, lat.Gap))
	} else {
		p.DefaultSampleType = t.DefaultSampleType
	}
	nfixed := len(p.SampleType)
	for _, st := range t.SampleTypes {
		p.SampleType = append(p.SampleType, &profile.ValueType{Type: st.Type, Unit: st.Unit})
	}
	hasSample := func(id cct.NodeID) bool {
		if id == cct.RootID {
			return false
		}
		if lat != nil {
			nl := &lat.Nodes[id]
			if nl.Count != 0 || nl.Conservative.Own != 0 || nl.Aggressive.Own != 0 {
				return true
			}
		}
		return !allZero(t.Self(id))
	}
	var frames int64
	for i := range t.Nodes {
		if hasSample(cct.NodeID(i)) {
			frames += int64(max(t.Nodes[i].Depth-1, 0))
		}
	}
	if frames > maxPprofFrames {
		return nil, fmt.Errorf("the tree is too deep for pprof, which repeats the whole stack in every sample: "+
			"%d frames in all, more than %d (use the text or json format)", frames, maxPprofFrames)
	}

	w := pprofWriter{p: p, t: t, funcs: map[funcKey]*profile.Function{}, locs: map[locKey]*profile.Location{}}
	// stack[i] is the location of the node at depth i+2 on the current path
	// (root first); a sample's stack is its reverse. Iterative: trees are deep.
	var stack []*profile.Location
	var thread *profile.Sample // labels of the current thread
	todo := []cct.NodeID{cct.RootID}
	for len(todo) > 0 {
		id := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		n := t.Node(id)
		switch {
		case n.Depth == 1:
			thread = threadLabels(t.FrameOf(id))
		case n.Depth > 1:
			stack = append(stack[:n.Depth-2], w.location(n.Frame, 0))
			if n.Depth > 2 {
				// The caller's location is at the line it called this
				// frame from, where call-site mode knows it.
				stack[n.Depth-3] = w.location(t.Node(n.Parent).Frame, t.FrameOf(id).CallSite)
			}
		}
		kids := t.Children(id)
		for i := len(kids) - 1; i >= 0; i-- {
			todo = append(todo, kids[i])
		}
		if !hasSample(id) {
			continue
		}
		v := make([]int64, len(p.SampleType))
		if lat != nil {
			nl := &lat.Nodes[id]
			v[0], v[1], v[2] = nl.Count, nl.Conservative.Own, nl.Aggressive.Own
		}
		copy(v[nfixed:], t.Self(id))
		depth := max(int(n.Depth)-1, 0)
		s := &profile.Sample{Value: v, Location: make([]*profile.Location, depth)}
		for i, l := range stack[:depth] {
			s.Location[depth-1-i] = l
		}
		if thread != nil {
			s.Label, s.NumLabel = thread.Label, thread.NumLabel
		}
		p.Sample = append(p.Sample, s)
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("internal error: invalid pprof profile: %w", err)
	}
	return p, nil
}

type funcKey struct {
	name, systemName, file string
	startLine              int64
}

type locKey struct {
	frame cct.FrameID
	line  int64
}

type pprofWriter struct {
	p     *profile.Profile
	t     *cct.Tree
	funcs map[funcKey]*profile.Function
	locs  map[locKey]*profile.Location
}

// location returns the location of a frame at a line (0: the frame's own
// line). Functions are shared by name, file and start line, so the frames of
// one function called from different lines (call-site mode) stay one
// function in pprof, and same-named functions of one script stay two.
func (w *pprofWriter) location(f cct.FrameID, line int64) *profile.Location {
	fr, info := w.t.Frames[f], w.t.FrameInfo[f]
	if line == 0 {
		line = info.Line
	}
	k := locKey{f, line}
	if l := w.locs[k]; l != nil {
		return l
	}
	sys := info.SystemName
	if sys == "" {
		sys = fr.Function
	}
	fk := funcKey{fr.Function, sys, fr.File, fr.StartLine}
	fn := w.funcs[fk]
	if fn == nil {
		fn = &profile.Function{ID: uint64(len(w.p.Function) + 1), Name: fr.Function, SystemName: sys, Filename: fr.File, StartLine: fr.StartLine}
		w.p.Function = append(w.p.Function, fn)
		w.funcs[fk] = fn
	}
	col := info.Column
	if line != info.Line {
		col = 0
	}
	l := &profile.Location{ID: uint64(len(w.p.Location) + 1), Line: []profile.Line{{Function: fn, Line: line, Column: col}}}
	w.p.Location = append(w.p.Location, l)
	w.locs[k] = l
	return l
}

// threadLabels returns a sample holding the labels of a thread frame, or
// nil for the unnamed "(all threads)".
func threadLabels(f cct.Frame) *profile.Sample {
	s := &profile.Sample{}
	if f.Thread != "" {
		s.Label = map[string][]string{labels.Thread: {f.Thread}}
	}
	if f.Process != "" {
		if s.Label == nil {
			s.Label = map[string][]string{}
		}
		s.Label[labels.Process] = []string{f.Process}
	}
	if f.Ordinal > 0 {
		s.NumLabel = map[string][]int64{threadOrdinalLabel: {int64(f.Ordinal)}}
	}
	if s.Label == nil && s.NumLabel == nil {
		return nil
	}
	return s
}

func allZero(v []int64) bool {
	for _, x := range v {
		if x != 0 {
			return false
		}
	}
	return true
}
