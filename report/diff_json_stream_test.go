package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/tools/synth"
	"github.com/google/pprof/profile"
)

// encodeDiffJSON is what writeDiffJSON wrote before it streamed: the whole
// diffJSON value through encoding/json's Encoder. writeDiffJSON must write
// the same bytes.
func encodeDiffJSON(res *diff.Result) ([]byte, error) {
	out := diffJSON{
		Schema:             DiffSchema,
		Verdict:            verdictOf(res),
		Unit:               res.Unit,
		MinDelta:           res.MinDelta,
		Base:               side(res.Base),
		New:                side(res.New),
		Causes:             []causeJSON{},
		Untested:           []causeJSON{},
		Improvements:       []causeJSON{},
		RankedPaths:        []rankedJSON{},
		Topology:           topologyJSON{Added: subtreesJSON(res.Topology.Added), Removed: subtreesJSON(res.Topology.Removed), AddedCount: res.Topology.AddedCount, RemovedCount: res.Topology.RemovedCount},
		CriticalGraphNodes: res.CriticalGraphNodes,
		TreeNodes:          res.TreeNodes,
		Metric:             res.Metric,
		MinDeltaSpec:       res.MinDeltaSpec,
		Aggregate:          string(res.Aggregate),
		Match:              string(res.Match),
		Alpha:              res.Alpha,
		CriticalGraph:      []graphJSON{},
		WeightMatching:     weightsJSON{Nodes: []weightJSON{}, AdjustedPercent: pct2(res.WeightMatching.Adjusted), Reached: res.WeightMatching.Reached},
		Warnings:           append([]string{}, res.Warnings...),
		Normalization:      normalizationOf(res.Normalization),
		Benchmark:          benchmarkOf(res.Benchmark),
		GoRuntime:          goRuntimeOf(res.GoRuntime),
		Filters:            filtersOf(res.Filters),
		Functions:          functionsOf(res.Functions),
	}
	ov := res.Overlap
	out.Overlap = overlapJSON{
		Percent: pct2(ov.Percent), CommonTreePercent: pct2(ov.CommonTree), Score: pct2(ov.Score),
		StrictCommonTreePercent: pct2(ov.StrictCommonTree), Pairs: ov.Pairs,
	}
	if ov.NoiseFloor != nil {
		nf := pct2(*ov.NoiseFloor)
		out.Overlap.NoiseFloorPercent = &nf
	}
	cause := causeJSONOf
	for _, c := range res.Causes {
		out.Causes = append(out.Causes, cause(c))
	}
	for _, c := range res.Untested {
		out.Untested = append(out.Untested, cause(c))
	}
	for _, c := range res.Improvements {
		out.Improvements = append(out.Improvements, cause(c))
	}
	for _, p := range res.RankedPaths {
		r := rankedJSON{Rank: p.Rank, Cost: p.Cost, Thread: p.Thread, Path: make([]rankedNodeJSON, len(p.Path))}
		for i, n := range p.Path {
			r.Path[i] = rankedNodeJSON{Function: n.Function, File: n.File, Line: n.Line, Column: n.Column, Cost: n.Cost, Rank: n.Rank}
		}
		out.RankedPaths = append(out.RankedPaths, r)
	}
	for _, g := range res.Graph {
		out.CriticalGraph = append(out.CriticalGraph, graphJSON{
			Parent: g.Parent, Thread: g.Thread, Function: g.Frame.Function, File: g.Frame.File, Line: g.Frame.Line, Column: g.Frame.Column, IsThread: g.IsThread,
			Kind: string(g.Kind), Base: g.Base, New: g.New, Delta: g.Delta, Cause: g.Cause, Context: g.Context, Stats: testOf(g.Stats),
		})
	}
	for _, d := range res.WeightMatching.Nodes {
		out.WeightMatching.Nodes = append(out.WeightMatching.Nodes, weightJSON{
			Thread: d.Thread, Path: frames(d.Path), BasePercent: pct2(d.Base), NewPercent: pct2(d.New), DiffPoints: pct2(d.Diff),
		})
	}
	m := res.Matchers
	out.Matchers = matchersJSON{LCS: m.LCS, Alternate: m.Alternate, Fallback: m.Fallback, Residual: m.Residual, Renamed: m.Renamed, Relaxed: m.Relaxed, Strict: m.Strict}

	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func subtreesJSON(list []diff.Subtree) []subtreeJSON {
	out := make([]subtreeJSON, len(list))
	for i, s := range list {
		out[i] = subtreeJSON{Thread: s.Thread, Path: frames(s.Path), Nodes: s.Nodes, Weight: s.Weight}
	}
	return out
}

// checkStreamedJSON checks that writeDiffJSON writes what encodeDiffJSON
// does, or fails with its error and writes nothing.
func checkStreamedJSON(t *testing.T, res *diff.Result) {
	t.Helper()
	want, wantErr := encodeDiffJSON(res)
	var got bytes.Buffer
	err := writeDiffJSON(&got, res)
	switch {
	case wantErr != nil:
		if err == nil || err.Error() != wantErr.Error() {
			t.Fatalf("writeDiffJSON: error %v, encoding/json: %v", err, wantErr)
		}
		if got.Len() > 0 {
			t.Fatalf("writeDiffJSON failed after writing %d bytes", got.Len())
		}
	case err != nil:
		t.Fatalf("writeDiffJSON: %v (encoding/json had no error)", err)
	case !bytes.Equal(got.Bytes(), want):
		g, w := got.Bytes(), want
		i := 0
		for i < len(g) && i < len(w) && g[i] == w[i] {
			i++
		}
		lo := max(i-200, 0)
		t.Fatalf("writeDiffJSON differs from encoding/json at byte %d of %d/%d:\ngot:  %q\nwant: %q",
			i, len(g), len(w), g[lo:min(i+100, len(g))], w[lo:min(i+100, len(w))])
	}
}

// The streamed JSON of a synthetic comparison (thousands of causes and
// graph nodes, in stats mode too) is encoding/json's, byte for byte.
func TestDiffJSONStreamSynthetic(t *testing.T) {
	// Three runs a side: one pair is untested (Result.Untested), and the
	// test wants thousands of causes.
	pair := synth.Generate(synth.Config{Seed: 3, Stacks: 3000, Runs: 3})
	build := func(ps []*profile.Profile) []*cct.Tree {
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
	base, nw := build(pair.BaseRuns), build(pair.NewRuns)
	for _, agg := range []diff.Aggregate{diff.Intersect, diff.Stats} {
		t.Run(string(agg), func(t *testing.T) {
			opts := diff.DefaultOptions()
			opts.Aggregate = agg
			res, err := diff.Compare(base, nw, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Causes) < 10 || len(res.Graph) < 100 || len(res.RankedPaths) == 0 {
				t.Fatalf("too small a comparison to test: %d causes, %d graph nodes, %d paths", len(res.Causes), len(res.Graph), len(res.RankedPaths))
			}
			checkStreamedJSON(t, res)
		})
	}
}

// A comparison with every field set, hostile names, floats of every
// magnitude and values JSON cannot hold.
func TestDiffJSONStreamFields(t *testing.T) {
	names := []string{
		"", "plain", `"quoted" \back\slash`, "<script>&amp;</script>", "\x00\x01\b\f\n\r\t\x1f\x7f",
		"\u2028\u2029", "\xff\xfe invalid \xc3", "日本語 ünïcode 🙂", strings.Repeat("long/", 50000),
	}
	floats := []float64{0, 1, -1, 0.5, 1e-7, -1e-7, 1e-6, 1e20, 1e21, 1.5e300, 5e-324, 33.333333333333336, math.Copysign(0, -1)}
	for i, name := range names {
		f := floats[i%len(floats)]
		checkStreamedJSON(t, fullResult(name, f))
	}
	for _, f := range floats {
		checkStreamedJSON(t, fullResult("f", f))
	}
	checkStreamedJSON(t, &diff.Result{}) // nil everything
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		checkStreamedJSON(t, fullResult("f", bad))
		res := fullResult("f", 1)
		res.Graph[1].Stats.Q = bad
		checkStreamedJSON(t, res)
		res = fullResult("f", 1)
		res.Alpha = bad
		checkStreamedJSON(t, res)
		res = fullResult("f", 1)
		nf := bad
		res.Overlap.NoiseFloor = &nf
		checkStreamedJSON(t, res)
	}
}

// A write error is returned.
func TestDiffJSONStreamWriteError(t *testing.T) {
	res := fullResult(strings.Repeat("x", 100000), 1)
	if err := writeDiffJSON(failingWriter{}, res); err == nil || err.Error() != "disk full" {
		t.Errorf("error %v, expected disk full", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// fullResult is a Result with every list and optional part set, names and
// floats taken from the arguments.
func fullResult(name string, f float64) *diff.Result {
	fr := []diff.Frame{{Function: name, File: name + ".go"}, {Function: "main", File: ""}}
	test := &diff.Test{Name: name, P: f, Q: f * 3, Low: -12345, High: 987654}
	nf := f / 7
	return &diff.Result{
		Metric: name, Unit: name, MinDelta: -5, MinDeltaSpec: name, Aggregate: diff.Aggregate(name), Match: diff.ZAM, Alpha: f,
		Base: diff.Side{Profiles: []string{name, "b"}, Runs: 2, Total: 1 << 62, Totals: []int64{1, -2}},
		New:  diff.Side{Runs: 1},
		Causes: []diff.Cause{
			{Thread: name, Path: fr, Kind: diff.Regressed, Base: 1, New: 2, Delta: 1, Stats: test},
			{Thread: "t", Kind: diff.Added, Base: math.MinInt64, New: math.MaxInt64},
		},
		Graph: []diff.GraphNode{
			{Parent: -1, Thread: name, IsThread: true},
			{Parent: 0, Thread: name, Frame: fr[0], Kind: diff.Regressed, Base: 3, New: 4, Delta: 1, Context: true, Stats: &diff.Test{Name: "welch", P: 1e-9, Q: f}},
			{Parent: 1, Thread: name, Frame: fr[1], Kind: diff.Added, Cause: true},
		},
		CriticalGraphNodes: 3, TreeNodes: 42,
		RankedPaths: []diff.RankedPath{
			{Rank: 1, Thread: name, Cost: 7, Path: []diff.PathNode{{Frame: fr[0], Cost: 3, Rank: 2}, {Frame: fr[1], Cost: 4, Rank: 1}}},
			{Rank: 2, Thread: "t"},
		},
		Overlap: diff.Overlap{Percent: f, NoiseFloor: &nf, CommonTree: f * 2, StrictCommonTree: 99.999, Score: -f, Pairs: 3},
		Topology: diff.Topology{
			Added:      []diff.Subtree{{Thread: name, Path: fr, Nodes: 5, Weight: 6}},
			AddedCount: 1, RemovedCount: 9,
		},
		WeightMatching: diff.WeightMatching{Nodes: []diff.WeightDiff{{Thread: name, Path: fr, Base: f, New: f / 3, Diff: f - f/3}, {Thread: "t"}}, Adjusted: f * 1.5, Reached: true},
		Matchers:       diff.MatcherCounts{LCS: 1, Alternate: 2, Fallback: 3, Residual: 4, Relaxed: 5, Strict: 6, Renamed: 7},
		Warnings:       []string{name, "w"},
		Normalization:  diff.Normalization{Mode: diff.NormalizeShare, Reason: name, BaseCounts: []float64{f}, BaseDurations: []int64{1}},
		Benchmark:      &diff.BenchVerdict{Name: name, P: math.NaN(), DeltaPercent: f, Warnings: []string{name}},
		GoRuntime:      &diff.GoRuntime{Allocators: []diff.Allocator{{Frame: fr[0]}}},
		Filters:        cct.Filters{Focus: name, Hide: "h"},
		Functions: &diff.FunctionTable{Sort: name, NodeFraction: f, Cutoff: 1, Dropped: 2, Tested: 3, Rows: []diff.FunctionRow{
			{Frame: fr[0], FlatBase: 1, FlatNew: 2, Flat: 1, CumBase: -3, CumNew: math.MaxInt64, Cum: 4,
				FlatTest: &diff.FunctionTest{Name: name, P: f, Q: f * 2, InFamily: true, Low: -12345, High: 987654, Significant: true},
				CumTest:  &diff.FunctionTest{Name: "untested", P: 1, Q: 1, Low: 4, High: 4}},
			{Frame: fr[1]},
		}},
	}
}

// FuzzDiffJSONStream checks the streamed JSON against encoding/json for
// arbitrary names and floats.
func FuzzDiffJSONStream(f *testing.F) {
	f.Add("main", 1.5)
	f.Add("\x00\"\\\u2028\xff<>&", 1e-7)
	f.Add("é", 1e21)
	f.Add("", math.NaN())
	f.Fuzz(func(t *testing.T, name string, v float64) {
		checkStreamedJSON(t, fullResult(name, v))
	})
}
