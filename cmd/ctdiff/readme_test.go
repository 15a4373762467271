package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// readDoc returns the text of a file of the documentation, relative to the
// repository's root (README.md, docs/usage.md).
func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../..", filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// readmeCommands returns the command lines of the sh blocks of README.md
// and docs/*.md, each with its comment.
func readmeCommands(t *testing.T) (cmds []struct{ cmd, comment string }) {
	t.Helper()
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	text := readDoc(t, "README.md")
	for _, d := range docs {
		text += "\n" + readDoc(t, "docs/"+filepath.Base(d))
	}
	for i, block := range strings.Split(text, "```") {
		if i%2 == 0 || !strings.HasPrefix(block, "sh\n") {
			continue
		}
		for _, l := range strings.Split(block, "\n")[1:] {
			cmd, comment, _ := strings.Cut(l, "#")
			cmds = append(cmds, struct{ cmd, comment string }{strings.TrimSpace(cmd), strings.TrimSpace(comment)})
		}
	}
	return cmds
}

// The README's go tool pprof -tagfocus lines do what their comments say
// on the example's pprof diff: ctdiff_cause=1 keeps cause 1 alone,
// ctdiff_cause=1: (a range) keeps every cause.
func TestREADMETagfocus(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	r := diffJSON(t, exampleOld, exampleNew)
	if len(r.Causes) < 2 {
		t.Fatalf("the example has %d causes; this test needs two", len(r.Causes))
	}
	leaf := func(i int) string { p := r.Causes[i].Path; return p[len(p)-1].Function }
	pb := filepath.Join(t.TempDir(), "diff.pb.gz")
	if _, errOut, code := ctdiff("diff", exampleOld, exampleNew, "-o", pb); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	focus := map[string]bool{}
	for _, c := range readmeCommands(t) {
		f := strings.Fields(c.cmd)
		if len(f) < 4 || f[0] != "go" || f[2] != "pprof" || !strings.Contains(c.cmd, "-tagfocus") {
			continue
		}
		var args []string
		for i := 3; i+1 < len(f); i++ {
			if f[i] == "-tagfocus" {
				args = append(args, f[i], f[i+1])
				focus[f[i+1]] = true
			}
		}
		rows := map[string]bool{}
		for _, row := range pprofTop(t, goBin, pb, args...) {
			rows[row.name] = true
		}
		all := rows[leaf(0)] && rows[leaf(1)]
		switch {
		case strings.Contains(c.comment, "every cause") && !all:
			t.Errorf("%s shows %v, not every cause (%s, %s)", c.cmd, rows, leaf(0), leaf(1))
		case strings.Contains(c.comment, "cause 1 alone") && (!rows[leaf(0)] || all):
			t.Errorf("%s shows %v, not cause 1 (%s) alone", c.cmd, rows, leaf(0))
		}
	}
	if !focus["ctdiff_cause=1"] || !focus["ctdiff_cause=1:"] {
		t.Errorf("README shows -tagfocus %v; want ctdiff_cause=1 (cause 1) and ctdiff_cause=1: (every cause)", focus)
	}
}

// A new user on a fresh clone without network installs with the README's
// command, learns how long the tests take, and sees where latency
// inference needs timestamps.
func TestREADMEForNewUsers(t *testing.T) {
	readme := readDoc(t, "README.md")
	if !strings.Contains(readme, "`go install ./cmd/ctdiff`") {
		t.Error("README does not say how to install from a checkout (go install ./cmd/ctdiff)")
	}
	tests := regexp.MustCompile(`(?m)^go test \./\.\.\. +# the tests \(about [0-9]+ (s|min) on 2 cores.*\)$`)
	if !tests.MatchString(readme) {
		t.Error("README's go test ./... line does not say how long the tests take")
	}
	for _, c := range readmeCommands(t) {
		if (strings.Contains(c.cmd, "--latency conservative") || strings.Contains(c.cmd, "--metric latency")) && !strings.Contains(c.comment, "timestamped inputs") {
			t.Errorf("README: %s  # %s: does not say it needs timestamped inputs", c.cmd, c.comment)
		}
	}
	if testing.Short() {
		return
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	bin := t.TempDir()
	cmd := exec.Command(goBin, "install", "./cmd/ctdiff")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOBIN="+bin, "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/ctdiff: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(bin, "ctdiff"), "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "ctdiff ") {
		t.Errorf("the installed ctdiff version: %q, %v", out, err)
	}
}
