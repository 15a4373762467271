package report

import (
	"path"
	"strconv"
	"strings"

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
	// Java and C#: the class and the method.
	if class := javaClass(head); class >= 0 {
		return name[class:]
	}
	return name
}

// javaClass returns where the class starts in a dotted Java or C# name
// (diff.JavaClass), or -1.
func javaClass(head string) int { return diff.JavaClass(head) }

// frameName is how every diff report names a frame (frameStyle): by
// default its short name (shortFunc), which is what tells functions apart
// in a path ("example.checkRules" rather than the whole import path on every
// frame, as pprof's graphs show them); its whole name when full is set, as
// JSON always gives it. A frame without a name is "(unknown)".
func frameName(f diff.Frame, full bool) string {
	return frameStyle{Whole: full}.Label(f)
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

// A frameStyle is how a report names frames: every writer names them
// through one. Diff reports name a frame by its function alone, short
// (shortFunc) or in full when Whole: their paths must fit a line, and the
// file is in the JSON. Release reports, whose components each come from one
// ecosystem, set Placed: a frame is named the way its ecosystem's own tools
// write it, with where it is (Label, Full). Lines, when set, gives the line
// of a frame's function (cct.FrameInfo: where a JavaScript function is
// defined), keyed by function and file, for frames whose diff.Frame does
// not carry it.
type frameStyle struct {
	Ecosystem     Ecosystem
	Lines         map[diff.Frame]int64
	Placed, Whole bool
}

// Label is a frame's name in a line of a report: its function (shortFunc
// unless Whole), or when Placed its short name the ecosystem's way: Go's
// package-qualified name without the import path ("example.checkRules"), a
// JavaScript function with its script's file name and line ("formatPrice
// (storefront.js:21)"), Java's Class.method ("InvoiceService.invoice"),
// native module!function ("ntdll.dll!RtlUserThreadStart"). Other frames
// keep their name. A frame without a name is "(unknown)".
func (s frameStyle) Label(f diff.Frame) string {
	fn := f.Function
	switch {
	case fn == "":
		fn = "(unknown)"
	case !s.Placed && s.Whole:
		return fn
	}
	if !s.Placed {
		return shortFunc(fn)
	}
	eco := s.Ecosystem
	if e := frameEcosystem(f); e != UnknownEcosystem {
		eco = e // a native frame in a Java profile is still native
	}
	switch eco {
	case JS:
		if diff.IsV8Pseudo(fn) || f.File == "" {
			return fn
		}
		return fn + " (" + s.scriptPlace(f, true) + ")"
	case Java:
		return javaShort(fn)
	case Native:
		if strings.Contains(fn, "!") || f.File == "" {
			return fn
		}
		return moduleName(f.File) + "!" + fn
	}
	return shortFunc(fn)
}

// Full is a frame's complete name, placed: the function with its whole
// import path, script URL and line, Java class, or module.
func (s frameStyle) Full(f diff.Frame) string {
	fn := f.Function
	if fn == "" {
		fn = "(unknown)"
	}
	eco := s.Ecosystem
	if e := frameEcosystem(f); e != UnknownEcosystem {
		eco = e
	}
	switch {
	case f.File == "" || diff.IsV8Pseudo(fn):
		return fn
	case eco == JS:
		return fn + " (" + s.scriptPlace(f, false) + ")"
	case eco == Native && !strings.Contains(fn, "!"):
		return moduleName(f.File) + "!" + fn
	}
	return fn + " (" + f.File + ")"
}

// scriptPlace is "file:line" of a script, the file as its URL's last
// segment when short (node: URLs stay whole: they are already short).
func (s frameStyle) scriptPlace(f diff.Frame, short bool) string {
	where := f.File
	if short && !strings.HasPrefix(where, "node:") {
		where = urlBase(where)
	}
	ln := int64(f.Line)
	if ln == 0 {
		ln = s.Lines[diff.Frame{Function: f.Function, File: f.File}]
	}
	if ln > 0 {
		where += ":" + strconv.FormatInt(ln, 10)
	}
	return where
}

// urlBase is the last path segment of a URL, without query and fragment;
// the host when the path is empty.
func urlBase(u string) string {
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	u = strings.TrimRight(u, "/")
	if i := strings.LastIndexByte(u, '/'); i >= 0 && i+1 < len(u) {
		return u[i+1:]
	}
	return u
}

func moduleName(file string) string {
	return path.Base(strings.ReplaceAll(file, `\`, "/"))
}

// javaShort keeps the class's simple name and the method:
// "com.example.billing.InvoiceService.invoice" → "InvoiceService.invoice",
// "java.util.regex.Pattern$CharPredicate.negate" →
// "Pattern$CharPredicate.negate". A method with a signature keeps it.
func javaShort(fn string) string {
	head, tail := fn, ""
	if i := strings.IndexByte(fn, '('); i >= 0 {
		head, tail = fn[:i], fn[i:]
	}
	m := strings.LastIndexByte(head, '.')
	if m <= 0 {
		return fn
	}
	cls := head[:m]
	if c := strings.LastIndexByte(cls, '.'); c >= 0 {
		cls = cls[c+1:]
	}
	return cls + head[m:] + tail
}

// A pathPart is one entry of a displayed path: an application frame, or a
// run of runtime frames folded into one labelled entry.
type pathPart struct {
	// Label is the frame's Label, or for folded frames their group and
	// number ("[Node.js internals ×5]").
	Label string
	// Frames are the frames the part stands for, root first.
	Frames []diff.Frame
	// Group is the runtime group of the frames ("runtime" when folded
	// frames are of several), "" for application code.
	Group string
	// Folded marks a run of runtime frames.
	Folded bool
}

// Parts folds a root-first path for display: each maximal run of runtime
// frames (diff.RuntimeGroup) above the last frame becomes one part labelled with
// its group, so paths show the application's frames; the last frame, the
// one a cause names, stays itself.
func (s frameStyle) Parts(p []diff.Frame) []pathPart {
	var out []pathPart
	for i, f := range p {
		g := diff.RuntimeGroup(f)
		if g == "" || i == len(p)-1 {
			out = append(out, pathPart{Label: s.Label(f), Frames: []diff.Frame{f}, Group: g})
			continue
		}
		if n := len(out); n > 0 && out[n-1].Folded {
			last := &out[n-1]
			last.Frames = append(last.Frames, f)
			if last.Group != g {
				last.Group = diff.GroupRuntime
			}
			last.Label = foldLabel(last.Group, len(last.Frames))
			continue
		}
		out = append(out, pathPart{Label: foldLabel(g, 1), Frames: []diff.Frame{f}, Group: g, Folded: true})
	}
	return out
}

func foldLabel(group string, n int) string {
	if n == 1 {
		return "[" + group + "]"
	}
	return "[" + group + " ×" + strconv.Itoa(n) + "]"
}
