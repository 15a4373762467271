package main

import (
	"path/filepath"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

// Inputs of different kinds (a heap profile and a CPU profile, a Go CPU
// profile and a JavaScript one) are said to be so, and --metric is advised
// only with a sample type every input has.
func TestDiffInputsOfDifferentKinds(t *testing.T) {
	dir := t.TempDir()
	heap := heapProfile(1).write(t, dir, "heap.pb.gz")
	cpu := cpuProfile(1).write(t, dir, "cpu.pb.gz")
	cpu2 := cpuProfile(2).write(t, dir, "cpu2.pb.gz")
	mixed := filepath.Join(dir, "mixed")
	cpuProfile(1).write(t, dir, "mixed/a.pb.gz")
	writeFile(t, mixed, "b.cpuprofile", `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1,"columnNumber":-1}},`+
		`{"id":2,"callFrame":{"functionName":"work","url":"file:///a.js","lineNumber":1,"columnNumber":1},"parent":1}],`+
		`"startTime":0,"endTime":3000,"samples":[2,2,2],"timeDeltas":[1000,1000,1000]}`)
	folded := writeFile(t, dir, "a.folded", "main;work 10\n")
	const (
		cpuKind  = "a CPU profile (pprof: samples/count, cpu/nanoseconds)"
		heapKind = "a heap profile (pprof: alloc_objects/count, alloc_space/bytes, inuse_objects/count, inuse_space/bytes)"
	)
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"heap against CPU", []string{heap, cpu},
			"the inputs are different kinds of profile: " + cpu + " is " + cpuKind + ", and " + heap + " is " + heapKind + "; they have no sample type in common, so they do not compare"},
		{"CPU against heap", []string{cpu, heap},
			"the inputs are different kinds of profile: " + heap + " is " + heapKind + ", and " + cpu + " is " + cpuKind + "; they have no sample type in common, so they do not compare"},
		{"a directory of a pprof and a .cpuprofile", []string{mixed, cpu2},
			"the inputs are different kinds of profile: " + filepath.Join(mixed, "b.cpuprofile") + " is a wall-clock profile (cpuprofile: samples/count, wall/nanoseconds), and " +
				filepath.Join(mixed, "a.pb.gz") + " is " + cpuKind + "; they do not compare as they are (--metric samples would compare what every input records, if that is meant)"},
		{"--metric of one kind", []string{cpu, heap, "--metric", "inuse_space"},
			cpu + `: --metric: sample type "inuse_space" not found: must be one of: [samples/count cpu/nanoseconds]; the inputs are different kinds of profile: ` + cpu + " is " + cpuKind + ", and " + heap + " is " + heapKind},
		{"folded stacks against heap", []string{folded, heap},
			heap + " is " + heapKind + ", and " + folded + " is a sample-count profile (collapsed: samples/count): the inputs have no sample type in common, so they do not compare"},
		{"folded stacks against CPU", []string{folded, cpu},
			cpu + ": compares cpu/nanoseconds, and " + folded + " compares samples/count: pick a type every input has with --metric samples"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := ctdiff(append([]string{"diff"}, tt.args...)...)
			if want := "ctdiff: " + tt.want + "\n"; code != exitError || errOut != want || out != "" {
				t.Errorf("exit %d, stdout %q, stderr\n%q\nwant exit %d,\n%q", code, out, errOut, exitError, want)
			}
		})
	}
}

// The kind of a profile, from its header.
func TestInputKindName(t *testing.T) {
	vt := func(s ...string) []cct.ValueType {
		var out []cct.ValueType
		for i := 0; i < len(s); i += 2 {
			out = append(out, cct.ValueType{Type: s[i], Unit: s[i+1]})
		}
		return out
	}
	for _, tt := range []struct {
		name   string
		types  []cct.ValueType
		period []cct.ValueType
		want   string
	}{
		{"Go CPU", vt("samples", "count", "cpu", "nanoseconds"), vt("cpu", "nanoseconds"), "CPU"},
		{"Go heap", vt("alloc_objects", "count", "alloc_space", "bytes", "inuse_objects", "count", "inuse_space", "bytes"), vt("space", "bytes"), "heap"},
		{"Go mutex", vt("contentions", "count", "delay", "nanoseconds"), vt("contentions", "count"), "contention"},
		{"Go goroutine", vt("goroutine", "count"), vt("goroutine", "count"), "goroutine"},
		{"V8", vt("samples", "count", "wall", "nanoseconds"), vt("wall", "nanoseconds"), "wall-clock"},
		{"perf cycles", vt("samples", "count", "cycles", "count"), vt("cycles", "count"), "CPU"},
		{"JFR with allocations", vt("samples", "count", "cpu", "nanoseconds", "alloc_space", "bytes"), vt("cpu", "nanoseconds"), "CPU"},
		{"legacy CPU without a period", vt("samples", "count", "cpu", "nanoseconds"), vt("", ""), "CPU"},
		{"folded stacks", vt("samples", "count"), vt("samples", "count"), ""},
	} {
		if got := (inputKind{types: tt.types, period: tt.period[0]}).name(); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
