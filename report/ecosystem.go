package report

import (
	"strings"

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
	return !strings.ContainsAny(fn, " /(") && javaClass(fn) >= 0
}
