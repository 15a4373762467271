package report

import (
	"bufio"
	"encoding/json"
	"io"
	"math"
	"strconv"

	"github.com/ctdiff/ctdiff/diff"
)

// DiffSchema names the JSON schema of WriteDiffJSON.
const DiffSchema = "ctdiff.diff/v1"

// The ctdiff.diff/v1 schema (DESIGN.md, "report"). The fields DESIGN.md
// requires come first, in its order, and never change; the others are
// additions. Values are in "unit"; paths are root-first, without the
// synthetic root and the thread node; percentages have two decimals.
type diffJSON struct {
	Schema             string       `json:"schema"`
	Unit               string       `json:"unit"`
	MinDelta           int64        `json:"min_delta"`
	Base               sideJSON     `json:"base"`
	New                sideJSON     `json:"new"`
	Causes             []causeJSON  `json:"causes"`
	RankedPaths        []rankedJSON `json:"ranked_paths"`
	Overlap            overlapJSON  `json:"overlap"`
	Topology           topologyJSON `json:"topology"`
	CriticalGraphNodes int          `json:"critical_graph_nodes"`
	TreeNodes          int          `json:"tree_nodes"`
	Metric             string       `json:"metric"`
	MinDeltaSpec       string       `json:"min_delta_spec"`
	Aggregate          string       `json:"aggregate"`
	Match              string       `json:"match"`
	Alpha              float64      `json:"alpha"`
	CriticalGraph      []graphJSON  `json:"critical_graph"`
	WeightMatching     weightsJSON  `json:"weight_matching"`
	Matchers           matchersJSON `json:"matchers"`
	Warnings           []string     `json:"warnings"`
	// Normalization, Benchmark and GoRuntime: diff_normalize.go.
	Normalization normalizationJSON `json:"normalization"`
	Benchmark     *benchmarkJSON    `json:"benchmark"`
	GoRuntime     *goRuntimeJSON    `json:"go_runtime"`
}

type sideJSON struct {
	Profiles []string `json:"profiles"`
	Total    int64    `json:"total"`
	Runs     int      `json:"runs"`
	Totals   []int64  `json:"totals"`
}

type frameJSON struct {
	Function string `json:"function"`
	File     string `json:"file"`
}

type causeJSON struct {
	Thread string      `json:"thread"`
	Path   []frameJSON `json:"path"`
	Kind   string      `json:"kind"`
	Base   int64       `json:"base"`
	New    int64       `json:"new"`
	Delta  int64       `json:"delta"`
	Stats  *testJSON   `json:"stats,omitempty"`
}

type testJSON struct {
	Test string `json:"test"`
	// P is the one-sided p-value, PAdjusted the Holm-adjusted one; they and
	// the interval have three significant digits.
	P         float64 `json:"p"`
	PAdjusted float64 `json:"p_adjusted"`
	CILow     int64   `json:"ci_low"`
	CIHigh    int64   `json:"ci_high"`
}

type rankedJSON struct {
	Rank   int              `json:"rank"`
	Cost   int64            `json:"cost"`
	Path   []rankedNodeJSON `json:"path"`
	Thread string           `json:"thread"`
}

type rankedNodeJSON struct {
	Function string `json:"function"`
	File     string `json:"file"`
	Cost     int64  `json:"cost"`
	Rank     int    `json:"rank"`
}

type overlapJSON struct {
	Percent                 float64  `json:"percent"`
	NoiseFloorPercent       *float64 `json:"noise_floor_percent"`
	CommonTreePercent       float64  `json:"common_tree_percent"`
	Score                   float64  `json:"score"`
	StrictCommonTreePercent float64  `json:"strict_common_tree_percent"`
	Pairs                   int      `json:"pairs"`
}

type topologyJSON struct {
	Added        []subtreeJSON `json:"added"`
	Removed      []subtreeJSON `json:"removed"`
	AddedCount   int           `json:"added_count"`
	RemovedCount int           `json:"removed_count"`
}

type subtreeJSON struct {
	Thread string      `json:"thread"`
	Path   []frameJSON `json:"path"`
	Nodes  int         `json:"nodes"`
	Weight int64       `json:"weight"`
}

type graphJSON struct {
	Parent   int       `json:"parent"`
	Thread   string    `json:"thread"`
	Function string    `json:"function"`
	File     string    `json:"file"`
	IsThread bool      `json:"is_thread,omitempty"`
	Kind     string    `json:"kind"`
	Base     int64     `json:"base"`
	New      int64     `json:"new"`
	Delta    int64     `json:"delta"`
	Cause    bool      `json:"cause,omitempty"`
	Context  bool      `json:"context,omitempty"`
	Stats    *testJSON `json:"stats,omitempty"`
}

type weightsJSON struct {
	Nodes           []weightJSON `json:"nodes"`
	AdjustedPercent float64      `json:"adjusted_percent"`
	Reached         bool         `json:"reached_noise_floor"`
}

type weightJSON struct {
	Thread      string      `json:"thread"`
	Path        []frameJSON `json:"path"`
	BasePercent float64     `json:"base_percent"`
	NewPercent  float64     `json:"new_percent"`
	DiffPoints  float64     `json:"diff_points"`
}

type matchersJSON struct {
	LCS       int `json:"lcs"`
	Alternate int `json:"alternate"`
	Fallback  int `json:"fallback"`
	Residual  int `json:"residual"`
	Renamed   int `json:"renamed"`
	Relaxed   int `json:"relaxed"`
	Strict    int `json:"strict"`
}

// WriteDiffJSON writes a comparison as ctdiff.diff/v1, indented, with
// arrays that are never null.
func WriteDiffJSON(w io.Writer, res *diff.Result) error {
	out := diffJSON{
		Schema:             DiffSchema,
		Unit:               res.Unit,
		MinDelta:           res.MinDelta,
		Base:               side(res.Base),
		New:                side(res.New),
		Causes:             []causeJSON{},
		RankedPaths:        []rankedJSON{},
		Topology:           topologyJSON{Added: subtrees(res.Topology.Added), Removed: subtrees(res.Topology.Removed), AddedCount: res.Topology.AddedCount, RemovedCount: res.Topology.RemovedCount},
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
	for _, c := range res.Causes {
		out.Causes = append(out.Causes, causeJSON{
			Thread: c.Thread, Path: frames(c.Path), Kind: string(c.Kind),
			Base: c.Base, New: c.New, Delta: c.Delta, Stats: testOf(c.Stats),
		})
	}
	for _, p := range res.RankedPaths {
		r := rankedJSON{Rank: p.Rank, Cost: p.Cost, Thread: p.Thread, Path: make([]rankedNodeJSON, len(p.Path))}
		for i, n := range p.Path {
			r.Path[i] = rankedNodeJSON{Function: n.Function, File: n.File, Cost: n.Cost, Rank: n.Rank}
		}
		out.RankedPaths = append(out.RankedPaths, r)
	}
	for _, g := range res.Graph {
		out.CriticalGraph = append(out.CriticalGraph, graphJSON{
			Parent: g.Parent, Thread: g.Thread, Function: g.Frame.Function, File: g.Frame.File, IsThread: g.IsThread,
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

	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	return bw.Flush()
}

func side(s diff.Side) sideJSON {
	return sideJSON{Profiles: append([]string{}, s.Profiles...), Total: s.Total, Runs: s.Runs, Totals: append([]int64{}, s.Totals...)}
}

func frames(p []diff.Frame) []frameJSON {
	out := make([]frameJSON, len(p))
	for i, f := range p {
		out[i] = frameJSON{Function: f.Function, File: f.File}
	}
	return out
}

func subtrees(list []diff.Subtree) []subtreeJSON {
	out := make([]subtreeJSON, len(list))
	for i, s := range list {
		out[i] = subtreeJSON{Thread: s.Thread, Path: frames(s.Path), Nodes: s.Nodes, Weight: s.Weight}
	}
	return out
}

func testOf(t *diff.Test) *testJSON {
	if t == nil {
		return nil
	}
	return &testJSON{Test: t.Name, P: sig3(t.P), PAdjusted: sig3(t.Q), CILow: int64(sig3(float64(t.Low))), CIHigh: int64(sig3(float64(t.High)))}
}

// sig3 rounds to three significant digits, for the same reason as pct2.
func sig3(f float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 3, 64), 64)
	return r
}

// pct2 rounds a percentage to two decimals, so that JSON output is stable
// across platforms' last-bit float differences.
func pct2(f float64) float64 { return math.Round(f*100) / 100 }
