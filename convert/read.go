package convert

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// DefaultMaxDecompressed bounds how many bytes a compressed input may expand
// to (a gzip bomb guard). Options.MaxDecompressed raises or lowers it.
const DefaultMaxDecompressed = 4 << 30

// DefaultMaxTimedSamples is the default of Options.MaxTimedSamples: a
// million samples kept one by one with their timestamps take 0.1-0.8 GB
// of peak RSS to convert, by format (README, "Limits and errors").
const DefaultMaxTimedSamples = 1_000_000

// maxTimed returns the limit of timestamped samples kept one by one.
func (o *Options) maxTimed() int64 {
	if o.MaxTimedSamples > 0 {
		return o.MaxTimedSamples
	}
	return DefaultMaxTimedSamples
}

// Options control reading. The zero value sniffs the format, keeps every
// thread and sample and applies DefaultMaxDecompressed.
type Options struct {
	// From forces a format by name (see FormatNames); empty means sniff.
	From string
	// Thread keeps only samples whose thread name (or "process/thread")
	// matches; nil keeps all.
	Thread *regexp.Regexp
	// PIDs keeps only samples of these process ids; empty keeps all.
	PIDs []int64
	// Aggregate merges identical stacks and drops per-sample timestamps.
	Aggregate bool
	// MaxDecompressed bounds the decompressed size; 0 means
	// DefaultMaxDecompressed.
	MaxDecompressed int64
	// Stacks lets readers that can (pprof, call trees) return the samples
	// compactly (Result.Samples is a *stacks.Samples and Profile.Sample
	// nil): for callers that only build trees (cct.Builder.AddSamples).
	// Aggregate turns it off.
	Stacks bool
	// MergeSamples lets readers merge the samples of one thread and stack
	// as they read them, for callers that build trees without inferring
	// latencies from timestamps (cct without --latency, diff without
	// --metric latency): memory then follows the distinct stacks, not the
	// samples. A merged sample's values are the sum of its samples', its
	// timestamp (when every sample has one) the earliest of theirs, and
	// merged samples come in the order of those timestamps, else in the
	// order of their first sample: a tree built from them is the tree of
	// the samples one by one. Readers that cannot merge return the samples
	// as they are.
	MergeSamples bool
	// MaxTimedSamples bounds the timestamped samples a reader keeps one by
	// one (without MergeSamples: ctdiff convert, latency inference) in
	// the readers whose memory would otherwise grow with them without
	// bound (.cpuprofile, PerfView, WPA CSV, xperf, perf script); 0 means
	// DefaultMaxTimedSamples. More is a *SampleLimitError.
	MaxTimedSamples int64
	// CompleteStacks limits Stacks to readers whose stacks lose nothing
	// (inputFormat.CompleteStacks), for callers that write the samples out
	// (pprofio.WriteSource) rather than build trees.
	CompleteStacks bool
	// SkipInvalidLines makes the folded-stacks reader skip lines it cannot
	// read, with one warning that counts them, instead of failing at the
	// first one.
	SkipInvalidLines bool
	// Buffers, when not nil, keep what the pprof reader can reuse from
	// one profile to the next that the caller reads (Buffers).
	Buffers *Buffers
	// Rewrite reads a pprof input only to write it out again (ctdiff
	// convert of one input): its samples are kept as each distinct stack
	// once and a few bytes a sample (Result.Rewrite), never decoded into
	// profile.Samples. Other formats, a legacy or twice gzipped pprof, and
	// Aggregate are read as without it.
	Rewrite bool

	// xmlDecoderOnly makes the PerfView reader read every element with
	// encoding/xml, for tests that compare its scanner with it.
	xmlDecoderOnly bool
}

// Buffers hold what reading a pprof profile can reuse from the profile a
// goroutine read before (Options.Buffers); see pprofio.Buffers.
type Buffers = pprofio.Buffers

// A Result is a converted profile with what the converter had to say.
type Result struct {
	// Profile is Samples.Profile(): its Sample is nil when the samples
	// are compact.
	Profile *profile.Profile
	// Samples are the profile's samples, in whichever form the reader
	// made them.
	Samples stacks.Source
	// Format is the name of the format that was read.
	Format string
	// Warnings are non-fatal findings: skipped records, assumed intervals.
	Warnings []string
	// Rewrite, with Options.Rewrite, is the pprof input read to be written
	// out again; Profile and Samples are nil then.
	Rewrite *PprofStream
}

// ReadFile reads one profile from a file ("-" for standard input).
func ReadFile(path string, opts Options) (*Result, error) {
	if path == "-" {
		return Read(os.Stdin, "-", opts)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err // *PathError already names the file
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, not a profile", path)
	}
	return Read(f, path, opts)
}

// Read reads one profile from r; name is used in messages. Errors name the
// input and, for malformed content, the position.
func Read(r io.Reader, name string, opts Options) (*Result, error) {
	if opts.Rewrite {
		br, ok := r.(*bufio.Reader)
		if !ok || br.Size() < 64<<10 {
			br = bufio.NewReaderSize(r, 64<<10)
		}
		if x, err := readPprofRewrite(br, name, -1, opts); x != nil || err != nil {
			if err != nil {
				return nil, err
			}
			return &Result{Format: "pprof", Warnings: x.Warnings, Rewrite: x}, nil
		}
		r = br
	}
	res, err := read(r, name, &opts)
	if err != nil {
		return nil, inputError(err, name)
	}
	for i, w := range res.Warnings {
		res.Warnings[i] = escapeControls(w)
	}
	return res, nil
}

// inputError is err as Read returns it: naming the
// input (a SyntaxError carries it in File, with the position), on one
// line.
func inputError(err error, name string) error {
	var se *SyntaxError
	if errors.As(err, &se) {
		if se.File == "" {
			se.File = name
		}
	} else {
		err = fmt.Errorf("%s: %w", name, err)
	}
	return oneLineError(err)
}

func read(r io.Reader, name string, opts *Options) (*Result, error) {
	limit := opts.MaxDecompressed
	if limit <= 0 {
		limit = DefaultMaxDecompressed
	}
	rs := readerPool.Get().(*readers)
	reuse := false // set once the format is known to be one whose reader returns only when done
	defer func() {
		if reuse {
			rs.release()
		}
	}()
	br := rs.raw
	if b, ok := r.(*bufio.Reader); ok && b.Size() >= 64<<10 {
		br = b // as bufio.NewReaderSize would
	} else {
		br.Reset(r)
	}
	magic, _ := br.Peek(2)
	var consumed *int64 // decompressed bytes read so far
	var whole *pprofio.WholeGzip
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		whole = pprofio.NewWholeGzip(r, br, limit)
		var err error
		if rs.zr == nil {
			rs.zr, err = gzip.NewReader(br)
		} else {
			err = rs.zr.Reset(br)
		}
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		g := newGzipReader(rs.zr, br, limit)
		rs.dec.Reset(g)
		br, consumed = rs.dec, &g.n
	} else {
		l := &limitReader{r: br, limit: limit}
		rs.dec.Reset(l)
		br, consumed = rs.dec, &l.n
	}
	head, err := br.Peek(sniffSize)
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
		return nil, err
	}
	if len(bytes.TrimSpace(head)) == 0 {
		return nil, errors.New("empty input: no profile data")
	}
	var f *inputFormat
	if opts.From != "" {
		if f, err = lookup(opts.From); err != nil {
			return nil, err
		}
	} else {
		f = sniff(head)
		if f == nil {
			return nil, &UnknownFormatError{Formats: FormatNames()}
		}
	}
	// pprof's reader reads the input whole before it returns; readers of
	// other formats may leave goroutines reading it when they fail.
	reuse = f.Name == "pprof"
	in := &parserInput{Name: name, R: br, Options: opts, consumed: consumed, sizeHint: sizeHint(r, len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b), whole: whole}
	var src stacks.Source
	if opts.Stacks && !opts.Aggregate && f.ParseStacks != nil && (f.CompleteStacks || !opts.CompleteStacks) {
		p, s, err := f.ParseStacks(in)
		if err != nil {
			return nil, err
		}
		src = stacks.FromProfile(p)
		if s != nil { // else the reader returned the samples in the profile
			src = s
		} else if in.samples != nil { // or in another form
			src = in.samples
		}
	} else {
		p, err := f.Parse(in)
		if err != nil {
			return nil, err
		}
		src = stacks.FromProfile(p)
	}
	return finish(in, f, src)
}

// finish checks what a reader returned and applies the options.
func finish(in *parserInput, f *inputFormat, src stacks.Source) (*Result, error) {
	opts := in.Options
	p := src.Profile()
	// pprof's reader has checked it already (parsePprof*, and
	// profile.ParseData where it falls back), at 6% of its CPU.
	if f.Name != "pprof" {
		if err := p.CheckValid(); err != nil {
			return nil, fmt.Errorf("%s reader produced an invalid profile: %w", f.Name, err)
		}
	}
	if err := checkSamples(src, in.bytesRead()); err != nil {
		return nil, err
	}
	if src.Len() == 0 {
		return nil, fmt.Errorf("%w: the %s input holds no samples", errNoSamples, f.Name)
	}
	if err := selectSamples(src, opts); err != nil {
		return nil, err
	}
	if opts.Aggregate {
		// Aggregate turns Stacks off: the samples are p's.
		p.RemoveNumLabel(labels.Timestamp)
		aggregate(p)
		src = stacks.FromProfile(p)
	}
	return &Result{Profile: p, Samples: src, Format: f.Name, Warnings: in.warnings}, nil
}

func sniff(head []byte) *inputFormat {
	for _, f := range sniffOrder() {
		if f.Sniff != nil && f.Sniff(head) {
			return registry[f.Name]
		}
	}
	return nil
}

// selectSamples applies --thread and --pid, in place: a thread's samples
// are all kept or all dropped.
func selectSamples(src stacks.Source, opts *Options) error {
	if opts.Thread == nil && len(opts.PIDs) == 0 {
		return nil
	}
	// Whether a thread is kept, per index (Source.Thread), once known.
	var keep, known []bool
	seen := map[string]bool{}
	for i := range src.Len() {
		x := src.Thread(i)
		if int(x) >= len(known) {
			keep, known = append(keep, make([]bool, int(x)+1-len(keep))...), append(known, make([]bool, int(x)+1-len(known))...)
		}
		if !known[x] {
			th := src.Threads()[x]
			seen[th.Name()] = true
			keep[x] = (opts.Thread == nil || opts.Thread.MatchString(th.Name())) &&
				(len(opts.PIDs) == 0 || (th.HasPID && slices.Contains(opts.PIDs, th.PID)))
			known[x] = true
		}
	}
	src.Keep(func(i int) bool { return keep[src.Thread(i)] })
	if src.Len() == 0 {
		return noSelected(seen)
	}
	return nil
}

// noSelected is the error for a selection that kept no sample, naming the
// threads there are.
func noSelected(seen map[string]bool) error {
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, fmt.Sprintf("%q", n))
	}
	slices.Sort(names)
	return fmt.Errorf("%w: no sample matches the thread/pid selection; threads present: %s",
		errNoSamples, strings.Join(names, ", "))
}

// ThreadName is the name --thread matches a sample against:
// "process/thread" when both labels are set, else whichever is set.
func ThreadName(s *profile.Sample) string {
	var proc, th string
	if v := s.Label[labels.Process]; len(v) > 0 {
		proc = v[0]
	}
	if v := s.Label[labels.Thread]; len(v) > 0 {
		th = v[0]
	}
	return stacks.Thread{Process: proc, Thread: th}.Name()
}

// readers are read's buffers and inflater, pooled for the next file one
// goroutine reads: 100 runs a side are 200 files, and the two 64 KB
// buffers and the gzip.Reader's window and tables were a fresh ~200 KB
// each.
type readers struct {
	raw, dec *bufio.Reader
	zr       *gzip.Reader
}

var readerPool = sync.Pool{New: func() any {
	return &readers{raw: bufio.NewReaderSize(nil, 64<<10), dec: bufio.NewReaderSize(nil, 64<<10)}
}}

// release returns rs to the pool, holding on to no input.
func (rs *readers) release() {
	rs.raw.Reset(nil)
	rs.dec.Reset(nil)
	readerPool.Put(rs)
}

// limitReader fails with ErrTooLarge once more than limit bytes were read.
type limitReader struct {
	r     io.Reader
	n     int64
	limit int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.n += int64(n)
	if l.n > l.limit {
		return 0, &SizeLimitError{Limit: l.limit}
	}
	return n, err
}

// gzipReader bounds decompression and turns gzip's terse errors into ones
// that say where the stream broke. It reads the members of a multi-member
// file one after another itself (the gzip.Reader is not in multistream
// mode), so that what follows the last member and is not another one is
// called trailing garbage, not a truncated stream.
type gzipReader struct {
	zr    *gzip.Reader
	src   *bufio.Reader // what zr reads: the next member starts where it stopped
	n     int64
	limit int64
}

// newGzipReader returns a gzipReader of zr, which reads src, a reader
// that stops at the end of each member (as a bufio.Reader makes it).
func newGzipReader(zr *gzip.Reader, src *bufio.Reader, limit int64) *gzipReader {
	zr.Multistream(false)
	return &gzipReader{zr: zr, src: src, limit: limit}
}

func (g *gzipReader) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	for err == io.EOF {
		if err = g.nextMember(); err != nil || n > 0 {
			break
		}
		n, err = g.zr.Read(p)
	}
	g.n += int64(n)
	if g.n > g.limit {
		return 0, &SizeLimitError{Limit: g.limit}
	}
	switch {
	case err == nil || err == io.EOF:
	case errors.Is(err, errGzipTrailing):
		err = fmt.Errorf("gzip: the stream ends after %d decompressed bytes, and what follows it is not gzip (trailing garbage)", g.n)
	case errors.Is(err, io.ErrUnexpectedEOF):
		err = fmt.Errorf("gzip: truncated gzip stream after %d decompressed bytes", g.n)
	default:
		err = fmt.Errorf("gzip: %v after %d decompressed bytes", err, g.n)
	}
	return n, err
}

var errGzipTrailing = errors.New("trailing garbage")

// nextMember starts reading the gzip member that follows the one that
// ended; io.EOF at the end of the input.
func (g *gzipReader) nextMember() error {
	next, err := g.src.Peek(2)
	switch {
	case len(next) == 0 && err != nil:
		return err // io.EOF: the end
	case !pprofio.IsGzip(next):
		return errGzipTrailing
	}
	if err := g.zr.Reset(g.src); err != nil {
		return err
	}
	g.zr.Multistream(false) // which Reset sets
	return nil
}

// sizeHint guesses the decompressed size of a file input, for ReadAll: its
// size, or for gzip the size its trailer records (of the last member,
// modulo 4 GiB), at most 32 times the compressed size and 1 GiB, so that a
// hostile trailer cannot make Read allocate much; ReadAll grows the buffer
// past the hint as needed. 0 when r is not a regular file (an *os.File,
// or a reader that wraps one and answers Stat and ReadAt for it, such as a
// progress bar's).
func sizeHint(r io.Reader, gzipped bool) int {
	f, ok := r.(interface {
		Stat() (fs.FileInfo, error)
		io.ReaderAt
	})
	if !ok {
		return 0
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() == 0 {
		return 0
	}
	if !gzipped {
		return int(st.Size())
	}
	var trailer [4]byte
	if st.Size() < 18 {
		return 0
	}
	if _, err := f.ReadAt(trailer[:], st.Size()-4); err != nil {
		return 0
	}
	size := int64(trailer[0]) | int64(trailer[1])<<8 | int64(trailer[2])<<16 | int64(trailer[3])<<24
	return int(min(size, 32*st.Size(), 1<<30))
}
