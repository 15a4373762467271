package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/convert"
)

// An invalid folded line's error says how to skip such lines, in every
// command that reads profiles; a stack over the depth limit, which
// --skip-invalid-lines does not skip, does not.
func TestInvalidLineHint(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.folded", "main;a 10\nmain;b x\n")
	good := writeFile(t, dir, "good.folded", "main;a 12\n")
	deep := writeFile(t, dir, "deep.folded", strings.Repeat("f;", convert.MaxStackDepth)+"leaf 1\n")
	const hint = " (--skip-invalid-lines skips such lines, with one warning counting them)\n"
	lineErr := "ctdiff: " + bad + `: line 2: expected a non-negative integer count at the end, found "x"`
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"diff", []string{"diff", bad, good}, lineErr + hint},
		{"diff, the new side", []string{"diff", good, bad}, lineErr + hint},
		{"cct", []string{"cct", bad}, lineErr + hint},
		{"convert", []string{"convert", "-o", filepath.Join(dir, "out.pb.gz"), bad}, lineErr + hint},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := ctdiff(tt.args...)
			if code != exitError || errOut != tt.want {
				t.Errorf("exit %d, stderr\n%q\nwant exit %d,\n%q", code, errOut, exitError, tt.want)
			}
		})
	}
	_, errOut, code := ctdiff("cct", "--skip-invalid-lines", deep)
	if code != exitError || strings.Contains(errOut, "--skip-invalid-lines") || !strings.Contains(errOut, "stack frames exceed the limit") {
		t.Errorf("a stack over the limit: exit %d, stderr %q", code, errOut)
	}
}

// Unquoted globs the shell expanded into more arguments than OLD and NEW
// get a hint on how to give the sides.
func TestDiffExpandedGlobsHint(t *testing.T) {
	dir := t.TempDir()
	var old, nw []string
	for _, r := range []string{"run1.pb.gz", "run2.pb.gz", "run3.pb.gz"} {
		old = append(old, copyTo(t, filepath.Join(exampleOld, r), filepath.Join(dir, "old", r)))
		nw = append(nw, copyTo(t, filepath.Join(exampleNew, r), filepath.Join(dir, "new", r)))
	}
	oldDir, newDir := filepath.Join(dir, "old"), filepath.Join(dir, "new")
	const (
		see   = " (see 'ctdiff diff --help')\n"
		blind = " of them are files, and which are OLD and which NEW cannot be told: "
	)
	concrete := "quote each side's glob so that ctdiff expands it (ctdiff diff '" + filepath.Join(oldDir, "*.pb.gz") + "' '" + filepath.Join(newDir, "*.pb.gz") +
		"'), or give each side as a directory (ctdiff diff " + oldDir + " " + newDir + ") or an @LIST"
	generic := "quote each side's glob so that ctdiff expands it, or give each side as a directory or an @LIST"
	unmatched := filepath.Join(dir, "none", "*.pb.gz")
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"three runs a side", append(append([]string{}, old...), nw...),
			"ctdiff: diff takes OLD and NEW, got 6 arguments: did the shell expand unquoted globs? 6" + blind + concrete + see},
		{"one old run, two new", append([]string{old[0]}, nw[:2]...),
			"ctdiff: diff takes OLD and NEW, got 3 arguments: did the shell expand unquoted globs? 3" + blind + concrete + see},
		{"a glob that matched nothing", append(append([]string{}, old...), unmatched),
			"ctdiff: diff takes OLD and NEW, got 4 arguments: did the shell expand unquoted globs? 3" + blind + generic + "; " + unmatched + " matched no file" + see},
		{"directories", []string{oldDir, newDir, oldDir}, "ctdiff: diff takes OLD and NEW, got 3 arguments" + see},
		{"one argument", []string{old[0]}, "ctdiff: diff takes OLD and NEW, got 1 arguments" + see},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := ctdiff(append([]string{"diff"}, tt.args...)...)
			if code != exitError || errOut != tt.want {
				t.Errorf("exit %d, stderr\n%q\nwant exit %d,\n%q", code, errOut, exitError, tt.want)
			}
		})
	}
}
