package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxDOTText is the most bytes of one text a DOT string holds; longer
// names keep their start and end around an ellipsis. Graphviz refuses a
// quoted string over 16,384 bytes ("longer than 16384?"), and a label of
// a few lines, each at most twice this once escaped, stays well under.
const maxDOTText = 1000

// dotQuote returns s as a Graphviz double-quoted string. Profile names are
// untrusted: control, bidi and format characters become their escapes
// (textName), shown as such, quotes and backslashes are escaped (so no
// name can end the string or inject an escape such as \l), and a text
// longer than maxDOTText bytes is cut in the middle. The line breaks of a
// label are the \n that dotLines puts between its lines.
func dotQuote(s string) string {
	s = elideMiddle(textName(s), maxDOTText)
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if r == '"' || r == '\\' {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// elideMiddle shortens s to at most n bytes (whole UTF-8 sequences),
// keeping its start and end around "…".
func elideMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const mark = "…"
	half := (n - len(mark)) / 2
	head, tail := half, len(s)-half
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + mark + s[tail:]
}

// dotLines joins already-untrusted lines into one quoted label with
// centred line breaks (\n) between them.
func dotLines(lines ...string) string {
	q := make([]string, len(lines))
	for i, l := range lines {
		q[i] = strings.TrimSuffix(strings.TrimPrefix(dotQuote(l), `"`), `"`)
	}
	return `"` + strings.Join(q, `\n`) + `"`
}

// heatColor maps a share in [0, 1] to a colour from pale grey to red, as
// hex RGB for Graphviz.
func heatColor(share float64) string {
	share = max(0, min(1, share))
	r := 0xee + int(float64(0xff-0xee)*share)
	g := 0xee - int(float64(0xee-0x33)*share)
	bl := 0xee - int(float64(0xee-0x33)*share)
	return fmt.Sprintf("#%02x%02x%02x", r, g, bl)
}

// shorten trims long names for graph labels, keeping the end (the
// function's own name is at the end of Go and Java qualified names).
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return "…" + string(r[len(r)-n+1:])
}
