package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

const (
	fixedOld = "../../testdata/fixed-duration/old"
	fixedNew = "../../testdata/fixed-duration/new"
	benchDir = "../../testdata/bench"
)

// diffReport is the part of the ctdiff.diff/v1 JSON these tests read.
type diffReport struct {
	Unit   string
	Causes []struct {
		Path []struct{ Function string }
		Kind string
	}
	Normalization struct {
		Mode, Reason, Per string
		Auto              bool
		CountSource       string `json:"count_source"`
		FixedDuration     bool   `json:"fixed_duration"`
	}
	Benchmark *struct {
		Name, Verdict, Function string
		Base, New               struct {
			SecPerOp float64 `json:"sec_per_op"`
			Low      float64 `json:"ci_low"`
			High     float64 `json:"ci_high"`
			N        int
		}
		ProfileBase int64 `json:"profile_base_per_iteration"`
		ProfileNew  int64 `json:"profile_new_per_iteration"`
	}
	Warnings []string
}

func diffJSON(t *testing.T, args ...string) diffReport {
	t.Helper()
	out, errOut, code := ctdiff(append([]string{"diff", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("ctdiff diff %s: exit %d, stderr:\n%s", strings.Join(args, " "), code, errOut)
	}
	var r diffReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func causePath(r diffReport, i int) string {
	var p []string
	for _, f := range r.Causes[i].Path {
		p = append(p, f.Function)
	}
	return strings.Join(p, ";")
}

// Fixed-duration profiles (testdata/fixed-duration: every run lasts 2 s,
// the new version handles fewer requests): share, chosen automatically,
// and per=handleRequest put the slowed checkRules first; none is named
// wrong in the report.
func TestDiffFixedDuration(t *testing.T) {
	for _, tt := range []struct {
		normalize string
		mode      string
		per       string
	}{
		{"auto", "share", ""},
		{"share", "share", ""},
		{"per=handleRequest", "per", "sample of github.com/ctdiff/ctdiff/internal/example.handleRequest"},
	} {
		t.Run(tt.normalize, func(t *testing.T) {
			r := diffJSON(t, fixedOld, fixedNew, "--normalize", tt.normalize)
			if r.Normalization.Mode != tt.mode || r.Normalization.Per != tt.per || !r.Normalization.FixedDuration {
				t.Errorf("normalization %+v", r.Normalization)
			}
			if len(r.Causes) == 0 {
				t.Fatal("no causes")
			}
			if p := causePath(r, 0); !strings.Contains(p, "example.validate;github.com/ctdiff/ctdiff/internal/example.checkRules") {
				t.Errorf("first cause %s is not the slowed checkRules", p)
			}
		})
	}
	out, _, code := ctdiff("diff", fixedOld, fixedNew)
	if code != 0 || !strings.Contains(out, "Normalization: share (chosen: every profile covers 2.0") {
		t.Errorf("exit %d, the text header does not say why share was chosen:\n%s", code, out[:min(len(out), 900)])
	}
	out, _, _ = ctdiff("diff", fixedOld, fixedNew, "--normalize", "none")
	if !strings.Contains(out, "Normalization: none\n") || !strings.Contains(strings.Join(strings.Fields(out), " "), "warning: --normalize none compares absolute values, but every profile covers the same duration: in fixed-duration profiles the total is capped") {
		t.Errorf("none on fixed-duration profiles is not called wrong:\n%s", out)
	}
}

// ctdiff diff URL URL: both sides fetched from live net/http/pprof
// endpoints. The "new" server's process runs a slower loop while it is
// profiled, and the report finds it.
func TestDiffLiveEndpoints(t *testing.T) {
	var slow, stop atomic.Bool
	defer stop.Store(true)
	serve := func(isSlow bool) *httptest.Server {
		return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			slow.Store(isSlow)
			pprof.Profile(w, r)
		}))
	}
	oldSrv, newSrv := serve(false), serve(true)
	defer oldSrv.Close()
	defer newSrv.Close()
	go func() {
		var stopFast atomic.Bool
		for !stop.Load() {
			busyLoop(&stopFast, 2000)
			if slow.Load() {
				slowPath(&stopFast)
			}
		}
	}()

	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	// share is named, not left to auto: auto picks share only when the two
	// recordings last within 5% of each other, which a loaded CI machine
	// does not promise (a 2 s profile was seen to take 3.8 s). Auto's choice
	// is tested on recorded data in TestDiffFixedDuration.
	_, errOut, code := ctdiff("diff", "--seconds", "2", "--normalize", "share", "--format", "json", "-o", report,
		oldSrv.URL+"/debug/pprof/profile", newSrv.URL+"/debug/pprof/profile")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(errOut, "ctdiff: fetched "); n != 2 {
		t.Errorf("stderr says %d fetches, want 2: %q", n, errOut)
	}
	saved, _ := filepath.Glob(filepath.Join(dir, "127.0.0.1*debug_pprof_profile-*.pb.gz"))
	if len(saved) != 2 {
		t.Errorf("fetched profiles kept beside the report: %v", saved)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r diffReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Normalization.Mode != "share" {
		t.Errorf("normalization %+v, want share", r.Normalization)
	}
	found := false
	for i := range r.Causes {
		found = found || strings.Contains(causePath(r, i), "cmd/ctdiff.slowPath")
	}
	if !found {
		t.Errorf("no cause in slowPath, which only the new server's process ran: %s", b)
	}
}

// slowPath is the work only the "new" service does.
func slowPath(stop *atomic.Bool) { busyLoop(stop, 2000) }

// busyLoop burns CPU for n rounds.
//
//go:noinline
func busyLoop(stop *atomic.Bool, n int) {
	x := 0
	for r := 0; r < n && !stop.Load(); r++ {
		for i := range 1000 {
			x += i * i
		}
	}
	sink.Add(int64(x))
}

var sink atomic.Int64

// go test -bench profiles with their outputs (testdata/bench, made by
// gen.sh): values per iteration, benchstat's verdict as benchstat prints
// it, and per-iteration deltas that agree with it.
func TestDiffBench(t *testing.T) {
	r := diffJSON(t, benchDir+"/old", benchDir+"/new", "--bench-base", benchDir+"/old.txt", "--bench-new", benchDir+"/new.txt")
	if r.Normalization.Mode != "iteration" || r.Normalization.CountSource != "benchmark iterations" || r.Unit != "nanoseconds" {
		t.Fatalf("normalization %+v, unit %s", r.Normalization, r.Unit)
	}
	if len(r.Causes) == 0 || !strings.Contains(causePath(r, 0), "example.validate;github.com/ctdiff/ctdiff/internal/example.checkRules") {
		t.Errorf("first cause is not the slowed checkRules: %+v", r.Causes)
	}
	v := r.Benchmark
	if v == nil || v.Name != "HandleRequest-2" || v.Function != "github.com/ctdiff/ctdiff/internal/example.BenchmarkHandleRequest" {
		t.Fatalf("benchmark %+v", v)
	}
	// The verdict is benchstat's own (gen.sh saved benchstat's table).
	table, err := os.ReadFile(benchDir + "/benchstat.txt")
	if err != nil {
		t.Fatal(err)
	}
	text, _, _ := ctdiff("diff", benchDir+"/old", benchDir+"/new", "--bench-base", benchDir+"/old.txt", "--bench-new", benchDir+"/new.txt")
	row := benchstatRow(t, string(table), "HandleRequest-2")
	for _, cell := range row {
		if !strings.Contains(text, cell) {
			t.Errorf("the report lacks benchstat's %q (row %q)", cell, row)
		}
	}
	// Agreement: the profiles' change per iteration of the benchmark
	// function lies within the change benchstat's confidence intervals
	// allow, [new low / base high, new high / base low].
	ratio := float64(v.ProfileNew) / float64(v.ProfileBase)
	lo, hi := v.New.Low/v.Base.High, v.New.High/v.Base.Low
	if ratio < lo || ratio > hi {
		t.Errorf("profile per-iteration change ×%.3f outside benchstat's ×%.3f..×%.3f", ratio, lo, hi)
	}
	// And the profiles' time per iteration is the benchmark's: within
	// benchstat's interval, widened by the sampling error of a profile.
	for _, s := range []struct {
		name    string
		profile int64
		lo, hi  float64
	}{{"base", v.ProfileBase, v.Base.Low, v.Base.High}, {"new", v.ProfileNew, v.New.Low, v.New.High}} {
		if ns := float64(s.profile); ns < 0.8*s.lo*1e9 || ns > 1.25*s.hi*1e9 {
			t.Errorf("%s: profile %.0f ns per iteration, benchstat %.0f..%.0f ns", s.name, ns, s.lo*1e9, s.hi*1e9)
		}
	}
}

// benchstatRow returns the cells of benchstat's row for a benchmark: the
// two "center ± range" cells and the verdict ("~ (p=0.123 n=10)").
func benchstatRow(t *testing.T, table, name string) []string {
	t.Helper()
	for _, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		if len(f) < 8 || f[0] != name {
			continue
		}
		// HandleRequest-2  514.3µ ± 39%  702.8µ ± 46%  ~ (p=0.123 n=10)
		return []string{f[1] + "s ± " + f[3], f[4] + "s ± " + f[6], strings.Join(f[7:], " ")}
	}
	t.Fatalf("benchstat.txt has no row %s:\n%s", name, table)
	return nil
}

func TestDiffNormalizeErrors(t *testing.T) {
	dir := t.TempDir()
	oneLine := writeFile(t, dir, "one.txt", "BenchmarkHandleRequest-2 100 5000 ns/op\n")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"bad mode", []string{"--normalize", "percent"}, `ctdiff: --normalize "percent" must be one of: [auto none total share per=FUNC iteration]` + "\n"},
		{"per without function", []string{"--normalize", "per="}, `ctdiff: --normalize "per=": per= needs a function name, such as per=handleRequest` + "\n"},
		{"iteration without outputs", []string{"--normalize", "iteration"}, "ctdiff: --normalize iteration needs benchmark outputs with iteration counts (--bench-base and --bench-new)\n"},
		{"one bench file", []string{"--bench-base", oneLine}, "ctdiff: --bench-base and --bench-new go together: give the go test -bench output of both sides\n"},
		{"missing bench file", []string{"--bench-base", filepath.Join(dir, "nope.txt"), "--bench-new", oneLine}, "ctdiff: open " + filepath.Join(dir, "nope.txt") + ": no such file or directory\n"},
		{"results and runs", []string{"--bench-base", oneLine, "--bench-new", oneLine}, "ctdiff: the base side has 3 profiles and 1 benchmark results: want one result per profile, or the same -count for each (a multiple of 3)\n"},
		{"duration threshold on shares", []string{"--min-delta", "50ms"}, `ctdiff: --min-delta "50ms": values are shares of each run's total (--normalize auto chose share for these inputs): use a share such as 1%` + "\n"},
		{"duration threshold on shares asked for", []string{"--min-delta", "50ms", "--normalize", "share"}, `ctdiff: --min-delta "50ms": values are shares of each run's total (--normalize share): use a share such as 1%` + "\n"},
		{"unknown marker", []string{"--normalize", "per=serveHTTP"}, `ctdiff: normalize per=serveHTTP: base run 1: no function named "serveHTTP" (or ending in .serveHTTP) in the profile` + "\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := ctdiff(append([]string{"diff", fixedOld, fixedNew}, tt.args...)...)
			if code != exitError || errOut != tt.want {
				t.Errorf("exit %d, stderr\n%q\nwant\n%q", code, errOut, tt.want)
			}
		})
	}
}

// The worked examples of the README's "Comparing Go service profiles" are
// verbatim: every line of its output excerpts ("..." aside) is a line of
// the commands' reports, which are golden files.
func TestDiffGoServiceREADME(t *testing.T) {
	var lines []string
	for _, c := range []struct {
		golden string
		args   []string
	}{
		{"diff-fixed-duration.txt", []string{fixedOld, fixedNew}},
		{"diff-fixed-duration-none.txt", []string{fixedOld, fixedNew, "--normalize", "none"}},
		{"diff-bench.txt", []string{benchDir + "/old", benchDir + "/new", "--bench-base", benchDir + "/old.txt", "--bench-new", benchDir + "/new.txt"}},
	} {
		out, errOut, code := ctdiff(append([]string{"diff"}, c.args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		golden(t, c.golden, out)
		lines = append(lines, strings.Split(out, "\n")...)
	}
	// The report names inputs relative to this package; the README's
	// commands run at the repository root.
	have := map[string]bool{}
	for _, l := range lines {
		have[strings.ReplaceAll(l, "../../testdata/", "testdata/")] = true
	}
	sec := readDoc(t, "docs/go-services.md")
	checked := 0
	for i, block := range strings.Split(sec, "```") {
		if i%2 == 0 || strings.HasPrefix(block, "sh\n") {
			continue
		}
		for _, l := range strings.Split(strings.Trim(block, "\n"), "\n") {
			if l == "..." {
				continue
			}
			checked++
			if !have[l] {
				t.Errorf("README line not in the reports (go test -run TestDiffGoServiceREADME -update, then copy):\n%s", l)
			}
		}
	}
	if checked < 10 {
		t.Errorf("checked %d README lines", checked)
	}
}
