package main

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/ctdiff/ctdiff/convert"
)

// The bar counts the bytes read through it and the spinner names its
// phase; both write only to the writer they were given.
func TestProgressWrites(t *testing.T) {
	var w bytes.Buffer
	p := newProgress(&w, "reading", 8<<20)
	n, err := io.Copy(io.Discard, p.reader(strings.NewReader(strings.Repeat("x", 8<<20))))
	if err != nil || n != 8<<20 {
		t.Fatalf("read %d bytes: %v", n, err)
	}
	if s := p.bar.State(); s.CurrentNum != 8<<20 || s.CurrentPercent != 1 {
		t.Errorf("bar at %d bytes (%.0f%%), want all 8 MiB", s.CurrentNum, 100*s.CurrentPercent)
	}
	p.phase("comparing")
	p.finish()
	for _, want := range []string{"ctdiff: reading", "ctdiff: comparing"} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("progress output lacks %q: %q", want, w.String())
		}
	}
}

// No terminal, or a small input: no progress, and a nil progress does
// nothing.
func TestProgressOnlyOnTerminals(t *testing.T) {
	var w bytes.Buffer
	if p := startProgress(&streams{Err: &w}, "reading", 1<<30); p != nil {
		t.Error("progress without a terminal")
	}
	if p := startProgress(&streams{Err: &w, ErrIsTerminal: true}, "reading", 1<<10); p != nil {
		t.Error("progress for a 1 kB input")
	}
	var p *progress
	r := strings.NewReader("abc")
	if p.reader(r) != r {
		t.Error("a nil progress wraps readers")
	}
	p.phase("comparing")
	p.clear()
	p.finish()
	// The CLI with stderr in a buffer prints no progress, even for a diff.
	_, errOut, code := ctdiff("diff", exampleOld, exampleNew, "-o", t.TempDir()+"/r.txt")
	if code != 0 || errOut != "" {
		t.Errorf("exit %d, stderr %q: want nothing on stderr", code, errOut)
	}
}

// /dev/null is a character device but no terminal: `2>/dev/null` must not
// turn the progress bar on.
func TestDevNullIsNoTerminal(t *testing.T) {
	f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Errorf("isTerminal(%s) = true", os.DevNull)
	}
}

// A file read through the bar still answers Stat and ReadAt, which
// convert.Read uses to size its buffer.
func TestCountedFileIsAFile(t *testing.T) {
	p := newProgress(io.Discard, "reading", 8<<20)
	f, err := os.Open(exampleOld + "/run1.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = countedFile{p.reader(f), f}
	if _, ok := r.(interface {
		Stat() (fs.FileInfo, error)
		io.ReaderAt
	}); !ok {
		t.Fatal("countedFile hides Stat or ReadAt")
	}
	res, err := readInput(f.Name(), convert.Options{}, p, nil)
	if err != nil || len(res.Profile.Sample) == 0 {
		t.Fatalf("readInput through the bar: %v", err)
	}
}

// With several runs the bar counts them as goroutines finish them; with
// one it says nothing of runs. (The bar draws at most every 100 ms: its
// state has what it draws next.)
func TestProgressCountsRuns(t *testing.T) {
	var w bytes.Buffer
	p := newProgress(&w, "reading", 8<<20)
	p.countRuns(200)
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for range 100 {
				p.describe("reading")
				p.runDone()
			}
		})
	}
	wg.Wait()
	if got := p.bar.State().Description; got != "ctdiff: reading (200/200 runs)" {
		t.Errorf("the bar says %q after 200 of 200 runs", got)
	}
	if !strings.Contains(w.String(), "ctdiff: reading (0/200 runs)") {
		t.Errorf("the bar did not show the runs: %q", w.String())
	}
	p.phase("comparing")
	if got := p.bar.State().Description; got != "ctdiff: comparing" {
		t.Errorf("comparing: the bar says %q", got)
	}
	p.finish()
	p = newProgress(&w, "reading", 8<<20)
	p.countRuns(1)
	p.runDone()
	p.describe("building the tree of a.pb.gz")
	if got := p.bar.State().Description; got != "ctdiff: building the tree of a.pb.gz" {
		t.Errorf("one run: the bar says %q", got)
	}
	p.finish()
}
