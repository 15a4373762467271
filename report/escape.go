package report

import (
	"encoding/binary"
	"io"
	"reflect"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/ctdiff/ctdiff/internal/oneline"
)

// textName is how the reports write a name that came from a profile or
// the command line (function, file, thread, process, sample type, input,
// component, and warnings that quote them): each control, bidi and
// format character (ESC, the 8-bit CSI, BEL, newlines, U+202E
// right-to-left override; oneline.Unsafe) becomes its Go escape, as in
// errors, and so does a byte of invalid UTF-8, so that no name can move a
// terminal's cursor, retitle its window, clear it, show other text than it
// is, or start a report line of its own. Every writer calls it where it
// writes a name: the text reports directly, Markdown through mdCode and
// mdText, DOT through dotQuote, HTML on its whole page model
// (textNamesIn). JSON keeps names as they are, its escapes lossless
// (jsonEscaper).
func textName(s string) string { return oneline.Escape(s) }

// textNames is textName of each line.
func textNames(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = textName(l)
	}
	return out
}

// textNamesIn returns *p with textName applied to every string it holds:
// its exported fields', and those of the structs, slices, arrays and
// pointers it holds, at any depth. Types other than string (template.CSS,
// template.JS: the page's own) are left alone. What it changes is
// copied, never written in place: a page model shares slices with the
// Result it shows. The HTML writers call it on their models, so that a
// field added later is escaped too: html/template escapes markup, not
// terminal controls, and an HTML report written to standard output is
// read by a terminal first.
func textNamesIn[T any](p *T) *T {
	v, changed := escapeValue(reflect.ValueOf(p).Elem())
	if !changed {
		return p
	}
	out := new(T)
	reflect.ValueOf(out).Elem().Set(v)
	return out
}

var stringType = reflect.TypeFor[string]()

// A tooltip is the text of an HTML title attribute: lines, which browsers
// show as such, each escaped where it is composed (tooltipOf). Not being
// a string, it is left alone by textNamesIn, which would escape its line
// breaks.
type tooltip string

// tooltipOf is the tooltip of lines, each escaped with textName.
func tooltipOf(lines ...string) tooltip {
	return tooltip(strings.Join(textNames(lines), "\n"))
}

// escapeValue returns v with textName applied to its strings, and whether
// that changed any: a copy then.
func escapeValue(v reflect.Value) (reflect.Value, bool) {
	if !holdsStrings(v.Type()) {
		return v, false
	}
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		if e := textName(s); e != s {
			return reflect.ValueOf(e), true
		}
	case reflect.Pointer:
		if v.IsNil() {
			break
		}
		if e, changed := escapeValue(v.Elem()); changed {
			p := reflect.New(e.Type())
			p.Elem().Set(e)
			return p, true
		}
	case reflect.Struct:
		var out reflect.Value
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				continue
			}
			if f, changed := escapeValue(v.Field(i)); changed {
				if !out.IsValid() {
					out = reflect.New(v.Type()).Elem()
					out.Set(v)
				}
				out.Field(i).Set(f)
			}
		}
		return out, out.IsValid()
	case reflect.Slice, reflect.Array:
		var out reflect.Value
		for i := range v.Len() {
			if e, changed := escapeValue(v.Index(i)); changed {
				if !out.IsValid() {
					out = copyOf(v)
				}
				out.Index(i).Set(e)
			}
		}
		return out, out.IsValid()
	}
	return v, false
}

// copyOf returns a copy of a slice or array, that can be set.
func copyOf(v reflect.Value) reflect.Value {
	if v.Kind() == reflect.Array {
		out := reflect.New(v.Type()).Elem()
		out.Set(v)
		return out
	}
	out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
	reflect.Copy(out, v)
	return out
}

// stringHolders caches holdsStrings, so that the integer columns of a
// large model are passed over whole.
var stringHolders sync.Map // reflect.Type → bool

// holdsStrings reports whether a value of type t can hold a string that
// escapeValue escapes.
func holdsStrings(t reflect.Type) bool {
	if v, ok := stringHolders.Load(t); ok {
		return v.(bool)
	}
	stringHolders.Store(t, false) // a recursive type sees itself as holding none
	var holds bool
	switch t.Kind() {
	case reflect.String:
		holds = t == stringType
	case reflect.Pointer, reflect.Slice, reflect.Array:
		holds = holdsStrings(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && holdsStrings(f.Type) {
				holds = true
			}
		}
	}
	stringHolders.Store(t, holds)
	return holds
}

// A jsonEscaper passes JSON on to w with every oneline.Unsafe character
// that encoding/json leaves as it is (DEL, the C1 controls, bidi and
// format characters) written as its \uXXXX escape: JSON decodes it to the
// same string, and a terminal shows it inert. Such characters are not
// ASCII (or DEL), so in JSON they are inside strings, where an escape
// means the character itself. encoding/json already escapes the C0
// controls and U+2028 and U+2029.
type jsonEscaper struct {
	w       io.Writer
	partial []byte // the start of a character the last Write cut
	buf     []byte
}

// writeJSONSafe runs write on w through a jsonEscaper.
func writeJSONSafe(w io.Writer, write func(io.Writer) error) error {
	e := &jsonEscaper{w: w}
	if err := write(e); err != nil {
		return err
	}
	if len(e.partial) > 0 { // invalid UTF-8 at the end, as it was
		_, err := w.Write(e.partial)
		return err
	}
	return nil
}

func (e *jsonEscaper) Write(p []byte) (int, error) {
	n := len(p)
	if len(e.partial) > 0 {
		// Complete the cut character from p, and write it first.
		k := 0
		for k < len(p) && !utf8.FullRune(e.partial) {
			e.partial = append(e.partial, p[k])
			k++
		}
		if !utf8.FullRune(e.partial) {
			return n, nil
		}
		r, size := utf8.DecodeRune(e.partial)
		head := e.partial[:size]
		if size > 1 && oneline.Unsafe(r) {
			head = appendJSONEscape(nil, r)
		}
		if _, err := e.w.Write(head); err != nil {
			return 0, err
		}
		k -= len(e.partial) - size // bytes past the character go back to p
		e.partial = e.partial[:0]
		p = p[k:]
	}
	out := e.escape(p)
	if len(out) > 0 {
		if _, err := e.w.Write(out); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// escape returns p with its Unsafe characters escaped, less a character
// cut at its end, which it keeps in e.partial. It returns p itself when
// nothing is escaped.
func (e *jsonEscaper) escape(p []byte) []byte {
	i := nextNonASCII(p, 0)
	if i == len(p) {
		return p
	}
	e.buf = append(e.buf[:0], p[:i]...)
	for i < len(p) {
		if !utf8.FullRune(p[i:]) {
			e.partial = append(e.partial[:0], p[i:]...)
			break
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 || !oneline.Unsafe(r) {
			e.buf = append(e.buf, p[i:i+size]...)
		} else {
			e.buf = appendJSONEscape(e.buf, r)
		}
		i += size
		j := nextNonASCII(p, i)
		e.buf = append(e.buf, p[i:j]...)
		i = j
	}
	return e.buf
}

// appendJSONEscape appends r as \uXXXX, or a surrogate pair of them.
func appendJSONEscape(b []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	u := func(c rune) { b = append(b, '\\', 'u', hex[c>>12&0xf], hex[c>>8&0xf], hex[c>>4&0xf], hex[c&0xf]) }
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		u(hi)
		u(lo)
	} else {
		u(r)
	}
	return b
}

// nextNonASCII returns the index of the first byte of p at or after i
// that is DEL or not ASCII, len(p) when there is none: eight bytes at a
// time, as JSON output is nearly all ASCII.
func nextNonASCII(p []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	for ; i+8 <= len(p); i += 8 {
		// A byte's high bit is set in x+1 when the byte is DEL (0x7f),
		// in x when it is 0x80 or more; adding 1 to each byte of a word
		// whose bytes are all below 0x80 carries into no other byte.
		if x := binary.LittleEndian.Uint64(p[i:]); (x|(x+ones))&highs != 0 {
			break
		}
	}
	for ; i < len(p); i++ {
		if p[i] >= 0x7f {
			return i
		}
	}
	return i
}
