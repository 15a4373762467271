package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	exampleOld = "../../testdata/example/old"
	exampleNew = "../../testdata/example/new"
)

// The README's main command: the injected slowdown (validate re-running
// checkRules) is the top cause.
func TestDiffExample(t *testing.T) {
	for _, tt := range []struct {
		name   string
		args   []string
		golden string
	}{
		{"text", []string{"diff", exampleOld, exampleNew}, "diff-example.txt"},
		{"json", []string{"diff", exampleOld, exampleNew, "--format", "json"}, "diff-example.json"},
		{"intersect", []string{"diff", exampleOld, exampleNew, "--aggregate", "intersect", "--top", "3"}, "diff-example-intersect.txt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := ctdiff(tt.args...)
			if code != 0 {
				t.Fatalf("exit %d, stderr:\n%s", code, errOut)
			}
			golden(t, tt.golden, out)
		})
	}
	out, _, _ := ctdiff("diff", exampleOld, exampleNew, "--format", "json")
	var doc struct {
		Causes []struct {
			Path []struct{ Function string }
			Kind string
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Causes) == 0 {
		t.Fatal("no causes in the example")
	}
	var path []string
	for _, f := range doc.Causes[0].Path {
		path = append(path, f.Function)
	}
	if p := strings.Join(path, ";"); !strings.Contains(p, "example.validate;github.com/ctdiff/ctdiff/internal/example.checkRules") {
		t.Errorf("top cause %s does not go through validate → checkRules, the injected slowdown", p)
	}
}

func TestDiffFailOnRegression(t *testing.T) {
	out, errOut, code := ctdiff("diff", exampleOld, exampleNew, "--fail-on-regression", "--format", "json")
	if code != exitRegression {
		t.Errorf("exit %d, want %d", code, exitRegression)
	}
	if !strings.HasPrefix(out, "{") {
		t.Errorf("the report must still be written; stdout %q", out[:min(len(out), 80)])
	}
	if want := "ctdiff: regressed: example.checkRules +213.3ms, of which strings.EqualFold +86.67ms (95% CI +51.3ms..+122ms, adjusted p 0.00025); 1 more cause\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
	// The old runs against themselves: nothing regressed, exit 0, with the
	// warning that the sides are the same profiles.
	_, errOut, code = ctdiff("diff", exampleOld, exampleOld, "--fail-on-regression", "-o", filepath.Join(t.TempDir(), "r.txt"))
	if want := "ctdiff: warning: inputs: OLD and NEW hold the same 3 profiles, byte for byte: a profile compared with itself shows no change\n"; code != exitOK || errOut != want {
		t.Errorf("old vs old: exit %d, stderr %q; want 0 and %q", code, errOut, want)
	}
}

func TestDiffOutputFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.json")
	out, errOut, code := ctdiff("diff", exampleOld+"/run1.pb.gz", exampleNew+"/run1.pb.gz", "--format", "json", "-o", path)
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// One run per side: the report and stderr both say so.
	if !strings.Contains(errOut, "ctdiff: warning: one run on a side") {
		t.Errorf("stderr %q lacks the one-run warning", errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"schema": "ctdiff.diff/v2"`) || !strings.Contains(string(b), `"noise_floor_percent": null`) {
		t.Errorf("report:\n%s", b[:min(len(b), 400)])
	}
}

func TestDiffErrors(t *testing.T) {
	dir := t.TempDir()
	folded := writeFile(t, dir, "a.folded", "main;work 10\n")
	counts := writeFile(t, dir, "b.folded", "main;work 12\n")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"one argument", []string{"diff", exampleOld}, "ctdiff: diff takes OLD and NEW, got 1 arguments (see 'ctdiff diff --help')\n"},
		{"missing input", []string{"diff", exampleOld, filepath.Join(dir, "nope")}, "ctdiff: stat " + filepath.Join(dir, "nope") + ": no such file or directory\n"},
		{"bad aggregate", []string{"diff", exampleOld, exampleNew, "--aggregate", "mean"}, "ctdiff: --aggregate \"mean\" must be one of: [stats intersect]\n"},
		{"bad match", []string{"diff", exampleOld, exampleNew, "--match", "exact"}, "ctdiff: --match \"exact\" must be one of: [zam parcs]\n"},
		{"bad format", []string{"diff", exampleOld, exampleNew, "--format", "xml"}, "ctdiff: --format \"xml\" must be one of: [text json dot pprof markdown html summary]\n"},
		{"bad min delta", []string{"diff", exampleOld, exampleNew, "--min-delta", "fast"}, "ctdiff: --min-delta \"fast\": want a duration such as 50ms, a share such as 1%, a size such as 1MB or a count such as 100\n"},
		{"duration on a count metric", []string{"diff", exampleOld, exampleNew, "--metric", "samples", "--min-delta", "50ms"}, "ctdiff: --min-delta \"50ms\": a duration needs a time metric, and samples/count is not one: use a number or a share such as 1%\n"},
		{"unknown metric", []string{"diff", exampleOld, exampleNew, "--metric", "alloc"}, "ctdiff: ../../testdata/example/old/run1.pb.gz: --metric: sample type \"alloc\" not found: must be one of: [samples/count cpu/nanoseconds]\n"},
		{"intersect with unequal runs", []string{"diff", exampleOld, exampleNew + "/run1.pb.gz", "--aggregate", "intersect"}, "ctdiff: --aggregate intersect pairs runs by sorted file name (ZAM Section 3.1) and needs as many base runs as new runs, got 3 and 1: use --aggregate stats\n"},
		{"different sample types", []string{"diff", exampleOld + "/run1.pb.gz", counts}, "ctdiff: " + counts + ": compares samples/count, and ../../testdata/example/old/run1.pb.gz compares cpu/nanoseconds: pick a type every input has with --metric samples\n"},
		{"latency without timestamps", []string{"diff", folded, counts, "--metric", "latency"}, "ctdiff: " + folded + ": --metric latency: latency inference needs per-sample timestamps, and the input has none (no sample carries the timestamp_ns label)\n"},
		{"bad alpha", []string{"diff", exampleOld, exampleNew, "--alpha", "1.5"}, "ctdiff: --alpha 1.5 must be between 0 and 1\n"},
		{"bad top", []string{"diff", exampleOld, exampleNew, "--top", "-1"}, "ctdiff: --top -1 must not be negative\n"},
		{"bad pools", []string{"diff", exampleOld, exampleNew, "--pools=some"}, "ctdiff: --pools \"some\" must be one of: [auto on off]\n"},
		{"bad app", []string{"diff", exampleOld, exampleNew, "--app", "("}, "ctdiff: --app \"(\": error parsing regexp: missing closing ): `(`\n"},
		{"bad thread", []string{"diff", exampleOld, exampleNew, "--thread", "("}, "ctdiff: --thread: error parsing regexp: missing closing ): `(`\n"},
		{"bench without its pair", []string{"diff", exampleOld, exampleNew, "--bench-base", counts}, "ctdiff: --bench-base and --bench-new go together: give the go test -bench output of both sides\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := ctdiff(tt.args...)
			if code != exitError {
				t.Errorf("exit %d, want %d", code, exitError)
			}
			if errOut != tt.want {
				t.Errorf("stderr\n%q\nwant\n%q", errOut, tt.want)
			}
		})
	}
}

// The README's excerpt of the example's text report is verbatim: every
// line of its output blocks in "Comparing runs" ("..." aside) is a line of
// the report.
func TestDiffExampleREADME(t *testing.T) {
	out, errOut, code := ctdiff("diff", exampleOld, exampleNew)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		have[l] = true
	}
	var secs []string
	for _, s := range []struct{ doc, heading, end string }{
		{"README.md", "### Compare runs: `ctdiff diff`\n", "\n### "},
		// The next subsection quotes go tool pprof.
		{"docs/usage.md", "## Comparing runs (`ctdiff diff`)\n", "\n### "},
	} {
		_, sec, ok := strings.Cut(readDoc(t, s.doc), s.heading)
		if !ok {
			t.Fatalf("%s has no section %q", s.doc, s.heading)
		}
		sec, _, _ = strings.Cut(sec, s.end)
		secs = append(secs, sec)
	}
	checked := 0
	for i, block := range strings.Split(strings.Join(secs, "\n"), "```") {
		if i%2 == 0 || strings.HasPrefix(block, "sh\n") {
			continue
		}
		for _, l := range strings.Split(strings.Trim(block, "\n"), "\n") {
			if l == "..." {
				continue
			}
			checked++
			if !have[l] {
				t.Errorf("README line not in the example's report:\n%s", l)
			}
		}
	}
	if checked < 5 {
		t.Errorf("checked %d README lines", checked)
	}
}

// One run per side: noise is not a regression, and nodes no test
// could judge fail a gate only when asked.
func TestDiffOneRunVerdicts(t *testing.T) {
	dir := t.TempDir()
	// 200 samples: μ is 1%, 2 samples, and layout's 4 → 7 passes it.
	base := writeFile(t, dir, "base.folded", "main;parse 120\nmain;render 76\nmain;render;layout 4\n")
	nw := writeFile(t, dir, "new.folded", "main;parse 120\nmain;render 76\nmain;render;layout 7\n")
	added := writeFile(t, dir, "added.folded", "main;parse 120\nmain;render 76\nmain;render;layout 4\nmain;validate 100\n")
	for _, tt := range []struct {
		name     string
		args     []string
		code     int
		stderr   string
		noStderr string
	}{
		{"4 → 7 samples is no cause", []string{base, nw, "--fail-on-regression"}, exitOK, "one run on a side", "regression:"},
		{"untested does not fail the gate", []string{base, added, "--aggregate", "intersect", "--fail-on-regression"}, exitOK, "untested", "regression"},
		{"unless asked", []string{base, added, "--aggregate", "intersect", "--fail-on-regression", "--fail-on-untested"}, exitRegression, "regression (untested, --fail-on-untested): 1 node(s) above the threshold, the largest added +100 in validate", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"diff"}, tt.args...)
			args = append(args, "-o", filepath.Join(t.TempDir(), "r.json"))
			_, errOut, code := ctdiff(args...)
			if code != tt.code || !strings.Contains(errOut, tt.stderr) || tt.noStderr != "" && strings.Contains(errOut, tt.noStderr) {
				t.Errorf("exit %d, stderr %q; want %d, stderr with %q and without %q", code, errOut, tt.code, tt.stderr, tt.noStderr)
			}
		})
	}
}

// The exit line of --fail-on-regression signs a delta as it is: a cause
// tested on its self time can have an inclusive delta below zero.
func TestSignedValue(t *testing.T) {
	for _, tt := range []struct {
		v    int64
		unit string
		want string
	}{
		{86_670_000, "nanoseconds", "+86.67ms"},
		{0, "nanoseconds", "+0"},
		{-12_700_000, "nanoseconds", "-12.7ms"},
	} {
		if got := signedValue(tt.v, tt.unit); got != tt.want {
			t.Errorf("signedValue(%d, %s) = %q, want %q", tt.v, tt.unit, got, tt.want)
		}
	}
}
