package convert

import "bufio"

// PerfView's XML holds a <Sample> element per sample, 20 M of them in a
// minute's recording of every core, and encoding/xml took 4 µs of CPU
// for each (a token with its attributes as strings, DecodeElement for
// the body): 80 s for 20 M. scanSamples reads the usual form of a sample,
//
//	<Sample ID="0" Time="0.000" StackID="3" Metric="1.195" />
//
// itself, at a twentieth of that, and leaves anything else to the
// decoder: a sample with a body (a literal stack), attribute values with
// entities or characters beyond printable ASCII, names with a namespace
// prefix, comments, any other element. What it reads it reads as the
// decoder would (FuzzPerfViewScan compares them), and it reads only where
// the decoder holds no byte back: between tokens, with nothing unread.

// xmlInput is what the decoder reads: a bufio.Reader, as an io.ByteReader
// so that the decoder reads no byte ahead of its tokens, counting the
// bytes it gives.
type xmlInput struct {
	r *bufio.Reader
	n int64 // bytes taken from r, by the decoder or scanSamples
}

func (x *xmlInput) ReadByte() (byte, error) {
	c, err := x.r.ReadByte()
	if err == nil {
		x.n++
	}
	return c, err
}

func (x *xmlInput) Read(p []byte) (int, error) {
	n, err := x.r.Read(p)
	x.n += int64(n)
	return n, err
}

// scanSamples reads white space and <Sample .../> elements from x, the
// decoder's next bytes, as far as x holds them buffered (the decoder
// refills it: it reads a tag the buffer holds part of), and leaves the
// rest, from the first thing it does not read, unread. line is the line
// of the next byte.
func (pv *perfView) scanSamples(x *xmlInput, line int) error {
	w, _ := x.r.Peek(x.r.Buffered()) // no read: what is there
	n, lines, err := pv.scanWindow(w, line)
	x.r.Discard(n)
	x.n += int64(n)
	pv.scanned += int64(n)
	pv.lines += lines
	return err
}

// scanWindow reads what scanSamples reads from the buffered bytes w, and
// returns how many bytes and lines it read. It stops at a tag that w may
// hold only part of.
func (pv *perfView) scanWindow(w []byte, line int) (n, lines int, err error) {
	for {
		p, k := skipXMLSpace(w, n)
		lines += k
		n = p // white space is text the reader skips: read
		end, tagLines, ok := pv.sampleTag(w[p:])
		if !ok {
			return n, lines, nil
		}
		lines += tagLines
		s, err := newPerfViewSample(viewString(pv.sample[0]), pv.sample[0] != nil, viewString(pv.sample[1]), pv.sample[1] != nil,
			viewString(pv.sample[2]), pv.sample[2] != nil, line+lines)
		if err != nil {
			return n, lines - tagLines, err
		}
		at := line + lines
		if err := pv.add(s, func() *SyntaxError { return errAtLine(at, "") }); err != nil {
			return n, lines - tagLines, err
		}
		n = p + end
	}
}

// sampleTag reads a <Sample .../> tag at the start of w: its length and
// the lines it spans, with its Time, Metric and StackID values in
// pv.sample (nil when absent; the first of a name counts, as for the
// decoder). ok is false for anything else, or a tag w holds only part of.
func (pv *perfView) sampleTag(w []byte) (end, lines int, ok bool) {
	const open = "<Sample"
	if len(w) <= len(open) || string(w[:len(open)]) != open || !isXMLSpace(w[len(open)]) && w[len(open)] != '/' {
		return 0, 0, false
	}
	pv.sample = [3][]byte{}
	p := len(open)
	for {
		var n int
		p, n = skipXMLSpace(w, p)
		lines += n
		switch {
		case p+1 < len(w) && w[p] == '/' && w[p+1] == '>':
			return p + 2, lines, true
		case p >= len(w) || !isNameStart(w[p]):
			return 0, 0, false // '>' (a body), a name the decoder judges, or the window's end
		}
		name, value, q, n, ok := xmlAttr(w, p)
		if !ok {
			return 0, 0, false
		}
		pv.setSampleAttr(name, value)
		p, lines = q, lines+n
	}
}

// xmlAttr reads an attribute name="value" (or 'value') at w[p:] whose
// name is ASCII without a prefix and whose value is printable ASCII
// without entities: its name, its value, where it ends and the lines it
// spans. ok is false for any other (the decoder's to read), or one w
// holds only part of.
func xmlAttr(w []byte, p int) (name, value []byte, end, lines int, ok bool) {
	k := p
	for p < len(w) && isNameByte(w[p]) {
		p++
	}
	name = w[k:p]
	p, n := skipXMLSpace(w, p)
	lines += n
	if p >= len(w) || w[p] != '=' {
		return nil, nil, 0, 0, false
	}
	p, n = skipXMLSpace(w, p+1)
	lines += n
	if p >= len(w) || w[p] != '"' && w[p] != '\'' {
		return nil, nil, 0, 0, false
	}
	q := w[p]
	p++
	k = p
	for p < len(w) && w[p] != q {
		if c := w[p]; c < 0x20 || c > 0x7e || c == '&' || c == '<' {
			return nil, nil, 0, 0, false // entities, controls, UTF-8: the decoder's
		}
		p++
	}
	if p >= len(w) {
		return nil, nil, 0, 0, false
	}
	return name, w[k:p], p + 1, lines, true
}

// skipXMLSpace returns where the white space at w[p:] ends, and the lines
// it ends.
func skipXMLSpace(w []byte, p int) (int, int) {
	lines := 0
	for p < len(w) && isXMLSpace(w[p]) {
		if w[p] == '\n' {
			lines++
		}
		p++
	}
	return p, lines
}

// setSampleAttr keeps the value of a <Sample> attribute the reader reads,
// the first of its name.
func (pv *perfView) setSampleAttr(name, value []byte) {
	i := -1
	switch string(name) {
	case "Time":
		i = 0
	case "Metric":
		i = 1
	case "StackID":
		i = 2
	}
	if i >= 0 && pv.sample[i] == nil {
		pv.sample[i] = value[:len(value):len(value)]
	}
}

func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// isNameStart and isNameByte are the ASCII bytes of an XML name without a
// namespace prefix: other names (and prefixed ones, whose local part is
// what the decoder matches) are left to the decoder.
func isNameStart(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }

func isNameByte(c byte) bool { return isNameStart(c) || '0' <= c && c <= '9' || c == '-' || c == '.' }
