package main

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/pprof/profile"
)

// A testProfile is a small pprof profile a test writes: one sample per
// stack, its values in the order of types.
type testProfile struct {
	types  []*profile.ValueType
	period *profile.ValueType
	// stacks are "leaf;caller;...;root" with the values of each.
	stacks map[string][]int64
}

// cpuTypes are the sample types of a Go CPU profile (runtime/pprof).
var cpuTypes = []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}

// heapTypes are the sample types of a Go heap profile.
var heapTypes = []*profile.ValueType{
	{Type: "alloc_objects", Unit: "count"}, {Type: "alloc_space", Unit: "bytes"},
	{Type: "inuse_objects", Unit: "count"}, {Type: "inuse_space", Unit: "bytes"},
}

// heapProfile is a Go heap profile of main.alloc under main.main, scaled
// by k.
func heapProfile(k int64) testProfile {
	return testProfile{types: heapTypes, period: &profile.ValueType{Type: "space", Unit: "bytes"},
		stacks: map[string][]int64{"main.alloc;main.main": {10 * k, 10240 * k, 5 * k, 5120 * k}, "main.other;main.main": {4, 4096, 2, 2048}}}
}

// cpuProfile is a Go CPU profile of main.work under main.main, scaled by
// k (10 ms samples).
func cpuProfile(k int64) testProfile {
	return testProfile{types: cpuTypes, period: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		stacks: map[string][]int64{"main.work;main.main": {10 * k, 1e8 * k}, "main.other;main.main": {3, 3e7}}}
}

// write writes p, gzipped, to dir/name and returns the path.
func (p testProfile) write(t *testing.T, dir, name string) string {
	t.Helper()
	prof := &profile.Profile{SampleType: p.types, PeriodType: p.period, Period: 1, DurationNanos: 1e9}
	funcs := map[string]*profile.Location{}
	loc := func(name string) *profile.Location {
		if l, ok := funcs[name]; ok {
			return l
		}
		fn := &profile.Function{ID: uint64(len(prof.Function) + 1), Name: name}
		l := &profile.Location{ID: uint64(len(prof.Location) + 1), Line: []profile.Line{{Function: fn}}}
		prof.Function = append(prof.Function, fn)
		prof.Location = append(prof.Location, l)
		funcs[name] = l
		return l
	}
	for _, stack := range slices.Sorted(maps.Keys(p.stacks)) {
		s := &profile.Sample{Value: p.stacks[stack]}
		for _, f := range bytes.Split([]byte(stack), []byte(";")) {
			s.Location = append(s.Location, loc(string(f)))
		}
		prof.Sample = append(prof.Sample, s)
	}
	if err := prof.CheckValid(); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := prof.Write(&b); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
