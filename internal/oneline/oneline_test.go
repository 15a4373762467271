package oneline

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"main.work", "main.work"},
		{"", ""},
		{"C:\\src\\a.go", "C:\\src\\a.go"},
		{"héllo 世界 👩\u200d💻 ی\u200cک", "héllo 世界 👩\u200d💻 ی\u200cک"},
		{"a\nb\r\tc", `a\nb\r\tc`},
		{"osc\x1b]0;t\x07", `osc\x1b]0;t\a`},
		{"bs\bdel\x7f", `bs\bdel\x7f`},
		{"c1\u009b2J\u0085", `c1\u009b2J\u0085`},
		{"exe\u202etxt.", `exe\u202etxt.`},
		{"\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c", `\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c`},
		{"zw\u200bsp\ufeff\u00ad\u2060", `zw\u200bsp\ufeff\u00ad\u2060`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		{"bad\x9b2J\xff", `bad\x9b2J\xff`},
		{"cut\xe2\x80", `cut\xe2\x80`},
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzEscape: what Escape returns holds no Unsafe character and no
// invalid UTF-8, and a string with neither comes back as it is.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"main.work", "a\nb", "x\u202ey", "bad\x9b", "👩\u200d💻", "\u061c\u2069"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		if !utf8.ValidString(got) || strings.ContainsFunc(got, Unsafe) {
			t.Fatalf("Escape(%q) = %q", s, got)
		}
		if utf8.ValidString(s) && !strings.ContainsFunc(s, Unsafe) && got != s {
			t.Fatalf("Escape(%q) changed a safe string to %q", s, got)
		}
	})
}
