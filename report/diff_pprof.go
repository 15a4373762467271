package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/google/pprof/profile"
)

// Labels of the pprof diff.
const (
	// diffBaseLabel marks base samples, which carry negated values: the
	// convention of `go tool pprof -diff_base`, whose reports then show
	// new − base and take percentages of the base total.
	diffBaseLabel = "pprof::base"
	// causeLabelKey is a numeric label on the samples of a regression cause's
	// calling context and everything it calls, base and new alike: its value
	// is the cause's number in the text report (1 is the largest), so
	// `go tool pprof -tagfocus ctdiff_cause=1` shows the first cause alone
	// and `-tagfocus ctdiff_cause=1:` all of them.
	causeLabelKey = "ctdiff_cause"
)

// writeDiffPprof writes a comparison as a gzipped pprof profile (see
// diffProfile), streamed: the samples are made as they are written
// (pprofio.WriteSamples), with one Sample, stack and label map per thread
// reused, so that a million-context comparison does not hold two million
// profile.Samples with their stacks and maps (the bytes are the same as
// diffProfile's, gzipped at BestSpeed as runtime/pprof and ctdiff convert
// write).
func writeDiffPprof(w io.Writer, res *diff.Result) error {
	d, err := newDiffSamples(res)
	if err != nil {
		return err
	}
	return pprofio.WriteSamples(w, d.p, d.samples)
}

// diffProfile returns a comparison in pprof's diff convention, so that
// `go tool pprof` shows new − base in every view (-top, -peek, -traces, the
// web UI's red/green graph and diff flame graph) without -diff_base: one
// sample per calling context of the matched union tree (Result.Tree, which
// Compare fills with Options.Tree) with the mean own value of the new runs,
// and one labelled pprof::base=true with the negated mean own value of the
// base runs.
//
// Both samples use the union tree's frames, that is the new names: a base
// function that the matching paired with a renamed or moved new one is
// written under the new name, so the two cancel where `-diff_base` on the raw
// profiles would show an unrelated −/+ pair (as go tool pprof, FlameGraph's
// difffolded and perf diff do for a renamed function).
//
// Means have fractions (a third of 10 ms over three runs), and pprof picks
// the unit of its whole report from the smallest non-zero value, so a single
// nanosecond of rounding would make it print every value in nanoseconds. So
// the means are rounded per function: the contexts whose lowest frame is the
// same function take turns in cumulative rounding of the base value and of
// the delta (each gets the rounded running sum minus what was given out), so
// a function's flat delta is its rounded mean delta, and a function or
// context that did not change shows exactly 0. The few nanoseconds left over are added to each side's largest
// sample, so the new samples add up to the new total, the base samples to
// minus the base total, and the profile's total is exactly new − base. Like
// those totals (Side.Total), the diff leaves out V8's "(idle)", which is no
// work.
func diffProfile(res *diff.Result) (*profile.Profile, error) {
	d, err := newDiffSamples(res)
	if err != nil {
		return nil, err
	}
	p := d.p
	for s := range d.samples {
		c := &profile.Sample{Location: slices.Clone(s.Location), Value: slices.Clone(s.Value), Label: s.Label}
		if s.NumLabel != nil {
			c.NumLabel = map[string][]int64{causeLabelKey: slices.Clone(s.NumLabel[causeLabelKey])}
		}
		p.Sample = append(p.Sample, c)
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("internal error: invalid pprof diff: %w", err)
	}
	return p, nil
}

// diffSamples are the samples of a pprof diff, made in two passes over the
// union tree: newDiffSamples rounds every context's values (the rounding is
// cumulative, and the leftover goes to the largest sample, so all values
// are known before the first sample is), and samples makes the samples.
type diffSamples struct {
	// p is the profile without samples: its functions and locations are
	// made in the first pass.
	p *profile.Profile
	// nodes are the union tree's nodes as the samples need them, small so
	// that walking a stack up to its thread stays in cache.
	nodes []pprofNode
	// threads are the label maps of each thread's samples; the first is
	// for samples of no thread.
	threads []pprofThreadLabels
	// newValue and baseValue are each node's rounded mean own values; a
	// node has a new sample when newValue is not 0, a base sample (of
	// −baseValue) when baseValue is not 0, and the largest of each side
	// takes the side's leftover.
	newValue, baseValue []int64
	newMax, baseMax     int
	newLeft, baseLeft   int64
}

type pprofNode struct {
	parent int32
	// loc indexes p.Location, or is -1 for the root and threads.
	loc int32
	// cause is the number of the lowest cause whose calling context holds
	// the node, or 0.
	cause int32
	// thread indexes diffSamples.threads.
	thread int32
}

type pprofThreadLabels struct{ new, base map[string][]string }

func newDiffSamples(res *diff.Result) (*diffSamples, error) {
	tr := res.Tree
	if len(tr) == 0 {
		return nil, errors.New("the pprof diff needs the matched tree: compare with diff.Options{Tree: true}")
	}
	if err := checkDepth(tr); err != nil {
		return nil, err
	}
	st := &profile.ValueType{Type: metricType(res.Metric, res.Unit), Unit: res.Unit}
	d := &diffSamples{
		p: &profile.Profile{
			SampleType:        []*profile.ValueType{st},
			DefaultSampleType: st.Type,
			PeriodType:        &profile.ValueType{Type: st.Type, Unit: st.Unit},
			Period:            1,
			Comments: []string{
				fmt.Sprintf("ctdiff diff: %s, mean of %s minus mean of %s; base samples are negated and labelled %s=true",
					res.Metric, runs(res.New.Runs, "new"), runs(res.Base.Runs, "base"), diffBaseLabel),
				fmt.Sprintf("%s=N labels the samples of regression cause N (go tool pprof -tagfocus %s=1)", causeLabelKey, causeLabelKey),
			},
		},
		nodes:     make([]pprofNode, len(tr)),
		threads:   []pprofThreadLabels{{base: map[string][]string{diffBaseLabel: {"true"}}}},
		newValue:  make([]int64, len(tr)),
		baseValue: make([]int64, len(tr)),
		newMax:    -1, baseMax: -1,
	}
	causeOf := causeNumbers(res)
	funcs := map[diff.Frame]int32{}
	sums := map[diff.Frame]*roundingSums{}
	var newSum, baseSum int64
	d.nodes[0] = pprofNode{parent: -1, loc: -1}
	for i := 1; i < len(tr); i++ {
		n := &tr[i]
		up := d.nodes[n.Parent]
		pn := pprofNode{parent: n.Parent, loc: -1, cause: up.cause, thread: up.thread}
		if g := n.Graph; g >= 0 && causeOf[g] > 0 {
			pn.cause = int32(causeOf[g])
		}
		switch {
		case n.IsThread && n.Parent != 0:
			return nil, fmt.Errorf("internal error: thread %q is node %d's child, not the root's", n.Frame.Function, n.Parent)
		case n.IsThread:
			if name := n.Frame.Function; name != "" && name != allThreads {
				pn.thread = int32(len(d.threads))
				d.threads = append(d.threads, pprofThreadLabels{
					new:  map[string][]string{labels.Thread: {name}},
					base: map[string][]string{labels.Thread: {name}, diffBaseLabel: {"true"}},
				})
			}
		default:
			pn.loc = d.location(funcs, n.Frame)
		}
		d.nodes[i] = pn
		if n.Frame.Function == "(idle)" && n.Parent != 0 && up.loc < 0 { // a thread's child
			continue
		}
		if n.NewSelf == 0 && n.BaseSelf == 0 {
			continue
		}
		acc := sums[n.Frame]
		if acc == nil {
			acc = &roundingSums{}
			sums[n.Frame] = acc
		}
		nv, bv := acc.add(n.NewSelf, n.BaseSelf)
		d.newValue[i], d.baseValue[i] = nv, bv
		if nv != 0 {
			newSum += nv
			if d.newMax < 0 || nv > d.newValue[d.newMax] {
				d.newMax = i
			}
		}
		if bv != 0 {
			baseSum += bv
			if d.baseMax < 0 || bv > d.baseValue[d.baseMax] {
				d.baseMax = i
			}
		}
	}
	d.newLeft = res.New.Total - newSum
	d.baseLeft = res.Base.Total - baseSum
	return d, nil
}

// location returns the index in p.Location of a function's one location:
// the union tree has no sampled lines, and pprof's default granularity is
// the function anyway. A function whose definition is known (same-named
// functions of one script) is at that line and column, its StartLine, so
// that -lines tells them apart.
func (d *diffSamples) location(funcs map[diff.Frame]int32, f diff.Frame) int32 {
	x, ok := funcs[f]
	if !ok {
		x = int32(len(d.p.Function))
		fn := &profile.Function{ID: uint64(x + 1), Name: f.Function, SystemName: f.Function, Filename: f.File, StartLine: int64(f.Line)}
		d.p.Function = append(d.p.Function, fn)
		d.p.Location = append(d.p.Location, &profile.Location{ID: fn.ID, Line: []profile.Line{{Function: fn, Line: int64(f.Line), Column: int64(f.Column)}}})
		funcs[f] = x
	}
	return x
}

// samples yields the samples in tree order, the new before the base one of
// a context, through one reused Sample: its stack, leaf first, runs up to
// the thread (not included); its labels are the thread's and the cause's.
func (d *diffSamples) samples(yield func(*profile.Sample) bool) {
	var s profile.Sample
	value := []int64{0}
	s.Value = value
	causeLabel := map[string][]int64{causeLabelKey: {0}}
	for i, n := range d.nodes {
		nv, bv := d.newValue[i], d.baseValue[i]
		if nv == 0 && bv == 0 && i != d.newMax && i != d.baseMax {
			continue
		}
		s.Location = s.Location[:0]
		for x := int32(i); d.nodes[x].parent > 0; x = d.nodes[x].parent {
			s.Location = append(s.Location, d.p.Location[d.nodes[x].loc])
		}
		s.NumLabel = nil
		if n.cause > 0 {
			causeLabel[causeLabelKey][0] = int64(n.cause)
			s.NumLabel = causeLabel
		}
		th := d.threads[n.thread]
		if nv != 0 || i == d.newMax {
			if i == d.newMax {
				nv += d.newLeft
			}
			value[0], s.Label = nv, th.new
			if !yield(&s) {
				return
			}
		}
		if bv != 0 || i == d.baseMax {
			if i == d.baseMax {
				bv += d.baseLeft
			}
			value[0], s.Label = -bv, th.base
			if !yield(&s) {
				return
			}
		}
	}
}

// roundingSums are one function's running sums of unrounded base values
// and deltas (new − base), and what was given out of them, for cumulative
// rounding.
type roundingSums struct {
	b, d       float64
	bOut, dOut int64
}

// add takes the next context's mean new and base values and returns them
// rounded. The base and the delta are rounded cumulatively, so the
// function's rounded base values and deltas add up to its rounded sums,
// and a context whose values did not change has new = base exactly. A side
// without value gets exactly 0, and the new value is never negative.
func (r *roundingSums) add(n, b float64) (nv, bv int64) {
	r.b += b
	bv = int64(math.Round(r.b)) - r.bOut
	r.bOut += bv
	r.d += n - b
	dv := int64(math.Round(r.d)) - r.dOut
	if n == 0 || bv+dv < 0 {
		dv = -bv
	}
	r.dOut += dv
	return bv + dv, bv
}

// allThreads is cct.ThreadLabel's name for samples without a thread.
const allThreads = "(all threads)"

// checkDepth refuses trees whose stacks would repeat too many frames: pprof
// writes the whole stack in every sample (see maxPprofFrames).
func checkDepth(tr []diff.TreeNode) error {
	depth := make([]int32, len(tr))
	var frames int64
	for i := 1; i < len(tr); i++ {
		depth[i] = depth[tr[i].Parent] + 1
		if tr[i].NewSelf != 0 || tr[i].BaseSelf != 0 {
			frames += 2 * int64(max(depth[i]-1, 0))
		}
	}
	if frames > maxPprofFrames {
		return fmt.Errorf("the comparison is too deep for pprof, which repeats the whole stack in every sample: "+
			"%d frames in all, more than %d (use the text, json or html format)", frames, maxPprofFrames)
	}
	return nil
}

// causeNumbers maps Result.Graph indexes of causes to their 1-based number
// in Result.Causes.
func causeNumbers(res *diff.Result) []int {
	out := make([]int, len(res.Graph))
	for i, c := range res.Causes {
		out[c.Node] = i + 1
	}
	return out
}

// metricType returns the pprof sample type name of a metric: "cpu" for
// "cpu/nanoseconds", "latency_conservative" for "latency/conservative".
func metricType(metric, unit string) string {
	if i := strings.LastIndexByte(metric, '/'); i > 0 {
		switch metric[i+1:] {
		case unit, "nanoseconds", "microseconds", "milliseconds", "seconds", "count", "bytes":
			return metric[:i]
		}
	}
	if metric == "" {
		return "value"
	}
	return strings.ReplaceAll(metric, "/", "_")
}
