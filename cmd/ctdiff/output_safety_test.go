package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// dirNames lists a directory, to see that no temporary file stays behind.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// A write that fails midway must leave the existing output as it was and
// no temporary file beside it.
func TestWriteOutputFailureKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	out := writeFile(t, dir, "report.txt", "the previous report\n")
	s := &streams{Out: io.Discard, Err: io.Discard}
	broken := errors.New("disk full, say")
	err := writeOutput(s, out, false, func(w io.Writer) error {
		if _, err := io.WriteString(w, "half a new rep"); err != nil {
			return err
		}
		return broken
	})
	if !errors.Is(err, broken) {
		t.Fatalf("error %v, want the write's error", err)
	}
	if got, _ := os.ReadFile(out); string(got) != "the previous report\n" {
		t.Errorf("the old output became %q", got)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"report.txt"}) {
		t.Errorf("files left in the directory: %v", names)
	}
}

// A successful write replaces the output whole and leaves nothing else.
func TestWriteOutputReplaces(t *testing.T) {
	dir := t.TempDir()
	out := writeFile(t, dir, "report.txt", "the previous report, longer than the new one\n")
	s := &streams{Out: io.Discard, Err: io.Discard}
	if err := writeOutput(s, out, false, func(w io.Writer) error {
		_, err := io.WriteString(w, "new\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); string(got) != "new\n" {
		t.Errorf("output %q", got)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{"report.txt"}) {
		t.Errorf("files left in the directory: %v", names)
	}
}

// Through the CLI: a run that fails, on bad input or while writing, leaves
// an existing output untouched and no temporary file.
func TestFailedRunKeepsOutput(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.folded", "main;work 3\n")
	bad := writeFile(t, dir, "bad.folded", "main;work 3\nmain;idle x\n")
	outDir := filepath.Join(dir, "out")
	if err := os.Mkdir(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args func(out string) []string
	}{
		{"convert, bad input", func(out string) []string { return []string{"convert", "--from", "collapsed", "-o", out, bad} }},
		{"cct, bad input", func(out string) []string { return []string{"cct", "--from", "collapsed", "-o", out, bad} }},
		{"diff, bad input", func(out string) []string { return []string{"diff", "--from", "collapsed", "-o", out, good, bad} }},
		{"cct, bad flag after the inputs were read", func(out string) []string {
			return []string{"cct", "--latency", "conservative", "-o", out, good} // folded stacks have no timestamps
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := writeFile(t, outDir, "previous.out", "previous output\n")
			_, errOut, code := ctdiff(tc.args(out)...)
			if code != exitError {
				t.Fatalf("exit code %d, want %d (stderr %q)", code, exitError, errOut)
			}
			if got, _ := os.ReadFile(out); string(got) != "previous output\n" {
				t.Errorf("the old output became %q", got)
			}
			if names := dirNames(t, outDir); !slices.Equal(names, []string{"previous.out"}) {
				t.Errorf("files left in the output directory: %v", names)
			}
		})
	}
}

func TestOutputModes(t *testing.T) {
	if !setUmask(t, 0o022) {
		t.Skip("no umask, no Unix file modes on this platform")
	}
	dir := t.TempDir()
	in := writeFile(t, dir, "in.folded", "main;a 1\n")
	fresh := filepath.Join(dir, "fresh.json")
	if _, errOut, code := ctdiff("cct", "--format", "json", "-o", fresh, in); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	st, err := os.Stat(fresh)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o644 {
		t.Errorf("a new report is %v under umask 022, want 0644 (os.CreateTemp's 0600 must not leak through)", st.Mode().Perm())
	}
	kept := writeFile(t, dir, "kept.json", "old")
	if err := os.Chmod(kept, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := ctdiff("cct", "--format", "json", "-o", kept, in); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if st, _ := os.Stat(kept); st.Mode().Perm() != 0o640 {
		t.Errorf("a replaced report's mode is %v, want the old file's 0640", st.Mode().Perm())
	}
}
