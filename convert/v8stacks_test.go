package convert

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/long"
	"github.com/ctdiff/ctdiff/stacks"
)

// TestV8StacksMatchProfile: for every DevTools trace and .cpuprofile of the
// corpus and the fixtures, the stacks path (Options.Stacks) gives the tree
// and the pprof bytes the profile path gives, with and without --thread
// and --pid, and the same errors and warnings.
func TestV8StacksMatchProfile(t *testing.T) {
	var files []string
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "devtools", "*"))
	for _, f := range fixtures {
		if !strings.HasSuffix(f, ".golden") {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		t.Fatal("no fixtures in testdata/devtools")
	}
	if d := corpus.Dir(); d != "" {
		for _, dir := range []string{"devtools", "cpuprofile"} {
			found, _ := filepath.Glob(filepath.Join(corpus.Path(t, dir), "*"))
			files = append(files, found...)
		}
	}
	selections := []struct {
		name string
		opts Options
	}{
		{"all", Options{}},
		{"pid", Options{PIDs: []int64{4242, 20, 71044, 1753642}}},
		{"thread", Options{Thread: regexp.MustCompile(`Main|main`)}},
		{"no match", Options{Thread: regexp.MustCompile(`^no such thread$`)}},
	}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i, sel := range selections {
			if i > 1 && len(data) > 1<<20 {
				break // the large inputs take seconds each; small ones cover the rest
			}
			t.Run(filepath.Base(path)+"/"+sel.name, func(t *testing.T) {
				long.File(t, path)
				CheckStacks(t, filepath.Base(path), data, sel.opts)
			})
		}
	}
}

// TestV8Stacks: the devtools and cpuprofile readers return stacks, with a
// timestamp per sample where the input has them.
func TestV8Stacks(t *testing.T) {
	for _, tt := range []struct {
		file          string
		timed, stream bool
	}{
		{"chunks.json", true, true},
		{"children.cpuprofile", true, true},
		{"hitcount-only.cpuprofile", false, false},
	} {
		t.Run(tt.file, func(t *testing.T) {
			res, err := ReadFile(filepath.Join("testdata", "devtools", tt.file), Options{Stacks: true})
			if err != nil {
				t.Fatal(err)
			}
			if s := compact(res); s == nil || s.Len() == 0 || res.Profile.Sample != nil {
				t.Fatalf("samples %T and %d in the profile, want stacks only", res.Samples, len(res.Profile.Sample))
			}
			if stacks.AllTimed(res.Samples) != tt.timed {
				t.Fatalf("AllTimed() = %v, want %v", stacks.AllTimed(res.Samples), tt.timed)
			}
			// Read to be written, a thread's timed samples stay packed.
			res, err = ReadFile(filepath.Join("testdata", "devtools", tt.file), Options{Stacks: true, CompleteStacks: true})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := res.Samples.(*v8Stream); ok != tt.stream {
				t.Fatalf("samples %T, want a v8Stream: %v", res.Samples, tt.stream)
			}
		})
	}
}
