package report

import (
	"fmt"
	"strings"
)

// dotQuote returns s as a Graphviz double-quoted string. Profile names are
// untrusted: quotes and backslashes are escaped (so no name can end the
// string or inject an escape such as \l), and control characters become
// spaces, except newlines that the caller put in on purpose via dotLines.
func dotQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
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
