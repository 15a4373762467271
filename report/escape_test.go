package report

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/ctdiff/ctdiff/internal/oneline"
)

// chunkWriter writes what it is given to w in pieces of n bytes, so that
// characters are cut across Writes.
type chunkWriter struct {
	w io.Writer
	n int
}

func (c chunkWriter) Write(p []byte) (int, error) {
	for i := 0; i < len(p); i += c.n {
		if _, err := c.w.Write(p[i:min(len(p), i+c.n)]); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// checkEscapedJSON writes names as JSON through a jsonEscaper, in pieces
// of every size up to 7 bytes, and fails unless the output decodes to the
// names and holds no Unsafe character raw.
func checkEscapedJSON(t *testing.T, names []string) {
	t.Helper()
	doc, err := json.Marshal(names)
	if err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 7; n++ {
		var b bytes.Buffer
		if err := writeJSONSafe(&b, func(w io.Writer) error {
			_, err := chunkWriter{w, n}.Write(doc)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var got []string
		if err := json.Unmarshal(b.Bytes(), &got); err != nil {
			t.Fatalf("pieces of %d: %v in %q", n, err, b.Bytes())
		}
		var want []string
		if err := json.Unmarshal(doc, &want); err != nil || !slices.Equal(got, want) {
			t.Fatalf("pieces of %d: decoded %q, want %q", n, got, names)
		}
		if i := bytes.IndexFunc(b.Bytes(), oneline.Unsafe); i >= 0 {
			t.Fatalf("pieces of %d: %q raw at byte %d of %q", n, b.Bytes()[i:], i, b.Bytes())
		}
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// JSON reports keep names exactly, their Unsafe characters as escapes:
// bidi controls, DEL, C1 controls, format characters beyond the BMP (a
// surrogate pair), and characters cut across Writes.
func TestJSONEscaper(t *testing.T) {
	checkEscapedJSON(t, []string{
		"main.work", "exe\u202etxt", "\u2066\u2067\u2068\u2069\u200e\u200f\u061c\u202a\u202b\u202c\u202d",
		"del\x7f c1\u009b\u0085", "tag\U000E0041 music\U0001D173", "é世👩\u200d💻", "bad\xff", "",
	})
	var b bytes.Buffer
	if err := writeJSONSafe(&b, func(w io.Writer) error { _, err := w.Write([]byte("\"a\u202e")[:4]); return err }); err != nil ||
		b.String() != "\"a\xe2\x80" {
		t.Errorf("a character cut at the end is written as it was: %q, %v", b.String(), err)
	}
}

func FuzzJSONEscaper(f *testing.F) {
	f.Add("exe\u202etxt", "\u009b")
	f.Add("\U000E0041", "é\x7f")
	f.Fuzz(func(t *testing.T, a, b string) {
		if !utf8.ValidString(a) || !utf8.ValidString(b) {
			return // encoding/json writes invalid UTF-8 as U+FFFD
		}
		checkEscapedJSON(t, []string{a, b})
	})
}

// textNamesIn escapes every string of a page model, at any depth, in a
// copy: what the model shares with a Result is left as it was.
func TestTextNamesIn(t *testing.T) {
	type row struct {
		Name  string
		Path  []string
		Pair  [2]string
		n     string
		Count int
	}
	type page struct {
		Title string
		Rows  []row
		Ptr   *row
		Ints  []int32
		CSS   htmlCSS
	}
	shared := []string{"a\u202eb", "plain"}
	p := &page{Title: "t\x1b]0;x\x07", Rows: []row{{Name: "ok"}, {Name: "n\nl", Path: shared, Pair: [2]string{"", "\u009b"}, n: "\x1b"}},
		Ptr: &row{Name: "\u2066"}, Ints: []int32{1}, CSS: "a\x1b"}
	got := textNamesIn(p)
	want := page{Title: `t\x1b]0;x\a`, Rows: []row{{Name: "ok"}, {Name: `n\nl`, Path: []string{`a\u202eb`, "plain"}, Pair: [2]string{"", `\u009b`}, n: "\x1b"}},
		Ptr: &row{Name: `\u2066`}, Ints: []int32{1}, CSS: "a\x1b"}
	if g, w := mustMarshal(t, got), mustMarshal(t, want); !bytes.Equal(g, w) || got.Ptr.Name != want.Ptr.Name || got.Rows[1].n != "\x1b" {
		t.Errorf("got %s, want %s", g, w)
	}
	if p.Title != "t\x1b]0;x\x07" || shared[0] != "a\u202eb" || p.Ptr.Name != "\u2066" {
		t.Errorf("the model or what it shares was changed in place: %q %q %q", p.Title, shared[0], p.Ptr.Name)
	}
	if clean := (&page{Title: "x", Rows: []row{{Name: "y"}}}); textNamesIn(clean) != clean {
		t.Error("a model with nothing to escape was copied")
	}
}

// htmlCSS stands for template.CSS: a string type of the page's own,
// left alone.
type htmlCSS string

// BenchmarkJSONEscaper passes 64 MB of JSON of ASCII names through a
// jsonEscaper, as a large diff --format json is.
func BenchmarkJSONEscaper(b *testing.B) {
	line := []byte(`      {"function": "github.com/ctdiff/ctdiff/internal/example.checkRules", "file": "/src/example/rules.go", "line": 42},` + "\n")
	doc := bytes.Repeat(line, 64<<20/len(line))
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if err := writeJSONSafe(io.Discard, func(w io.Writer) error {
			for i := 0; i < len(doc); i += 64 << 10 {
				if _, err := w.Write(doc[i:min(len(doc), i+64<<10)]); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			b.Fatal(err)
		}
	}
}
