package convert_test

import (
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/google/pprof/profile"
)

// Three JFR recordings of which one also recorded lock contention
// (jdk.JavaMonitorEnter): merged, they keep the sample types all three
// have, their CPU samples, and the warning names what only one had.
func TestMergeProfilesJFR(t *testing.T) {
	cpu := func(at, stack int) jfrTEvent { return jfrTEvent{"jdk.ExecutionSample", []any{at, 1, stack, 1}} }
	monitor := jfrTEvent{"jdk.JavaMonitorEnter", []any{4000, 2_000_000, 1, 1, 1, 1, 0x2000}}
	recordings := [][]jfrTEvent{
		{cpu(500, 1), cpu(600, 2), monitor},
		{cpu(500, 1), cpu(700, 1)},
		{cpu(500, 2)},
	}
	names := []string{"run1.jfr", "run2.jfr", "run3.jfr"}
	var ps []*profile.Profile
	for i, events := range recordings {
		res, err := convert.Read(strings.NewReader(string(jfrTRecording(events...))), names[i], convert.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, res.Profile)
	}
	if n := len(ps[0].SampleType); n != 4 {
		t.Fatalf("run1.jfr has %d sample types, want 4 (CPU and lock contention)", n)
	}
	p, warnings, err := convert.MergeProfiles(names, ps)
	if err != nil {
		t.Fatal(err)
	}
	want := "kept the sample types every input has (samples/count, cpu/nanoseconds), as go tool pprof does, and dropped contentions/count (only in run1.jfr), delay/nanoseconds (only in run1.jfr)"
	if len(warnings) != 1 || warnings[0] != want {
		t.Errorf("warnings %q, want %q", warnings, want)
	}
	var samples, cpuNs int64
	for _, s := range p.Sample {
		samples, cpuNs = samples+s.Value[0], cpuNs+s.Value[1]
	}
	if len(p.SampleType) != 2 || p.DefaultSampleType != "cpu" || samples != 5 || cpuNs != 5e7 {
		t.Errorf("merged types %v (default %q), %d samples, %d ns; want samples and cpu, 5 samples of 10 ms", p.SampleType, p.DefaultSampleType, samples, cpuNs)
	}
}
