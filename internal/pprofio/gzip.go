package pprofio

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"

	kgzip "github.com/klauspost/compress/gzip"
)

// chunkSize is how much uncompressed output a gzip member holds, and
// maxInFlight how many members are compressed at once while the next
// fills: at BestSpeed compressing took 10.7 s of the 25 s of converting a
// 500 MB DevTools trace on one core, and the encoder keeps a second busy
// for less. The memory is bounded: (maxInFlight+1) chunks, their
// compressed copies and compressors, about 25 MB.
const (
	chunkSize   = 4 << 20
	maxInFlight = 3
)

// memberLevel is the level of klauspost/compress's deflate that several
// members are compressed at: its fastest, as compress/flate's BestSpeed was
// before it. On the 515 MB trace's 3.3 GB of profile.proto it is 2.1×
// BestSpeed's speed for 1.3% more bytes (780 against 365 MB/s on one core;
// level 3 writes 4.4% fewer bytes than level 1 at 568 MB/s, and made convert
// 9.0-9.9 s where level 1 takes 7.8-9.4 s: BENCHMARKS.md). An output of one
// member keeps compress/gzip's BestSpeed bytes, as runtime/pprof writes
// them.
const memberLevel = 1

// A gzipWriter compresses what is written to it as gzip members of
// chunkSize uncompressed bytes compressed in parallel at memberLevel
// (RFC 1952 §2.2: a gzip file is a series of members, which every gzip
// reader, compress/gzip's and so profile.Parse's, reads as one stream).
// An output of at most chunkSize bytes is one member, the bytes one
// gzip.Writer writes at gzip.BestSpeed.
type gzipWriter struct {
	w     io.Writer
	cur   *chunk   // filling
	queue []*chunk // compressing, oldest first
	free  []*chunk
	multi bool // a member has gone to compression
	err   error
}

// A chunk is one member's input, its compressed bytes and its compressor.
type chunk struct {
	in   []byte
	out  bytes.Buffer
	zw   *kgzip.Writer
	done chan error
}

func newGzipWriter(w io.Writer) *gzipWriter {
	return &gzipWriter{w: w, cur: &chunk{}}
}

func (g *gzipWriter) Write(b []byte) (int, error) {
	n := len(b)
	if c := g.cur.in; g.err == nil && len(b) < chunkSize-len(c) && c != nil {
		g.cur.in = append(c, b...) // the encoder's many small writes
		return n, nil
	}
	for len(b) > 0 {
		if g.err != nil {
			return n - len(b), g.err
		}
		room := chunkSize - len(g.cur.in)
		if room == 0 {
			// Only now, with more to come, is the chunk not the last: an
			// output of exactly chunkSize bytes stays one member.
			g.submit()
			continue
		}
		if g.cur.in == nil {
			g.cur.in = make([]byte, 0, min(chunkSize, max(len(b), 64<<10)))
		}
		k := min(room, len(b))
		g.cur.in = append(g.cur.in, b[:k]...)
		b = b[k:]
	}
	return n, g.err
}

// appendField appends a length-delimited field holding msg to the chunk
// filling, as a Write of its tag and length and one of msg would, when
// it fits; it reports whether it did.
func (g *gzipWriter) appendField(tag int, msg []byte) bool {
	c := g.cur.in
	if g.err != nil || c == nil || len(msg)+2*binary.MaxVarintLen64 >= chunkSize-len(c) {
		return false
	}
	c = appendVarint(appendVarint(c, uint64(tag)<<3|2), uint64(len(msg)))
	g.cur.in = append(c, msg...)
	return true
}

// appendParts is appendField for a message of three parts.
func (g *gzipWriter) appendParts(tag int, a, b, c []byte) bool {
	n := len(a) + len(b) + len(c)
	cur := g.cur.in
	if g.err != nil || cur == nil || n+2*binary.MaxVarintLen64 >= chunkSize-len(cur) {
		return false
	}
	cur = appendVarint(appendVarint(cur, uint64(tag)<<3|2), uint64(n))
	g.cur.in = append(append(append(cur, a...), b...), c...)
	return true
}

// submit starts compressing the filled chunk, first writing out the oldest
// member when maxInFlight are in flight.
func (g *gzipWriter) submit() {
	if len(g.queue) == maxInFlight {
		g.retire()
	}
	c := g.cur
	if c.zw == nil {
		c.zw, _ = kgzip.NewWriterLevel(&c.out, memberLevel) // a valid level: no error
		c.done = make(chan error, 1)
	} else {
		c.zw.Reset(&c.out)
	}
	c.out.Reset()
	go func() {
		_, err := c.zw.Write(c.in)
		if cerr := c.zw.Close(); err == nil {
			err = cerr
		}
		c.done <- err
	}()
	g.queue = append(g.queue, c)
	g.multi = true
	if n := len(g.free); n > 0 {
		g.cur, g.free = g.free[n-1], g.free[:n-1]
	} else {
		g.cur = &chunk{in: make([]byte, 0, chunkSize)}
	}
}

// retire waits for the oldest member and writes it out, keeping the first
// error.
func (g *gzipWriter) retire() {
	c := g.queue[0]
	g.queue = append(g.queue[:0], g.queue[1:]...)
	err := <-c.done
	if g.err == nil {
		g.err = err
	}
	if g.err == nil {
		_, g.err = g.w.Write(c.out.Bytes())
	}
	c.in = c.in[:0]
	g.free = append(g.free, c)
}

// Close writes what is left, waiting for every member in flight (even
// after an error, so that no compressor outlives it), and returns the
// first error.
func (g *gzipWriter) Close() error {
	if !g.multi {
		if g.err != nil {
			return g.err
		}
		zw, _ := gzip.NewWriterLevel(g.w, gzip.BestSpeed)
		if _, g.err = zw.Write(g.cur.in); g.err == nil {
			g.err = zw.Close()
		}
		return g.err
	}
	if g.err == nil && len(g.cur.in) > 0 {
		g.submit()
	}
	for len(g.queue) > 0 {
		g.retire()
	}
	return g.err
}

// compressed calls write with a gzipWriter on w and closes it, returning
// write's error first.
func compressed(w io.Writer, write func(io.Writer) error) error {
	zw := newGzipWriter(w)
	if err := write(zw); err != nil {
		_ = zw.Close()
		return err
	}
	return zw.Close()
}
