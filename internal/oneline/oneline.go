// Package oneline keeps messages on one line. Errors and warnings quote
// their input, and a name holding a newline must not start a line of its
// own: it could pass for another message (log injection) or break the
// one-line error contract of the CLI.
package oneline

import (
	"strconv"
	"strings"
	"unicode"
)

// Escape replaces each control character of s by its Go escape (\n, \r,
// \x00), leaving the rest as it is.
func Escape(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
