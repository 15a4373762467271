package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/google/pprof/profile"
)

// readJSON reads a JSON file, gunzipped if it is gzipped.
func readJSON(t *testing.T, src string) []byte {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(raw, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if raw, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return raw
}

// rewriteJSON decodes a (possibly gzipped) JSON profile, applies edit to
// every object in it, and writes the result to dir/name.
func rewriteJSON(t *testing.T, src, dir, name string, edit func(map[string]any)) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(readJSON(t, src)))
	dec.UseNumber() // timestamps and ids stay exact
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	stack := []any{doc}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch v := v.(type) {
		case map[string]any:
			edit(v)
			for _, c := range v {
				stack = append(stack, c)
			}
		case []any:
			stack = append(stack, v...)
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// copyFile writes the profile of a file into dir, under the name "same"
// and its extension, in other bytes (gunzipped if it is gzipped, else
// gzipped): the same profile, which is not the same input given on both
// sides (ctdiff warns of that).
func copyFile(t *testing.T, src, dir string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if b, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	} else {
		var zb bytes.Buffer
		zw := gzip.NewWriter(&zb)
		if _, err := zw.Write(b); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		b = zb.Bytes()
	}
	path := filepath.Join(dir, "same"+filepath.Ext(src))
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// diffOutputs runs ctdiff diff in each format and returns the outputs with
// the new side's file name replaced by NEW.
func diffOutputs(t *testing.T, base, nw string, formats []string, args ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, format := range formats {
		stdout, errOut, code := ctdiff(append([]string{"diff", "--format", format, base, nw}, args...)...)
		if code != 0 {
			t.Fatalf("ctdiff diff --format %s: exit %d: %s", format, code, errOut)
		}
		// The text report names inputs by directory, then file.
		out[format] = strings.ReplaceAll(strings.ReplaceAll(stdout, nw, "NEW"), ": "+filepath.Base(nw)+"\n", ": NEW\n")
	}
	return out
}

// urlOrigin matches the origin of a call frame's URL, as V8 writes it.
var urlOrigin = regexp.MustCompile(`"url":\s*"[a-z][a-z0-9+.-]*://[^/"]*`)

// A profile whose script URLs differ only in their origin diffs exactly
// as it diffs with itself: a Node .cpuprofile whose
// file:// scripts move to https://host:port, and a DevTools trace that
// loads scripts from a page's origin and two extensions, each moved to
// another scheme, host and port.
func TestDiffScriptsFromAnotherOrigin(t *testing.T) {
	for _, rel := range []string{
		"cpuprofile/devtools-node-fibonacci-website.cpuprofile.gz",
		"devtools/speedscope-Chrome_70-worker.json",
	} {
		t.Run(filepath.Base(rel), func(t *testing.T) {
			src := corpus.Path(t, rel)
			dir := t.TempDir()
			origins := map[string]string{}
			moved := filepath.Join(dir, "moved.json")
			raw := urlOrigin.ReplaceAllFunc(readJSON(t, src), func(m []byte) []byte {
				from := string(m)
				to, ok := origins[from]
				if !ok {
					to = fmt.Sprintf(`"url":"https://mirror-%d.example.test:%d`, len(origins), 9000+len(origins))
					origins[from] = to
				}
				return []byte(to)
			})
			if err := os.WriteFile(moved, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			if len(origins) == 0 {
				t.Fatal("the profile has no script URLs")
			}
			want := diffOutputs(t, src, copyFile(t, src, dir), []string{"text", "json"}, "--no-prune")
			got := diffOutputs(t, src, moved, []string{"text", "json"}, "--no-prune")
			for _, format := range []string{"text", "json"} {
				if got[format] != want[format] {
					t.Errorf("%s: the profile with its scripts moved to %d other origins diffs differently than with itself:\n%s",
						format, len(origins), lineDiff(want[format], got[format]))
				}
			}
		})
	}
}

// speedscope's Chrome 66 and 70 worker traces load worker.js from
// 172.30.3.176:7777 and from 127.0.0.1:8081: the worker's onmessage → alpha
// → gamma matches, instead of being a subtree added whole (+21.98ms to
// gamma in the text report, where go tool pprof -top on the pprof diff
// said −8.57ms).
func TestDiffWorkerFromAnotherOrigin(t *testing.T) {
	base := corpus.Path(t, "devtools/speedscope-Chrome_66-worker.json")
	nw := corpus.Path(t, "devtools/speedscope-Chrome_70-worker.json")
	var doc struct {
		RankedPaths []struct {
			Cost int64
			Path []struct{ Function, File string }
		} `json:"ranked_paths"`
		Topology struct {
			Added, Removed []struct {
				Path []struct{ Function, File string }
			}
		}
	}
	js, errOut, code := ctdiff("diff", "--format", "json", base, nw)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	for _, s := range append(doc.Topology.Added, doc.Topology.Removed...) {
		if f := s.Path[0]; len(s.Path) == 1 && (strings.HasSuffix(f.File, "/worker.js") || strings.HasSuffix(f.File, "/worker.html")) {
			t.Errorf("topology lists %s (%s) as added or removed: the worker's script did not match", f.Function, f.File)
		}
	}
	for _, p := range doc.RankedPaths {
		if last := p.Path[len(p.Path)-1]; last.Function == "gamma" {
			t.Errorf("gamma is ranked at +%d ns; it shrank (−8.57ms in go tool pprof -top)", p.Cost)
		}
	}
}

// In the DevTools trace of recursive-counting-js, two (anonymous)
// functions of the page (lines 8 and 19) are two nodes,
// in cct and in the pprof outputs, with their lines (go tool pprof -lines
// shows both); and a version of the
// trace in which every line moved down by 3 diffs as the trace does with
// itself.
func TestDiffSameNamedFunctionsShiftedLines(t *testing.T) {
	src := corpus.Path(t, "devtools/devtools-recursive-counting-js.json.gz")
	dir := t.TempDir()

	pb := filepath.Join(dir, "cct.pb.gz")
	if _, errOut, code := ctdiff("cct", "--format", "pprof", "-o", pb, src); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := anonymousStarts(t, pb); !slices.Equal(got, []string{"8:13", "19:22"}) {
		t.Errorf("ctdiff cct --format pprof: (anonymous) functions of http://localhost:8080/ start at %v, want 8:13 and 19:22", got)
	}

	shifted := rewriteJSON(t, src, dir, "shifted.json", func(o map[string]any) {
		cf, ok := o["callFrame"].(map[string]any)
		if !ok {
			return
		}
		if n, ok := cf["lineNumber"].(json.Number); ok && !strings.HasPrefix(string(n), "-") {
			var l int64
			fmt.Sscan(string(n), &l)
			cf["lineNumber"] = json.Number(fmt.Sprint(l + 3))
		}
	})
	same := copyFile(t, src, dir)
	for _, args := range [][]string{{"--no-prune"}, nil} {
		want := diffOutputs(t, src, same, []string{"text", "json"}, args...)
		got := diffOutputs(t, src, shifted, []string{"text", "json"}, args...)
		for _, format := range []string{"text", "json"} {
			if got[format] != want[format] {
				t.Errorf("diff %v --format %s: the trace with its lines moved by 3 diffs differently than with itself:\n%s",
					args, format, lineDiff(want[format], got[format]))
			}
		}
	}

	pb = filepath.Join(dir, "diff.pb.gz")
	if _, errOut, code := ctdiff("diff", "--no-prune", "--format", "pprof", "-o", pb, src, shifted); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if got := anonymousStarts(t, pb); !slices.Equal(got, []string{"8:13", "19:22"}) {
		t.Errorf("ctdiff diff --format pprof: (anonymous) functions of http://localhost:8080/ start at %v, want 8:13 and 19:22", got)
	}
	if goBin, err := exec.LookPath("go"); err == nil {
		cmd := exec.Command(goBin, "tool", "pprof", "-top", "-lines", filepath.Join(dir, "cct.pb.gz"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go tool pprof -top -lines: %v\n%s", err, out)
		}
		// pprof cleans the URL as a path: http:/localhost:8080:8.
		for _, line := range []string{"8", "19"} {
			if !regexp.MustCompile(`\(anonymous\) http:/+localhost:8080/?:` + line + `\b`).Match(out) {
				t.Errorf("go tool pprof -top -lines does not show (anonymous) at line %s:\n%s", line, out)
			}
		}
	}
}

// anonymousStarts returns "line:column" of every location of an
// (anonymous) function of http://localhost:8080/ in a pprof file, sorted by
// line, checking that the function's start line is the location's line.
func anonymousStarts(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var locs []profile.Line
	for _, loc := range p.Location {
		for _, ln := range loc.Line {
			if fn := ln.Function; fn.Name == "(anonymous)" && fn.Filename == "http://localhost:8080/" {
				if fn.StartLine != ln.Line {
					t.Errorf("function %d starts at line %d, its location is at line %d", fn.ID, fn.StartLine, ln.Line)
				}
				locs = append(locs, ln)
			}
		}
	}
	slices.SortFunc(locs, func(a, b profile.Line) int { return int(a.Line - b.Line) })
	var out []string
	for _, ln := range locs {
		out = append(out, fmt.Sprintf("%d:%d", ln.Line, ln.Column))
	}
	return out
}
