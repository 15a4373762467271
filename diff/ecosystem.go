package diff

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// An Ecosystem is the language and runtime family whose conventions a
// profile's frames follow: what counts as the program's own code
// (ownership.go) and how reports name frames depend on it.
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

// FrameEcosystem says which ecosystem a single frame's shape belongs to,
// UnknownEcosystem when its shape does not say (a bare name of folded
// stacks).
func FrameEcosystem(f Frame) Ecosystem {
	fn, file := f.Function, f.File
	switch {
	case IsV8Pseudo(fn), isScriptURL(file), hasExt(file, ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx"):
		return JS
	case hasExt(file, ".go"), strings.HasPrefix(fn, "runtime."), goImportPath(fn):
		return Go
	case hasExt(file, ".java", ".kt", ".scala", ".groovy"), JavaName(fn):
		return Java
	case strings.Contains(fn, "!"), isModule(file):
		return Native
	}
	return UnknownEcosystem
}

// MostFrames returns the ecosystem most of frames look like
// (FrameEcosystem); ties go to the first of Ecosystems, UnknownEcosystem
// when no frame says.
func MostFrames(frames func(yield func(Frame) bool)) Ecosystem {
	votes := map[Ecosystem]int{}
	for f := range frames {
		votes[FrameEcosystem(f)]++
	}
	best, most := UnknownEcosystem, 0
	for _, e := range Ecosystems {
		if votes[e] > most {
			best, most = e, votes[e]
		}
	}
	return best
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

// JavaName reports dotted Java names: lower-case package segments, a
// capitalised class, a method ("java.util.regex.Pattern.compile").
func JavaName(fn string) bool {
	return !strings.ContainsAny(fn, " /(") && JavaClass(fn) >= 0
}

// JavaClass returns where the class starts in a dotted Java or C# name
// ("java.util.regex.Pattern.compile": two or more lower-case package
// segments, a capitalised class, the method), or -1 for other names. Go's
// "runtime.gcBgMarkWorker.func2" and "time.Time.Add" are not such names.
// Reports name every frame through here, so the segments are walked
// rather than split.
func JavaClass(head string) int {
	n := strings.Count(head, ".") + 1
	if n < 4 {
		return -1
	}
	class := 0
	for seg, start := 0, 0; seg < n-1; seg++ {
		end := start + strings.IndexByte(head[start:], '.')
		if end == start {
			return -1
		}
		first, _ := utf8.DecodeRuneInString(head[start:end])
		if seg < n-2 && !unicode.IsLower(first) || seg == n-2 && !unicode.IsUpper(first) {
			return -1
		}
		class = start
		start = end + 1
	}
	return class
}
