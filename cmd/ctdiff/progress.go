package main

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/schollz/progressbar/v3"
)

// minProgressBytes is the input size from which reading shows progress:
// smaller inputs read in well under a second, and a bar that flashes by
// only clutters the terminal.
const minProgressBytes = 4 << 20

// A progress shows long work on stderr: a bar over the input bytes while
// profiles are read and converted, then a spinner for work that has no
// measure (comparing). It is shown only when stderr is a terminal, so logs,
// pipes and tests never see it. A nil *progress does nothing.
type progress struct {
	w   io.Writer
	bar *progressbar.ProgressBar

	// The description, and the runs (input profiles) done of runs, which
	// goroutines reading profiles in parallel update.
	mu         sync.Mutex
	desc       string
	runs, done int
}

// startProgress returns a progress for reading total input bytes, or nil
// when stderr is not a terminal or the input is small.
func startProgress(s *streams, desc string, total int64) *progress {
	if !s.ErrIsTerminal || total < minProgressBytes {
		return nil
	}
	return newProgress(s.Err, desc, total)
}

func newProgress(w io.Writer, desc string, total int64) *progress {
	return &progress{w: w, bar: progressbar.NewOptions64(total, barOptions(w, desc)...), desc: desc}
}

func barOptions(w io.Writer, desc string) []progressbar.Option {
	return []progressbar.Option{
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("ctdiff: " + desc),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100 * time.Millisecond),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionClearOnFinish(),
	}
}

// reader counts the bytes read through r on the bar.
func (p *progress) reader(r io.Reader) io.Reader {
	if p == nil {
		return r
	}
	pr := progressbar.NewReader(r, p.bar)
	return &pr
}

// describe changes what the bar says it is doing.
func (p *progress) describe(desc string) {
	if p != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.desc = desc
		p.bar.Describe(p.label())
	}
}

// countRuns says how many runs (input profiles) are read: with several,
// the bar counts them as they are done (runDone), which a bar of bytes
// alone does not show of a hundred profiles.
func (p *progress) countRuns(n int) {
	if p != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.runs, p.done = n, 0
		p.bar.Describe(p.label())
	}
}

// runDone counts one more run read.
func (p *progress) runDone() {
	if p != nil {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.done++
		p.bar.Describe(p.label())
	}
}

func (p *progress) label() string {
	if p.runs > 1 {
		return fmt.Sprintf("ctdiff: %s (%d/%d runs)", p.desc, p.done, p.runs)
	}
	return "ctdiff: " + p.desc
}

// phase replaces the bar by a spinner for work without a measure.
func (p *progress) phase(desc string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.bar.Finish()
	p.desc, p.runs = desc, 0
	p.bar = progressbar.NewOptions64(-1, barOptions(p.w, desc)...)
	_ = p.bar.RenderBlank()
}

// clear removes the bar from the line, before a message is printed.
func (p *progress) clear() {
	if p != nil {
		_ = p.bar.Clear()
	}
}

// finish removes the bar for good.
func (p *progress) finish() {
	if p != nil {
		_ = p.bar.Finish()
	}
}

// inputSize is the total size of the regular files among paths.
func inputSize(paths []string) int64 {
	var n int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			n += st.Size()
		}
	}
	return n
}

// readInput is convert.ReadFile, counting the bytes read on p and, when
// sum is not nil, hashing them into it as they are read (the input's
// identity by content: sameContent).
func readInput(path string, opts convert.Options, p *progress, sum *digest) (*convert.Result, error) {
	h := newDigester(sum)
	if path == "-" {
		return h.read(io.Reader(os.Stdin), path, opts)
	}
	f, err := os.Open(path)
	if err != nil {
		return convert.ReadFile(path, opts) // for its error text
	}
	defer f.Close()
	st, err := f.Stat()
	switch {
	case err != nil || st.IsDir():
		return convert.ReadFile(path, opts) // for its error text
	case !st.Mode().IsRegular():
		return h.read(f, path, opts) // of no size the bar counts
	}
	return h.read(countedFile{p.reader(f), f}, path, opts)
}

// countedFile is a file read through the progress bar. It answers Stat and
// ReadAt for the file, which convert.Read uses to size its buffer once
// instead of growing it.
type countedFile struct {
	r io.Reader
	f *os.File
}

func (c countedFile) Read(b []byte) (int, error)              { return c.r.Read(b) }
func (c countedFile) Stat() (fs.FileInfo, error)              { return c.f.Stat() }
func (c countedFile) ReadAt(b []byte, off int64) (int, error) { return c.f.ReadAt(b, off) }
