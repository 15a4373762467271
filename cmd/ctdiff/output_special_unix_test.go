//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// -o naming a FIFO writes into it: its reader gets the report and the FIFO
// stays a FIFO (a rename over it made it a regular file, and the reader got
// nothing).
func TestOutputIntoFIFO(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.folded", "main;work 3\n")
	fifo := filepath.Join(dir, "out.fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Opened for reading and writing, the FIFO neither blocks this open nor
	// reports end of file when ctdiff closes it; the read deadline ends the
	// read, so the test fails rather than hangs if ctdiff never opens it.
	r, err := os.OpenFile(fifo, os.O_RDWR, 0)
	if err != nil {
		t.Skipf("open the FIFO: %v", err)
	}
	defer r.Close()
	if _, errOut, code := ctdiff("cct", "--format", "json", "-o", fifo, in); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got strings.Builder
	buf := make([]byte, 1<<16)
	for !strings.HasSuffix(strings.TrimSpace(got.String()), "}") {
		if err := r.SetReadDeadline(time.Now().Add(2 * time.Second)); err != nil {
			t.Skipf("no deadline on a FIFO here: %v", err)
		}
		n, err := r.Read(buf)
		got.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if !strings.Contains(got.String(), `"ctdiff.cct/v1"`) {
		t.Errorf("the FIFO's reader got %.200q, want the JSON tree", got.String())
	}
	assertMode(t, fifo, os.ModeNamedPipe)
}

// -o naming a character device (a private copy of /dev/null, made with
// mknod where the test may) writes to it and leaves it a device. The test
// never names /dev/null itself: were the fix undone, it would replace it.
func TestOutputIntoDevice(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.folded", "main;work 3\n")
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, int(mkdev(1, 3))); err != nil {
		t.Skipf("mknod (needs root): %v", err)
	}
	for _, args := range [][]string{
		{"cct", "--format", "json", "-o", null, in},
		{"convert", "-o", null, in}, // binary: a device that is no terminal takes it
		{"diff", "--format", "html", "-o", null, in, in},
	} {
		if _, errOut, code := ctdiff(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		assertMode(t, null, os.ModeDevice|os.ModeCharDevice)
	}
	if names := dirNames(t, dir); len(names) != 2 {
		t.Errorf("files in the directory: %v, want in.folded and null only", names)
	}
}

// mkdev encodes a Linux device number as mknod takes it (major 1, minor 3
// is /dev/null).
func mkdev(major, minor uint32) uint64 {
	return uint64(major)<<8 | uint64(minor)
}

// assertMode fails unless path is still of the given type.
func assertMode(t *testing.T, path string, want os.FileMode) {
	t.Helper()
	st, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Mode().Type(); got != want {
		t.Errorf("%s is now %v, want %v", path, got, want)
	}
}

// A symbolic link is followed: the file it names gets the report and the
// link stays a link, whether its target exists, is missing (created, as
// `cat > link` creates it) or is itself reached through a relative link.
func TestOutputThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.folded", "main;work 3\n")
	real := writeFile(t, dir, "real.json", "old")
	for _, tc := range []struct{ link, to, file string }{
		{"link.json", "real.json", real},
		{"dangling.json", "made.json", filepath.Join(dir, "made.json")},
		{"chain.json", "link.json", real},
	} {
		link := filepath.Join(dir, tc.link)
		if err := os.Symlink(tc.to, link); err != nil {
			t.Skipf("symlink: %v", err)
		}
		if _, errOut, code := ctdiff("cct", "--format", "json", "-o", link, in); code != 0 {
			t.Fatalf("%s: exit %d: %s", tc.link, code, errOut)
		}
		assertMode(t, link, os.ModeSymlink)
		if b, _ := os.ReadFile(tc.file); !strings.Contains(string(b), `"ctdiff.cct/v1"`) {
			t.Errorf("%s: %s holds %.100q, want the JSON tree", tc.link, tc.file, b)
		}
	}
}

// Targets that cannot be written get a one-line error naming -o and the
// path the user gave, exit 2, and nothing is created.
func TestOutputUnwritableTargets(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.folded", "main;work 3\n")
	loop := filepath.Join(dir, "loop")
	if err := os.Symlink("loop", loop); err != nil {
		t.Skipf("symlink: %v", err)
	}
	for _, tc := range []struct{ target, want string }{
		{dir, "-o " + dir + ": is a directory"},
		{loop, "-o " + loop + ": too many levels of symbolic links"},
	} {
		_, errOut, code := ctdiff("cct", "--format", "json", "-o", tc.target, in)
		if code != exitError || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("-o %s: exit %d, stderr %q; want exit %d and one line with %q", tc.target, code, errOut, exitError, tc.want)
		}
	}
	if names := dirNames(t, dir); len(names) != 2 {
		t.Errorf("files in the directory: %v", names)
	}
}
