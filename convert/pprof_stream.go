package convert

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// A PprofStream is one big pprof profile read to be written out again
// whole (ctdiff convert of one input): its samples as pprofio.Rewrite keeps
// them, each distinct stack once and a record of a few bytes a sample,
// not as a profile.Sample each. Read whole, the 3.5 GB profile.proto of a
// 515 MB DevTools trace (28.8 M samples) ran out of memory at 18 GB; read
// so and written again it takes 0.5 GB (BENCHMARKS.md).
//
// What it writes is what Read and pprofio.Write write for the same
// input, byte for byte: the profile as profile.Parse reads it (labels
// sorted by key, strings interned in pprof's order) and pprof writes it.
type PprofStream struct {
	// Warnings are the reader's, as Result.Warnings.
	Warnings []string

	x *pprofio.Rewrite
}

// Profile returns the profile without its samples.
func (x *PprofStream) Profile() *profile.Profile { return x.x.Profile() }

// Len returns the number of samples (kept).
func (x *PprofStream) Len() int { return x.x.Len() }

// Write writes the profile gzipped, as pprofio.Write writes the profile
// Read returns for the input.
func (x *PprofStream) Write(w io.Writer) error { return x.x.Write(w) }

// readPprofRewrite reads r, the input name, for Options.Rewrite when
// PprofStreams takes it. It returns nil and no error for any other input,
// having only peeked at r. Options.Thread and PIDs select samples as Read
// does.
func readPprofRewrite(r *bufio.Reader, name string, size int64, opts Options) (*PprofStream, error) {
	if !PprofStreams(r, size, opts) {
		return nil, nil
	}
	magic, _ := r.Peek(2)
	gzipped := pprofio.IsGzip(magic)
	x, err := readPprofStream(r, name, gzipped, &opts)
	if err != nil {
		return nil, inputError(err, name)
	}
	for i, w := range x.Warnings {
		x.Warnings[i] = escapeControls(w)
	}
	return x, nil
}

// PprofStreams reports whether r, peeking at it, holds a pprof profile
// to read with Options.Rewrite when it is only to be written out again:
// one of at least the size parsePprofStacks streams (size is the file's,
// gzipped or not), or on standard input (size < 0), whose size is not
// known before it is read; without Options.Aggregate, which Read applies.
func PprofStreams(r *bufio.Reader, size int64, opts Options) bool {
	if opts.Aggregate || (opts.From != "" && opts.From != "pprof") {
		return false
	}
	magic, _ := r.Peek(2)
	gzipped := pprofio.IsGzip(magic)
	if size >= 0 && !(gzipped && size >= pprofStreamGzip) && !(!gzipped && size >= pprofStreamRaw) {
		return false
	}
	head := peekHead(r, gzipped)
	if len(head) < 2 || pprofio.IsGzip(head[:2]) || pprofio.LooksLikeText(head[:min(len(head), 512)]) || bytes.HasPrefix(head, []byte{0, 0, 0, 0}) {
		return false // empty, gzipped twice or a legacy format: Read decides
	}
	f := sniff(head)
	return opts.From != "" || (f != nil && f.Name == "pprof")
}

// peekHead returns the first sniffSize bytes of the input r holds,
// decompressed from what r buffers when it is gzipped (fewer when those
// do not hold them), without reading r.
func peekHead(r *bufio.Reader, gzipped bool) []byte {
	b, _ := r.Peek(min(r.Size(), 64<<10))
	if !gzipped {
		return b[:min(len(b), sniffSize)]
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil
	}
	head := make([]byte, sniffSize)
	n, _ := io.ReadFull(zr, head)
	return head[:n]
}

// readPprofStream is readPprofRewrite once the input is known to be one
// to stream: decompressed within the size limit as read does.
func readPprofStream(r *bufio.Reader, name string, gzipped bool, opts *Options) (*PprofStream, error) {
	limit := opts.MaxDecompressed
	if limit <= 0 {
		limit = DefaultMaxDecompressed
	}
	var dec io.Reader
	var consumed *int64
	if gzipped {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		g := newGzipReader(zr, r, limit)
		dec, consumed = g, &g.n
	} else {
		l := &limitReader{r: r, limit: limit}
		dec, consumed = l, &l.n
	}
	in := &parserInput{Name: name, Options: opts, consumed: consumed}
	rw, cut, err := pprofio.ReadRewrite(dec, parsePprofData)
	if err != nil {
		return nil, pprofError(err)
	}
	in.warnCut(cut)
	x := &PprofStream{Warnings: in.warnings, x: rw}
	if err := x.check(in.bytesRead()); err != nil {
		return nil, err
	}
	if opts.Thread != nil || len(opts.PIDs) > 0 {
		seen, kept, err := rw.SelectThreads(func(id stacks.Thread) bool {
			return (opts.Thread == nil || opts.Thread.MatchString(id.Name())) &&
				(len(opts.PIDs) == 0 || (id.HasPID && slices.Contains(opts.PIDs, id.PID)))
		})
		if err != nil {
			return nil, err
		}
		if kept == 0 {
			return nil, noSelected(seen)
		}
	}
	return x, nil
}

// check checks the samples' values as Read (checkSamples) checks them,
// so that writing them cannot fail but for the writer (pprofio.ReadRewrite
// checked the rest): they are counts that add up within an int64, of
// stacks within the frames the input may hold.
func (x *PprofStream) check(inputBytes int64) error {
	p := x.x.Profile()
	budget := &stackBudget{limit: stackFrameLimit(inputBytes)}
	sums := make([]int64, len(p.SampleType))
	var err error
	x.x.EachSample(func(i, frames int, vals []int64) bool {
		if err = budget.take(frames); err != nil {
			err = fmt.Errorf("sample %d: %w", i, err)
			return false
		}
		for j, v := range vals {
			if v < 0 {
				err = fmt.Errorf("sample %d: %w: %s is %d; ctdiff needs counts and times "+
					"(a profile of differences, such as pprof -diff_base writes, cannot be read: pass the two profiles instead)",
					i, errNegativeValue, sampleTypeName(p, j), v)
				return false
			}
			if sums[j] += v; sums[j] < 0 {
				err = fmt.Errorf("sample %d: the %s values add up to more than %d", i, sampleTypeName(p, j), int64(math.MaxInt64))
				return false
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	if x.x.Len() == 0 {
		return fmt.Errorf("%w: the pprof input holds no samples", errNoSamples)
	}
	return nil
}
