package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// benchRun is one go test -bench run of BenchmarkValidate: its profile
// holds benchNs of CPU time in the benchmark function (and otherNs in the
// testing package outside it), and its output line says iters and nsPerOp.
type benchRun struct {
	benchNs, otherNs int64
	iters            int
	nsPerOp          float64
}

// writeBenchSide writes a side's profiles (run1.pprof...) into dir/side and
// its go test -bench output into dir/side.txt, as go test -cpuprofile
// would: Go CPU profiles sampled every 10ms.
func writeBenchSide(t *testing.T, dir, side string, runs []benchRun) (profiles, output string) {
	t.Helper()
	profiles = filepath.Join(dir, side)
	if err := os.MkdirAll(profiles, 0o755); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	out.WriteString("goos: linux\ngoarch: amd64\npkg: example.com/svc\n")
	for i, r := range runs {
		p := &profile.Profile{
			SampleType:    []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
			PeriodType:    &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
			Period:        int64(10 * time.Millisecond),
			DurationNanos: r.benchNs + r.otherNs,
		}
		loc := map[string]*profile.Location{}
		frame := func(name string) *profile.Location {
			if l, ok := loc[name]; ok {
				return l
			}
			fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: "svc.go"}
			l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn, Line: 1}}}
			p.Function, p.Location, loc[name] = append(p.Function, fn), append(p.Location, l), l
			return l
		}
		add := func(ns int64, stack ...string) {
			if ns == 0 {
				return
			}
			s := &profile.Sample{Value: []int64{ns / p.Period, ns}}
			for j := len(stack) - 1; j >= 0; j-- { // leaf first
				s.Location = append(s.Location, frame(stack[j]))
			}
			p.Sample = append(p.Sample, s)
		}
		add(r.benchNs, "testing.(*B).runN", "example.com/svc.BenchmarkValidate", "example.com/svc.Validate")
		add(r.otherNs, "testing.(*B).launch", "testing.(*B).runN")
		f, err := os.Create(filepath.Join(profiles, fmt.Sprintf("run%d.pprof", i+1)))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Write(f); err != nil {
			t.Fatal(err)
		}
		f.Close()
		fmt.Fprintf(&out, "BenchmarkValidate-2   \t%8d\t%10.0f ns/op\n", r.iters, r.nsPerOp)
	}
	out.WriteString("PASS\n")
	output = writeFile(t, dir, side+".txt", out.String())
	return profiles, output
}

// benchmarkJSON is the benchmark verdict of a ctdiff.diff/v1 result.
type benchmarkJSON struct {
	Benchmark struct {
		Function  string
		Base, New struct {
			SecPerOp float64  `json:"sec_per_op"`
			Low      *float64 `json:"ci_low"`
			High     *float64 `json:"ci_high"`
		}
		ProfileBase int64 `json:"profile_base_per_iteration"`
		ProfileNew  int64 `json:"profile_new_per_iteration"`
	}
	Warnings []string
}

// -benchtime=60000x on a fast function (4.71µs → 30.04µs a call):
// values are per 10 iterations, and the line of the profiles' time per
// iteration still says per iteration; with four runs per side benchstat
// has no confidence interval, which the JSON says with null.
func TestDiffBenchFastFunctionFewRuns(t *testing.T) {
	dir := t.TempDir()
	var base, nw []benchRun
	for i, ns := range []float64{4710, 4720, 4700, 4690} {
		// 60,000 iterations of 4.7µs: 28 samples of 10ms in the function.
		base = append(base, benchRun{benchNs: 280_000_000, otherNs: int64(i) * 10_000_000, iters: 60000, nsPerOp: ns})
	}
	for i, ns := range []float64{30040, 30100, 29900, 30000} {
		nw = append(nw, benchRun{benchNs: 1_800_000_000, otherNs: int64(i) * 10_000_000, iters: 60000, nsPerOp: ns})
	}
	oldDir, oldTxt := writeBenchSide(t, dir, "old", base)
	newDir, newTxt := writeBenchSide(t, dir, "new", nw)
	args := []string{"diff", oldDir, newDir, "--bench-base", oldTxt, "--bench-new", newTxt}

	text, errOut, code := ctdiff(args...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(text, "values are per 10 × iteration") {
		t.Fatalf("the case does not scale values (it tests the per-iteration line under a scale):\n%s", text)
	}
	if !strings.Contains(text, "BenchmarkValidate-2 (benchstat, sec/op): 4.71µs ± ∞ → 30.02µs ± ∞") {
		t.Errorf("benchstat's line:\n%s", text)
	}
	// 280ms / 60,000 = 4.667µs; 1.8s / 60,000 = 30µs.
	if want := "  in the profiles, example.com/svc.BenchmarkValidate per iteration: 4.67µs → 30µs (+542.81%)\n"; !strings.Contains(text, want) {
		t.Errorf("the per-iteration line is not\n%s in\n%s", want, text)
	}

	out, errOut, code := ctdiff(append(args, "--format", "json")...)
	if code != exitOK {
		t.Fatalf("--format json: exit %d: %s", code, errOut)
	}
	var r benchmarkJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	b := r.Benchmark
	if b.Base.Low != nil || b.Base.High != nil || b.New.Low != nil || b.New.High != nil {
		t.Errorf("bounds benchstat cannot give are not null: %s", out[strings.Index(out, `"benchmark"`):][:400])
	}
	if b.Base.SecPerOp != 4.7e-6 && b.Base.SecPerOp != 4.71e-6 || b.ProfileBase != 4667 || b.ProfileNew != 30000 {
		t.Errorf("sec/op %g, profile per iteration %d → %d ns, want 4667 → 30000", b.Base.SecPerOp, b.ProfileBase, b.ProfileNew)
	}
	// Every format writes it.
	for _, f := range []string{"markdown", "html", "dot", "pprof"} {
		if _, errOut, code := ctdiff(append(args, "--format", f, "-o", filepath.Join(dir, "r."+f))...); code != exitOK {
			t.Errorf("--format %s: exit %d: %s", f, code, errOut)
		}
	}
}

// A profile without the benchmark function (the sixth new one, 30ms) is
// named, the others still give the time per iteration, and a profile with
// too few samples to compare is called so.
func TestDiffBenchProfileWithoutFunction(t *testing.T) {
	dir := t.TempDir()
	var base, nw []benchRun
	for i := range 6 {
		base = append(base, benchRun{benchNs: 500_000_000 + int64(i)*10_000_000, otherNs: 20_000_000, iters: 100000, nsPerOp: 5100 + float64(i)})
		nw = append(nw, benchRun{benchNs: 700_000_000 + int64(i)*10_000_000, otherNs: 20_000_000, iters: 100000, nsPerOp: 7100 + float64(i)})
	}
	nw[5] = benchRun{benchNs: 0, otherNs: 30_000_000, iters: 100000, nsPerOp: 7000}
	oldDir, oldTxt := writeBenchSide(t, dir, "old", base)
	newDir, newTxt := writeBenchSide(t, dir, "new", nw)
	out, errOut, code := ctdiff("diff", oldDir, newDir, "--bench-base", oldTxt, "--bench-new", newTxt, "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r benchmarkJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	sixth := filepath.Join(newDir, "run6.pprof")
	want := []string{
		"benchmark Validate-2: " + sixth + " holds no example.com/svc.BenchmarkValidate; the new time per iteration is the mean of the other 5 new profiles",
		"benchmark Validate-2: " + sixth + " holds 3 samples (30ms): too few to compare (a profile needs 10 or more: run the benchmark longer, with a larger -benchtime)",
	}
	for _, w := range want {
		found := false
		for _, got := range r.Warnings {
			found = found || got == w
		}
		if !found {
			t.Errorf("no warning\n%s\namong\n%s", w, strings.Join(r.Warnings, "\n"))
		}
	}
	if r.Benchmark.Function != "example.com/svc.BenchmarkValidate" {
		t.Errorf("function %q", r.Benchmark.Function)
	}
	// The mean over the five profiles that hold it: (700..740ms) / 100,000.
	if r.Benchmark.ProfileNew != 7200 || r.Benchmark.ProfileBase != 5250 {
		t.Errorf("per iteration %d → %d ns, want 5250 → 7200", r.Benchmark.ProfileBase, r.Benchmark.ProfileNew)
	}
	for _, w := range r.Warnings {
		if regexp.MustCompile(`no function .* in the profiles`).MatchString(w) {
			t.Errorf("a warning does not say which profile: %s", w)
		}
	}
}
