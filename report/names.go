package report

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ctdiff/ctdiff/diff"
)

// shortFunc shortens a qualified function name for places where paths must
// fit on one line (Markdown tables, heat-map cells), keeping what tells
// functions apart: Go drops the import path before the package
// ("github.com/ctdiff/ctdiff/internal/example.checkRules" →
// "example.checkRules"), Java and C# keep the class and method
// ("org.apache.kafka.Producer.send" → "Producer.send"). Arguments and type
// parameters are left alone, and names that fit no pattern are unchanged.
func shortFunc(name string) string {
	// The qualified part ends where arguments or type parameters start.
	end := len(name)
	for i := 0; i < len(name); i++ {
		if c := name[i]; c == '(' || c == '[' || c == ' ' || c == '<' {
			end = i
			break
		}
	}
	// The short name is a suffix of name: no copy.
	head := name[:end]
	if i := strings.LastIndexByte(head, '/'); i >= 0 && i+1 < len(head) {
		return name[i+1:]
	}
	// Java and C#: two or more lower-case package segments, then a
	// capitalised class, then the method. Go's "runtime.gcBgMarkWorker.func2"
	// and "time.Time.Add" stay whole. Every report names every frame through
	// here, so the segments are walked rather than split.
	n := strings.Count(head, ".") + 1
	if n < 4 {
		return name
	}
	seg, class := 0, 0
	for start := 0; seg < n-1; seg++ {
		end := start + strings.IndexByte(head[start:], '.')
		if end == start {
			return name
		}
		first, _ := utf8.DecodeRuneInString(head[start:end])
		if seg < n-2 && !unicode.IsLower(first) || seg == n-2 && !unicode.IsUpper(first) {
			return name
		}
		class = start
		start = end + 1
	}
	return name[class:]
}

// frameName is how every diff report names a frame: by default its short
// name (shortFunc), which is what tells functions apart in a path
// ("example.checkRules" rather than the whole import path on every frame,
// as pprof's graphs show them); its whole name when full is set, as JSON
// always gives it. A frame without a name is "(unknown)".
func frameName(f diff.Frame, full bool) string {
	switch {
	case f.Function == "":
		return "(unknown)"
	case full:
		return f.Function
	}
	return shortFunc(f.Function)
}

// pathNames returns the names of a path's frames (frameName).
func pathNames(p []diff.Frame, full bool) []string {
	out := make([]string, len(p))
	for i, f := range p {
		out[i] = frameName(f, full)
	}
	return out
}

// commonPrefix returns how many leading frames all paths share.
func commonPrefix(paths [][]diff.Frame) int {
	if len(paths) == 0 {
		return 0
	}
	n := len(paths[0])
	for _, p := range paths[1:] {
		n = min(n, len(p))
		for i := range n {
			if p[i] != paths[0][i] {
				n = i
				break
			}
		}
	}
	return n
}

// lastFrames joins the last k names with " → ", led by "… → " when some
// were left out.
func lastFrames(names []string, k int) string {
	if len(names) <= k {
		return strings.Join(names, " → ")
	}
	return "… → " + strings.Join(names[len(names)-k:], " → ")
}
