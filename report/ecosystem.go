package report

import (
	"path"
	"strconv"
	"strings"
	"unicode"

	"github.com/ctdiff/ctdiff/diff"
)

// An Ecosystem is the language and runtime family whose conventions a
// profile's frames follow. Reports name frames the way that ecosystem's own
// tools do and group its runtime's frames (frameStyle).
type Ecosystem string

const (
	UnknownEcosystem Ecosystem = ""
	Go               Ecosystem = "go"
	JS               Ecosystem = "js"   // V8: Chrome DevTools, Node.js .cpuprofile
	Java             Ecosystem = "java" // JVM: JFR, HPROF, CCT dumps
	Native           Ecosystem = "native"
)

// Ecosystems lists the known ecosystems, for flags and manifests.
var Ecosystems = []Ecosystem{Go, JS, Java, Native}

// Title names an ecosystem for people.
func (e Ecosystem) Title() string {
	switch e {
	case Go:
		return "Go"
	case JS:
		return "JavaScript"
	case Java:
		return "Java"
	case Native:
		return "native"
	}
	return "unknown"
}

// FormatEcosystem is the ecosystem an input format (convert's format names)
// implies, or UnknownEcosystem for formats any language can produce (pprof, folded
// stacks, perf script).
func FormatEcosystem(format string) Ecosystem {
	switch format {
	case "devtools", "cpuprofile":
		return JS
	case "jfr", "jfrprint", "hprof":
		return Java
	case "etl", "xperf", "wpacsv", "perfview":
		return Native
	}
	return UnknownEcosystem
}

// detectEcosystem picks the ecosystem most frames of a result look like
// (frameEcosystem), from its causes, critical graph and ranked paths; ties
// go to the first of Ecosystems. UnknownEcosystem when no frame says.
func detectEcosystem(res *diff.Result) Ecosystem {
	votes := map[Ecosystem]int{}
	vote := func(f diff.Frame) { votes[frameEcosystem(f)]++ }
	for _, c := range res.Causes {
		for _, f := range c.Path {
			vote(f)
		}
	}
	for _, g := range res.Graph {
		if !g.IsThread {
			vote(g.Frame)
		}
	}
	for _, p := range res.RankedPaths {
		for _, n := range p.Path {
			vote(n.Frame)
		}
	}
	best, most := UnknownEcosystem, 0
	for _, e := range Ecosystems {
		if votes[e] > most {
			best, most = e, votes[e]
		}
	}
	return best
}

// frameEcosystem says which ecosystem a single frame's shape belongs to.
func frameEcosystem(f diff.Frame) Ecosystem {
	fn, file := f.Function, f.File
	switch {
	case diff.IsV8Pseudo(fn), isScriptURL(file), hasExt(file, ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx"):
		return JS
	case hasExt(file, ".go"), strings.HasPrefix(fn, "runtime."), goImportPath(fn):
		return Go
	case hasExt(file, ".java", ".kt", ".scala", ".groovy"), javaName(fn):
		return Java
	case strings.Contains(fn, "!"), isModule(file):
		return Native
	}
	return UnknownEcosystem
}

func hasExt(file string, exts ...string) bool {
	lower := strings.ToLower(file)
	for _, e := range exts {
		if strings.HasSuffix(lower, e) {
			return true
		}
	}
	return false
}

func isScriptURL(file string) bool {
	return strings.Contains(file, "://") || strings.HasPrefix(file, "node:") || strings.HasPrefix(file, "webpack:")
}

// isModule reports native module names: Windows images, shared objects,
// kernel pseudo-modules.
func isModule(file string) bool {
	lower := strings.ToLower(file)
	return hasExt(lower, ".dll", ".exe", ".sys", ".dylib", ".ko") || strings.Contains(lower, ".so") ||
		strings.HasPrefix(lower, "[kernel") || lower == "[vdso]"
}

// goImportPath reports names like "github.com/x/y.F" or "encoding/json.(*d).f":
// an import path with a slash, then a dot-qualified name.
func goImportPath(fn string) bool {
	slash := strings.LastIndexByte(fn, '/')
	return slash > 0 && !strings.ContainsAny(fn[:slash], " :\\!") && strings.Contains(fn[slash:], ".")
}

// javaName reports dotted Java names: lower-case package segments, a
// capitalised class, a method ("java.util.regex.Pattern.compile").
func javaName(fn string) bool {
	parts := strings.Split(fn, ".")
	if len(parts) < 4 || strings.ContainsAny(fn, " /(") {
		return false
	}
	for i, p := range parts[:len(parts)-1] {
		if p == "" {
			return false
		}
		first := []rune(p)[0]
		if i < len(parts)-2 && !unicode.IsLower(first) || i == len(parts)-2 && !unicode.IsUpper(first) {
			return false
		}
	}
	return true
}

// frameStyle names frames the way one ecosystem writes them. Lines, when
// set, gives the line of a frame's function (cct.FrameInfo: where a
// JavaScript function is defined), keyed by function and file, for frames
// whose diff.Frame does not carry it.
type frameStyle struct {
	Ecosystem Ecosystem
	Lines     map[diff.Frame]int64
}

// Label is a frame's short name: Go's package-qualified name without the
// import path ("example.checkRules"), a JavaScript function with its
// script's file name and line ("formatPrice (storefront.js:21)"), Java's
// Class.method ("InvoiceService.invoice"), native module!function
// ("ntdll.dll!RtlUserThreadStart"). Other frames keep their name.
func (s frameStyle) Label(f diff.Frame) string {
	fn := f.Function
	if fn == "" {
		fn = "(unknown)"
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

// Full is a frame's complete name: the function with its whole import path,
// script URL and line, Java class, or module.
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
