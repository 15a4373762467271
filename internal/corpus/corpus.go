// Package corpus locates the shared corpus of real profiles
// (../shared/corpus beside the project root) for tests and benchmarks.
//
// Tests that need it skip when it is absent, except under CI=true, where
// its absence is a failure.
package corpus

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// Dir returns the corpus directory, or "" if it is absent. CTDIFF_CORPUS
// overrides the location.
func Dir() string {
	if d := os.Getenv("CTDIFF_CORPUS"); d != "" {
		return d
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	// file is <root>/internal/corpus/corpus.go; the corpus is <root>/../shared/corpus.
	d := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "corpus")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d
	}
	return ""
}

// Path returns the path of a corpus file (relative to the corpus dir, e.g.
// "collapsed/asyncprofiler-sample1.collapsed"). It skips the test when the
// corpus is absent and fails it under CI=true or when the file is missing.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	d := Dir()
	if d == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("the corpus (../shared/corpus) is absent under CI=true")
		}
		tb.Skip("the corpus (../shared/corpus) is absent")
	}
	p := filepath.Join(d, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		tb.Fatalf("corpus file: %v", err)
	}
	return p
}

// Glob returns the corpus files matching a pattern relative to the corpus
// dir, with the same skip/fail rules as Path.
func Glob(tb testing.TB, pattern string) []string {
	tb.Helper()
	Path(tb, ".")
	m, err := filepath.Glob(filepath.Join(Dir(), filepath.FromSlash(pattern)))
	if err != nil || len(m) == 0 {
		tb.Fatalf("corpus: no file matches %s", pattern)
	}
	return m
}

// NextDir returns the directory of public files in formats being added
// (../shared/next-formats beside the project root), or "" if it is
// absent. CTDIFF_NEXT_FORMATS overrides the location. Its files move into
// the corpus once their readers land.
func NextDir() string {
	if d := os.Getenv("CTDIFF_NEXT_FORMATS"); d != "" {
		return d
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return ""
	}
	d := filepath.Join(filepath.Dir(file), "..", "..", "..", "shared", "next-formats")
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d
	}
	return ""
}

// NextFiles returns the files of NextDir's subdirectories (dir/*/*, not
// its .tsv index), nil when it is absent; under CI=true its absence fails
// the test.
func NextFiles(tb testing.TB) []string {
	tb.Helper()
	d := NextDir()
	if d == "" {
		if moved, _ := filepath.Glob(filepath.Join(Dir(), "speedscope")); Dir() != "" && len(moved) > 0 {
			return nil // moved into the corpus, where its tests find them
		}
		if os.Getenv("CI") == "true" {
			tb.Fatalf("the next formats' files (../shared/next-formats) are absent under CI=true")
		}
		return nil
	}
	m, _ := filepath.Glob(filepath.Join(d, "*", "*"))
	return m
}
