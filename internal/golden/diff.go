package golden

import (
	"fmt"
	"strings"
)

// context is the number of unchanged lines shown around a change, as diff -u.
const context = 3

// maxEdits bounds the edit distance the shortest-script search explores:
// its trace keeps O(D²) integers. Past it, the changed middle is shown as
// one replacement: still a correct diff, no longer a shortest one.
const maxEdits = 2000

// An edit is one line of the script: kind ' ' keeps old line a (new line b),
// '-' deletes old line a, '+' inserts new line b. a and b are also the
// positions in old and new before the line, which hunk headers need.
type edit struct {
	kind byte
	a, b int
}

// Diff returns a unified diff (the format of diff -u) from old to new,
// headed by oldName and newName, with three lines of context around each
// change; "" when old and new are equal. A last line without a newline is
// marked "\ No newline at end of file", so a missing newline shows.
func Diff(oldName, newName, old, new string) string {
	if old == new {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	script := editScript(a, b)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", oldName, newName)
	for i := 0; i < len(script); {
		if script[i].kind == ' ' {
			i++
			continue
		}
		// A hunk runs from context lines before its first change to context
		// lines after its last; changes at most 2·context unchanged lines
		// apart share a hunk, since their contexts would touch.
		start := max(i-context, 0)
		last := i
		for j := i + 1; j < len(script) && j-last <= 2*context+1; j++ {
			if script[j].kind != ' ' {
				last = j
			}
		}
		end := min(last+context+1, len(script))
		writeHunk(&sb, script[start:end], a, b)
		i = end
	}
	return sb.String()
}

// writeHunk writes one hunk: its header, then its lines.
func writeHunk(sb *strings.Builder, h []edit, a, b []string) {
	na, nb := 0, 0
	for _, e := range h {
		switch e.kind {
		case ' ':
			na++
			nb++
		case '-':
			na++
		case '+':
			nb++
		}
	}
	fmt.Fprintf(sb, "@@ -%s +%s @@\n", hunkRange(h[0].a, na), hunkRange(h[0].b, nb))
	for _, e := range h {
		var line string
		if e.kind == '+' {
			line = b[e.b]
		} else {
			line = a[e.a]
		}
		sb.WriteByte(e.kind)
		sb.WriteString(line)
		if !strings.HasSuffix(line, "\n") {
			sb.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange is one side of a hunk header as GNU diff writes it: "start,count"
// with start 1-based, just "start" for one line, and for no lines the number
// of the line before the hunk, with count 0.
func hunkRange(pos, n int) string {
	switch n {
	case 0:
		return fmt.Sprintf("%d,0", pos)
	case 1:
		return fmt.Sprintf("%d", pos+1)
	}
	return fmt.Sprintf("%d,%d", pos+1, n)
}

// splitLines splits s after each newline; the last line lacks one when s
// does not end with a newline. Lines keep their newline, so "a" and "a\n"
// differ as lines.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// editScript returns an edit script from a to b, a shortest one unless
// they differ by more than maxEdits lines: common prefix and suffix kept as
// they are, the middle by Myers's greedy algorithm.
func editScript(a, b []string) []edit {
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	script := make([]edit, 0, len(a)+len(b)-pre-suf)
	for i := range pre {
		script = append(script, edit{' ', i, i})
	}
	script = append(script, myers(a[pre:len(a)-suf], b[pre:len(b)-suf], pre)...)
	for i := range suf {
		script = append(script, edit{' ', len(a) - suf + i, len(b) - suf + i})
	}
	return script
}

// myers finds a shortest edit script from a to b with the greedy algorithm
// of E. W. Myers, "An O(ND) Difference Algorithm and Its Variations"
// (Algorithmica 1986), Section 2: for D = 0, 1, ... it extends the furthest
// reaching D-path on every diagonal k = x - y, following snakes of equal
// lines. Section 3's linear-space refinement is not needed here: the
// furthest points of each D are kept (O(D²) in all) and the path is read
// back from them. Positions in the script are offset by off.
func myers(a, b []string, off int) []edit {
	n, m := len(a), len(b)
	dmax := min(n+m, maxEdits)
	// v[dmax+k] is the furthest x reached on diagonal k.
	v := make([]int, 2*dmax+2)
	var trace [][]int // trace[d] holds v[-d..d] before step d
	d, found := 0, n == 0 && m == 0
	for ; !found && d <= dmax; d++ {
		trace = append(trace, append([]int(nil), v[dmax-d:dmax+d+1]...))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[dmax+k-1] < v[dmax+k+1]) {
				x = v[dmax+k+1] // down: an insertion
			} else {
				x = v[dmax+k-1] + 1 // right: a deletion
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x, y = x+1, y+1
			}
			v[dmax+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	if !found {
		// Too far apart to search: delete all of a, then insert all of b.
		script := make([]edit, 0, n+m)
		for i := range n {
			script = append(script, edit{'-', off + i, off})
		}
		for j := range m {
			script = append(script, edit{'+', off + n, off + j})
		}
		return script
	}
	// Walk back from (n, m): each step d undoes one snake, then one edit.
	var rev []edit
	x, y := n, m
	for d := len(trace) - 1; d >= 0; d-- {
		prev := trace[d] // prev[k+d] is v[k] after step d-1
		k := x - y
		var pk int
		if k == -d || (k != d && prev[k-1+d] < prev[k+1+d]) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := 0
		if d > 0 {
			px = prev[pk+d]
		}
		py := px - pk
		for x > px && y > py {
			x, y = x-1, y-1
			rev = append(rev, edit{' ', off + x, off + y})
		}
		if d == 0 {
			break
		}
		if x == px {
			y--
			rev = append(rev, edit{'+', off + x, off + y})
		} else {
			x--
			rev = append(rev, edit{'-', off + x, off + y})
		}
	}
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	return rev
}
