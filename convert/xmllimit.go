package convert

import (
	"fmt"
	"io"
)

// encoding/xml holds a whole text node or tag in memory, and copies it
// while decoding, so one long enough takes several times its size. These
// bound what reaches it: white space beyond maxXMLSpace bytes in a row
// (which XML stack files only ever trim) is dropped, and a text node or tag
// longer than maxXMLToken, which no stack file holds, is refused.
const (
	maxXMLSpace = 4096
	maxXMLToken = 16 << 20
)

// xmlLimiter passes an XML document through, applying those bounds.
type xmlLimiter struct {
	r     io.Reader
	line  int // the line of the next byte, 1-based
	run   int // bytes since the last '<' or '>'
	space int // white space bytes in a row
	// newline: a newline of the white space run was passed (one is, which
	// keeps the lines of a literal stack apart).
	newline bool
}

func newXMLLimiter(r io.Reader) *xmlLimiter { return &xmlLimiter{r: r, line: 1} }

// xmlTokenError says where a text node or tag grew too long.
type xmlTokenError struct{ line int }

func (e *xmlTokenError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg()) }

func (e *xmlTokenError) msg() string {
	return fmt.Sprintf("more than %d bytes of text or of one tag without markup, which no stack file holds", maxXMLToken)
}

func (x *xmlLimiter) Read(p []byte) (int, error) {
	for {
		n, err := x.r.Read(p)
		k, ok := x.filter(p[:n])
		if !ok {
			return 0, &xmlTokenError{line: x.line}
		}
		if k > 0 || err != nil || n == 0 {
			return k, err
		}
	}
}

// xmlMarks are the bytes the limiter looks at one by one: white space and
// the ends of tags. Runs of other bytes are passed whole: a byte at a time
// was two fifths of reading a PerfView file of 20 M samples.
var xmlMarks = [256]bool{' ': true, '\t': true, '\r': true, '\n': true, '<': true, '>': true}

// filter applies the bounds to p in place, and returns how many bytes it
// kept, or false when a text node or tag grew too long.
func (x *xmlLimiter) filter(p []byte) (int, bool) {
	k := 0
	for i := 0; i < len(p); {
		j := i
		for j < len(p) && !xmlMarks[p[j]] {
			j++
		}
		if j > i {
			x.space, x.newline = 0, false
			if x.run += j - i; x.run > maxXMLToken {
				return 0, false
			}
			if k != i {
				copy(p[k:], p[i:j])
			}
			k += j - i
			if i = j; i == len(p) {
				break
			}
		}
		c := p[i]
		i++
		switch c {
		case ' ', '\t', '\r', '\n':
			x.space++
			if c == '\n' {
				x.line++
				if !x.newline {
					x.newline = true
					break
				}
			}
			if x.space > maxXMLSpace {
				continue
			}
		default: // '<', '>'
			x.space, x.run, x.newline = 0, -1, false
		}
		if x.run++; x.run > maxXMLToken {
			return 0, false
		}
		p[k] = c
		k++
	}
	return k, true
}
