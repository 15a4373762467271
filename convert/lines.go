package convert

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxLineBytes bounds one line of a text format. Deep stacks make long lines
// (100,000 frames of 40 bytes is 4 MB), so the bound is generous; it exists
// so that a file without newlines cannot take all memory.
const maxLineBytes = 256 << 20

// A lineReader reads lines of any length from a text input without copying
// short ones, counting line numbers for error messages. Its API follows
// bufio.Scanner: Scan, Bytes, Err. The slice returned by Bytes is valid until
// the next Scan.
type lineReader struct {
	r    *bufio.Reader
	buf  []byte
	line []byte
	n    int
	err  error
	// limit is the longest line read: maxLineBytes but in tests.
	limit int
}

// newLineReader returns a LineReader over r.
func newLineReader(r *bufio.Reader) *lineReader { return &lineReader{r: r, limit: maxLineBytes} }

// Scan advances to the next line, reporting false at the end or on error.
// The line excludes its "\n" or "\r\n".
func (l *lineReader) Scan() bool {
	if l.err != nil {
		return false
	}
	b, err := l.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		l.buf = append(l.buf[:0], b...)
		for err == bufio.ErrBufferFull {
			b, err = l.r.ReadSlice('\n')
			if len(l.buf)+len(b) > l.limit {
				// Refused before it is buffered further: the buffer never
				// exceeds the limit, however long the line.
				l.err = fmt.Errorf("line %d: longer than %d bytes", l.n+1, l.limit)
				l.buf = nil
				return false
			}
			l.buf = growLine(l.buf, len(b), l.limit)
			l.buf = append(l.buf, b...)
		}
		b = l.buf
	}
	if err != nil && err != io.EOF {
		l.err = err
		return false
	}
	if len(b) == 0 && err == io.EOF {
		l.err = io.EOF
		return false
	}
	l.n++
	b = bytes.TrimSuffix(b, []byte{'\n'})
	l.line = bytes.TrimSuffix(b, []byte{'\r'})
	if err == io.EOF {
		l.err = io.EOF
	}
	return true
}

// growLine makes room for n more bytes in buf, doubling its capacity up
// to limit: append's growth by a quarter near the limit made a
// dozen copies of a long line, whose garbage took 0.8-1.3 GB for a line
// refused at 256 MiB.
func growLine(buf []byte, n, limit int) []byte {
	if len(buf)+n <= cap(buf) {
		return buf
	}
	c := min(max(2*cap(buf), len(buf)+n, 64<<10), limit)
	grown := make([]byte, len(buf), c)
	copy(grown, buf)
	return grown
}

// Bytes returns the current line.
func (l *lineReader) Bytes() []byte { return l.line }

// Line returns the 1-based number of the current line.
func (l *lineReader) Line() int { return l.n }

// Err returns the first non-EOF error.
func (l *lineReader) Err() error {
	if errors.Is(l.err, io.EOF) {
		return nil
	}
	return l.err
}

// firstLine returns the first non-blank line of head that does not start
// with one of the comment prefixes, and whether it is complete (ended by a
// newline within head).
func firstLine(head []byte, comments ...string) ([]byte, bool) {
	for len(head) > 0 {
		i := bytes.IndexByte(head, '\n')
		line, complete := head, false
		if i >= 0 {
			line, head, complete = head[:i], head[i+1:], true
		} else {
			head = nil
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 || hasAnyPrefix(t, comments) {
			continue
		}
		return t, complete
	}
	return nil, false
}

func hasAnyPrefix(b []byte, prefixes []string) bool {
	for _, p := range prefixes {
		if bytes.HasPrefix(b, []byte(p)) {
			return true
		}
	}
	return false
}
