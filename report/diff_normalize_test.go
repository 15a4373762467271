package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/diff"
)

// normalizedResult is a comparison of fixed-duration profiles under share
// normalization, with a Go runtime summary and a benchmark verdict.
func normalizedResult() *diff.Result {
	return &diff.Result{
		Metric: "cpu/nanoseconds", Unit: diff.UnitShare, MinDelta: 1e7, MinDeltaSpec: "1%",
		Base: diff.Side{Runs: 1, Total: 1e9, Totals: []int64{1e9}}, New: diff.Side{Runs: 1, Total: 1e9, Totals: []int64{1e9}},
		Causes: []diff.Cause{}, Graph: []diff.GraphNode{}, RankedPaths: []diff.RankedPath{}, Warnings: []string{},
		Topology:       diff.Topology{Added: []diff.Subtree{}, Removed: []diff.Subtree{}},
		WeightMatching: diff.WeightMatching{Nodes: []diff.WeightDiff{}},
		Normalization: diff.Normalization{Mode: diff.NormalizeShare, Auto: true, Reason: "every profile covers 30s", Unit: diff.UnitShare,
			Scale: 1, RawBase: 29_800_000_000, RawNew: 29_900_000_000, RawUnit: "nanoseconds", FixedDuration: true,
			BaseDurations: []int64{30e9}, NewDurations: []int64{30e9}},
		GoRuntime: &diff.GoRuntime{
			BackgroundGC: diff.Change{Base: 5e7, New: 8e7, Delta: 3e7},
			Allocation:   diff.Change{Base: 1e8, New: 1.5e8, Delta: 5e7},
			Allocators:   []diff.Allocator{{Frame: diff.Frame{Function: "app.render", File: "app.go"}, Change: diff.Change{Base: 1e7, New: 5e7, Delta: 4e7}}},
		},
		Benchmark: &diff.BenchVerdict{Name: "Handle-2", Function: "",
			Base:         diff.BenchSummary{Center: 100e-6, Lo: 99e-6, Hi: 101e-6, N: 6, Range: "1%"},
			New:          diff.BenchSummary{Center: 150e-6, Lo: 149e-6, Hi: 152e-6, N: 6, Range: "1%"},
			DeltaPercent: 50, P: 0.002, Alpha: 0.05, Significant: true, Delta: "+50.00%", Test: "(p=0.002 n=6)"},
	}
}

func TestDiffTextNormalization(t *testing.T) {
	var b bytes.Buffer
	if err := writeDiffText(&b, normalizedResult(), diffTextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Normalization: share (chosen: every profile covers 30s): values are\n  percentages of each run's total; absolute totals 29.8s → 29.9s (+0.34%)\n",
		"GC/runtime: background GC 5% → 8% (+3%); allocation (runtime.mallocgc incl. GC\n  assists) under user code 10% → 15% (+5%); allocation grew most in app.render +4%\n",
		"BenchmarkHandle-2 (benchstat, sec/op): 100µs ± 1% → 150µs ± 1%  +50.00% (p=0.002 n=6)\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	// Shares make both totals 100%: the normalization line has the
	// absolute ones, and no "Total: 100% → 100%" line says nothing.
	for _, mode := range []diff.NormalizeMode{diff.NormalizeShare, diff.NormalizeTotal} {
		res := normalizedResult()
		res.Normalization.Mode = mode
		b.Reset()
		if err := writeDiffText(&b, res, diffTextOptions{}); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "Total:") || !strings.Contains(b.String(), "absolute totals 29.8s → 29.9s") {
			t.Errorf("--normalize %s: a totals line, or no absolute totals:\n%s", mode, b.String())
		}
	}
}

func TestDiffJSONNormalization(t *testing.T) {
	res := normalizedResult()
	res.Benchmark.P = math.NaN() // too few samples: no p-value, never invalid JSON
	var b bytes.Buffer
	if err := writeDiffJSON(&b, res); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Unit          string
		Normalization struct {
			Mode          string
			Auto          bool
			RawBaseTotal  int64 `json:"raw_base_total"`
			FixedDuration bool  `json:"fixed_duration"`
		}
		Benchmark struct {
			Verdict string
			P       *float64
		}
		GoRuntime struct {
			Allocators []struct{ Function string }
		} `json:"go_runtime"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	n := doc.Normalization
	if doc.Unit != diff.UnitShare || n.Mode != "share" || !n.Auto || n.RawBaseTotal != 29_800_000_000 || !n.FixedDuration {
		t.Errorf("unit %s, normalization %+v", doc.Unit, n)
	}
	if doc.Benchmark.Verdict != "+50.00% (p=0.002 n=6)" || doc.Benchmark.P != nil || len(doc.GoRuntime.Allocators) != 1 {
		t.Errorf("benchmark %+v, go_runtime %+v", doc.Benchmark, doc.GoRuntime)
	}
}
