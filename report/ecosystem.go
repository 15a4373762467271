package report

import (
	"github.com/ctdiff/ctdiff/diff"
)

// An Ecosystem is the language and runtime family whose conventions a
// profile's frames follow (diff.Ecosystem). Reports name frames the way
// that ecosystem's own tools do and group its runtime's frames
// (frameStyle).
type Ecosystem = diff.Ecosystem

const (
	UnknownEcosystem = diff.UnknownEcosystem
	Go               = diff.Go
	JS               = diff.JS
	Java             = diff.Java
	Native           = diff.Native
)

// Ecosystems lists the known ecosystems, for flags and manifests.
var Ecosystems = diff.Ecosystems

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
// (diff.FrameEcosystem), from its causes, critical graph and ranked paths;
// ties go to the first of Ecosystems. UnknownEcosystem when no frame says.
func detectEcosystem(res *diff.Result) Ecosystem {
	return diff.MostFrames(func(yield func(diff.Frame) bool) {
		for _, c := range res.Causes {
			for _, f := range c.Path {
				if !yield(f) {
					return
				}
			}
		}
		for _, g := range res.Graph {
			if !g.IsThread && !yield(g.Frame) {
				return
			}
		}
		for _, p := range res.RankedPaths {
			for _, n := range p.Path {
				if !yield(n.Frame) {
					return
				}
			}
		}
	})
}

// frameEcosystem says which ecosystem a single frame's shape belongs to.
func frameEcosystem(f diff.Frame) Ecosystem { return diff.FrameEcosystem(f) }

// javaName reports dotted Java names (diff.JavaName).
func javaName(fn string) bool { return diff.JavaName(fn) }
