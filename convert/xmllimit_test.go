package convert

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// White space runs of any length cost at most maxXMLSpace bytes (and keep
// a newline, which separates a literal stack's frames); a text longer than
// maxXMLToken is refused at its line.
func TestPerfViewXMLHugeTokens(t *testing.T) {
	space := strings.Repeat(" ", 3*maxXMLSpace)
	doc := "<StackWindow><StackSource>" + space + "\n" + space +
		"<Samples><Sample Time=\"1\">\nleaf" + space + "\n" + space + "caller\n</Sample></Samples></StackSource></StackWindow>"
	res, err := Read(strings.NewReader(doc), "x.perfView.xml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range res.Profile.Sample[0].Location {
		names = append(names, l.Line[0].Function.Name)
	}
	if strings.Join(names, ",") != "leaf,caller" {
		t.Fatalf("the literal stack read as %q", names)
	}

	long := "<StackWindow><StackSource>\n<Frames><Frame ID=\"0\">" + strings.Repeat("a", maxXMLToken+1) + "</Frame></Frames></StackSource></StackWindow>"
	_, err = Read(strings.NewReader(long), "x.perfView.xml", Options{})
	want := "x.perfView.xml: line 2: more than 16777216 bytes of text or of one tag without markup"
	var se *SyntaxError
	if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want prefix %q", err, want)
	}
}

// xmlLimitRef is the limiter's rule a byte at a time: the bytes it keeps
// of data, or the line at which a text node or tag grew too long (0 when
// none did).
func xmlLimitRef(data []byte) (kept []byte, errLine int) {
	line, run, space, newline := 1, 0, 0, false
	for _, c := range data {
		switch c {
		case ' ', '\t', '\r', '\n':
			space++
			if c == '\n' {
				line++
				if !newline {
					newline = true
					break
				}
			}
			if space > maxXMLSpace {
				continue
			}
		case '<', '>':
			space, run, newline = 0, -1, false
		default:
			space, newline = 0, false
		}
		if run++; run > maxXMLToken {
			return kept, line
		}
		kept = append(kept, c)
	}
	return kept, 0
}

// readLimited reads data through an xmlLimiter in reads of chunk bytes.
func readLimited(data []byte, chunk int) ([]byte, error) {
	x := newXMLLimiter(&chunkReader{data: data, chunk: chunk})
	var out []byte
	buf := make([]byte, chunk)
	for {
		n, err := x.Read(buf)
		out = append(out, buf[:n]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
	}
}

// chunkReader gives data at most chunk bytes a read.
type chunkReader struct {
	data  []byte
	chunk int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.chunk)], r.data)
	r.data = r.data[n:]
	return n, nil
}

// checkXMLLimit fails unless the limiter, read in chunks of every size
// given, keeps what xmlLimitRef keeps and fails where it fails.
func checkXMLLimit(t *testing.T, data []byte, chunks ...int) {
	t.Helper()
	want, wantLine := xmlLimitRef(data)
	for _, chunk := range chunks {
		got, err := readLimited(data, chunk)
		var te *xmlTokenError
		switch {
		case wantLine != 0:
			if !errors.As(err, &te) || te.line != wantLine {
				t.Fatalf("chunks of %d: error %v, want one at line %d", chunk, err, wantLine)
			}
		case err != nil:
			t.Fatalf("chunks of %d: %v", chunk, err)
		case !bytes.Equal(got, want):
			t.Fatalf("chunks of %d: kept %d bytes unlike the %d of one at a time", chunk, len(got), len(want))
		}
	}
}

// The limiter passes runs of plain bytes whole and looks at the rest one
// by one: it keeps and refuses what a byte at a time does, whatever the
// reads' sizes.
func TestXMLLimiterRuns(t *testing.T) {
	plain := strings.Repeat("a", maxXMLToken)
	tests := []struct{ name, doc string }{
		{"tags and text", "<a x=\"1\">text</a>\n<b/>"},
		{"long white space", "<a>" + strings.Repeat(" \t", maxXMLSpace) + "\n\n" + strings.Repeat(" ", maxXMLSpace+3) + "x</a>"},
		{"white space runs apart", "<a>" + strings.Repeat(" ", maxXMLSpace-1) + "x" + strings.Repeat(" ", maxXMLSpace-1) + "\n" + strings.Repeat("\n", 3) + "y</a>"},
		{"a newline kept after a long run", "<a>\nx" + strings.Repeat(" ", maxXMLSpace+5) + "\n y</a>"},
		{"a text of the limit", "<a>" + plain + "</a>"},
		{"a text over the limit", "<a>\n" + plain + "b</a>"},
		{"a tag over the limit", "<a\n" + plain[:maxXMLToken-4] + "    " + "b>"},
		{"white space counted in the run", "<a>" + plain[:maxXMLToken-10] + strings.Repeat(" ", 11) + "</a>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkXMLLimit(t, []byte(tt.doc), 1<<20, 4093, 64<<10)
		})
	}
}

// FuzzXMLLimiter compares the limiter with xmlLimitRef on any document,
// read in chunks of any size.
func FuzzXMLLimiter(f *testing.F) {
	f.Add("<a>\n  text \r\n\t</a>", uint16(3))
	f.Add("<Sample Time=\"1\" StackID=\"2\" />\n", uint16(1))
	f.Fuzz(func(t *testing.T, doc string, chunk uint16) {
		checkXMLLimit(t, []byte(doc), int(chunk%512)+1)
	})
}
