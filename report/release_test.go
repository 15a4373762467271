package report

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/diff"
)

const ms = int64(1e6)

// regexpCodeSpans matches Markdown code spans of one backquote, as names
// without backquotes get.
var regexpCodeSpans = regexp.MustCompile("`[^`]*`")

// result is a comparison with per-run totals in milliseconds and causes.
func result(base, nw []int64, causes ...diff.Cause) *diff.Result {
	mean := func(v []int64) int64 {
		var s int64
		for _, x := range v {
			s += x * ms
		}
		return s / int64(len(v))
	}
	scale := func(v []int64) []int64 {
		out := make([]int64, len(v))
		for i, x := range v {
			out[i] = x * ms
		}
		return out
	}
	return &diff.Result{
		Metric: "cpu/nanoseconds", Unit: "nanoseconds", MinDelta: 50 * ms, Aggregate: diff.Stats, Alpha: 0.05,
		Base:   diff.Side{Runs: len(base), Total: mean(base), Totals: scale(base)},
		New:    diff.Side{Runs: len(nw), Total: mean(nw), Totals: scale(nw)},
		Causes: append([]diff.Cause{}, causes...),
	}
}

func cause(delta int64, thread string, path ...diff.Frame) diff.Cause {
	return diff.Cause{Thread: thread, Path: path, Kind: diff.Regressed, Base: 10 * ms, New: 10*ms + delta*ms, Delta: delta * ms}
}

func TestReleaseVerdicts(t *testing.T) {
	for _, tt := range []struct {
		name    string
		res     *diff.Result
		verdict diff.Verdict
		why     string
	}{
		{"cause", result([]int64{1000, 1010}, []int64{1000, 1005}, cause(60, "main", fr("main.f", "f.go"))), diff.VerdictRegressed,
			"1 regression cause: main.f +60ms"},
		{"consistent fall", result([]int64{1000, 1020, 990}, []int64{800, 810, 805}), diff.VerdictImproved,
			"No function grew by 50ms or more with significance; the total fell by 198.3ms (Welch's t-test of the log run totals: p "},
		{"noisy fall", result([]int64{1000, 2000, 700}, []int64{800, 1900, 650}), diff.VerdictUnchanged,
			"No function grew by 50ms or more with significance; the total fell by 116.7ms, within noise (Welch's t-test of the log run totals: p "},
		{"small fall", result([]int64{1000, 1000}, []int64{960, 960}), diff.VerdictUnchanged,
			"No function grew by 50ms or more with significance; the total changed by -40ms, less than a fall of 50ms"},
		{"growth without cause", result([]int64{1000, 1000}, []int64{1100, 1100}), diff.VerdictUnchanged,
			"the total changed by +100ms, less than a fall of 50ms"},
		{"one run", result([]int64{1000}, []int64{900}), diff.VerdictImproved,
			"No function grew by 50ms or more; the total fell by 100ms, at least 50ms (one run per side: no test)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rel := NewRelease([]Component{{Name: tt.name, Result: tt.res}})
			c := rel.Components[0]
			if c.Verdict != tt.verdict || !strings.Contains(c.Why, tt.why) {
				t.Errorf("verdict %s (%s), want %s (%s)", c.Verdict, c.Why, tt.verdict, tt.why)
			}
			if rel.Failed() != (tt.verdict == diff.VerdictRegressed) {
				t.Errorf("Failed() = %v with verdict %s", rel.Failed(), c.Verdict)
			}
		})
	}
}

// Components rank by impact: regressions by the larger of the relative
// total change and the largest cause, then unchanged ones by name, then
// improvements, the largest last.
func TestReleaseRanking(t *testing.T) {
	comps := []Component{
		{Name: "unchanged-b", Result: result([]int64{1000, 1000}, []int64{1010, 1010})},
		{Name: "small-total-big-cause", Result: result([]int64{1000, 1000}, []int64{1000, 1000}, cause(300, "main", fr("a.f", "a.go")))},
		{Name: "improved-10%", Result: result([]int64{1000, 1001}, []int64{900, 901})},
		{Name: "regressed-20%", Result: result([]int64{1000, 1000}, []int64{1200, 1200}, cause(60, "main", fr("b.g", "b.go")))},
		{Name: "unchanged-a", Result: result([]int64{1000, 1000}, []int64{990, 990})},
		{Name: "improved-50%", Result: result([]int64{1000, 1001}, []int64{500, 501})},
	}
	rel := NewRelease(comps)
	var got []string
	for _, c := range rel.Components {
		got = append(got, c.Name)
	}
	want := "small-total-big-cause regressed-20% unchanged-a unchanged-b improved-10% improved-50%"
	if strings.Join(got, " ") != want {
		t.Errorf("ranking %v, want %s", got, want)
	}
	if rel.Regressed != 2 || rel.Improved != 2 || rel.Unchanged != 2 {
		t.Errorf("counts %d/%d/%d, want 2/2/2", rel.Regressed, rel.Improved, rel.Unchanged)
	}
	if c := rel.Components[0]; c.Impact != 0.3 || c.CauseChange != 0.3 || c.TotalChange != 0 {
		t.Errorf("impact %v (total %v, cause %v), want 0.3 from the cause", c.Impact, c.TotalChange, c.CauseChange)
	}
}

// Causes in runtime or VM frames are grouped by what the runtime does and
// charged to their application caller; application causes stay in order.
func TestReleaseRuntimeGroups(t *testing.T) {
	res := result([]int64{1000, 1000}, []int64{1300, 1300},
		cause(120, "main", fr("main.main", "m.go"), fr("main.parse", "m.go")),
		cause(90, "(all threads)", fr("runtime.gcBgMarkWorker", ""), fr("runtime.gcDrain", "")),
		cause(70, "main", fr("main.main", "m.go"), fr("main.decode", "m.go"), fr("runtime.mallocgc", "")),
		cause(60, "GC Thread#0", fr("libjvm.so!G1ParTask::work", "")),
		cause(55, "(all threads)", fr("runtime.bgsweep", "")),
	)
	c := NewRelease([]Component{{Name: "svc", Result: res}}).Components[0]
	if len(c.Causes) != 1 || c.Causes[0].Label != "main.parse" || c.Causes[0].N != 1 {
		t.Fatalf("application causes %+v, want main.parse alone", c.Causes)
	}
	var groups []string
	for _, g := range c.runtime {
		var ns []string
		for _, cr := range g.Causes {
			ns = append(ns, cr.Label+"@"+cr.Charged)
		}
		groups = append(groups, g.Group+"="+FormatValue(g.Delta, "nanoseconds")+":"+strings.Join(ns, ","))
	}
	want := "GC=205ms:runtime.gcDrain@,libjvm.so!G1ParTask::work@,runtime.bgsweep@ allocation=70ms:runtime.mallocgc@main.decode"
	if got := strings.Join(groups, " "); got != want {
		t.Errorf("runtime groups\n%s, want\n%s", got, want)
	}
}

// hostileRelease has a component and frames whose names are markup.
func hostileRelease() *Release {
	evil := `<img src=x onerror=alert(1)>|*x*`
	res := result([]int64{1000, 1000}, []int64{1300, 1300}, cause(120, evil, fr(evil, "file:///"+evil+".js")))
	res.Warnings = []string{"thread " + evil + " occurs only in the new runs"}
	return NewRelease([]Component{{Name: evil, Result: res, Source: evil}})
}

func TestReleaseHostileNames(t *testing.T) {
	rel := hostileRelease()
	var md, page bytes.Buffer
	if err := writeReleaseMarkdown(&md, rel, ReleaseOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := writeReleaseHTML(&page, rel, ReleaseOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(md.String(), "\n") {
		// Outside code spans, no name may open a tag.
		outside := regexpCodeSpans.ReplaceAllString(line, "")
		if strings.Contains(outside, "<img") {
			t.Errorf("Markdown line lets a name become markup: %s", line)
		}
	}
	if strings.Contains(page.String(), "<img") {
		t.Error("the HTML page has an unescaped name")
	}
	if !strings.Contains(page.String(), "&lt;img src=x onerror=alert(1)&gt;") {
		t.Error("the HTML page does not show the name as text")
	}
}

// The JSON lists the components in ranking order, with causes exactly as
// ctdiff.diff/v1 writes them.
func TestReleaseJSON(t *testing.T) {
	res := result([]int64{1000, 1000}, []int64{1300, 1300}, cause(120, "main", fr("main.f", "m.go")), cause(80, "(all threads)", fr("runtime.gcBgMarkWorker", "")))
	rel := NewRelease([]Component{{Name: "svc", Result: res, Source: "ctdiff diff a b"}, {Name: "quiet", Result: result([]int64{5}, []int64{5})}})
	var b, d bytes.Buffer
	if err := writeReleaseJSON(&b, rel); err != nil {
		t.Fatal(err)
	}
	if err := writeDiffJSON(&d, res); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Schema     string
		Components []struct {
			Rank          int
			Name, Verdict string
			ImpactPercent float64 `json:"impact_percent"`
			Causes        json.RawMessage
			RuntimeGroups []struct {
				Group  string
				Causes []int
			} `json:"runtime_groups"`
		}
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	var want struct{ Causes json.RawMessage }
	if err := json.Unmarshal(d.Bytes(), &want); err != nil {
		t.Fatal(err)
	}
	if got.Schema != releaseSchema || len(got.Components) != 2 {
		t.Fatalf("schema %q, %d components", got.Schema, len(got.Components))
	}
	c := got.Components[0]
	if c.Name != "svc" || c.Rank != 1 || c.Verdict != "regressed" || c.ImpactPercent != 30 {
		t.Errorf("first component %+v", c)
	}
	if compact(t, c.Causes) != compact(t, want.Causes) {
		t.Errorf("causes differ from ctdiff.diff/v1's:\n%s\n%s", c.Causes, want.Causes)
	}
	if len(c.RuntimeGroups) != 1 || c.RuntimeGroups[0].Group != "GC" || len(c.RuntimeGroups[0].Causes) != 1 || c.RuntimeGroups[0].Causes[0] != 1 {
		t.Errorf("runtime groups %+v, want GC with cause index 1", c.RuntimeGroups)
	}
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
