package report

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/google/pprof/profile"
)

// Labels of the pprof diff.
const (
	// DiffBaseLabel marks base samples, which carry negated values: the
	// convention of `go tool pprof -diff_base`, whose reports then show
	// new − base and take percentages of the base total.
	DiffBaseLabel = "pprof::base"
	// CauseLabel is a numeric label on the samples of a regression cause's
	// calling context and everything it calls, base and new alike: its value
	// is the cause's number in the text report (1 is the largest), so
	// `go tool pprof -tagfocus ctdiff_cause=1` shows the first cause alone
	// and `-tagfocus ctdiff_cause=1:` all of them.
	CauseLabel = "ctdiff_cause"
)

// WriteDiffPprof writes a comparison as a gzipped pprof profile (see
// DiffProfile).
func WriteDiffPprof(w io.Writer, res *diff.Result) error {
	p, err := DiffProfile(res)
	if err != nil {
		return err
	}
	return p.Write(w)
}

// DiffProfile returns a comparison in pprof's diff convention, so that
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
// profiles would show an unrelated −/+ pair (peers.md, §2.1).
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
func DiffProfile(res *diff.Result) (*profile.Profile, error) {
	tr := res.Tree
	if len(tr) == 0 {
		return nil, errors.New("the pprof diff needs the matched tree: compare with diff.Options{Tree: true}")
	}
	if err := checkDepth(tr); err != nil {
		return nil, err
	}
	st := &profile.ValueType{Type: metricType(res.Metric, res.Unit), Unit: res.Unit}
	p := &profile.Profile{
		SampleType:        []*profile.ValueType{st},
		DefaultSampleType: st.Type,
		PeriodType:        &profile.ValueType{Type: st.Type, Unit: st.Unit},
		Period:            1,
		Comments: []string{
			fmt.Sprintf("ctdiff diff: %s, mean of %s minus mean of %s; base samples are negated and labelled %s=true",
				res.Metric, runs(res.New.Runs, "new"), runs(res.Base.Runs, "base"), DiffBaseLabel),
			fmt.Sprintf("%s=N labels the samples of regression cause N (go tool pprof -tagfocus %s=1)", CauseLabel, CauseLabel),
		},
	}

	causeOf := causeNumbers(res)
	w := diffPprofWriter{p: p, funcs: map[diff.Frame]*profile.Function{}}
	// Per node: its location, the labels of its thread and its cause.
	loc := make([]*profile.Location, len(tr))
	thread := make([]string, len(tr))
	cause := make([]int64, len(tr))
	depth := make([]int32, len(tr))
	var newSum, baseSum int64
	newMax, baseMax := -1, -1
	sums := map[diff.Frame]*roundingSums{}
	for i, n := range tr {
		if i == 0 {
			continue
		}
		par := n.Parent
		depth[i] = depth[par] + 1
		thread[i], cause[i] = thread[par], cause[par]
		if g := n.Graph; g >= 0 && causeOf[g] > 0 {
			cause[i] = int64(causeOf[g])
		}
		if n.IsThread {
			if n.Frame.Function != allThreads {
				thread[i] = n.Frame.Function
			}
		} else {
			loc[i] = w.location(n.Frame)
		}
		if tr[par].IsThread && n.Frame.Function == "(idle)" {
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
		if nv == 0 && bv == 0 {
			continue
		}
		stack := make([]*profile.Location, 0, depth[i]-1)
		for x := int32(i); depth[x] > 1; x = tr[x].Parent {
			stack = append(stack, loc[x])
		}
		for _, s := range []struct {
			v    int64
			base bool
		}{{nv, false}, {-bv, true}} {
			if s.v == 0 {
				continue
			}
			smp := &profile.Sample{Value: []int64{s.v}, Location: stack}
			if thread[i] != "" {
				smp.Label = map[string][]string{labels.Thread: {thread[i]}}
			}
			if s.base {
				if smp.Label == nil {
					smp.Label = map[string][]string{}
				}
				smp.Label[DiffBaseLabel] = []string{"true"}
				baseSum += s.v
				if baseMax < 0 || s.v < p.Sample[baseMax].Value[0] {
					baseMax = len(p.Sample)
				}
			} else {
				newSum += s.v
				if newMax < 0 || s.v > p.Sample[newMax].Value[0] {
					newMax = len(p.Sample)
				}
			}
			if cause[i] > 0 {
				smp.NumLabel = map[string][]int64{CauseLabel: {cause[i]}}
			}
			p.Sample = append(p.Sample, smp)
		}
	}
	if newMax >= 0 {
		p.Sample[newMax].Value[0] += res.New.Total - newSum
	}
	if baseMax >= 0 {
		p.Sample[baseMax].Value[0] -= res.Base.Total + baseSum
	}
	if err := p.CheckValid(); err != nil {
		return nil, fmt.Errorf("internal error: invalid pprof diff: %w", err)
	}
	return p, nil
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

type diffPprofWriter struct {
	p     *profile.Profile
	funcs map[diff.Frame]*profile.Function
}

// location returns the one location of a function: the union tree has no
// lines, and pprof's default granularity is the function anyway.
func (w *diffPprofWriter) location(f diff.Frame) *profile.Location {
	fn := w.funcs[f]
	if fn == nil {
		fn = &profile.Function{ID: uint64(len(w.p.Function) + 1), Name: f.Function, SystemName: f.Function, Filename: f.File}
		w.p.Function = append(w.p.Function, fn)
		w.funcs[f] = fn
		w.p.Location = append(w.p.Location, &profile.Location{ID: fn.ID, Line: []profile.Line{{Function: fn}}})
	}
	return w.p.Location[fn.ID-1]
}
