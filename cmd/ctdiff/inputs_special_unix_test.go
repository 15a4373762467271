//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO or a link to a device in an input directory is skipped with a
// warning naming it (it was skipped silently), and a directory of nothing
// else says what it holds.
func TestInputDirSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	if err := os.Mkdir(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, runs, "a.folded", "main;work 3\n")
	fifo := filepath.Join(runs, "b.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(runs, "c.pb.gz")); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := ctdiff("cct", runs)
	want := "ctdiff: warning: " + fifo + ": a named pipe (FIFO), not a file: skipped (name it to read it)\n" +
		"ctdiff: warning: " + filepath.Join(runs, "c.pb.gz") + ": a symbolic link to a character device, not a file: skipped (name it to read it)\n"
	if code != exitOK || errOut != want || !strings.Contains(out, "work") {
		t.Errorf("exit %d, stderr\n%s\nwant\n%s", code, errOut, want)
	}

	only := filepath.Join(dir, "only")
	if err := os.Mkdir(only, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/null", filepath.Join(only, "null")); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = ctdiff("cct", only)
	want = "ctdiff: " + only + ": directory holds no profiles; " + filepath.Join(only, "null") + ": a symbolic link to a character device, not a file: skipped (name it to read it)\n"
	if code != exitError || errOut != want {
		t.Errorf("a directory of a device link: exit %d, stderr %q, want %q", code, errOut, want)
	}
}
