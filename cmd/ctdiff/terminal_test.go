package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/pprof/profile"
)

// bidiControls are Unicode's Bidi_Control characters: they reorder the
// text around them on a terminal (after U+202E, the right-to-left
// override, "gpj.exe" shows as "exe.jpg"), so a name holding one can show
// other text than it is.
var bidiControls = []rune{
	0x202A, 0x202B, 0x202C, 0x202D, 0x202E, // embeddings and overrides
	0x2066, 0x2067, 0x2068, 0x2069, // isolates
	0x200E, 0x200F, 0x061C, // marks
}

// terminalControls are the other characters no name may write raw: every
// C0 control, DEL, every C1 control (U+009B is the 8-bit CSI), the line
// and paragraph separators, and invisible format characters.
func terminalControls() []rune {
	var out []rune
	for r := rune(0); r < 0x20; r++ {
		out = append(out, r)
	}
	for r := rune(0x7f); r < 0xa0; r++ {
		out = append(out, r)
	}
	return append(out, 0x2028, 0x2029, 0x200B, 0xFEFF, 0x00AD, 0x2060)
}

// rawControl returns the first character of out that a terminal would act
// on or that hides text: a control other than the newline ending lines,
// a bidi or format character, a byte of invalid UTF-8; ok false when there
// is none.
func rawControl(out string) (r rune, at int, ok bool) {
	bad := map[rune]bool{}
	for _, c := range append(terminalControls(), bidiControls...) {
		bad[c] = c != '\n'
	}
	for i, c := range out {
		if c == utf8.RuneError {
			if _, size := utf8.DecodeRuneInString(out[i:]); size == 1 {
				return rune(out[i]), i, true
			}
		}
		if bad[c] {
			return c, i, true
		}
	}
	return 0, 0, false
}

// controlNames are the names of the terminal-control profile: each bidi
// and terminal control inside a name, a lone 0x9b byte (the 8-bit CSI, as
// invalid UTF-8), and a newline that would forge a report line.
func controlNames() []string {
	var out []string
	for _, c := range append(bidiControls, terminalControls()...) {
		out = append(out, fmt.Sprintf("pkg.f%04x%c.end", c, c))
	}
	return append(out, "pkg.byte\x9b2J", "pkg.line\nFORGED  1. +1h regressed")
}

// controlPprof is a pprof profile with one sample of weight ns in a
// function of each controlNames name, called from a function and in a
// thread of the same name, in files of the same name.
func controlPprof(t *testing.T, ns int64) []byte {
	t.Helper()
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}}
	loc := func(name, file string) *profile.Location {
		fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: file}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn, Line: 3}}}
		p.Function, p.Location = append(p.Function, fn), append(p.Location, l)
		return l
	}
	root := loc("main.main", "main.go")
	for _, n := range controlNames() {
		p.Sample = append(p.Sample, &profile.Sample{
			Location: []*profile.Location{loc(n, n+".go"), loc(n+".caller", "c"+n+".go"), root},
			Value:    []int64{ns},
			Label:    map[string][]string{"thread": {n}},
		})
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// No bidi control, C0 or C1 control from a profile (its function, file
// and thread names) or from an input's file name reaches standard output
// or standard error raw, in any text format of any command: text,
// Markdown, HTML (a terminal reads it when it is written there), DOT and
// JSON, warnings and errors; the same profile on both sides of diff stays
// a warning. JSON escapes them losslessly: the names decode as they were.
func TestOutputsEscapeBidiAndControls(t *testing.T) {
	dir := t.TempDir()
	oldP := writeFile(t, dir, "old\u202egp.pb.gz", string(controlPprof(t, 1e7)))
	newP := writeFile(t, dir, "new\x1b]0;t\x07\u2066.pb.gz", string(controlPprof(t, 1e9)))
	manifest := writeFile(t, dir, "release.toml", "[[component]]\nname = \"svc\\u202e\\u001b[2J\\u0085\"\nold = "+
		strconvQuoteTOML(oldP)+"\nnew = "+strconvQuoteTOML(newP)+"\n")
	result := filepath.Join(dir, "result.json")
	if _, errOut, code := ctdiff("diff", "--format", "json", "-o", result, oldP, newP); code == exitError {
		t.Fatalf("diff --format json -o: %s", errOut)
	}
	missing := filepath.Join(dir, "missing\u202e\x1b[2J.pb.gz")
	var runs [][]string
	for _, f := range []string{"text", "json", "dot"} {
		runs = append(runs, []string{"cct", "--format", f, oldP, newP})
	}
	runs = append(runs, []string{"cct", "--view", "bottom-up", newP}, []string{"cct", "--view", "flat", newP})
	for _, f := range []string{"text", "markdown", "html", "json", "dot"} {
		runs = append(runs, []string{"diff", "--format", f, oldP, newP}, []string{"diff", "--format", f, "--full-names", "--all-paths", oldP, newP})
	}
	runs = append(runs, []string{"diff", newP, newP}, []string{"diff", "--format", "html", newP, newP})
	for _, f := range []string{"text", "markdown", "html", "json"} {
		runs = append(runs, []string{"report", "--format", f, manifest, result})
	}
	runs = append(runs, []string{"cct", missing}, []string{"diff", oldP, missing})
	for _, args := range runs {
		out, errOut, code := ctdiff(args...)
		missingInput := args[len(args)-1] == missing
		if code == exitError != missingInput {
			t.Errorf("%q: exit %d: %s", args, code, errOut)
			continue
		}
		for stream, s := range map[string]string{"stdout": out, "stderr": errOut} {
			if r, at, ok := rawControl(s); ok {
				t.Errorf("%q: %s holds %U raw at byte %d: %q", args, stream, r, at, s[max(0, at-60):min(len(s), at+60)])
			}
			for _, line := range strings.Split(s, "\n") {
				if strings.HasPrefix(strings.TrimLeft(line, " │├└─"), "FORGED") {
					t.Errorf("%q: a name started a line of %s: %q", args, stream, line)
				}
			}
		}
		if len(out) == 0 && !missingInput {
			t.Errorf("%q: no output", args)
		}
		if args[0] == "diff" && len(args) > 3 && slicesEqual(args[1:3], []string{"--format", "json"}) {
			checkJSONNames(t, args, out)
		}
	}
	if out, errOut, code := ctdiff("diff", newP, newP); code != exitOK || !strings.Contains(out, "warning: inputs: OLD and NEW are the same profile") {
		t.Errorf("the same profile on both sides: exit %d, not 0 with warnings: %s%s", code, out, errOut)
	}
}

// checkJSONNames fails unless every name of controlNames is in the
// decoded JSON output.
func checkJSONNames(t *testing.T, args []string, out string) {
	t.Helper()
	var doc any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Errorf("%q: %v", args, err)
		return
	}
	seen := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			seen[v] = true
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(doc)
	for _, n := range controlNames() {
		// JSON holds UTF-8: invalid bytes decode as U+FFFD.
		if n = strings.ToValidUTF8(n, "\uFFFD"); !seen[n] && !seen[n+".caller"] {
			t.Errorf("%q: the name %q is not in the JSON", args, n)
		}
	}
}

// strconvQuoteTOML quotes s as a TOML basic string, its controls escaped.
func strconvQuoteTOML(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x20 || r == '"' || r == '\\' || r == 0x7f:
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return `"` + b.String() + `"`
}

func slicesEqual(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00")
}
