package pprofio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"unicode/utf8"
)

// MaxField bounds one top-level field of a profile.proto that is kept
// in memory for decoding: a sample (whose stack of MaxStackDepth frames
// takes at most 10 MB), a location, a function, a mapping. Strings are cut
// at MaxNameBytes instead.
const MaxField = 32 << 20

// KnownFields counts data's top-level fields when ReadFields
// would copy every one as it is: fields pprof reads, none over the limits.
func KnownFields(data []byte) (*Counts, bool) {
	head := data[:min(len(data), 512)]
	if len(data) < 2 || IsGzip(data[:2]) || LooksLikeText(head) || bytes.HasPrefix(head, []byte{0, 0, 0, 0}) {
		return nil, false
	}
	var n Counts
	for b := data; len(b) > 0; {
		if b[0] == 2<<3|2 { // a sample, most of the fields: no call to next
			l, k := varint(b[1:])
			if k == 0 || l > uint64(len(b)-1-k) || l > MaxField {
				return nil, false
			}
			n.samples++
			b = b[1+k+int(l):]
			continue
		}
		f, rest, ok := next(b)
		if !ok || f.num < 1 || f.num > 15 || (f.typ == 2 && (len(f.data) > MaxField || (f.num == 6 && len(f.data) > MaxNameBytes))) {
			return nil, false
		}
		n.add(f.num)
		b = rest
	}
	return &n, true
}

// A WholeGzip is a gzipped profile in a regular file, which the pprof
// reader decompresses whole with gunzipWhole rather than through
// compress/gzip's stream: pprof reads the profile whole anyway.
type WholeGzip struct {
	f     io.ReaderAt
	size  int64
	raw   io.Reader // the file as read reads it, which a progress bar may count
	limit int64     // Options.MaxDecompressed
}

// maxWholeGzip bounds the files read whole; maxWholeRatio bounds how many
// times its size a file may decompress to, by its trailer: a bigger file,
// or one that expands more (a gzip bomb, a profile with a giant field to
// skip), is streamed, so that it takes no more memory than the fields
// pprof reads.
const (
	maxWholeGzip  = 1 << 30
	maxWholeRatio = 16
)

// NewWholeGzip returns r, the input read reads through raw, as a
// WholeGzip, or nil when it is not a regular file (or is standard input,
// which may not be read from its start).
func NewWholeGzip(r, raw io.Reader, limit int64) *WholeGzip {
	f, ok := r.(interface {
		Stat() (fs.FileInfo, error)
		io.ReaderAt
	})
	if !ok || r == io.Reader(os.Stdin) {
		return nil
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < 18 {
		return nil
	}
	return &WholeGzip{f: f, size: st.Size(), raw: raw, limit: limit}
}

// gzBufs pools the compressed bytes of files read whole, as pprofBufs
// does the decompressed, those of up to maxPooledGzBuf (a 20,000-stack
// profile's are 0.4 MB): a diff of one big profile a side gains nothing
// from keeping its 3 MB beside the trees being built.
var gzBufs sync.Pool

const maxPooledGzBuf = 1 << 20

// Size returns the size of the file, gzipped.
func (w *WholeGzip) Size() int64 { return w.size }

// Read returns the file decompressed, ok false when it is not read whole
// (w is nil, it expands too much, or gunzipWhole refuses it): the caller
// then streams it. Once it is read, the rest of raw is read too, for a
// progress bar that counts it.
func (w *WholeGzip) Read() ([]byte, bool) {
	if w == nil || w.size > maxWholeGzip { // (a bigger one is kept for its size: pprofStreams)
		return nil, false
	}
	var zb []byte
	if b, ok := gzBufs.Get().(*[]byte); ok && int64(cap(*b)) >= w.size {
		zb = (*b)[:w.size]
	} else {
		zb = make([]byte, w.size)
	}
	defer func() {
		if cap(zb) <= maxPooledGzBuf {
			gzBufs.Put(&zb)
		}
	}()
	if _, err := w.f.ReadAt(zb, 0); err != nil {
		return nil, false
	}
	size := int64(binary.LittleEndian.Uint32(zb[len(zb)-4:])) // of the last member, mod 4 GiB
	if size > maxWholeRatio*w.size+64<<10 {
		return nil, false
	}
	// A file of several members (pprofio writes 4 MB ones) records only
	// the last one's size: the whole is bounded by the ratio, and a size
	// below the file's is taken for such a last member's (out grows past
	// a guess that is short).
	if size < w.size {
		size = 4 * w.size
	}
	out := GetBuf(int(size))
	data, ok := gunzipWhole(zb, out, min(w.limit, maxWholeRatio*w.size+64<<10))
	if !ok {
		PutBuf(data)
		return nil, false
	}
	_, _ = io.Copy(io.Discard, w.raw)
	return data, true
}

// IsGzip reports whether magic is gzip's.
func IsGzip(magic []byte) bool { return len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b }

// LooksLikeText reports a head of printable ASCII: a legacy text profile,
// whose first bytes can also be protobuf keys.
func LooksLikeText(head []byte) bool {
	for _, c := range head {
		if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c >= 0x7f {
			return false
		}
	}
	return true
}

// ReadFields copies the top-level fields of a profile.proto that pprof
// reads, as they are, and skips the others, into a buffer of about hint
// bytes (GetBuf): readPprofData's steps but the second layer of gzip and
// the legacy formats. cut is the number of strings of the string table
// cut to MaxNameBytes.
func ReadFields(r *bufio.Reader, hint int) (data []byte, counts *Counts, cut int, err error) {
	return (&pprofFieldReader{r: r}).fields(GetBuf(hint))
}

// fields is ReadFields reading with pr, into out; the samples go to
// pr.sample instead when it is set.
func (pr *pprofFieldReader) fields(out []byte) ([]byte, *Counts, int, error) {
	cut := 0
	for {
		out = pr.copyKnown(out)
		if pr.err != nil {
			return nil, nil, 0, pr.err
		}
		// The field copyKnown stopped at: one to skip or cut, one that
		// crosses the end of the buffer, or the end of the input.
		at, start := pr.off, len(out)
		key, err := pr.varint(&out)
		if err == io.EOF && pr.off == at {
			break
		}
		if err != nil {
			return nil, nil, 0, pprofFieldError(at, "a field's key", err)
		}
		num, wire := key>>3, key&7
		known := num >= 1 && num <= 15 // what pprof decodes; it skips the rest
		switch wire {
		case 0:
			_, err = pr.varint(&out)
		case 1:
			out, err = pr.read(out, 8)
		case 5:
			out, err = pr.read(out, 4)
		case 2:
			var lenBytes []byte
			var size uint64
			if size, err = pr.varint(&lenBytes); err != nil {
				break
			}
			switch {
			case !known:
				err = pr.discard(size)
			case num == 6 && size > MaxNameBytes:
				cut++
				out, err = pr.cutString(out, size)
			case size > MaxField:
				return nil, nil, 0, errAtOffset(at, "field %d (%s) is %d bytes, more than the limit of %d for one; not a profile ctdiff can read",
					num, pprofFieldName(num), size, MaxField)
			case num == 2 && pr.sample != nil:
				if pr.buf, err = pr.read(pr.buf[:0], int(size)); err == nil {
					if err = pr.sample(pr.buf, at); err != nil {
						return nil, nil, 0, err
					}
				}
				known = false // not in out
			default:
				out = append(out, lenBytes...)
				out, err = pr.read(out, int(size))
			}
		default:
			return nil, nil, 0, errAtOffset(at, "not a valid pprof profile: field %d has wire type %d, which profile.proto does not use", num, wire)
		}
		if err != nil {
			return nil, nil, 0, pprofFieldError(at, fmt.Sprintf("field %d", num), err)
		}
		if known {
			pr.counts.add(int(num))
		} else {
			out = out[:start]
		}
	}
	return out, &pr.counts, cut, nil
}

// pprofBufs holds the buffers of profiles already decoded, for the next
// file a goroutine reads: runs of profiles of one size reuse one buffer.
// Buffers above maxPooledPprofBuf (a 100,000-stack profile's) are left to
// the collector, so that a big profile's bytes are not kept alive beside
// its trees: pooling the 200,000-stack pair's 16 MB ones raised the
// diff's peak RSS by 25-45 MB.
var pprofBufs sync.Pool

const maxPooledPprofBuf = 8 << 20

// GetBuf returns an empty buffer for a profile of about hint bytes.
func GetBuf(hint int) []byte {
	if b, ok := pprofBufs.Get().(*[]byte); ok && cap(*b) >= hint {
		return (*b)[:0]
	}
	// A little room above the hint for a buffer that will be pooled: the
	// next run of a profile is rarely exactly as long.
	if hint <= maxPooledPprofBuf {
		hint += hint / 8
	}
	return make([]byte, 0, hint)
}

// PutBuf gives back a buffer GetBuf returned, once nothing
// refers to its bytes any more (the decoders copy the strings they keep).
func PutBuf(b []byte) {
	if cap(b) == 0 || cap(b) > maxPooledPprofBuf {
		return
	}
	pprofBufs.Put(&b)
}

// pprofFieldReader reads a profile.proto's fields, counting bytes.
type pprofFieldReader struct {
	r      *bufio.Reader
	off    int64
	counts Counts // of the fields copied
	// sample, when not nil, takes each Sample message (valid only during
	// the call) and its offset instead of out; err is its error.
	sample func(b []byte, at int64) error
	err    error
	buf    []byte // a sample that crosses the end of r's buffer
}

// copyKnown appends the fields pprof reads that lie whole in r's buffer,
// as long as they are ones to keep as they are: most of a profile, copied
// a buffer at a time.
func (pr *pprofFieldReader) copyKnown(out []byte) []byte {
	for {
		if pr.r.Buffered() == 0 {
			if _, err := pr.r.Peek(1); err != nil {
				return out
			}
		}
		w, _ := pr.r.Peek(pr.r.Buffered())
		i, from := 0, 0 // w[from:i] is still to copy
		for i < len(w) {
			if w[i] == 2<<3|2 { // a sample, most of the fields: no call to next
				l, n := varint(w[i+1:])
				if n == 0 || l > uint64(len(w)-i-1-n) || l > MaxField {
					break
				}
				end := i + 1 + n + int(l)
				if pr.sample == nil {
					pr.counts.samples++
				} else {
					out = append(out, w[from:i]...)
					if pr.err = pr.sample(w[i+1+n:end], pr.off+int64(i)); pr.err != nil {
						return out
					}
					from = end
				}
				i = end
				continue
			}
			f, rest, ok := next(w[i:])
			if !ok || f.num < 1 || f.num > 15 || (f.typ == 2 && (len(f.data) > MaxField || (f.num == 6 && len(f.data) > MaxNameBytes))) {
				break
			}
			pr.counts.add(f.num)
			i = len(w) - len(rest)
		}
		if i == 0 {
			return out
		}
		out = append(out, w[from:i]...)
		pr.r.Discard(i)
		pr.off += int64(i)
	}
}

// varint reads a varint as pprof does (at most 10 bytes), appending its
// bytes to *raw. io.EOF means the input ended before its first byte.
func (pr *pprofFieldReader) varint(raw *[]byte) (uint64, error) {
	var u uint64
	for i := range 10 {
		c, err := pr.r.ReadByte()
		if err != nil {
			if i > 0 && err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return 0, err
		}
		pr.off++
		*raw = append(*raw, c)
		u |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return u, nil
		}
	}
	return 0, errBadVarint
}

// read appends the next n bytes to b.
func (pr *pprofFieldReader) read(b []byte, n int) ([]byte, error) {
	start := len(b)
	if cap(b)-start < n {
		// At least doubling: the final size is unknown, and growing by a
		// field at a time would copy the profile each time.
		nb := make([]byte, start, max(2*cap(b), start+n, 64<<10))
		copy(nb, b)
		b = nb
	}
	b = b[:start+n]
	k, err := io.ReadFull(pr.r, b[start:])
	pr.off += int64(k)
	if err != nil {
		return b[:start], err
	}
	return b, nil
}

// discard skips the next n bytes.
func (pr *pprofFieldReader) discard(n uint64) error {
	for n > 0 {
		d, err := pr.r.Discard(int(min(n, 1<<30)))
		n -= uint64(d)
		pr.off += int64(d)
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return err
		}
	}
	return nil
}

// cutString appends a string field of size bytes cut to its first
// MaxNameBytes (less a UTF-8 sequence that would be split), and skips
// the rest.
func (pr *pprofFieldReader) cutString(out []byte, size uint64) ([]byte, error) {
	s, err := pr.read(nil, MaxNameBytes)
	if err != nil {
		return out, err
	}
	keep := len(s)
	if rest, _ := pr.r.Peek(1); len(rest) == 1 && !utf8.RuneStart(rest[0]) {
		for i := len(s) - 1; i >= len(s)-utf8.UTFMax+1; i-- {
			if utf8.RuneStart(s[i]) {
				keep = i
				break
			}
		}
	}
	out = appendVarintBytes(out, uint64(keep)) // after the key, already in out
	return append(out, s[:keep]...), pr.discard(size - MaxNameBytes)
}

// pprofFieldName names a top-level field of profile.proto in errors.
func pprofFieldName(num uint64) string {
	names := [...]string{1: "sample_type", 2: "sample", 3: "mapping", 4: "location", 5: "function", 6: "string_table",
		11: "period_type", 13: "comment"}
	if num < uint64(len(names)) && names[num] != "" {
		return names[num]
	}
	return "a scalar"
}

func pprofFieldError(off int64, what string, err error) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return errAtOffset(off, "not a valid pprof profile: %s is cut off by the end of the input", what)
	}
	if errors.Is(err, errBadVarint) {
		return errAtOffset(off, "not a valid pprof profile: %s is a malformed varint", what)
	}
	return err
}

var errBadVarint = errors.New("malformed varint")

func appendVarintBytes(b []byte, u uint64) []byte {
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}
