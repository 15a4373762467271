package diff

import (
	"math"
	"slices"
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
		totals     []int64 // ms of work per run, base then new (nil: 10 each)
		iterations bool
		want       NormalizeMode
		reason     string
		warn       string // a part of the warning; "" for none
	}{
		{"fixed duration", []int64{30000, 30004}, []int64{30011}, nil, false, NormalizeShare,
			"every profile covers 30s (±0.0%), a whole number of seconds as requested windows last: fixed-duration profiles", ""},
		{"fixed work", []int64{1500, 1600}, []int64{1700}, nil, false, NormalizeNone, "the profiles cover different durations (base 1.55s, new 1.7s): fixed work", ""},
		{"unknown", []int64{0, 1000}, []int64{1000}, nil, false, NormalizeNone, "the inputs do not record their durations", ""},
		{"benchmark", []int64{1000, 1000}, []int64{1000}, nil, true, NormalizeIteration, "benchmark outputs give each run's iteration count", ""},
		// Equal durations that are not a whole number of seconds: fixed
		// work that took as long (a paced input), 7% more of it.
		{"equal durations, not whole seconds", []int64{1371}, []int64{1373}, []int64{590, 631}, false, NormalizeNone,
			"every profile covers 1.371s (±0.1%), but not a whole number of seconds as requested windows last, and no side's runs did different amounts of work in it: fixed work",
			"every profile covers 1.371s, as fixed-duration recordings would, but they are compared as fixed work (--normalize none), since that is not a whole number of seconds as requested windows last; if they were recorded for a fixed time with the program busy throughout, use --normalize share"},
		{"equal durations, not whole seconds, several runs", []int64{1371, 1380}, []int64{1373, 1369}, []int64{590, 600, 631, 628}, false, NormalizeNone,
			"every profile covers 1.371s (±0.8%), but not a whole number of seconds", "if they were recorded for a fixed time with the program busy throughout, use --normalize share"},
		// The runs of a side did different amounts of work in the same
		// time: a window, whatever its length.
		{"equal durations, different work on a side", []int64{1371, 1380}, []int64{1373, 1369}, []int64{590, 900, 631, 628}, false, NormalizeShare,
			"every profile covers 1.371s (±0.8%), and the runs of a side did different amounts of work in it: fixed-duration profiles", ""},
		// A whole number of seconds, one run a side: shares, but totals
		// 7% apart, which a capped window does not make, are worth a
		// warning; equal totals are not.
		{"whole seconds, one run a side, totals apart", []int64{2003}, []int64{2011}, []int64{1500, 1605}, false, NormalizeShare,
			"every profile covers 2.003s (±0.4%), a whole number of seconds", "one run on a side: both profiles cover 2s and are compared as fixed-duration recordings (--normalize share), but their totals differ by +7.0%, which a window that caps the total does not make unless the machine's load changed; if the runs did a fixed amount of work, use --normalize none"},
		{"whole seconds, one run a side, totals alike", []int64{2003}, []int64{2011}, []int64{1500, 1530}, false, NormalizeShare,
			"every profile covers 2.003s (±0.4%), a whole number of seconds", ""},
		{"whole seconds, 30 ms short", []int64{1975}, []int64{1990}, nil, false, NormalizeShare, "every profile covers 1.975s (±0.8%), a whole number of seconds", ""},
		{"just over a second", []int64{1210}, []int64{1230}, nil, false, NormalizeNone, "every profile covers 1.21s (±1.7%), but not a whole number of seconds", "use --normalize share"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			totals := tt.totals
			if totals == nil {
				totals = slices.Repeat([]int64{10}, len(tt.base)+len(tt.nw))
			}
			var b, n []*cct.Tree
			for i, v := range totals {
				tr := tree(t, "main;work "+strconv.FormatInt(v, 10))
				if i < len(tt.base) {
					b = append(b, tr)
				} else {
					n = append(n, tr)
				}
			}
			withDurations(b, tt.base...)
			withDurations(n, tt.nw...)
			nz, err := PlanNormalization(b, n, Normalize{}, "nanoseconds", tt.iterations)
			if err != nil {
				t.Fatal(err)
			}
			if nz.Mode != tt.want || !nz.Auto || !strings.HasPrefix(nz.Reason, tt.reason) {
				t.Errorf("mode %s (auto %v), reason %q; want %s, %q...", nz.Mode, nz.Auto, nz.Reason, tt.want, tt.reason)
			}
			if tt.warn == "" && nz.unsure != "" || !strings.Contains(nz.unsure, tt.warn) {
				t.Errorf("warning %q, want one with %q", nz.unsure, tt.warn)
			}
			if tt.want != NormalizeIteration && nz.FixedDuration != (tt.want == NormalizeShare) {
				t.Errorf("FixedDuration %v under %s", nz.FixedDuration, nz.Mode)
			}
			if tt.iterations {
				return // normalize needs the benchmark outputs
			}
			res := &Result{}
			if err := normalize(&nz, treeRuns(t, b), treeRuns(t, n), nil, res); err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(res.Warnings, "\n"); got != nz.unsure {
				t.Errorf("normalize warned %q, want %q", got, nz.unsure)
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

// treeRuns returns the runs of trees, in their cpu values.
func treeRuns(t *testing.T, ts []*cct.Tree) []*run {
	m, err := SampleMetric("cpu", ts...)
	if err != nil {
		t.Fatal(err)
	}
	kt := newKeyTable()
	var out []*run
	for _, tr := range ts {
		out = append(out, newRun(tr, kt, m))
	}
	return out
}
