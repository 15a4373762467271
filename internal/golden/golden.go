// Package golden compares test output with golden files and shows a
// mismatch as a unified diff; under go test's -update flag it rewrites the
// files instead. It is the one golden-file helper of ctdiff's tests, and the
// one place -update is defined, so every package's goldens behave alike.
//
// Only tests import it: it registers -update on the default flag set, which
// go test parses for the test binary.
package golden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files with the tests' output instead of comparing with them")

// The printed diff stops after maxLines lines or maxBytes bytes: enough to
// see what changed, short enough that a golden rewritten wholesale (a
// 100,000-line HTML report) does not flood the terminal.
const (
	maxLines = 200
	maxBytes = 32 << 10
)

// Check compares got with the golden file at path (slash-separated, relative
// to the test's package directory). A mismatch fails the test with a unified
// diff from the golden file to got; a missing file stops it. Under -update it
// writes got to path (creating its directory) and passes.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	file := filepath.FromSlash(path)
	if *update {
		if old, err := os.ReadFile(file); err == nil && bytes.Equal(old, got) {
			return
		}
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatalf("golden: %v", err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatalf("golden: %v", err)
		}
		t.Logf("golden: rewrote %s", path)
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("golden: %v (%s -update creates it)", err, rerun(t))
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs from the test's output (%s -update rewrites it):\n%s",
			path, rerun(t), truncate(Diff(path, "got", string(want), string(got))))
	}
}

// CheckString is Check for output built as a string.
func CheckString(t testing.TB, path, got string) {
	t.Helper()
	Check(t, path, []byte(got))
}

// rerun is the command that runs the failing top-level test again, from the
// module root: "go test ./convert -run '^TestV8Golden$'".
func rerun(t testing.TB) string {
	name, _, _ := strings.Cut(t.Name(), "/")
	return fmt.Sprintf("go test %s -run '^%s$'", packageDir(), name)
}

// packageDir is the working directory (go test runs a test in its package's
// directory) relative to the module root, or "." when that is unknown.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	for dir := wd; ; {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			rel, err := filepath.Rel(dir, wd)
			if err != nil || rel == "." {
				return "."
			}
			return "./" + filepath.ToSlash(rel)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "."
		}
		dir = parent
	}
}

// truncate cuts a diff after maxLines lines or maxBytes bytes, saying how
// much it left out.
func truncate(d string) string {
	total := strings.Count(d, "\n")
	lines, size := 0, 0
	for i := 0; i < len(d); {
		j := strings.IndexByte(d[i:], '\n')
		if j < 0 {
			j = len(d) - i - 1
		}
		if lines == maxLines || size+j+1 > maxBytes {
			return fmt.Sprintf("%s... %d more lines of the diff not shown (%d in all)\n", d[:i], total-lines, total)
		}
		lines++
		size += j + 1
		i += j + 1
	}
	return d
}
