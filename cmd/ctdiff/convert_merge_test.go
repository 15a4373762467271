package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/pprof/profile"
)

// lockTypes are a CPU profile's sample types with lock contention beside
// them, as a JFR recording with jdk.JavaMonitorEnter events converts.
var lockTypes = append(slices.Clone(cpuTypes), &profile.ValueType{Type: "contentions", Unit: "count"}, &profile.ValueType{Type: "delay", Unit: "nanoseconds"})

// readProfile parses the pprof profile at path.
func readProfile(t *testing.T, path string) *profile.Profile {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// typesAndTotals are a profile's sample types and their totals.
func typesAndTotals(p *profile.Profile) ([]string, []int64) {
	var types []string
	for _, st := range p.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	totals := make([]int64, len(p.SampleType))
	for _, s := range p.Sample {
		for i, v := range s.Value {
			totals[i] += v
		}
	}
	return types, totals
}

// Runs whose sample types differ (one recorded lock contention beside its
// CPU samples, the others not) merge as go tool pprof -proto merges them:
// into the sample types every run has, with a warning naming what was
// dropped and where it was. Once the merge failed, naming the types by
// their memory addresses.
func TestConvertMergeSampleTypes(t *testing.T) {
	dir := t.TempDir()
	lock := testProfile{types: lockTypes, period: cpuTypes[1], stacks: map[string][]int64{
		"main.work;main.main": {10, 1e8, 0, 0}, "main.lock;main.main": {0, 0, 3, 2e6}}}
	runs := []string{
		lock.write(t, dir, "run1.pb.gz"),
		cpuProfile(2).write(t, dir, "run2.pb.gz"),
		cpuProfile(3).write(t, dir, "run3.pb.gz"),
	}
	out := filepath.Join(dir, "merged.pb.gz")
	_, errOut, code := ctdiff(append([]string{"convert", "-o", out}, runs...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "ctdiff: warning: merging 3 inputs: kept the sample types every input has (samples/count, cpu/nanoseconds), as go tool pprof does, and dropped contentions/count (only in " + runs[0] + "), delay/nanoseconds (only in " + runs[0] + ")\n"
	if errOut != want {
		t.Errorf("stderr\n%q\nwant\n%q", errOut, want)
	}
	types, totals := typesAndTotals(readProfile(t, out))
	// run1: work 10 samples; run2, run3: work 20 and 30, other 3 each.
	if wantTypes, wantTotals := []string{"samples/count", "cpu/nanoseconds"}, []int64{66, 66e7}; !slices.Equal(types, wantTypes) || !slices.Equal(totals, wantTotals) {
		t.Errorf("merged %v %v, want %v %v", types, totals, wantTypes, wantTotals)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH: not compared with go tool pprof -proto")
	}
	ref := filepath.Join(dir, "pprof.pb.gz")
	cmd := exec.Command(goBin, append([]string{"tool", "pprof", "-proto", "-output", ref}, runs...)...)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go tool pprof -proto: %v: %s", err, b)
	}
	if refTypes, refTotals := typesAndTotals(readProfile(t, ref)); !slices.Equal(types, refTypes) || !slices.Equal(totals, refTotals) {
		t.Errorf("merged %v %v, go tool pprof -proto %v %v", types, totals, refTypes, refTotals)
	}
}

// Inputs that cannot be merged say why, naming them and their types.
func TestConvertMergeErrors(t *testing.T) {
	dir := t.TempDir()
	cpu := cpuProfile(1).write(t, dir, "cpu.pb.gz")
	heap := heapProfile(1).write(t, dir, "heap.pb.gz")
	micro := testProfile{types: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "microseconds"}},
		period: &profile.ValueType{Type: "cpu", Unit: "microseconds"}, stacks: map[string][]int64{"main.work;main.main": {1, 1e4}}}.write(t, dir, "micro.pb.gz")
	wall := testProfile{types: cpuTypes, period: &profile.ValueType{Type: "wall", Unit: "nanoseconds"},
		stacks: map[string][]int64{"main.work;main.main": {1, 1e7}}}.write(t, dir, "wall.pb.gz")
	for _, tt := range []struct {
		name   string
		inputs []string
		want   string
	}{
		{"no type in common", []string{cpu, heap},
			"ctdiff: merging 2 inputs: no sample type in common: " + cpu + " has samples/count, cpu/nanoseconds; " + heap + " has alloc_objects/count, alloc_space/bytes, inuse_objects/count, inuse_space/bytes\n"},
		{"a type in two units", []string{cpu, micro},
			"ctdiff: merging 2 inputs: cpu is in nanoseconds in " + cpu + " and in microseconds in " + micro + "\n"},
		{"two period types", []string{cpu, wall},
			"ctdiff: merging 2 inputs: " + cpu + " samples cpu/nanoseconds and " + wall + " samples wall/nanoseconds: profiles of two period types do not merge\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := ctdiff(append([]string{"convert", "-o", filepath.Join(t.TempDir(), "m.pb.gz")}, tt.inputs...)...)
			if code != exitError || errOut != tt.want {
				t.Errorf("exit %d, stderr\n%q\nwant %d,\n%q", code, errOut, exitError, tt.want)
			}
		})
	}
}
