package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/cctest"
	"github.com/ctdiff/ctdiff/internal/cctjson"
	"github.com/google/pprof/profile"
)

// writeProfile writes a pprof profile built from folded lines (see cctest).
func writeProfile(t *testing.T, dir, name string, lines ...string) string {
	t.Helper()
	p := cctest.Profile(t, lines...)
	p.PeriodType, p.Period = &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, 1000
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := p.Write(f); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// The paper's example (IntroPerf Figure 3) on a ui thread, and a worker
// thread with a 50µs idle gap.
var latencyTrace = []string{
	"@1000 thread=ui A;B;D 1000", "@2000 thread=ui A;B;D 1000", "@3000 thread=ui A;C;D 1000", "@4000 thread=ui A;C 1000",
	"@1500 thread=worker run;fetch 1000", "@2500 thread=worker run;fetch 1000", "@52500 thread=worker run;parse 1000",
	"@53500 thread=worker run;parse 1000",
}

func TestCCTLatencyGolden(t *testing.T) {
	dir := t.TempDir()
	in := writeProfile(t, dir, "trace.pb.gz", latencyTrace...)
	for _, tt := range []struct {
		golden string
		args   []string
	}{
		{"cct-latency-conservative.txt", []string{"cct", "--latency", "conservative", in}},
		{"cct-latency-aggressive.txt", []string{"cct", "--latency", "aggressive", in}},
		{"cct-latency-gap-off.txt", []string{"cct", "--latency", "conservative", "--latency-gap", "off", in}},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			out, errOut, code := ctdiff(tt.args...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			golden(t, tt.golden, strings.ReplaceAll(out, dir, "$TMP"))
		})
	}
}

func TestCCTLatencyGapFlag(t *testing.T) {
	dir := t.TempDir()
	in := writeProfile(t, dir, "trace.pb.gz", latencyTrace...)
	for _, tt := range []struct{ gap, want string }{
		{"auto", "instances end after 4µs without a sample (1 gaps; sampling interval 1µs)"},
		{"2x", "instances end after 2µs without a sample (1 gaps; sampling interval 1µs)"},
		{"100us", "instances end after 100µs without a sample (0 gaps; sampling interval 1µs)"},
		{"off", "gap detection off"},
	} {
		out, errOut, code := ctdiff("cct", "--latency", "conservative", "--latency-gap", tt.gap, in)
		if code != 0 || !strings.Contains(out, tt.want) {
			t.Errorf("--latency-gap %s: exit %d, stderr %q; output lacks %q:\n%s", tt.gap, code, errOut, tt.want, out)
		}
	}
}

func TestCCTLatencyPprof(t *testing.T) {
	dir := t.TempDir()
	in := writeProfile(t, dir, "trace.pb.gz", latencyTrace...)
	out := filepath.Join(dir, "pacct.pb.gz")
	if _, errOut, code := ctdiff("cct", "--latency", "aggressive", "--format", "pprof", "-o", out, in); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	if p.DefaultSampleType != "latency_aggressive" || len(p.SampleType) != 4 || p.SampleType[0].Type != "calls" {
		t.Fatalf("default %q, types %v", p.DefaultSampleType, p.SampleType)
	}
	// The sum of own latencies is the root's total: ui 3µs, worker 1µs + 1µs
	// (aggressive; the gap ends fetch at its last sample).
	var sum int64
	for _, s := range p.Sample {
		sum += s.Value[2]
	}
	if sum != 5000 {
		t.Errorf("Σ own aggressive latency = %d, want 5000", sum)
	}

	// go tool pprof opens it, and its cumulative latency of A is A's total.
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH")
	}
	top, err := exec.Command(goTool, "tool", "pprof", "-top", "-sample_index=latency_aggressive", out).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, top)
	}
	if !strings.Contains(string(top), "3us 60.00%  A") {
		t.Errorf("pprof -top lacks A's cumulative 3us:\n%s", top)
	}
}

func TestCCTLatencyJSON(t *testing.T) {
	dir := t.TempDir()
	in := writeProfile(t, dir, "trace.pb.gz", latencyTrace...)
	out, _, code := ctdiff("cct", "--latency", "conservative", "--format", "json", in)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var doc cctjson.Tree
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var own int64
	for _, n := range doc.Nodes {
		if n.Latency == nil {
			t.Fatalf("node %d has no latency", n.ID)
		}
		own += n.Latency.Conservative.Own
		if n.Function == "D" && n.Count != 1 {
			t.Errorf("D: count %d, want 1", n.Count)
		}
	}
	if root := doc.Nodes[0].Latency.Conservative.Total; own != root || root != 3000+1000+1000 {
		t.Errorf("Σ own = %d, root total = %d, want 5000", own, root)
	}
}

func TestCCTLatencyErrors(t *testing.T) {
	dir := t.TempDir()
	folded := writeFile(t, dir, "stacks.folded", "main;a 1\n")
	timed := writeProfile(t, dir, "trace.pb.gz", latencyTrace...)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no timestamps", []string{"cct", "--latency", "conservative", folded},
			"ctdiff: --latency: " + folded + ": latency inference needs per-sample timestamps, and the input has none (collapsed stacks and aggregated profiles have none: use a trace such as a DevTools trace, a .cpuprofile, JFR, perf script or ETW)\n"},
		{"bad mode", []string{"cct", "--latency", "fast", timed}, "ctdiff: --latency \"fast\" must be one of: [off conservative aggressive]\n"},
		{"bad gap", []string{"cct", "--latency", "aggressive", "--latency-gap", "-5ms", timed},
			"ctdiff: --latency-gap \"-5ms\" must be auto, off, a number of sampling intervals such as 4x, or a positive duration such as 50ms\n"},
		{"bad gap factor", []string{"cct", "--latency", "aggressive", "--latency-gap", "0x", timed},
			"ctdiff: --latency-gap \"0x\" must be auto, off, a number of sampling intervals such as 4x, or a positive duration such as 50ms\n"},
		{"flat view", []string{"cct", "--latency", "aggressive", "--view", "flat", timed},
			"ctdiff: --latency needs --view top-down: inferred instances belong to calling contexts, which --view flat does not show\n"},
		{"dot", []string{"cct", "--latency", "aggressive", "--format", "dot", timed},
			"ctdiff: --format dot does not show latencies: use --format text, json or pprof with --latency\n"},
		{"pprof bottom-up", []string{"cct", "--format", "pprof", "--view", "bottom-up", timed},
			"ctdiff: --format pprof writes the top-down tree (pprof makes the other views itself), not --view bottom-up\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := ctdiff(tt.args...)
			if code != exitError || out != "" || errOut != tt.want {
				t.Errorf("exit %d, stdout %q, stderr:\n%q\nwant:\n%q", code, out, errOut, tt.want)
			}
		})
	}
}

// An input without timestamps merged with one that has them is in the tree
// but not in the latencies, and stderr says so.
func TestCCTLatencyWarnsAboutUntimedInputs(t *testing.T) {
	dir := t.TempDir()
	timed := writeProfile(t, dir, "a.pb.gz", latencyTrace...)
	untimed := writeProfile(t, dir, "b.pb.gz", "thread=ui A;B 1000", "thread=ui A 1000")
	out, errOut, code := ctdiff("cct", "--latency", "conservative", timed, untimed)
	want := "ctdiff: " + untimed + ": warning: 2 of 2 samples have no timestamp; they are in the tree but not in the latencies\n"
	if code != 0 || errOut != want {
		t.Errorf("exit %d, stderr %q, want %q", code, errOut, want)
	}
	if !strings.Contains(out, "View: top-down; total 10µs;") {
		t.Errorf("the untimed samples are missing from the tree:\n%s", out)
	}
}

// --format dot and --format pprof without latency.
func TestCCTFormatsDotAndPprof(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "stacks.folded", "main;a 3\nmain;b 1\n")
	out, errOut, code := ctdiff("cct", "--format", "dot", in)
	if code != 0 || !strings.HasPrefix(out, "digraph cct {") {
		t.Errorf("dot: exit %d, stderr %q, output:\n%s", code, errOut, out)
	}
	renderDOT(t, out)
	pb := filepath.Join(dir, "tree.pb.gz")
	if _, errOut, code := ctdiff("cct", "--format", "pprof", "-o", pb, in); code != 0 {
		t.Fatalf("pprof: exit %d: %s", code, errOut)
	}
	f, err := os.Open(pb)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, s := range p.Sample {
		total += s.Value[0]
	}
	if len(p.Sample) != 2 || total != 4 {
		t.Errorf("%d samples totalling %d, want 2 totalling 4", len(p.Sample), total)
	}
}
