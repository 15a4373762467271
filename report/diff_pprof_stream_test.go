package report

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/tools/synth"
	"github.com/google/pprof/profile"
)

// builtDiffProfile is how diffProfile made the pprof diff before the
// samples were streamed: every sample built, with its own stack and label
// maps. writeDiffPprof must write the same profile.
func builtDiffProfile(res *diff.Result) *profile.Profile {
	tr := res.Tree
	st := &profile.ValueType{Type: metricType(res.Metric, res.Unit), Unit: res.Unit}
	p := &profile.Profile{
		SampleType:        []*profile.ValueType{st},
		DefaultSampleType: st.Type,
		PeriodType:        &profile.ValueType{Type: st.Type, Unit: st.Unit},
		Period:            1,
		Comments: []string{
			fmt.Sprintf("ctdiff diff: %s, mean of %s minus mean of %s; base samples are negated and labelled %s=true",
				res.Metric, runs(res.New.Runs, "new"), runs(res.Base.Runs, "base"), diffBaseLabel),
			fmt.Sprintf("%s=N labels the samples of regression cause N (go tool pprof -tagfocus %s=1)", causeLabelKey, causeLabelKey),
		},
	}
	causeOf := causeNumbers(res)
	funcs := map[diff.Frame]*profile.Function{}
	location := func(f diff.Frame) *profile.Location {
		fn := funcs[f]
		if fn == nil {
			fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: f.Function, SystemName: f.Function, Filename: f.File}
			p.Function = append(p.Function, fn)
			funcs[f] = fn
			p.Location = append(p.Location, &profile.Location{ID: fn.ID, Line: []profile.Line{{Function: fn}}})
		}
		return p.Location[fn.ID-1]
	}
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
			loc[i] = location(n.Frame)
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
				smp.Label[diffBaseLabel] = []string{"true"}
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
				smp.NumLabel = map[string][]int64{causeLabelKey: {cause[i]}}
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
	return p
}

// checkStreamedPprof checks that writeDiffPprof writes, gunzipped, the
// bytes pprof writes for builtDiffProfile, and diffProfile the same.
func checkStreamedPprof(t *testing.T, res *diff.Result) {
	t.Helper()
	var want bytes.Buffer
	if err := builtDiffProfile(res).WriteUncompressed(&want); err != nil {
		t.Fatal(err)
	}
	var z bytes.Buffer
	if err := writeDiffPprof(&z, res); err != nil {
		t.Fatal(err)
	}
	zr, err := gzip.NewReader(&z)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("writeDiffPprof wrote %d bytes that differ from the built profile's %d", len(got), want.Len())
	}
	p, err := diffProfile(res)
	if err != nil {
		t.Fatal(err)
	}
	var fromDiffProfile bytes.Buffer
	if err := p.WriteUncompressed(&fromDiffProfile); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fromDiffProfile.Bytes(), want.Bytes()) {
		t.Fatal("diffProfile differs from the built profile")
	}
}

// Synthetic comparisons (hundreds of causes, several runs per side, so
// means with fractions) and a hand-built one with threads, "(idle)", a
// thread's own time and a thread only one side has.
func TestDiffPprofStreamed(t *testing.T) {
	build := func(ps ...*profile.Profile) []*cct.Tree {
		var out []*cct.Tree
		for _, p := range ps {
			b := cct.NewBuilder(cct.Options{Prune: true})
			if err := b.Add(p); err != nil {
				t.Fatal(err)
			}
			out = append(out, b.Finish())
		}
		return out
	}
	one := synth.Generate(synth.Config{Seed: 5, Stacks: 3000})
	// noisy is another run of p: each sample a few ms off.
	noisy := func(p *profile.Profile, seed int) *profile.Profile {
		q := p.Copy()
		for i, s := range q.Sample {
			for k := range s.Value {
				s.Value[k] += int64((i*7+seed)%5) * 1e6
			}
		}
		return q
	}
	for _, tt := range []struct {
		name      string
		base, new []*cct.Tree
		agg       diff.Aggregate
	}{
		{"synth two pairs", build(one.Base, noisy(one.Base, 4)), build(one.New, noisy(one.New, 5)), diff.Intersect},
		{"synth three runs", build(one.Base, noisy(one.Base, 1), noisy(one.Base, 2)), build(one.New, noisy(one.New, 3)), diff.Stats},
		{"threads", threadTrees(t, 10, 13, 17), threadTrees(t, 30, 31), diff.Stats},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := diff.DefaultOptions()
			opts.Tree, opts.Aggregate = true, tt.agg
			res, err := diff.Compare(tt.base, tt.new, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Causes) == 0 {
				t.Fatal("no causes: the cause labels go untested")
			}
			checkStreamedPprof(t, res)
		})
	}
}

// threadTrees makes one run per value: two threads, one with its own time
// and "(idle)", and a third thread in runs with an even value.
func threadTrees(t *testing.T, values ...int64) []*cct.Tree {
	t.Helper()
	var out []*cct.Tree
	for _, v := range values {
		tr := cct.New([]cct.ValueType{{Type: "cpu", Unit: "nanoseconds"}})
		add := func(parent cct.NodeID, name string, kind cct.Kind, self int64) cct.NodeID {
			f := cct.Frame{Function: name, File: name + ".go", Kind: kind}
			if kind == cct.KindThread {
				f = cct.Frame{Thread: name, Process: name + ".go", Kind: kind}
			}
			id := tr.AddChild(parent, tr.Intern(f, cct.FrameInfo{}))
			tr.Self(id)[0] += self
			return id
		}
		main := add(cct.RootID, "main", cct.KindThread, 3e6)
		m := add(main, "main", 0, 1e6)
		add(add(m, "work", 0, v*1e6), "leaf", 0, v*v*1e5)
		add(m, "steady", 0, 50e6)
		add(main, "(idle)", 0, 900e6)
		worker := add(cct.RootID, "worker", cct.KindThread, 0)
		add(add(worker, "loop", 0, 20e6), "work", 0, (v+v/3)*1e6)
		if v%2 == 0 {
			add(add(cct.RootID, "extra", cct.KindThread, 0), "job", 0, 7e6+v)
		}
		tr.ComputeTotals()
		out = append(out, tr)
	}
	return out
}
