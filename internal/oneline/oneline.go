// Package oneline keeps messages on one line and names inert on a
// terminal. Errors, warnings and reports quote their input, and a name
// holding a newline must not start a line of its own (it could pass for
// another message: log injection, or break the one-line error contract of
// the CLI), one holding ESC or the 8-bit CSI must not move the cursor,
// retitle the window or clear it, and one holding a bidirectional override
// must not make the terminal show other text than the name is.
package oneline

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Unsafe reports whether r must not reach a terminal raw: a C0 control,
// DEL, a C1 control (U+009B is the 8-bit CSI), a format character
// (Unicode category Cf: the bidirectional controls U+202A-U+202E,
// U+2066-U+2069, U+200E, U+200F and U+061C, zero-width spaces, the soft
// hyphen, the byte-order mark), or a line or paragraph separator. The
// zero-width joiner and non-joiner (U+200D, U+200C), which some scripts
// and emoji need to be written at all, are kept.
func Unsafe(r rune) bool {
	switch {
	case r < 0x20 || r >= 0x7f && r < 0xa0:
		return true
	case r < 0xad, r == '\u200c', r == '\u200d':
		return false
	}
	return unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// Escape replaces each Unsafe character of s by its Go escape (\n, \r,
// \x1b, \u202e) and each byte of invalid UTF-8 by \xNN (a lone 0x9b is
// the 8-bit CSI to a terminal that is not in UTF-8 mode), leaving the rest
// as it is.
func Escape(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(`\x`)
			b.WriteByte(hex[s[i]>>4])
			b.WriteByte(hex[s[i]&0xf])
		case Unsafe(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

const hex = "0123456789abcdef"

// firstUnsafe returns the index of the first byte of s that Escape
// changes, -1 when there is none. Printable ASCII, what names are made of,
// is passed over a byte at a time.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		if c := s[i]; c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || Unsafe(r) {
			return i
		}
		i += size
	}
	return -1
}
