package convert

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// jsonStream walks a large JSON document without holding it in memory. It
// tokenizes only the containers (the trace's event array, a document's
// top-level keys) and hands each element over as raw bytes, to be decoded by
// encoding/json or skipped unread.
//
// encoding/json's Decoder (Token/More) is not used for the containers because
// its errors are sticky: after the trailing comma DevTools tolerates in
// `[{...},]` it cannot go on to the "metadata" key that may follow, and it
// reports a missing final ']' like a truncated event. Here both are
// recognised, and every error carries the byte offset.
type jsonStream struct {
	r     *bufio.Reader
	off   int64  // offset of the next unread byte
	buf   []byte // the last value read with keep
	stack []byte // open brackets of the value being scanned
	cut   int    // strings cut to MaxNameBytes
	// searched counts the bytes the string scan searched for a quote or
	// a backslash: linear in the input whatever its escapes.
	searched int64
}

// warnCut warns about the strings the stream cut.
func (s *jsonStream) warnCut(in *parserInput) {
	if s.cut > 0 {
		in.Warnf("%d strings are longer than %d bytes; each is cut to its first %d bytes", s.cut, maxNameBytes, maxNameBytes)
	}
}

func newJSONStream(r *bufio.Reader) *jsonStream { return &jsonStream{r: r} }

// peek returns the next byte that is not white space, without consuming it;
// io.EOF at the end of input.
func (s *jsonStream) peek() (byte, error) {
	for {
		b, err := s.r.Peek(1)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return 0, io.EOF
			}
			return 0, err
		}
		switch b[0] {
		case ' ', '\t', '\n', '\r':
			s.skip(1)
		case 0xEF: // a UTF-8 byte order mark, as Windows tools write
			if bom, _ := s.r.Peek(3); bytes.Equal(bom, []byte{0xEF, 0xBB, 0xBF}) && s.off == 0 {
				s.skip(3)
				continue
			}
			return b[0], nil
		default:
			return b[0], nil
		}
	}
}

func (s *jsonStream) skip(n int) {
	d, _ := s.r.Discard(n)
	s.off += int64(d)
}

// expect consumes the next non-space byte, which must be c.
func (s *jsonStream) expect(c byte, what string) error {
	b, err := s.peek()
	if err != nil {
		return s.eofError(err, "expected %s", what)
	}
	if b != c {
		return errAtOffset(s.off, "expected %s, found %s", what, quoteByte(b))
	}
	s.skip(1)
	return nil
}

func (s *jsonStream) eofError(err error, format string, args ...any) error {
	if errors.Is(err, io.EOF) {
		return errAtOffset(s.off, format+", found the end of the input", args...)
	}
	return err
}

func quoteByte(b byte) string {
	if b >= 0x20 && b < 0x7f {
		return strconv.QuoteRune(rune(b))
	}
	return fmt.Sprintf("byte 0x%02x", b)
}

// An arrayIter walks the elements of a JSON array. Like DevTools' loader it
// accepts a trailing comma and, at the end of the input, a missing ']'
// (recordings cut short); Unclosed reports the latter.
type arrayIter struct {
	s        *jsonStream
	n        int
	Unclosed bool
}

// array consumes the '[' that starts an array.
func (s *jsonStream) array(what string) (*arrayIter, error) {
	if err := s.expect('[', "'[' starting "+what); err != nil {
		return nil, err
	}
	return &arrayIter{s: s}, nil
}

// Next reports whether another element follows; the caller then reads it
// with value or skipValue.
func (a *arrayIter) Next() (bool, error) {
	s := a.s
	c, err := s.peek()
	if a.n > 0 && err == nil && c == ',' {
		s.skip(1)
		c, err = s.peek()
		if err == nil && c == ']' { // trailing comma
			s.skip(1)
			return false, nil
		}
	} else if err == nil && c == ']' {
		s.skip(1)
		return false, nil
	} else if a.n > 0 && err == nil {
		return false, errAtOffset(s.off, "expected ',' or ']' after array element %d, found %s", a.n-1, quoteByte(c))
	}
	if errors.Is(err, io.EOF) {
		a.Unclosed = true
		return false, nil
	}
	if err != nil {
		return false, err
	}
	a.n++
	return true, nil
}

// object walks the keys of a JSON object, calling fn with each key; fn must
// consume the key's value. A missing '}' at the end of input is accepted
// only after an unclosed array (a truncated trace).
func (s *jsonStream) object(what string, fn func(key string) error) error {
	if err := s.expect('{', "'{' starting "+what); err != nil {
		return err
	}
	for n := 0; ; n++ {
		c, err := s.peek()
		if err != nil {
			return s.eofError(err, "expected a key or '}' in %s", what)
		}
		if c == '}' {
			s.skip(1)
			return nil
		}
		if n > 0 {
			if c != ',' {
				return errAtOffset(s.off, "expected ',' or '}' in %s, found %s", what, quoteByte(c))
			}
			s.skip(1)
			if c, err = s.peek(); err == nil && c == '}' { // trailing comma
				s.skip(1)
				return nil
			}
		}
		key, err := s.key(what)
		if err != nil {
			return err
		}
		if err := fn(key); err != nil {
			return err
		}
	}
}

// key reads `"name":`.
func (s *jsonStream) key(what string) (string, error) {
	c, err := s.peek()
	if err != nil {
		return "", s.eofError(err, "expected a key in %s", what)
	}
	if c != '"' {
		return "", errAtOffset(s.off, "expected a quoted key in %s, found %s", what, quoteByte(c))
	}
	start := s.off
	raw, err := s.value(true)
	if err != nil {
		return "", err
	}
	var k string
	if err := json.Unmarshal(raw, &k); err != nil {
		return "", errAtOffset(start, "bad key in %s: %v", what, err)
	}
	return k, s.expect(':', "':' after key "+strconv.Quote(k))
}

// value consumes the next JSON value. With keep it returns the value's bytes,
// valid until the next call on the stream (they may be the reader's own
// buffer); otherwise nil. It checks only the structure
// (brackets and strings balance); encoding/json validates what is decoded.
func (s *jsonStream) value(keep bool) ([]byte, error) {
	s.buf = s.buf[:0]
	c, err := s.peek()
	if err != nil {
		return nil, s.eofError(err, "expected a value")
	}
	start := s.off
	var v []byte
	switch c {
	case '{', '[', '"':
		v, err = s.composite(keep)
	case ',', ']', '}', ':':
		return nil, errAtOffset(s.off, "expected a value, found %s", quoteByte(c))
	default:
		err = s.scalar(keep)
		v = s.buf
	}
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errAtOffset(start, "the value starting here is cut off by the end of the input")
		}
		return nil, err
	}
	if !keep {
		return nil, nil
	}
	return v, nil
}

// maxJSONScalar bounds a number or literal (true, false, null) that is
// kept: real ones are a few dozen bytes, and a longer one would only take
// memory.
const maxJSONScalar = 1024

// scalar reads a number or literal: everything up to a delimiter.
func (s *jsonStream) scalar(keep bool) error {
	start := s.off
	for {
		w, err := s.window()
		if errors.Is(err, io.EOF) {
			return nil // a scalar may end the input
		}
		if err != nil {
			return err
		}
		i := 0
		for i < len(w) && !isDelim(w[i]) {
			i++
		}
		if keep {
			if len(s.buf)+i > maxJSONScalar {
				return errAtOffset(start, "expected a number or literal, found more than %d bytes without a delimiter", maxJSONScalar)
			}
			s.buf = append(s.buf, w[:i]...)
		}
		s.skip(i)
		if i < len(w) {
			return nil
		}
	}
}

func isDelim(c byte) bool {
	switch c {
	case ',', ']', '}', ':', ' ', '\t', '\n', '\r', '"', '[', '{':
		return true
	}
	return false
}

// composite reads an object, array or string, tracking brackets and string
// escapes across buffer refills. A value that lies within the reader's
// buffer is returned in place, without a copy: most events do. A longer
// one is copied without the white space between its tokens, its strings
// cut to MaxNameBytes (counted in s.cut) and its numbers bounded by
// maxJSONScalar, so that one huge token cannot take much memory.
func (s *jsonStream) composite(keep bool) ([]byte, error) {
	s.stack = s.stack[:0]
	var st scanState
	for first := true; ; first = false {
		w, err := s.window()
		if err != nil {
			return nil, err
		}
		var out *[]byte
		if keep && !first {
			out = &s.buf
		}
		i, done, err := s.scan(w, &st, out)
		if err != nil {
			return nil, err
		}
		if done && first {
			// The bytes stay in the reader's buffer until its next fill,
			// which only a later call on the stream can cause.
			s.skip(i)
			return w[:i], nil
		}
		if keep && first {
			// Copy the first window after all, scanning it again.
			s.stack, st = s.stack[:0], scanState{}
			if _, _, err := s.scan(w[:i], &st, &s.buf); err != nil {
				return nil, err
			}
		}
		s.skip(i)
		if done {
			return s.buf, nil
		}
	}
}

// scanState is where composite's scan is between windows.
type scanState struct {
	inString, escaped bool
	// With a copy: where the current string's content starts in it,
	// whether the rest of the string is being dropped, and how long the
	// current number or literal is so far.
	strStart int
	dropping bool
	scalar   int
}

// scan scans w, the window at s.off, from state st, and reports how many
// bytes the value takes of it and whether it ends there. With out, it
// appends what it scanned to *out, less white space between tokens, with
// strings cut to MaxNameBytes.
func (s *jsonStream) scan(w []byte, st *scanState, out *[]byte) (int, bool, error) {
	seg := 0 // start of the bytes of w not yet appended (with out)
	flush := func(i int) {
		if out != nil && !st.dropping {
			*out = append(*out, w[seg:i]...)
		}
		seg = i
	}
	i := 0
	quote := -1 // where in w the first '"' at or after i is (len(w): none), once searched
	for i < len(w) {
		if st.inString {
			if st.escaped {
				st.escaped = false
				i++
				continue
			}
			esc := -1
			switch w[i] {
			case '\\': // escapes next to each other: no search
				esc = i
				s.searched++
			case '"':
				quote = i
				s.searched++
			default:
				esc, quote = s.stringEnd(w, i, quote)
			}
			if esc >= 0 {
				i = esc + 1
				st.escaped = true
				continue
			}
			if quote == len(w) {
				i = len(w)
				break
			}
			i = quote
			st.inString = false
			if out != nil {
				flush(i)
				s.cutString(out, st)
				st.dropping = false
			}
			i++
			if len(s.stack) == 0 { // a bare string value
				flush(i)
				return i, true, nil
			}
			continue
		}
		c := w[i]
		if out != nil {
			switch c {
			case ' ', '\t', '\n', '\r':
				flush(i)
				seg = i + 1
				st.scalar = 0
				i++
				continue
			case '"', '{', '[', '}', ']', ',', ':':
				st.scalar = 0
			default:
				if st.scalar++; st.scalar > maxJSONScalar {
					return 0, false, errAtOffset(s.off+int64(i), "expected a number or literal, found more than %d bytes without a delimiter", maxJSONScalar)
				}
			}
		}
		switch c {
		case '"':
			st.inString = true
			if out != nil {
				st.strStart = len(*out) + i + 1 - seg
			}
		case '{', '[':
			s.stack = append(s.stack, c)
		case '}', ']':
			open := byte('{')
			if c == ']' {
				open = '['
			}
			if len(s.stack) == 0 || s.stack[len(s.stack)-1] != open {
				return 0, false, errAtOffset(s.off+int64(i), "unbalanced %s", quoteByte(c))
			}
			s.stack = s.stack[:len(s.stack)-1]
			if len(s.stack) == 0 {
				i++
				flush(i)
				return i, true, nil
			}
		}
		i++
	}
	flush(i)
	if st.inString && out != nil {
		s.cutString(out, st)
	}
	return i, false, nil
}

// cutString cuts the string being copied to *out, whose content starts
// at st.strStart, to MaxNameBytes, where no escape sequence or UTF-8
// sequence is split, and has the rest of it dropped.
func (s *jsonStream) cutString(out *[]byte, st *scanState) {
	c := (*out)[st.strStart:]
	if st.dropping || len(c) <= maxNameBytes {
		return
	}
	k := 0
	for k < maxNameBytes {
		n := 1
		if c[k] == '\\' {
			n = 2
			if k+1 < len(c) && c[k+1] == 'u' {
				n = 6
			}
		}
		if k+n > maxNameBytes {
			break
		}
		k += n
	}
	for k > 0 && !utf8.RuneStart(c[k]) {
		k--
	}
	*out = (*out)[:st.strStart+k]
	st.dropping = true
	s.cut++
}

// stringEnd finds where the string scanned at w[i] stops: the first
// backslash before the next quote (esc, else -1), and that quote (len(w)
// when the window holds none). quote is what it returned before for this
// window, -1 at first: a quote found past an escape is searched for once,
// not again after each escape, so that the scan is linear in the input
// however dense its escapes. Two vectorized searches beat a byte loop.
func (s *jsonStream) stringEnd(w []byte, i, quote int) (esc, q int) {
	if quote < i {
		quote = len(w)
		if k := bytes.IndexByte(w[i:], '"'); k >= 0 {
			quote = i + k
		}
		s.searched += int64(min(quote+1, len(w)) - i)
	}
	esc = bytes.IndexByte(w[i:quote], '\\')
	if esc < 0 {
		s.searched += int64(quote - i)
		return -1, quote
	}
	s.searched += int64(esc + 1)
	return i + esc, quote
}

// window returns the buffered unread bytes, filling the buffer if empty.
func (s *jsonStream) window() ([]byte, error) {
	if s.r.Buffered() == 0 {
		if _, err := s.r.Peek(1); err != nil {
			return nil, err
		}
	}
	return s.r.Peek(s.r.Buffered())
}

// numbers appends the elements of a JSON array of numbers (or null for an
// absent array), each multiplied by mul and rounded, without building the
// array in memory: .cpuprofile samples and timeDeltas run to millions.
// mul 0 reads node ids: integers, taken as they are.
func (s *jsonStream) numbers(dst []int64, mul int64, what string) ([]int64, error) {
	if c, err := s.peek(); err == nil && c == 'n' {
		start := s.off
		if v, err := s.value(true); err != nil || string(v) != "null" {
			return dst, errAtOffset(start, "expected an array of numbers for %s", what)
		}
		return dst, nil
	}
	it, err := s.array(what)
	if err != nil {
		return dst, err
	}
	for {
		more, err := it.Next()
		if err != nil || !more {
			if it.Unclosed {
				return dst, errAtOffset(s.off, "the %s array is cut off by the end of the input", what)
			}
			return dst, err
		}
		start := s.off
		v, err := s.value(true)
		if err != nil {
			return dst, err
		}
		if mul == 0 {
			n, ok := parseID(v)
			if !ok {
				return dst, errAtOffset(start, "expected an integer node id in %s, found %q", what, truncate(v, 40))
			}
			dst = append(dst, n)
			continue
		}
		n, ok := parseScaled(v, mul)
		if !ok {
			return dst, errAtOffset(start, "expected a number within ±2^60 in %s, found %q", what, truncate(v, 40))
		}
		dst = append(dst, n)
	}
}

// maxScaled bounds converted values (2^60 ns is 36 years) so that a
// timestamp plus a delta cannot overflow int64; sums of many values are
// checked where they are formed (addTime).
const maxScaled = 1 << 60

// parseScaled parses a JSON number and returns it times mul, rounded to an
// integer. Integers take an exact fast path; results beyond ±maxScaled are
// refused.
func parseScaled(v []byte, mul int64) (int64, bool) {
	if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
		if n > maxScaled/mul || n < -maxScaled/mul {
			return 0, false
		}
		return n * mul, true
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return 0, false
	}
	return scaleFloat(f, mul)
}

// parseID parses a node id: an integer, as "id" itself must be (a
// fraction such as 2.9 would silently name another node if rounded).
func parseID(v []byte) (int64, bool) {
	n, err := strconv.ParseInt(string(v), 10, 64)
	return n, err == nil
}

// scaleFloat returns f times mul, rounded, if it is within ±maxScaled.
func scaleFloat(f float64, mul int64) (int64, bool) {
	f = math.Round(f * float64(mul))
	if math.IsNaN(f) || f > maxScaled || f < -maxScaled {
		return 0, false
	}
	return int64(f), true
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "..."
	}
	return string(b)
}

// idList is a JSON array of node ids.
type idList []int64

func (l *idList) UnmarshalJSON(b []byte) error {
	v, err := parseNumberList(b, 0)
	*l = v
	return err
}

// usList is a JSON array of microseconds, kept in nanoseconds.
type usList []int64

func (l *usList) UnmarshalJSON(b []byte) error {
	v, err := parseNumberList(b, 1000)
	*l = v
	return err
}

// parseNumberList parses a JSON array of numbers (already validated by
// encoding/json) faster than reflection does, scaling each by mul; mul 0
// reads node ids, integers.
func parseNumberList(b []byte, mul int64) ([]int64, error) {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return nil, nil
	}
	if len(b) < 2 || b[0] != '[' {
		return nil, fmt.Errorf("expected an array of numbers, found %q", truncate(b, 20))
	}
	out := make([]int64, 0, bytes.Count(b, []byte{','})+1)
	for f := range bytes.SplitSeq(b[1:len(b)-1], []byte{','}) {
		f = bytes.TrimSpace(f)
		if len(f) == 0 {
			continue // the empty array
		}
		if mul == 0 {
			n, ok := parseID(f)
			if !ok {
				return nil, fmt.Errorf("expected an integer node id, found %q", truncate(f, 20))
			}
			out = append(out, n)
			continue
		}
		n, ok := parseScaled(f, mul)
		if !ok {
			return nil, fmt.Errorf("expected a number within ±2^60, found %q", truncate(f, 20))
		}
		out = append(out, n)
	}
	return out, nil
}
