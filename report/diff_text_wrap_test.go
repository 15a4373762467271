package report

import (
	"bufio"
	"strings"
	"testing"
)

// writeItems breaks only lines wider than textWidth, into as few lines of
// even length as it can, arrows leading the continued line and commas
// ending the broken one.
func TestWriteItems(t *testing.T) {
	x := func(n int) string { return strings.Repeat("x", n) }
	for _, tt := range []struct {
		name       string
		first, sep string
		items      []string
		want       string
	}{
		{"exactly the width", "", " → ", []string{x(48), x(49)}, x(48) + " → " + x(49) + "\n"},
		{"one over", "", " → ", []string{x(48), x(50)}, x(48) + "\n  → " + x(50) + "\n"},
		{"even lines", "p: ", " ", []string{x(30), x(30), x(30), x(30)}, "p: " + x(30) + " " + x(30) + "\n  " + x(30) + " " + x(30) + "\n"},
		{"commas end lines", "", ", ", []string{x(60), x(60)}, x(60) + ",\n  " + x(60) + "\n"},
		{"an item wider than a line", "", " → ", []string{"a", x(120), "b"}, "a\n  → " + x(120) + "\n  → b\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			w := bufio.NewWriter(&b)
			writeItems(w, tt.first, "  ", tt.items, tt.sep)
			w.Flush()
			if b.String() != tt.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tt.want)
			}
		})
	}
}
