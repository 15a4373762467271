package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/internal/long"
	"github.com/google/pprof/profile"
)

// A badInputCase is one run of the real CLI on broken, hostile or extreme
// input, with the exit code and the text it must produce.
type badInputCase struct {
	name string
	args []string
	code int
	// stderr is the whole of stderr when it ends in "\n", else a prefix
	// of it; empty means stderr is not checked.
	stderr string
	// stdout must occur in stdout (successful runs).
	stdout string
	// check runs further checks after the common ones.
	check func(t *testing.T, stdout, stderr string)
	// long: the case takes minutes and runs with the long tests only
	// (internal/long).
	long bool
}

// caseTimeout is generous: it catches hangs, not slowness (a timed
// assertion would be flaky on a loaded machine).
const caseTimeout = 5 * time.Minute

// runBadInput runs one case and applies the checks every case shares: the
// exit code, no panic or goroutine dump anywhere, errors on one line.
func runBadInput(t *testing.T, tc badInputCase) {
	t.Helper()
	if tc.long {
		long.Skip(t, tc.name)
	}
	type result struct {
		stdout, stderr string
		code           int
	}
	done := make(chan result, 1)
	go func() {
		var out, errOut bytes.Buffer
		defer func() {
			if r := recover(); r != nil {
				fmt.Fprintf(&errOut, "panic: %v", r)
				done <- result{out.String(), errOut.String(), -1}
			}
		}()
		code := run(tc.args, &out, &errOut)
		done <- result{out.String(), errOut.String(), code}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(caseTimeout):
		t.Fatalf("ctdiff %s did not finish within %v", strings.Join(tc.args, " "), caseTimeout)
	}
	for _, s := range []string{r.stdout, r.stderr} {
		if strings.Contains(s, "panic:") || strings.Contains(s, "goroutine ") {
			t.Fatalf("output shows a panic:\n%.2000s", s)
		}
	}
	if r.code != tc.code {
		t.Errorf("exit code %d, want %d; stderr:\n%.2000s", r.code, tc.code, r.stderr)
	}
	if tc.code == exitError {
		if r.stdout != "" {
			t.Errorf("stdout not empty on error: %.200q", r.stdout)
		}
		if strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("stderr is not one line: %q", r.stderr)
		}
	}
	switch {
	case tc.stderr == "":
	case strings.HasSuffix(tc.stderr, "\n") && r.stderr != tc.stderr:
		t.Errorf("stderr = %q\nwant     %q", r.stderr, tc.stderr)
	case !strings.HasPrefix(r.stderr, tc.stderr):
		t.Errorf("stderr = %q\nwant prefix %q", r.stderr, tc.stderr)
	}
	if tc.stdout != "" && !strings.Contains(r.stdout, tc.stdout) {
		t.Errorf("stdout lacks %q:\n%.2000s", tc.stdout, r.stdout)
	}
	if tc.check != nil {
		tc.check(t, r.stdout, r.stderr)
	}
}

// TestBadInputMatrix runs the CLI on every kind of bad input a profile
// from another machine or an attacker can be.
func TestBadInputMatrix(t *testing.T) {
	dir := t.TempDir()
	w := func(name, content string) string { return writeFile(t, dir, name, content) }
	bomb := gzipBytes(t, strings.Repeat("main;work 1\n", 1_000_000)) // 12 MB from ~25 KB
	full := gzipBytes(t, strings.Repeat("main;work 1\n", 5000))
	deep := deepFolded(100_000)
	deepOut := filepath.Join(dir, "deep.pb.gz")

	emptyDir := filepath.Join(dir, "empty-dir")
	docsDir := filepath.Join(dir, "docs-only")
	for _, d := range []string{emptyDir, docsDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, docsDir, "README.md", "# runs go here\n")
	writeFile(t, docsDir, ".hidden.pb.gz", string(full))
	writeFile(t, docsDir, "record.sh", "#!/bin/sh\n")

	paths := map[string]string{
		"empty":      w("empty.pb.gz", ""),
		"random":     w("random.bin", string(randomBytes(1, 4096))),
		"truncated":  w("truncated.pb.gz", string(full[:len(full)/2])),
		"bomb":       w("bomb.folded.gz", string(bomb)),
		"noshape":    w("other.json", `{"nodes": 5, "samples": "many"}`),
		"badtrace":   w("trace.json", `{"traceEvents": {"name": "Profile"}}`),
		"badcct":     w("tree.json", `{"schema":"ctdiff.cct/v1","sample_types":[{"type":"cpu","unit":"nanoseconds"}],"nodes":"none"}`),
		"noprofiles": w("noprofiles.json", `{"traceEvents":[{"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":0,"dur":5},{"name":"thread_name","ph":"M","pid":1,"tid":1,"args":{"name":"CrRendererMain"}}]}`),
		"nosamples":  w("nosamples.pb.gz", string(pprofBytes(t, nil))),
		"nolines":    w("comments.folded", "# folded stacks, but none recorded\n"),
		"nohits":     w("nohits.cpuprofile", `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}}],"samples":[],"timeDeltas":[]}`),
		"negpprof":   w("diffbase.pb.gz", string(pprofBytes(t, []int64{3, -5}))),
		"negfolded":  w("negative.folded", "main;work 4\nmain;idle -2\n"),
		"negcct":     w("negative-tree.json", `{"schema":"ctdiff.cct/v1","sample_types":[{"type":"cpu","unit":"nanoseconds"}],"nodes":[{"id":0,"kind":"root","parent":-1,"self":[0],"total":[-3],"children":[1]},{"id":1,"function":"f","parent":0,"self":[-3],"total":[-3]}]}`),
		"nandelta":   w("nan.cpuprofile", `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},{"id":2,"callFrame":{"functionName":"f"}}],"samples":[2,2],"timeDeltas":[0,NaN]}`),
		"nanweight":  w("nan.csv", "\"TimeStamp\",\"Process\",\"Thread ID\",\"Weight\",\"Count\",\"Stack\"\n\"1\",\"a (1)\",\"2\",\"NaN\",\"1\",\"[Root]/a!f\"\n"),
		"nanmetric":  w("nan.perfView.xml", `<StackWindow><StackSource><Frames><Frame ID="0">a!f</Frame></Frames><Stacks><Stack ID="0" CallerID="-1" FrameID="0"/></Stacks><Samples><Sample ID="0" Time="1" Metric="NaN" StackID="0"/></Samples></StackSource></StackWindow>`),
		"infcount":   w("huge.folded", "a 9223372036854775807\nb 9223372036854775807\n"),
		"deep":       w("deep.folded", deep),
		"deepchain":  w("deep.cpuprofile", chainCpuprofile(100_000, false)),
		"toodeep":    w("toodeep.folded", strings.Repeat("f;", convert.MaxStackDepth)+"f 1\n"),
		"quadratic":  w("quadratic.cpuprofile", chainCpuprofile(17_000, true)),
		"wide":       w("wide.folded", wideFolded(1000, 1000)),
	}
	p := func(k string) string {
		v, ok := paths[k]
		if !ok {
			t.Fatalf("no input %q", k)
		}
		return v
	}
	unknown := ": unknown profile format: the content matches none of: " + strings.Join(convert.FormatNames(), ", ") + " (use --from to force one)\n"

	tests := []badInputCase{
		{name: "empty file", args: []string{"cct", p("empty")}, code: exitError,
			stderr: "ctdiff: " + p("empty") + ": empty input: no profile data\n"},
		{name: "random bytes", args: []string{"cct", p("random")}, code: exitError,
			stderr: "ctdiff: " + p("random") + unknown},
		{name: "truncated gzip", args: []string{"convert", "-o", filepath.Join(dir, "t.pb.gz"), p("truncated")}, code: exitError,
			stderr: "ctdiff: " + p("truncated") + ": gzip: truncated gzip stream after "},
		{name: "gzip bomb over the limit", args: []string{"cct", "--max-input-size", "1000000", p("bomb")}, code: exitError,
			stderr: "ctdiff: " + p("bomb") + ": decompressed input exceeds the size limit (1000000 bytes; raise it with --max-input-size)\n"},
		{name: "gzip bomb under a raised limit", args: []string{"cct", "--max-input-size", "20000000", p("bomb")}, code: exitOK,
			stdout: "View: top-down; total 1000000; 3 nodes"},
		{name: "JSON of the wrong shape", args: []string{"cct", p("noshape")}, code: exitError,
			stderr: "ctdiff: " + p("noshape") + unknown},
		{name: "JSON of the wrong shape, forced", args: []string{"cct", "--from", "cpuprofile", p("noshape")}, code: exitError,
			stderr: "ctdiff: " + p("noshape") + ": byte 10: expected '[' starting \"nodes\", found '5'\n"},
		{name: "trace events not an array", args: []string{"cct", p("badtrace")}, code: exitError,
			stderr: "ctdiff: " + p("badtrace") + ": byte 16: expected '[' starting the trace event array, found '{'\n"},
		{name: "ctdiff.cct/v1 of the wrong shape", args: []string{"cct", p("badcct")}, code: exitError,
			stderr: "ctdiff: " + p("badcct") + ": byte 93: expected an array for nodes, found string\n"},
		{name: "trace with no profiles", args: []string{"cct", p("noprofiles")}, code: exitError,
			stderr: "ctdiff: " + p("noprofiles") + ": no samples: the trace (2 events) has no V8 CPU profile: no Profile/ProfileChunk or CpuProfile events; record it with JavaScript samples enabled (category disabled-by-default-v8.cpu_profiler)\n"},
		{name: "pprof with zero samples", args: []string{"cct", p("nosamples")}, code: exitError,
			stderr: "ctdiff: " + p("nosamples") + ": no samples: the pprof input holds no samples\n"},
		{name: "folded stacks with zero samples", args: []string{"cct", "--from", "collapsed", p("nolines")}, code: exitError,
			stderr: "ctdiff: " + p("nolines") + ": no samples: the collapsed input holds no samples\n"},
		{name: "cpuprofile with zero samples", args: []string{"cct", p("nohits")}, code: exitError,
			stderr: "ctdiff: " + p("nohits") + ": no samples: "},
		{name: "negative pprof value", args: []string{"cct", p("negpprof")}, code: exitError,
			stderr: "ctdiff: " + p("negpprof") + ": sample 1: negative sample value: cpu/nanoseconds is -5; ctdiff needs counts and times (a profile of differences, such as pprof -diff_base writes, cannot be read: pass the two profiles instead)\n"},
		{name: "negative folded count", args: []string{"cct", "--from", "collapsed", p("negfolded")}, code: exitError,
			stderr: "ctdiff: " + p("negfolded") + ": line 2: expected a non-negative integer count at the end, found \"-2\" (--skip-invalid-lines skips such lines, with one warning counting them)\n"},
		{name: "negative tree value", args: []string{"cct", p("negcct")}, code: exitError,
			stderr: "ctdiff: " + p("negcct") + ": sample 0: negative sample value: cpu/nanoseconds is -3;"},
		{name: "NaN time delta", args: []string{"cct", p("nandelta")}, code: exitError,
			stderr: "ctdiff: " + p("nandelta") + ": byte 147: expected a number within ±2^60 in timeDeltas, found \"NaN\"\n"},
		{name: "NaN WPA weight", args: []string{"cct", p("nanweight")}, code: exitError,
			stderr: "ctdiff: " + p("nanweight") + ": line 2: Weight: expected a number of ms, found \"NaN\"\n"},
		{name: "NaN PerfView metric", args: []string{"cct", p("nanmetric")}, code: exitError,
			stderr: "ctdiff: " + p("nanmetric") + ": line 1: <Sample>: expected a number of milliseconds in Metric, found \"NaN\"\n"},
		{name: "counts that overflow", args: []string{"cct", p("infcount")}, code: exitError,
			stderr: "ctdiff: " + p("infcount") + ": sample 1: the samples/count values add up to more than 9223372036854775807\n"},
		{name: "stack 100,000 frames deep", long: true, args: []string{"cct", p("deep")}, code: exitOK,
			stdout: "View: top-down; total 3; 100001 nodes",
			check: func(t *testing.T, stdout, _ string) {
				if !strings.HasSuffix(stdout, "└─ [depth 100000] f99999\n") {
					t.Errorf("the deepest frame is not the last line, with its depth: %q", stdout[max(0, len(stdout)-200):])
				}
			}},
		{name: "stack 100,000 frames deep, converted", long: true, args: []string{"convert", "-o", deepOut, p("deep")}, code: exitOK,
			check: func(t *testing.T, _, _ string) {
				res, err := convert.ReadFile(deepOut, convert.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if n := len(res.Profile.Sample[0].Location); n != 100_000 {
					t.Errorf("the converted stack has %d frames", n)
				}
			}},
		{name: "call tree 100,000 nodes deep", long: true, args: []string{"cct", "--format", "json", p("deepchain")}, code: exitOK,
			stdout: `"function":"f100001"`},
		{name: "stack over the depth limit", args: []string{"cct", p("toodeep")}, code: exitError,
			stderr: "ctdiff: " + p("toodeep") + ": sample 0: stack frames exceed the limit: a stack of 1000001 frames, more than the limit of 1000000 per stack (runaway recursion?)\n"},
		{name: "deep tree sampled at every depth", args: []string{"cct", p("quadratic")}, code: exitError,
			stderr: "ctdiff: " + p("quadratic") + ": the profile: stack frames exceed the limit: the stacks hold more than 134217728 frames in total, the limit for this input (64 per input byte, at least 134217728): a deep call tree whose nodes are sampled many times\n"},
		{name: "a million distinct frames", long: true, args: []string{"cct", p("wide")}, code: exitOK,
			stdout: "View: top-down; total 1000; 1000001 nodes (1000000 below 0.5% of the total hidden)"},
		{name: "directory with no files", args: []string{"cct", emptyDir}, code: exitError,
			stderr: "ctdiff: " + emptyDir + ": directory holds no profiles\n"},
		{name: "directory with no profiles", args: []string{"convert", "-o", filepath.Join(dir, "d.pb.gz"), docsDir}, code: exitError,
			stderr: "ctdiff: " + docsDir + ": directory holds no profiles\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { runBadInput(t, tc) })
	}
}

// Random bytes of any seed are refused with one line naming the file.
func TestRandomBytes(t *testing.T) {
	dir := t.TempDir()
	for seed := range uint64(50) {
		data := randomBytes(seed, 1+int(seed)*97)
		if seed%2 == 1 {
			data = gzipBytes(t, string(data))
		}
		path := writeFile(t, dir, fmt.Sprintf("random-%d", seed), string(data))
		runBadInput(t, badInputCase{args: []string{"cct", path}, code: exitError, stderr: "ctdiff: " + path + ": "})
	}
}

func TestUnreadableFile(t *testing.T) {
	path := writeFile(t, t.TempDir(), "secret.folded", "main;work 1\n")
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	if f, err := os.Open(path); err == nil {
		f.Close()
		t.Skip("mode 000 does not stop this user from reading (root?)")
	}
	runBadInput(t, badInputCase{args: []string{"cct", path}, code: exitError,
		stderr: "ctdiff: open " + path + ": permission denied\n"})
}

func randomBytes(seed uint64, n int) []byte {
	rng := rand.New(rand.NewPCG(seed, 10))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

func gzipBytes(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// pprofBytes is a gzipped pprof profile with one sample per value, all on
// one function.
func pprofBytes(t *testing.T, values []int64) []byte {
	t.Helper()
	fn := &profile.Function{ID: 1, Name: "main.work"}
	loc := &profile.Location{ID: 1, Line: []profile.Line{{Function: fn}}}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		Function:   []*profile.Function{fn},
		Location:   []*profile.Location{loc},
	}
	for _, v := range values {
		p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{loc}, Value: []int64{v}})
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// deepFolded is one folded stack of n distinct frames f0;f1;...
func deepFolded(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(';')
		}
		fmt.Fprintf(&b, "f%d", i)
	}
	b.WriteString(" 3\n")
	return b.String()
}

// wideFolded is lines stacks of frames distinct frames each.
func wideFolded(lines, frames int) string {
	var b strings.Builder
	for l := range lines {
		for f := range frames {
			if f > 0 {
				b.WriteByte(';')
			}
			fmt.Fprintf(&b, "f%d", l*frames+f)
		}
		b.WriteString(" 1\n")
	}
	return b.String()
}

// chainCpuprofile is a .cpuprofile whose n nodes below (root) form one
// chain; the deepest node is sampled, or every node when all is set.
func chainCpuprofile(n int, all bool) string {
	var b strings.Builder
	b.WriteString(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}}`)
	for i := 2; i <= n+1; i++ {
		fmt.Fprintf(&b, `,{"id":%d,"parent":%d,"callFrame":{"functionName":"f%d"}}`, i, i-1, i)
	}
	b.WriteString(`],"startTime":0,"endTime":1000000,"samples":[`)
	if all {
		for i := 2; i <= n+1; i++ {
			if i > 2 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, i)
		}
		b.WriteString(`],"timeDeltas":[` + strings.TrimSuffix(strings.Repeat("10,", n), ",") + "]}")
	} else {
		fmt.Fprintf(&b, `%d,%d],"timeDeltas":[10,10]}`, n+1, n+1)
	}
	return b.String()
}

// TestBadInputDiff: the diff command's own bad inputs, and runs of
// different formats, which are allowed.
func TestBadInputDiff(t *testing.T) {
	dir := t.TempDir()
	w := func(name, content string) string { return writeFile(t, dir, name, content) }
	oldFolded := w("old.folded", "main;work 5\nmain;wait 2\n")
	newFolded := w("new.folded", "main;work 9\nmain;wait 2\n")
	// The same workload as a V8 profile: 9 samples in work, 2 in wait.
	newV8 := w("new.cpuprofile", `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},`+
		`{"id":2,"callFrame":{"functionName":"main"},"children":[3,4]},{"id":3,"callFrame":{"functionName":"work"}},`+
		`{"id":4,"callFrame":{"functionName":"wait"}}],"startTime":0,"endTime":11000,`+
		`"samples":[3,3,3,3,3,3,3,3,3,4,4],"timeDeltas":[1000,1000,1000,1000,1000,1000,1000,1000,1000,1000,1000]}`)
	oldPprof := filepath.Join(dir, "old.pb.gz")
	if _, errOut, code := ctdiff("convert", "-o", oldPprof, oldFolded); code != exitOK {
		t.Fatalf("convert: %s", errOut)
	}
	// Each side mixes formats: folded + pprof against folded + V8.
	oldRuns, newRuns := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	for d, files := range map[string][]string{oldRuns: {oldFolded, oldPprof}, newRuns: {newFolded, newV8}} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, d, filepath.Base(f), string(data))
		}
	}
	emptyDir := filepath.Join(dir, "empty")
	if err := os.Mkdir(emptyDir, 0o755); err != nil {
		t.Fatal(err)
	}
	deepOld := w("deep-old.folded", deepFolded(100_000))
	deepNew := w("deep-new.folded", strings.Replace(deepFolded(100_000), " 3\n", " 5\n", 1))
	empty := w("empty.folded", "")

	tests := []badInputCase{
		{name: "mismatched sample types", args: []string{"diff", oldFolded, newV8}, code: exitError,
			stderr: "ctdiff: " + newV8 + ": compares wall/nanoseconds, and " + oldFolded + " compares samples/count: pick a type every input has with --metric samples\n"},
		{name: "mixed formats, one run each", args: []string{"diff", "--metric", "samples", "--format", "json", oldFolded, newV8}, code: exitOK,
			check: diffTotals([]int64{7}, []int64{11})},
		{name: "mixed formats within each side", args: []string{"diff", "--metric", "samples", "--format", "json", oldRuns, newRuns}, code: exitOK,
			check: diffTotals([]int64{7, 7}, []int64{11, 11})},
		{name: "directory with no profiles", args: []string{"diff", emptyDir, newRuns}, code: exitError,
			stderr: "ctdiff: " + emptyDir + ": directory holds no profiles\n"},
		{name: "empty new run", args: []string{"diff", oldFolded, empty}, code: exitError,
			stderr: "ctdiff: " + empty + ": empty input: no profile data\n"},
		{name: "stacks 100,000 frames deep", long: true, args: []string{"diff", deepOld, deepNew}, code: exitOK,
			stdout: "Total: 3 → 5 (+2, +66.67%)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { runBadInput(t, tc) })
	}
}

// diffTotals checks a ctdiff.diff/v1 report's per-run totals against the
// inputs' (conservation through the diff).
func diffTotals(base, new []int64) func(t *testing.T, stdout, stderr string) {
	return func(t *testing.T, stdout, _ string) {
		var rep struct {
			Base, New struct{ Totals []int64 }
		}
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rep.Base.Totals, base) || !slices.Equal(rep.New.Totals, new) {
			t.Errorf("run totals %v → %v, inputs hold %v → %v", rep.Base.Totals, rep.New.Totals, base, new)
		}
	}
}
