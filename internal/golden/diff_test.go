package golden

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// numbered returns lines "1\n" ... "n\n" with the given lines replaced.
func numbered(n int, replace map[int]string) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		if r, ok := replace[i]; ok {
			sb.WriteString(r)
		} else {
			sb.WriteString(strconv.Itoa(i))
		}
		sb.WriteByte('\n')
	}
	return sb.String()
}

func TestDiff(t *testing.T) {
	for _, tt := range []struct {
		name, old, new, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"both empty", "", "", ""},
		{"from empty", "", "a\nb\n", "--- old\n+++ new\n@@ -0,0 +1,2 @@\n+a\n+b\n"},
		{"to empty", "a\nb\n", "", "--- old\n+++ new\n@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{"one line", "a\n", "b\n", "--- old\n+++ new\n@@ -1 +1 @@\n-a\n+b\n"},
		{
			"newline added at end",
			"a\nb", "a\nb\n",
			"--- old\n+++ new\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		},
		{
			"newline dropped at end",
			"a\nb\n", "a\nb",
			"--- old\n+++ new\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n",
		},
		{"only a newline", "\n", "", "--- old\n+++ new\n@@ -1 +0,0 @@\n-\n"},
		{
			"line inserted in the middle, context of three",
			numbered(10, nil), numbered(5, nil) + "x\n" + numbered(10, nil)[len(numbered(5, nil)):],
			"--- old\n+++ new\n@@ -3,6 +3,7 @@\n 3\n 4\n 5\n+x\n 6\n 7\n 8\n",
		},
		{
			"line deleted at the start",
			"a\nb\nc\nd\ne\n", "b\nc\nd\ne\n",
			"--- old\n+++ new\n@@ -1,4 +1,3 @@\n-a\n b\n c\n d\n",
		},
		{
			"appended at the end",
			"a\nb\nc\nd\n", "a\nb\nc\nd\ne\n",
			"--- old\n+++ new\n@@ -2,3 +2,4 @@\n b\n c\n d\n+e\n",
		},
		{
			// Six unchanged lines between two changes: their contexts touch,
			// so one hunk, as diff -u.
			"changes six lines apart share a hunk",
			numbered(20, nil), numbered(20, map[int]string{5: "five", 12: "twelve"}),
			"--- old\n+++ new\n@@ -2,14 +2,14 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n 9\n 10\n 11\n-12\n+twelve\n 13\n 14\n 15\n",
		},
		{
			"changes seven lines apart get two hunks",
			numbered(20, nil), numbered(20, map[int]string{5: "five", 13: "thirteen"}),
			"--- old\n+++ new\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n@@ -10,7 +10,7 @@\n 10\n 11\n 12\n-13\n+thirteen\n 14\n 15\n 16\n",
		},
		{
			"long file, changes far apart",
			numbered(10000, nil), numbered(10000, map[int]string{2: "two", 9999: "nine thousand nine hundred ninety-nine"}),
			"--- old\n+++ new\n@@ -1,5 +1,5 @@\n 1\n-2\n+two\n 3\n 4\n 5\n" +
				"@@ -9996,5 +9996,5 @@\n 9996\n 9997\n 9998\n-9999\n+nine thousand nine hundred ninety-nine\n 10000\n",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Diff("old", "new", tt.old, tt.new); got != tt.want {
				t.Errorf("Diff:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestDiffRandom checks, on random texts over a few distinct lines (so that
// there is much to match), that applying the diff to old gives new and that
// the script is a shortest one: n + m - 2·LCS edits.
func TestDiffRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	text := func() string {
		var sb strings.Builder
		for range r.IntN(40) {
			sb.WriteString(string(rune('a' + r.IntN(4))))
			sb.WriteByte('\n')
		}
		if sb.Len() > 0 && r.IntN(4) == 0 {
			return sb.String()[:sb.Len()-1] // no newline at the end
		}
		return sb.String()
	}
	for i := range 2000 {
		old, new := text(), text()
		d := Diff("old", "new", old, new)
		got, err := apply(old, d)
		if err != nil || got != new {
			t.Fatalf("case %d: applying the diff to %q gives %q, %v; want %q\n%s", i, old, got, err, new, d)
		}
		a, b := splitLines(old), splitLines(new)
		edits := 0
		for _, e := range editScript(a, b) {
			if e.kind != ' ' {
				edits++
			}
		}
		if want := len(a) + len(b) - 2*lcs(a, b); edits != want {
			t.Fatalf("case %d: %d edits from %q to %q, want %d", i, edits, old, new, want)
		}
	}
}

// TestDiffBeyondMaxEdits: texts further apart than maxEdits still give a
// correct diff, one replacement of everything.
func TestDiffBeyondMaxEdits(t *testing.T) {
	var old, new strings.Builder
	for i := range maxEdits {
		fmt.Fprintf(&old, "old %d\n", i)
		fmt.Fprintf(&new, "new %d\n", i)
	}
	d := Diff("old", "new", old.String(), new.String())
	if got, err := apply(old.String(), d); err != nil || got != new.String() {
		t.Fatalf("applying the diff: %v, or it gives other text", err)
	}
	if want := fmt.Sprintf("@@ -1,%d +1,%d @@\n-old 0\n", maxEdits, maxEdits); !strings.Contains(d, want) {
		t.Errorf("diff does not start with one hunk %q:\n%.200s", want, d)
	}
}

// lcs is the length of a longest common subsequence, by dynamic programming.
func lcs(a, b []string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(cur[j], prev[j+1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// apply applies a unified diff to old, checking every header count and
// every context and deleted line against old.
func apply(old, diff string) (string, error) {
	if diff == "" {
		return old, nil
	}
	a := splitLines(old)
	lines := splitLines(diff)
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", fmt.Errorf("no --- and +++ header")
	}
	var out []string
	pos := 0 // next line of a to copy
	for i := 2; i < len(lines); {
		var as, an, bs, bn int
		h := strings.TrimSuffix(lines[i], "\n")
		if _, err := fmt.Sscanf(strings.NewReplacer(",", " ").Replace(normRange(h)), "@@ -%d %d +%d %d @@", &as, &an, &bs, &bn); err != nil {
			return "", fmt.Errorf("hunk header %q: %v", h, err)
		}
		start := as - 1
		if an == 0 {
			start = as
		}
		if start < pos {
			return "", fmt.Errorf("hunk %q overlaps the one before", h)
		}
		out = append(out, a[pos:start]...)
		pos = start
		i++
		gotA, gotB := 0, 0
		for i < len(lines) && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			body := l[1:]
			if i+1 < len(lines) && lines[i+1] == "\\ No newline at end of file\n" {
				body = strings.TrimSuffix(body, "\n")
				i++
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(a) || a[pos] != body {
					return "", fmt.Errorf("line %d of old is not %q", pos+1, body)
				}
				pos++
				gotA++
				if l[0] == ' ' {
					out = append(out, body)
					gotB++
				}
			case '+':
				out = append(out, body)
				gotB++
			default:
				return "", fmt.Errorf("bad line %q", l)
			}
			i++
		}
		if gotA != an || gotB != bn {
			return "", fmt.Errorf("hunk %q has %d old and %d new lines", h, gotA, gotB)
		}
	}
	return strings.Join(append(out, a[pos:]...), ""), nil
}

// normRange writes a one-line range "-3" as "-3,1" so one format parses both.
func normRange(h string) string {
	f := strings.Fields(h)
	for i := 1; i <= 2 && i < len(f); i++ {
		if !strings.Contains(f[i], ",") {
			f[i] += ",1"
		}
	}
	return strings.Join(f, " ")
}

func TestTruncate(t *testing.T) {
	short := strings.Repeat("x\n", maxLines)
	if got := truncate(short); got != short {
		t.Errorf("a diff of %d lines was cut: %q", maxLines, got)
	}
	long := strings.Repeat("x\n", maxLines+5)
	want := strings.Repeat("x\n", maxLines) + fmt.Sprintf("... 5 more lines of the diff not shown (%d in all)\n", maxLines+5)
	if got := truncate(long); got != want {
		t.Errorf("truncate(%d lines) ends %q, want %q", maxLines+5, got[len(got)-80:], want[len(want)-80:])
	}
	wide := strings.Repeat(strings.Repeat("y", maxBytes/2)+"\n", 3)
	if got, want := truncate(wide), wide[:maxBytes/2+1]+"... 2 more lines of the diff not shown (3 in all)\n"; got != want {
		t.Errorf("truncate(3 lines of %d bytes) = %d bytes ending %q, want %d bytes", maxBytes/2, len(got), got[len(got)-60:], len(want))
	}
}

// BenchmarkDiff: a 100,000-line golden with two changed lines (the usual
// failure), and two 2,000-line texts with nothing in common (the search
// gives up at maxEdits).
func BenchmarkDiff(b *testing.B) {
	far := numbered(100_000, nil)
	farNew := numbered(100_000, map[int]string{10: "ten", 90_000: "ninety thousand"})
	var old, new strings.Builder
	for i := range maxEdits {
		fmt.Fprintf(&old, "old %d\n", i)
		fmt.Fprintf(&new, "new %d\n", i)
	}
	for _, bb := range []struct{ name, old, new string }{
		{"100k-lines-2-changes", far, farNew},
		{"2k-lines-all-changed", old.String(), new.String()},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Diff("old", "new", bb.old, bb.new)
			}
		})
	}
}
