package cct

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ctdiff/ctdiff/internal/labels"
)

// Latency inference from stack continuity: IntroPerf (Kim et al.,
// SIGMETRICS'14), Section 3.3, Algorithm 2, and top-down normalization,
// Section 3.4.1, Algorithm 3 lines 1-6. The result is the paper's
// performance-annotated CCT (PA-CCT): per node the instance count C and the
// conservative and aggressive latencies.

// A LatencyMode is one of IntroPerf's two estimates of when a function
// instance ended (Section 3.3, Figure 3).
type LatencyMode uint8

const (
	// Conservative ends an instance at the last sample of its context.
	Conservative LatencyMode = iota
	// Aggressive ends an instance at the first sample of the next context.
	Aggressive
)

func (m LatencyMode) String() string {
	if m == Aggressive {
		return "aggressive"
	}
	return "conservative"
}

// ParseLatencyMode reads "conservative" or "aggressive".
func ParseLatencyMode(s string) (LatencyMode, error) {
	switch strings.ToLower(s) {
	case "conservative":
		return Conservative, nil
	case "aggressive":
		return Aggressive, nil
	}
	return 0, fmt.Errorf("latency mode %q must be conservative or aggressive", s)
}

// DefaultGapIntervals is how many sampling intervals a thread may go
// unsampled before its open instances are ended (LatencyOptions.Gap).
// Sampling jitters (timer slack, samplers that visit threads in turns), so
// one or two missing samples are not a gap; a few are.
const DefaultGapIntervals = 4

// LatencyOptions control InferLatency. The zero value derives the gap
// threshold and keeps no instance list.
type LatencyOptions struct {
	// Gap is the longest silence, in nanoseconds, between two samples of a
	// thread across which its function instances continue. After a longer
	// silence every open instance ends at the thread's last sample before
	// it, in both modes: the thread was off-CPU or not sampled, and nothing
	// says the context survived, so idle time must not inflate latencies.
	// This is not in the paper, whose OS event traces have no such gaps.
	// 0 derives the threshold: GapIntervals × Tree.SamplingInterval().
	// Negative turns gap detection off.
	Gap int64
	// GapIntervals scales the sampling interval into the derived Gap;
	// 0 means DefaultGapIntervals.
	GapIntervals float64
	// KeepInstances keeps every inferred instance in Latency.Instances, the
	// paper's list L for a timeline view. It costs 32 bytes per instance.
	KeepInstances bool
}

// Latency is the IntroPerf annotation of a tree (Tree.Latency).
type Latency struct {
	// Nodes is indexed by NodeID. The root has no instances; its Total is
	// the sum of its threads' totals, so Own values of the whole tree add up
	// to it.
	Nodes []NodeLatency
	// Instances is the list of inferred instances, in the order they ended,
	// when LatencyOptions.KeepInstances was set.
	Instances []Instance
	// Interval is the estimated sampling interval in nanoseconds (see
	// Tree.SamplingInterval); 0 when unknown.
	Interval int64
	// Gap is the gap threshold used, in nanoseconds; 0 when gaps were not
	// detected.
	Gap int64
	// Samples counts the timestamped stack samples, Events the timestamped
	// events left out (TimedSample.Event), Runs the sequences of samples of
	// one thread in one profile, Gaps the silences longer than Gap that
	// ended instances, and InstanceCount the inferred instances.
	Samples, Events, Runs, Gaps int
	InstanceCount               int64
}

// NodeLatency is the PA-CCT annotation of one node (Section 3.3: v.C, v.μc,
// v.μa, and Section 3.4.1: v.μown).
type NodeLatency struct {
	// Count is C, the number of instances of this calling context.
	Count                    int64
	Conservative, Aggressive Estimate
}

// An Estimate is a node's latency in one mode, in nanoseconds.
type Estimate struct {
	// Total sums the latencies of the node's instances (C × μ).
	Total int64
	// Own is Total minus the children's Totals: the time not spent in
	// callees (Section 3.4.1's μown, computed on totals; see normalize).
	Own int64
}

// Of returns the estimate of mode m.
func (l *NodeLatency) Of(m LatencyMode) Estimate {
	if m == Aggressive {
		return l.Aggressive
	}
	return l.Conservative
}

// Mean returns μ, the mean instance latency in mode m (0 without instances).
func (l *NodeLatency) Mean(m LatencyMode) float64 {
	if l.Count == 0 {
		return 0
	}
	return float64(l.Of(m).Total) / float64(l.Count)
}

// An Instance is one inferred function instance: an element of the paper's
// list L (Section 3.3), times in nanoseconds.
type Instance struct {
	Node    NodeID
	Profile int32
	// Start is the first sample of the context.
	Start int64
	// EndConservative is the last sample of the context; EndAggressive the
	// first sample of the next context, or EndConservative when the context
	// ended with the trace or with a gap.
	EndConservative, EndAggressive int64
}

// Latency returns the instance's latency in mode m.
func (i Instance) Latency(m LatencyMode) int64 {
	if m == Aggressive {
		return i.EndAggressive - i.Start
	}
	return i.EndConservative - i.Start
}

// LatencyTotal returns the total latency of node id (C × μ), in
// nanoseconds, in the aggressive or conservative mode; 0 before InferLatency.
func (t *Tree) LatencyTotal(id NodeID, aggressive bool) int64 {
	if t.Latency == nil {
		return 0
	}
	return t.Latency.Nodes[id].Of(modeOf(aggressive)).Total
}

// LatencyOwn returns the normalized own latency of node id: its total minus
// its children's totals (Section 3.4.1), in nanoseconds; 0 before
// InferLatency. Own latencies of a subtree add up to its root's total.
func (t *Tree) LatencyOwn(id NodeID, aggressive bool) int64 {
	if t.Latency == nil {
		return 0
	}
	return t.Latency.Nodes[id].Of(modeOf(aggressive)).Own
}

func modeOf(aggressive bool) LatencyMode {
	if aggressive {
		return Aggressive
	}
	return Conservative
}

// ErrNoTimeline is returned by InferLatency for a tree without timestamped
// samples.
var ErrNoTimeline = errors.New("latency inference needs per-sample timestamps, and the input has none")

// InferLatency infers the latency of every function instance from the
// continuity of its calling context (IntroPerf Algorithm 2), per thread and
// profile over Tree.Timeline, and annotates the tree: Tree.Latency, and
// Tree.Count = C. The tree must have been built with Options.Timeline from
// samples carrying the timestamp_ns label. It runs in time linear in the
// number of samples plus instances, whatever the stack depth.
func (t *Tree) InferLatency(opts LatencyOptions) error {
	if len(t.Timeline) == 0 {
		return fmt.Errorf("%w (no sample carries the %s label)", ErrNoTimeline, labels.Timestamp)
	}
	tl := stackSamples(timelineInOrder(t.Timeline))
	lat := &Latency{Nodes: make([]NodeLatency, len(t.Nodes)), Samples: len(tl), Events: len(t.Timeline) - len(tl)}
	if len(tl) == 0 {
		return fmt.Errorf("%w (the %d timestamped samples are all events, not stack samples)", ErrNoTimeline, lat.Events)
	}
	lat.Interval = samplingInterval(t, tl)
	switch {
	case opts.Gap > 0:
		lat.Gap = opts.Gap
	case opts.Gap == 0 && lat.Interval > 0:
		k := opts.GapIntervals
		if k <= 0 {
			k = DefaultGapIntervals
		}
		lat.Gap = max(int64(k*float64(lat.Interval)), 1)
	}
	in := inferrer{t: t, lat: lat, keep: opts.KeepInstances}
	for start := 0; start < len(tl); {
		end := start + 1
		for end < len(tl) && tl[end].Thread == tl[start].Thread && tl[end].Profile == tl[start].Profile {
			end++
		}
		in.run(tl[start:end])
		lat.Runs++
		start = end
	}
	normalize(t, lat)
	for i := range t.Nodes {
		t.SetCount(NodeID(i), lat.Nodes[i].Count)
	}
	t.Latency = lat
	return nil
}

// timelineInOrder returns the timeline ordered by profile, thread and time,
// as the Builder leaves it; a timeline edited out of order is sorted into a
// copy (stably: samples at equal times keep their order).
func timelineInOrder(tl []TimedSample) []TimedSample {
	order := func(a, b TimedSample) int {
		if c := cmp.Compare(a.Profile, b.Profile); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Thread, b.Thread); c != 0 {
			return c
		}
		return cmp.Compare(a.Time, b.Time)
	}
	if slices.IsSortedFunc(tl, order) {
		return tl
	}
	tl = slices.Clone(tl)
	slices.SortStableFunc(tl, order)
	return tl
}

// stackSamples returns the timeline without its events (TimedSample.Event),
// in the same order; tl itself when it has none.
func stackSamples(tl []TimedSample) []TimedSample {
	i := slices.IndexFunc(tl, func(s TimedSample) bool { return s.Event })
	if i < 0 {
		return tl
	}
	out := slices.Clone(tl[:i])
	for _, s := range tl[i+1:] {
		if !s.Event {
			out = append(out, s)
		}
	}
	return out
}

// inferrer runs Algorithm 2 over one run (thread, profile) at a time.
//
// The paper compares frames depth by depth and propagates a change to every
// deeper frame (AllNew, lines 10-16). Here the node ids of the CCT do that:
// a NodeID is a whole root-to-node path (Algorithm 1), so "the context at
// depth d continues" is "the node at depth d is unchanged", and the frames
// that continue are exactly the common ancestors of the previous and the
// current leaf. Walking up from both leaves to their deepest common ancestor
// costs only the frames that change, so a sample that keeps a 100,000-deep
// context costs O(1) rather than O(depth). End times are not updated for
// every continuing frame either (Register[d][1] = t_k, line 29): an open
// instance's context has continued until the previous sample, so its
// conservative end is the previous sample's time when it closes.
//
// The paper's line 11 reads isNew = (f == LastStack[d]); it must be !=, as
// its prose and Table 1 say.
type inferrer struct {
	t    *Tree
	lat  *Latency
	keep bool
	// open[d-1] is the open instance at depth d (the Register array); the
	// thread node at depth 1 is an instance too, spanning the run's samples
	// between gaps.
	open    []openInstance
	profile int32
}

type openInstance struct {
	node  NodeID
	start int64
}

func (in *inferrer) run(samples []TimedSample) {
	in.profile = samples[0].Profile
	in.open = in.open[:0]
	prev := samples[0]
	in.openPath(prev.Leaf, 0, prev.Time)
	for _, s := range samples[1:] {
		if in.lat.Gap > 0 && s.Time-prev.Time > in.lat.Gap {
			in.closeFrom(0, prev.Time, prev.Time)
			in.lat.Gaps++
			in.openPath(s.Leaf, 0, s.Time)
		} else {
			keep := in.commonDepth(prev.Leaf, s.Leaf)
			in.closeFrom(keep, prev.Time, s.Time)
			in.openPath(s.Leaf, keep, s.Time)
		}
		prev = s
	}
	in.closeFrom(0, prev.Time, prev.Time) // lines 4-5: the trace ends
}

// commonDepth returns the depth of the deepest common ancestor of a and b
// (0 when only the root is common).
func (in *inferrer) commonDepth(a, b NodeID) int {
	nodes := in.t.Nodes
	for nodes[a].Depth > nodes[b].Depth {
		a = nodes[a].Parent
	}
	for nodes[b].Depth > nodes[a].Depth {
		b = nodes[b].Parent
	}
	for a != b {
		a, b = nodes[a].Parent, nodes[b].Parent
	}
	return int(nodes[a].Depth)
}

// openPath registers new instances (line 27) for the nodes on leaf's path
// deeper than keep, starting at time.
func (in *inferrer) openPath(leaf NodeID, keep int, time int64) {
	nodes := in.t.Nodes
	d := int(nodes[leaf].Depth)
	if d <= keep {
		return
	}
	in.open = slices.Grow(in.open[:keep], d-keep)[:d]
	for id := leaf; d > keep; d-- {
		in.open[d-1] = openInstance{id, time}
		id = nodes[id].Parent
	}
}

// closeFrom ends the open instances deeper than keep, deepest first
// (closeRegister, lines 32-36): a change at depth d ends every deeper frame.
func (in *inferrer) closeFrom(keep int, endConservative, endAggressive int64) {
	for i := len(in.open) - 1; i >= keep; i-- {
		o := in.open[i]
		nl := &in.lat.Nodes[o.node]
		nl.Count++
		nl.Conservative.Total += endConservative - o.start
		nl.Aggressive.Total += endAggressive - o.start
		if in.keep {
			in.lat.Instances = append(in.lat.Instances, Instance{o.node, in.profile, o.start, endConservative, endAggressive})
		}
	}
	in.lat.InstanceCount += int64(len(in.open) - keep)
	in.open = in.open[:keep]
}

// normalize computes own latencies top-down (Section 3.4.1): a callee's
// instances lie inside its caller's, so a node's own latency is its total
// minus its children's totals.
//
// The paper subtracts means (μown = μ − Σ μ_children, Algorithm 3 line 6),
// which is wrong whenever call counts differ: a caller instance of 100ms that
// calls a child 10 times for 9ms each gets μown = 100 − 9 = 91ms instead of
// 10ms, and 10 caller instances of 1ms of which one calls a 1ms child get
// 1 − 1 = 0 instead of 0.9ms. Subtracting totals (C × μ) is exact: the
// children's instances are disjoint intervals inside the caller's, so Own is
// never negative and the own latencies of a subtree add up to its root's
// total, like self and total samples. Line 5 also sums the children's t_a
// (aggressive) whatever the mode; each mode here subtracts its own totals.
//
// Children have larger ids than their parents, so one backward pass does it.
// The root gets the sum of its threads' totals, so the whole tree adds up.
func normalize(t *Tree, lat *Latency) {
	ls := lat.Nodes
	ls[RootID].Conservative.Total, ls[RootID].Aggressive.Total = 0, 0
	for _, c := range t.Children(RootID) {
		ls[RootID].Conservative.Total += ls[c].Conservative.Total
		ls[RootID].Aggressive.Total += ls[c].Aggressive.Total
	}
	for i := range ls {
		ls[i].Conservative.Own = ls[i].Conservative.Total
		ls[i].Aggressive.Own = ls[i].Aggressive.Total
	}
	for i := len(ls) - 1; i > 0; i-- {
		p := &ls[t.Nodes[i].Parent]
		p.Conservative.Own -= ls[i].Conservative.Total
		p.Aggressive.Own -= ls[i].Aggressive.Total
	}
}
