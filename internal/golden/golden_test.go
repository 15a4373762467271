package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// fakeT records what Check reports; Fatalf ends the goroutine as the real
// one does, so check runs Check in a goroutine of its own.
type fakeT struct {
	testing.TB
	errors, logs []string
	fatal        bool
}

func (f *fakeT) Helper()      {}
func (f *fakeT) Name() string { return "TestReport/text" }
func (f *fakeT) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	f.fatal = true
	runtime.Goexit()
}
func (f *fakeT) Logf(format string, args ...any) {
	f.logs = append(f.logs, fmt.Sprintf(format, args...))
}

func check(path, got string, updating bool) *fakeT {
	defer func(old bool) { *update = old }(*update)
	*update = updating
	f := &fakeT{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		CheckString(f, path, got)
	}()
	<-done
	return f
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.ToSlash(filepath.Join(dir, "report.txt"))
	if err := os.WriteFile(path, []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rerun := "go test ./internal/golden -run '^TestReport$'" // fakeT's name
	for _, tt := range []struct {
		name, path, got string
		fatal           bool
		errors          []string
	}{
		{"equal", path, "a\nb\nc\n", false, nil},
		{
			"differs",
			path, "a\nB\nc\n", false,
			[]string{path + " differs from the test's output (" + rerun + " -update rewrites it):\n" +
				"--- " + path + "\n+++ got\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		},
		{
			"trailing newline",
			path, "a\nb\nc", false,
			[]string{path + " differs from the test's output (" + rerun + " -update rewrites it):\n" +
				"--- " + path + "\n+++ got\n@@ -1,3 +1,3 @@\n a\n b\n-c\n+c\n\\ No newline at end of file\n"},
		},
		{
			"missing",
			dir + "/none.txt", "x\n", true,
			[]string{"golden: open " + filepath.FromSlash(dir+"/none.txt") + ": no such file or directory (" + rerun + " -update creates it)"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := check(tt.path, tt.got, false)
			if f.fatal != tt.fatal || strings.Join(f.errors, "\n") != strings.Join(tt.errors, "\n") {
				t.Errorf("Check reported (fatal %v):\n%s\nwant (fatal %v):\n%s", f.fatal, strings.Join(f.errors, "\n"), tt.fatal, strings.Join(tt.errors, "\n"))
			}
		})
	}
}

// TestCheckUpdate: -update writes new and changed files (making their
// directory), leaves an equal file alone and passes.
func TestCheckUpdate(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		name, path, before, got string
		rewrites                bool
	}{
		{"new file in a new directory", "sub/dir/new.golden", "", "x\n", true},
		{"changed", "changed.golden", "old\n", "new\n", true},
		{"equal", "equal.golden", "same\n", "same\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, filepath.FromSlash(tt.path))
			if tt.before != "" {
				if err := os.WriteFile(path, []byte(tt.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f := check(filepath.ToSlash(path), tt.got, true)
			if f.fatal || len(f.errors) > 0 {
				t.Fatalf("Check under -update failed: %q", f.errors)
			}
			if b, err := os.ReadFile(path); err != nil || string(b) != tt.got {
				t.Errorf("file holds %q, %v; want %q", b, err, tt.got)
			}
			if rewrote := len(f.logs) > 0; rewrote != tt.rewrites {
				t.Errorf("rewrote %v (logs %q), want %v", rewrote, f.logs, tt.rewrites)
			}
			if f := check(filepath.ToSlash(path), tt.got, false); len(f.errors) > 0 {
				t.Errorf("after -update, Check still fails: %q", f.errors)
			}
		})
	}
}

func TestPackageDir(t *testing.T) {
	if got := packageDir(); got != "./internal/golden" {
		t.Errorf("packageDir() = %q, want ./internal/golden", got)
	}
}
