package diff

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

func TestParseNormalize(t *testing.T) {
	for _, tt := range []struct {
		in, want, err string
	}{
		{"", "auto", ""},
		{"auto", "auto", ""},
		{"none", "none", ""},
		{"total", "total", ""},
		{"share", "share", ""},
		{"iteration", "iteration", ""},
		{"per=handleRequest", "per=handleRequest", ""},
		{"per= ", "", `"per=": per= needs a function name, such as per=handleRequest`},
		{"percent", "", `"percent" must be one of: [auto none total share per=FUNC iteration]`},
	} {
		n, err := ParseNormalize(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseNormalize(%q) error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || n.String() != tt.want {
			t.Errorf("ParseNormalize(%q) = %v, %v; want %s", tt.in, n, err, tt.want)
		}
	}
}

// withDurations sets each tree's recording duration in milliseconds.
func withDurations(ts []*cct.Tree, ms ...int64) []*cct.Tree {
	for i, t := range ts {
		t.DurationNanos = ms[i] * 1e6
	}
	return ts
}

func TestPlanNormalizationAuto(t *testing.T) {
	one := "main;work 10"
	for _, tt := range []struct {
		name       string
		base, nw   []int64 // durations in ms, 0 unknown
		iterations bool
		want       NormalizeMode
		reason     string
	}{
		{"fixed duration", []int64{30000, 30004}, []int64{30011}, false, NormalizeShare, "every profile covers 30s (±0.0%) and no iteration count was given: fixed-duration profiles"},
		{"fixed work", []int64{1500, 1600}, []int64{1700}, false, NormalizeNone, "the profiles cover different durations (base 1.55s, new 1.7s): fixed work"},
		{"unknown", []int64{0, 1000}, []int64{1000}, false, NormalizeNone, "the inputs do not record their durations"},
		{"benchmark", []int64{1000, 1000}, []int64{1000}, true, NormalizeIteration, "benchmark outputs give each run's iteration count"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := withDurations(trees(t, one, one), tt.base...)
			n := withDurations(trees(t, one), tt.nw...)
			nz, err := PlanNormalization(b, n, Normalize{}, "nanoseconds", tt.iterations)
			if err != nil {
				t.Fatal(err)
			}
			if nz.Mode != tt.want || !nz.Auto || !strings.HasPrefix(nz.Reason, tt.reason) {
				t.Errorf("mode %s (auto %v), reason %q; want %s, %q...", nz.Mode, nz.Auto, nz.Reason, tt.want, tt.reason)
			}
		})
	}
	_, err := PlanNormalization(trees(t, one), trees(t, one), Normalize{Mode: NormalizeIteration}, "nanoseconds", false)
	if want := "normalize iteration needs benchmark outputs with iteration counts"; err == nil || err.Error() != want {
		t.Errorf("iteration without counts: %v, want %q", err, want)
	}
}

// fixedDuration returns runs of a saturated service profiled for a fixed
// time: every run's total is 1 s, and the new version's check is three
// times slower per request, so it handles fewer requests and every other
// function loses time. handle's Count is the requests handled.
func fixedDuration(t *testing.T) (base, nw []*cct.Tree) {
	// Per request: parse 400 µs, check 100 µs, render 500 µs (base);
	// check 300 µs in the new version. 1000 and 833 requests per second.
	run := func(requests float64, check float64, jitter float64) *cct.Tree {
		parse, render := 0.4*requests*(1+jitter), 0.5*requests*(1-jitter)
		tr := tree(t,
			"main;handle;parse "+ftoa(parse),
			"main;handle;check "+ftoa(check*requests),
			"main;handle;render "+ftoa(render),
		)
		for id := range tr.Nodes {
			if tr.FrameOf(cct.NodeID(id)).Function == "handle" {
				tr.SetCount(cct.NodeID(id), int64(requests))
			}
		}
		tr.DurationNanos = 1e9
		return tr
	}
	for _, j := range []float64{0, 0.01, -0.01} {
		base = append(base, run(1000, 0.1, j))
		nw = append(nw, run(1000.0/1.2, 0.3, -j))
	}
	return base, nw
}

func ftoa(ms float64) string { return strconv.FormatFloat(ms, 'f', -1, 64) }

// Fixed-duration profiles: the slowed function is the first cause with
// share and per= normalization; none warns that it is the wrong choice.
func TestNormalizeFixedDuration(t *testing.T) {
	base, nw := fixedDuration(t)
	for _, tt := range []struct {
		norm     Normalize
		unit     string
		perCheck float64 // the cause's new value per base value
	}{
		{Normalize{}, UnitShare, 2.5},                                     // 10% → 25% of the total
		{Normalize{Mode: NormalizePer, Func: "handle"}, "nanoseconds", 3}, // 100 µs → 300 µs per request
	} {
		t.Run(tt.norm.String(), func(t *testing.T) {
			res, err := Compare(base, nw, Options{Normalize: tt.norm})
			if err != nil {
				t.Fatal(err)
			}
			if res.Unit != tt.unit || len(res.Causes) == 0 {
				t.Fatalf("unit %s, causes %+v", res.Unit, res.Causes)
			}
			c := res.Causes[0]
			if got := c.Path[len(c.Path)-1].Function; got != "check" {
				t.Errorf("first cause %s, want check; causes %+v", got, res.Causes)
			}
			if r := float64(c.New) / float64(c.Base); math.Abs(r-tt.perCheck) > 0.05 {
				t.Errorf("check grew %.2fx, want %.2fx (%d → %d %s)", r, tt.perCheck, c.Base, c.New, res.Unit)
			}
			for _, w := range res.Warnings {
				if strings.Contains(w, "--normalize none") {
					t.Errorf("warning about none under %s: %s", tt.norm, w)
				}
			}
		})
	}
	res, err := Compare(base, nw, Options{Normalize: Normalize{Mode: NormalizeNone}})
	if err != nil {
		t.Fatal(err)
	}
	want := "--normalize none compares absolute values, but every profile covers the same duration: in fixed-duration profiles the total is capped (here 1s → 1s, -0.0%)"
	if len(res.Warnings) == 0 || !strings.HasPrefix(res.Warnings[0], want) {
		t.Errorf("warnings %q\nwant one starting %q", res.Warnings, want)
	}
	per, _ := Compare(base, nw, Options{Normalize: Normalize{Mode: NormalizePer, Func: "handle"}})
	if nz := per.Normalization; nz.CountSource != "calls" || nz.Per != "call of handle" || nz.BaseCounts[0] != 1000 || nz.NewCounts[0] != 833 {
		t.Errorf("per=handle counted %+v", nz)
	}
}

func TestNormalizeTotalAndErrors(t *testing.T) {
	base := trees(t, "main;a 100\nmain;b 100", "main;a 100\nmain;b 100")
	nw := trees(t, "main;a 100\nmain;b 300", "main;a 100\nmain;b 300")
	res, err := Compare(base, nw, Options{Normalize: Normalize{Mode: NormalizeTotal}})
	if err != nil {
		t.Fatal(err)
	}
	// Base scaled by 400/200: a 200 ms, b 200 ms; new b 300 ms.
	if res.Base.Total != res.New.Total || res.Normalization.BaseFactors[0] != 2 || res.Normalization.RawBase != 200*ms {
		t.Errorf("totals %d → %d, normalization %+v", res.Base.Total, res.New.Total, res.Normalization)
	}
	_, err = Compare(base, nw, Options{Normalize: Normalize{Mode: NormalizePer, Func: "nothere"}})
	if want := `normalize per=nothere: base run 1: no function named "nothere" (or ending in .nothere) in the profile`; err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

func TestMatchesFunc(t *testing.T) {
	for _, tt := range []struct {
		full, fn string
		want     bool
	}{
		{"github.com/x/example.handleRequest", "handleRequest", true},
		{"github.com/x/example.handleRequest", "example.handleRequest", true},
		{"github.com/x/example.handleRequest", "github.com/x/example.handleRequest", true},
		{"github.com/x/example.myhandleRequest", "handleRequest", false},
		{"handleRequest", "handleRequest", true},
		{"x.handleRequest.func1", "handleRequest", false},
	} {
		if got := matchesFunc(tt.full, tt.fn); got != tt.want {
			t.Errorf("matchesFunc(%q, %q) = %v", tt.full, tt.fn, got)
		}
	}
}

// With one run per side, and in Intersect mode, ZAM's Algorithm 2 would
// need every ancestor to grow by μ, which shares cannot: the normalized
// graphs keep the slowed function with its ancestors as context.
func TestNormalizedGraphsRelaxAncestors(t *testing.T) {
	base, nw := fixedDuration(t)
	for _, tt := range []struct {
		name string
		b, n []*cct.Tree
		agg  Aggregate
	}{
		// One pair: Stats would test it (one sample per line cannot
		// resolve anything), intersect keeps the relaxed graph, untested.
		{"one pair", base[:1], nw[:1], Intersect},
		{"intersect", base, nw, Intersect},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Compare(tt.b, tt.n, Options{Aggregate: tt.agg})
			if err != nil {
				t.Fatal(err)
			}
			// One run per side of a small profile is untested: the
			// graph is the same.
			leaves := append(res.Causes, res.Untested...)
			if res.Normalization.Mode != NormalizeShare || len(leaves) != 1 {
				t.Fatalf("mode %s, causes %+v, untested %+v", res.Normalization.Mode, res.Causes, res.Untested)
			}
			if p := framesOf(leaves[0].Path); strings.Join(p, ";") != "main;handle;check" {
				t.Errorf("cause %v, want main;handle;check", p)
			}
			if g := res.Graph; len(g) != 4 || !g[0].IsThread || !g[1].Context || !g[2].Context || g[3].Context {
				t.Errorf("graph %+v: want thread, main and handle as context above check", g)
			}
			// none keeps ZAM's rule: the flat ancestors stop it.
			res, _ = Compare(tt.b, tt.n, Options{Aggregate: tt.agg, Normalize: Normalize{Mode: NormalizeNone}})
			if len(res.Causes)+len(res.Untested) != 0 {
				t.Errorf("none: causes %+v, untested %+v", res.Causes, res.Untested)
			}
		})
	}
}
