package convert

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/labels"
)

// TestCpuprofileShapes checks the node shapes and timings a .cpuprofile
// can have; the fixtures' full output is in their .golden files.
func TestCpuprofileShapes(t *testing.T) {
	read := func(name string) *Result {
		t.Helper()
		res, err := ReadFile(filepath.Join("testdata", "devtools", name), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Format != "cpuprofile" {
			t.Fatalf("%s read as %s", name, res.Format)
		}
		return res
	}
	// children lists, hitCount and positionTicks; startTime 100000 µs.
	res := read("children.cpuprofile")
	if got := v8StackString(res.Profile.Sample[3]); got != "(anonymous)@file:///s.js:1:1;a@file:///s.js:1:11;a@file:///s.js:1:11;d@file:///s.js:14:11" {
		t.Errorf("recursive stack %s", got)
	}
	if ts := timestamp(res.Profile.Sample[0]); ts != 101000000 {
		t.Errorf("first sample at %d ns, want startTime + 1000 µs", ts)
	}
	// parent links only, a child before its parent, a negative delta.
	res = read("parent-only.cpuprofile")
	var leaves []string
	for _, s := range res.Profile.Sample {
		leaves = append(leaves, v8Key(s.Location[0]).name)
	}
	if got := strings.Join(leaves, ","); got != "leaf,outer,(idle),leaf" {
		t.Errorf("leaves in time order %s, want leaf,outer,(idle),leaf", got)
	}
	// The legacy head tree: 1-based lines, absolute timestamps, seconds.
	res = read("legacy-head.cpuprofile")
	if got := v8StackString(res.Profile.Sample[1]); got != "main@/app/index.js:3:5;(anonymous)@/app/index.js:12:0" {
		t.Errorf("legacy stack %s", got)
	}
	if d := res.Profile.DurationNanos; d != 4100000 {
		t.Errorf("legacy duration %d ns, want 4.1 ms from startTime 12.5 s", d)
	}
	// No samples: hitCount, aggregated, no timestamps.
	res = read("hitcount-only.cpuprofile")
	if n, c := len(res.Profile.Sample), sumValues(res.Profile, 0); n != 2 || c != 4 || sumValues(res.Profile, 1) != 4000000 {
		t.Errorf("hitCount profile: %d samples, %d hits, %d ns", n, c, sumValues(res.Profile, 1))
	}
	// Node's --cpu-prof file name gives pid and tid.
	res = read("CPU.20250101.120000.4242.7.001.cpuprofile")
	s := res.Profile.Sample[0]
	if s.NumLabel[labels.PID][0] != 4242 || s.NumLabel[labels.TID][0] != 7 {
		t.Errorf("labels %v", s.NumLabel)
	}
}

// TestCpuprofileLegacyTimestamps: n+1 legacy timestamps; DevTools reads
// the last as the end of the last sample (normalizeTimestamps adds an end
// only when there are as many timestamps as samples).
func TestCpuprofileLegacyTimestamps(t *testing.T) {
	res := readV8String(t, "x.cpuprofile", `{"head":{"functionName":"(root)","id":1,"children":[{"functionName":"f","id":2,"children":[]}]},
		"startTime":1,"endTime":2,"samples":[2,2],"timestamps":[1000000,1000010,1000040]}`)
	if d0, d1 := res.Profile.Sample[0].Value[1], res.Profile.Sample[1].Value[1]; d0 != 10000 || d1 != 30000 {
		t.Errorf("durations %d, %d ns, want 10000, 30000", d0, d1)
	}
	res = readV8String(t, "x.cpuprofile", `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"parent":1,"callFrame":{"functionName":"f"}}],
		"startTime":0,"endTime":100,"samples":[2,2,2,2]}`)
	if d := res.Profile.Sample[3].Value[1]; d != 25000 || len(res.Warnings) != 1 {
		t.Errorf("no timeDeltas: last sample %d ns, want 25000 (spread evenly); warnings %q", d, res.Warnings)
	}
}

func TestCpuprofileErrors(t *testing.T) {
	const nodes = `"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"parent":1,"callFrame":{"functionName":"f"}}]`
	tests := []struct{ name, in, want string }{
		{"pairs", `{` + nodes + `,"startTime":0,"samples":[2,2],"timeDeltas":[1]}`, "p.cpuprofile: byte 135: 2 samples but 1 timeDeltas; they must pair up"},
		{"no nodes", `{"samples":[],"callFrame":1,"nodes":null}`, `p.cpuprofile: byte 36: expected '[' starting "nodes", found 'n'`},
		{"no counts", `{` + nodes + `,"startTime":0}`, "no samples: the profile has neither samples nor hitCounts"},
		{"bad sample", `{` + nodes + `,"samples":[2,"x"]}`, `p.cpuprofile: byte 124: expected an integer node id in samples, found "\"x\""`},
		// A fractional id once named node 3 (rounded) while "id":1.5 was refused.
		{"fractional sample id", `{` + nodes + `,"samples":[2,2.9]}`, `p.cpuprofile: byte 124: expected an integer node id in samples, found "2.9"`},
		{"fractional node id", `{"nodes":[{"id":1.5,"callFrame":{}}],"samples":[1]}`, `p.cpuprofile: byte 10: profile node: field id: expected an integer, found number 1.5`},
		{"node type", `{"nodes":[{"id":"one","callFrame":{}}]}`, `p.cpuprofile: byte 10: profile node: field id: expected an integer, found string`},
		{"no id", `{"nodes":[{"callFrame":{}}],"samples":[1]}`, `p.cpuprofile: byte 10: profile node without an "id"`},
		{"untimed samples", `{` + nodes + `,"samples":[2]}`, "the profile has samples but no timeDeltas, timestamps or endTime to time them by"},
		{"cut", `{` + nodes + `,"samples":[2,2`, `p.cpuprofile: byte 125: the samples array is cut off by the end of the input`},
		{"trailing", `{` + nodes + `,"startTime":0,"samples":[2],"timeDeltas":[1]} {}`, "p.cpuprofile: byte 157: expected the end of the profile, found '{'"},
		{"end before start", `{` + nodes + `,"startTime":10,"endTime":5,"samples":[2],"timeDeltas":[1]}`, "endTime 5 is out of range or before startTime"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.in), "p.cpuprofile", Options{From: "cpuprofile"})
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q\n      want %q", err, tt.want)
			}
		})
	}
}

func FuzzCpuprofile(f *testing.F) {
	v8FuzzSeeds(f, func(n string) bool { return strings.HasSuffix(n, ".cpuprofile") },
		"cpuprofile/speedscope-Chrome_65-simple.cpuprofile", "cpuprofile/speedscope-node_10.11.0-example.cpuprofile")
	f.Add([]byte(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"},"children":[2]},{"id":2,"parent":1,"callFrame":{"functionName":"f"},"hitCount":3}],"startTime":0,"endTime":9}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := Options{From: "cpuprofile", MaxDecompressed: 1 << 20}
		res, err := Read(bytes.NewReader(data), "fuzz.cpuprofile", opts)
		CheckRead(t, "fuzz.cpuprofile", res, err)
		CheckStacks(t, "fuzz.cpuprofile", data, opts)
		if err != nil {
			return
		}
		checkV8Fuzz(t, res)
		// Conservation: one sample per entry of "samples", when the
		// document is plain enough for encoding/json to count them.
		var doc struct{ Samples []json.RawMessage }
		if json.Unmarshal(data, &doc) == nil && len(doc.Samples) > 0 {
			in, out := int64(len(doc.Samples)), SampleSums(res.Profile)[0]
			if in != out && !warned(res.Warnings, in-out) {
				t.Fatalf("%d samples in, %d out, and no warning says so: %q", in, out, res.Warnings)
			}
		}
	})
}
