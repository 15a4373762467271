package main

import (
	"bytes"
	"fmt"
	"github.com/google/pprof/profile"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// --version and -v print the version like `ctdiff version`; a flag error
// points to the help of the command it was given to, named once.
func TestVersionFlags(t *testing.T) {
	want, _, _ := ctdiff("version")
	if !strings.HasPrefix(want, "ctdiff ") {
		t.Fatalf("ctdiff version printed %q", want)
	}
	for _, args := range [][]string{{"--version"}, {"-v"}} {
		out, errOut, code := ctdiff(args...)
		if code != exitOK || out != want || errOut != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", args, code, out, errOut, want)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--colour"}, "ctdiff: unknown flag: --colour (see 'ctdiff --help')\n"},
		{[]string{"diff", "--colour"}, "ctdiff: unknown flag: --colour (see 'ctdiff diff --help')\n"},
	} {
		_, errOut, code := ctdiff(tt.args...)
		if code != exitError || errOut != tt.want {
			t.Errorf("%v: exit %d, stderr %q, want %q", tt.args, code, errOut, tt.want)
		}
	}
}

// Help texts state each default once and name value types in words.
func TestHelpDefaults(t *testing.T) {
	doubled := regexp.MustCompile(`default[: ].*\(default [^)]*\)\s*$`)
	for _, cmd := range []string{"convert", "cct", "diff", "report"} {
		out, _, code := ctdiff(cmd, "--help")
		if code != exitOK {
			t.Fatalf("%s --help: exit %d", cmd, code)
		}
		for _, line := range strings.Split(out, "\n") {
			if doubled.MatchString(line) {
				t.Errorf("%s --help states a default twice: %s", cmd, strings.TrimSpace(line))
			}
			if strings.Contains(line, "int64Slice") || strings.Contains(line, "(default [])") {
				t.Errorf("%s --help: %s", cmd, strings.TrimSpace(line))
			}
		}
	}
}

// Usage mistakes get messages that say what is missing or wrong, not
// cobra's or the file system's generic ones.
func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	folded := writeFile(t, dir, "a.folded", "main;work 10\n")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"convert without input", []string{"convert"}, "ctdiff: convert takes at least one input profile: a file, a directory, a glob, @LIST, a URL or - for standard input (see 'ctdiff convert --help')\n"},
		{"cct without input", []string{"cct"}, "ctdiff: cct takes at least one input profile: a file, a directory, a glob, @LIST, a URL or - for standard input (see 'ctdiff cct --help')\n"},
		{"glob matching nothing", []string{"cct", filepath.Join(dir, "*.x")}, "ctdiff: " + filepath.Join(dir, "*.x") + ": no file matched\n"},
		{"glob in diff", []string{"diff", folded, filepath.Join(dir, "run?.pb.gz")}, "ctdiff: " + filepath.Join(dir, "run?.pb.gz") + ": no file matched\n"},
		{"diff - -", []string{"diff", "-", "-"}, "ctdiff: OLD and NEW are both standard input (-), which can be read once: give at least one of them as a file\n"},
		{"- twice", []string{"cct", "-", "-"}, "ctdiff: standard input (-) is given twice; it can be read once\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := ctdiff(tt.args...)
			if code != exitError || errOut != tt.want {
				t.Errorf("exit %d, stderr\n%q\nwant\n%q", code, errOut, tt.want)
			}
		})
	}
}

// --seconds, --timeout and --save-dir apply to URL inputs: given with
// files only, they are ignored, and a warning says so.
func TestFetchFlagsWithFilesWarn(t *testing.T) {
	dir := t.TempDir()
	folded := writeFile(t, dir, "a.folded", "main;work 10\n")
	for _, args := range [][]string{
		{"cct", "--seconds", "30", folded},
		{"convert", "--seconds", "30", "-o", filepath.Join(dir, "o.pb.gz"), folded},
		{"diff", "--seconds", "30", "--timeout", "5s", folded, folded},
	} {
		_, errOut, code := ctdiff(args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		want := "ctdiff: warning: --seconds"
		if !strings.Contains(errOut, want) || !strings.Contains(errOut, "only to URL inputs, and no input is a URL: ignored") {
			t.Errorf("%v: stderr %q, want the warning %q...", args, errOut, want)
		}
	}
	_, errOut, _ := ctdiff("cct", folded)
	if strings.Contains(errOut, "warning") {
		t.Errorf("a warning without fetch flags: %q", errOut)
	}
}

// An error quotes little of the file it reads: a manifest may name any
// file, and its first line (a token, a password hash) must not reach a CI
// log whole.
func TestErrorsQuoteLittle(t *testing.T) {
	dir := t.TempDir()
	secret := strings.Repeat("s3cr3t", 30)
	for _, tt := range []struct{ from, content string }{
		{"perfscript", secret + " more of the secret\n"},
		{"collapsed", "main;work " + secret + "\n"},
		{"hprof", "JAVA PROFILE 1.0.1, created Mon Jan 1 00:00:00 2024\nTRACE 1:\n\t" + secret + "\n"},
		{"jfrprint", secret + "\n"},
	} {
		t.Run(tt.from, func(t *testing.T) {
			path := writeFile(t, dir, tt.from+".txt", tt.content)
			_, errOut, code := ctdiff("cct", "--from", tt.from, path)
			if code != exitError {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			// The longest run of the secret quoted.
			longest := 0
			for n := len(secret); n > 0; n-- {
				if strings.Contains(errOut, secret[:n]) || strings.Contains(errOut, secret[len(secret)-n:]) {
					longest = n
					break
				}
			}
			if longest > maxQuoted {
				t.Errorf("the error quotes %d characters of the file (at most %d): %s", longest, maxQuoted, errOut)
			}
		})
	}
}

// maxQuoted is the most of an input's content an error quotes.
const maxQuoted = 40

// cct --format dot draws only nodes whose total reaches --node-fraction of
// the tree's, and its title says how many it hid, as the text header does.
func TestCCTDotNodeFraction(t *testing.T) {
	nodes := regexp.MustCompile(`(?m)^  n\d+ \[label="[^"]*\\nself [^,]*, total [^ ]* \(([0-9.]+)%\)"`)
	text, _, _ := ctdiff("cct", "--node-fraction", "0.05", exampleNew)
	hidden := regexp.MustCompile(`\((\d+) below 5% of the total hidden\)`).FindStringSubmatch(text)
	if hidden == nil {
		t.Fatalf("the text header does not say what it hid:\n%s", text[:min(len(text), 300)])
	}
	prev := 0
	for _, frac := range []string{"0", "0.005", "0.05", "0.2"} {
		out, errOut, code := ctdiff("cct", "--format", "dot", "--node-fraction", frac, exampleNew)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		drawn := nodes.FindAllStringSubmatch(out, -1)
		if prev > 0 && len(drawn) >= prev {
			t.Errorf("--node-fraction %s draws %d nodes, no fewer than the smaller fraction's %d", frac, len(drawn), prev)
		}
		prev = len(drawn)
		limit, _ := strconv.ParseFloat(frac, 64)
		for _, m := range drawn[1:] { // the root is drawn whatever its total
			if share, _ := strconv.ParseFloat(m[1], 64); share < 100*limit {
				t.Errorf("--node-fraction %s draws a node with %.2f%% of the total: %s", frac, share, m[0])
			}
		}
		if frac == "0.05" && !strings.Contains(out, `\n`+hidden[1]+` nodes below 5% of the total hidden"`) {
			t.Errorf("the DOT title does not say that %s nodes are hidden, as the text does:\n%s", hidden[1], out[:min(len(out), 300)])
		}
	}
}

// hostilePprof is a gzipped Go-like CPU profile whose function, file and
// thread names carry terminal escapes and newlines; slowNs is the time in
// the function that regresses.
func hostilePprof(t *testing.T, slowNs int64) []byte {
	t.Helper()
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}}
	loc := func(name, file string) *profile.Location {
		fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: file}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn, Line: 3}}}
		p.Function, p.Location = append(p.Function, fn), append(p.Location, l)
		return l
	}
	root := loc("main.main", "main.go")
	work := loc("main.work\x1b]0;pwned\x07", "work\x1b[2J.go")
	slow := loc("main.slow\nFORGED  1. +1h regressed", "slow\u009b2J.go")
	labels := map[string][]string{"thread": {"worker\x1b[31m\nFORGED thread"}}
	p.Sample = []*profile.Sample{
		{Location: []*profile.Location{work, root}, Value: []int64{2e9}, Label: labels},
		{Location: []*profile.Location{slow, work, root}, Value: []int64{slowNs}, Label: labels},
	}
	var b bytes.Buffer
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// terminalSafe fails when output holds a control character other than the
// newline ending its lines, or a line that a name started.
func terminalSafe(t *testing.T, what, out string) {
	t.Helper()
	for i, r := range out {
		if unicode.IsControl(r) && r != '\n' {
			t.Errorf("%s: control character %U: %q", what, r, out[max(0, i-40):min(len(out), i+40)])
			return
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " │├└─"), "FORGED") {
			t.Errorf("%s: a name started a line: %q", what, line)
		}
	}
}

// What cct, diff and report print, on stdout and stderr, escapes the
// control characters of names from profiles, file names and manifests.
func TestOutputsEscapeControlCharacters(t *testing.T) {
	dir := t.TempDir()
	oldP := writeFile(t, dir, "old\x1b]0;t\x07.pb.gz", string(hostilePprof(t, 1e8)))
	newP := writeFile(t, dir, "new\nFORGED.pb.gz", string(hostilePprof(t, 2e9)))
	toml := func(s string) string { // a TOML basic string
		var b strings.Builder
		for _, r := range s {
			if r < 0x20 {
				fmt.Fprintf(&b, "\\u%04x", r)
			} else {
				b.WriteRune(r)
			}
		}
		return `"` + b.String() + `"`
	}
	manifest := writeFile(t, dir, "release.toml", "[[component]]\nname = "+toml("svc\x1b[2J\nFORGED")+"\nold = "+toml(oldP)+"\nnew = "+toml(newP)+"\n")
	for _, args := range [][]string{
		{"cct", oldP, newP},
		{"cct", "--view", "bottom-up", newP},
		{"cct", "--view", "flat", newP},
		{"diff", "--fail-on-regression", "--match", "parcs", oldP, newP},
		{"diff", "--fail-on-regression", "--format", "markdown", oldP, newP},
		{"report", "--fail-on-regression", manifest},
		{"report", "--format", "markdown", manifest},
	} {
		out, errOut, code := ctdiff(args...)
		if code == exitError {
			t.Fatalf("%q: exit %d: %s", args, code, errOut)
		}
		terminalSafe(t, fmt.Sprintf("%q stdout", args), out)
		terminalSafe(t, fmt.Sprintf("%q stderr", args), errOut)
	}
}
