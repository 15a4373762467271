package convert

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/benchcpu"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/ctdiff/ctdiff/tools/synth"
	"github.com/google/pprof/profile"
)

// everyFieldProfile uses every field of profile.proto: mappings (one a
// kernel mapping), inlined lines, string and numeric labels with and
// without units (several values per key), comments, drop/keep frames.
func everyFieldProfile() *profile.Profile {
	m1 := &profile.Mapping{ID: 1, Start: 0x1000, Limit: 0x2000, Offset: 0x10, File: "/bin/app", BuildID: "abc", HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true}
	m2 := &profile.Mapping{ID: 2, Start: 0xffff0000, Limit: 0xffffffff, File: "[kernel.kallsyms]_text"}
	f1 := &profile.Function{ID: 1, Name: "main.main", SystemName: "main.main", Filename: "main.go", StartLine: 3}
	f2 := &profile.Function{ID: 2, Name: "main.work", SystemName: "_main_work", Filename: "work.go"}
	f3 := &profile.Function{ID: 7, Name: "inlined", Filename: "work.go"}
	l1 := &profile.Location{ID: 1, Mapping: m1, Address: 0x1100, Line: []profile.Line{{Function: f1, Line: 10, Column: 2}}}
	l2 := &profile.Location{ID: 2, Mapping: m1, Address: 0x1200, Line: []profile.Line{{Function: f3, Line: 5}, {Function: f2, Line: 20}}, IsFolded: true}
	l3 := &profile.Location{ID: 5, Mapping: m2, Address: 0xffff0100}
	return &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		DefaultSampleType: "cpu",
		Mapping:           []*profile.Mapping{m1, m2},
		Function:          []*profile.Function{f1, f2, f3},
		Location:          []*profile.Location{l1, l2, l3},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{l2, l1}, Value: []int64{1, 10}, Label: map[string][]string{labels.Thread: {"main"}, "k": {"a", "b"}},
				NumLabel: map[string][]int64{labels.Timestamp: {100}, labels.TID: {7}, "bytes": {1, 2}}, NumUnit: map[string][]string{labels.Timestamp: {labels.TimestampUnit}, "bytes": {"", "bytes"}}},
			{Location: []*profile.Location{l3, l2, l1}, Value: []int64{2, 20}, Label: map[string][]string{labels.Thread: {"main"}, "k": {"a", "b"}},
				NumLabel: map[string][]int64{labels.Timestamp: {200}, labels.TID: {7}, "bytes": {3, 4}}, NumUnit: map[string][]string{labels.Timestamp: {labels.TimestampUnit}, "bytes": {"", "bytes"}}},
			{Location: []*profile.Location{l1}, Value: []int64{3, 30}, NumLabel: map[string][]int64{"n": {0, 5}}},
			{Value: []int64{4, 40}, Label: map[string][]string{labels.Thread: {"other"}}},
		},
		DropFrames: "runtime\\..*", KeepFrames: "main",
		TimeNanos: 1234, DurationNanos: 5678,
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10_000_000,
		Comments: []string{"one", "two"},
		DocURL:   "https://example.com/doc",
	}
}

// repeatedLabelsProfile has samples whose thread labels (thread,
// process, pid, tid, timestamp) have two values each: the first counts,
// as in the labels profile.ParseData makes.
func repeatedLabelsProfile() *profile.Profile {
	f := &profile.Function{ID: 1, Name: "main.main"}
	l := &profile.Location{ID: 1, Line: []profile.Line{{Function: f}}}
	sample := func(th, proc string, tid, ts int64) *profile.Sample {
		return &profile.Sample{Location: []*profile.Location{l}, Value: []int64{1},
			Label:    map[string][]string{labels.Thread: {th, "second"}, labels.Process: {proc, "second"}},
			NumLabel: map[string][]int64{labels.PID: {1, 2}, labels.TID: {tid, 99}, labels.Timestamp: {ts, 1}},
			NumUnit:  map[string][]string{labels.Timestamp: {labels.TimestampUnit, labels.TimestampUnit}}}
	}
	return &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}},
		Function:   []*profile.Function{f},
		Location:   []*profile.Location{l},
		Sample:     []*profile.Sample{sample("a", "p", 7, 100), sample("b", "q", 8, 200), sample("a", "p", 7, 300)},
	}
}

func encode(tb testing.TB, p *profile.Profile) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := p.WriteUncompressed(&b); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// sameAsPprof checks that Decode takes data and decodes it to what
// profile.ParseData does.
func sameAsPprof(t *testing.T, data []byte) {
	t.Helper()
	want, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := pprofio.Decode(data, nil)
	if !ok {
		t.Fatal("Decode refused a valid profile")
	}
	if err := got.CheckValid(); err != nil {
		t.Fatal(err)
	}
	if g, w := got.String(), want.String(); g != w {
		t.Fatalf("decoded:\n%s\nwant (pprof):\n%s", g, w)
	}
	if !bytes.Equal(encode(t, got), encode(t, want)) {
		t.Fatal("re-encoded profiles differ")
	}
	for i, m := range got.Mapping {
		if m.KernelRelocationSymbol != want.Mapping[i].KernelRelocationSymbol {
			t.Errorf("mapping %d: kernel relocation symbol %q, want %q", i, m.KernelRelocationSymbol, want.Mapping[i].KernelRelocationSymbol)
		}
	}
}

func gunzip(tb testing.TB, path string) []byte {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			tb.Fatal(err)
		}
		r = zr
	}
	data, err := io.ReadAll(r)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

func TestDecodePprofMatchesPprof(t *testing.T) {
	t.Run("every field", func(t *testing.T) { sameAsPprof(t, encode(t, everyFieldProfile())) })
	pair := synth.Generate(synth.Config{Seed: 2, Stacks: 2000, Functions: 300})
	t.Run("synth", func(t *testing.T) { sameAsPprof(t, encode(t, pair.New)) })
	files, _ := filepath.Glob("../testdata/*/*/*.pb.gz")
	more, _ := filepath.Glob("../testdata/*/*/*.pprof")
	for _, path := range append(files, more...) {
		t.Run(path, func(t *testing.T) { sameAsPprof(t, gunzip(t, path)) })
	}
	// ctdiff's own output with timestamps and thread labels.
	t.Run("converted devtools trace", func(t *testing.T) {
		res, err := ReadFile(convertedTrace(t), Options{})
		if err != nil {
			t.Fatal(err)
		}
		sameAsPprof(t, encode(t, res.Profile))
	})
}

func TestDecodePprofSharesLabelMaps(t *testing.T) {
	p, ok := pprofio.Decode(encode(t, everyFieldProfile()), nil)
	if !ok {
		t.Fatal("refused")
	}
	s0, s1 := p.Sample[0], p.Sample[1]
	if !sameMap(s0.Label, s1.Label) || !sameMap(s0.NumUnit, s1.NumUnit) {
		t.Error("samples with equal string labels and units do not share their maps")
	}
	if s0.NumLabel[labels.Timestamp][0] != 100 || s1.NumLabel[labels.Timestamp][0] != 200 {
		t.Errorf("timestamps %v, %v", s0.NumLabel, s1.NumLabel)
	}
}

func sameMap(a, b map[string][]string) bool {
	if len(a) == 0 || len(a) != len(b) {
		return false
	}
	k := "probe\x00"
	a[k] = nil
	_, ok := b[k]
	delete(a, k)
	return ok
}

// TestDecodePprofRefuses: what pprof rejects, the fast decoder refuses, and
// parsePprof then reports pprof's error.
func TestDecodePprofRefuses(t *testing.T) {
	valid := encode(t, everyFieldProfile())
	tests := []struct {
		name string
		data []byte
		err  string
	}{
		{"truncated", valid[:len(valid)/2], "not a valid pprof profile"},
		{"unknown wire type", append([]byte{0x0b}, valid...), "not a valid pprof profile"},
		{"sample type is not a message", append([]byte{0x08, 0x01}, valid...), "not a valid pprof profile"},
		{"string index out of range", append(append([]byte{}, valid...), 0x70, 0x7f), "not a valid pprof profile"}, // default_sample_type = 127
		{"concatenated", append(append([]byte{}, valid...), valid...), "concatenated profiles"},
		{"location id unknown", encode(t, &profile.Profile{
			SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}},
			Sample:     []*profile.Sample{{Location: []*profile.Location{{ID: 9}}, Value: []int64{1}}},
		}), "sample has nil location"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p, ok := pprofio.Decode(tt.data, nil); ok && p.CheckValid() == nil {
				t.Fatal("Decode took invalid data")
			}
			_, err := parsePprof(&parserInput{Name: "x", R: bufio.NewReader(bytes.NewReader(tt.data)), Options: &Options{}})
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want one containing %q", err, tt.err)
			}
		})
	}
}

// FuzzDecodePprof: whenever the fast decoder takes data, pprof takes it
// too and decodes it to the same profile.
func FuzzDecodePprof(f *testing.F) {
	f.Add(encode(f, everyFieldProfile()))
	f.Add(encode(f, synth.Generate(synth.Config{Seed: 1, Stacks: 20, Functions: 10}).Base))
	files, _ := filepath.Glob("../testdata/example/*/*.pb.gz")
	for _, path := range files {
		f.Add(gunzip(f, path))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := pprofio.Decode(data, nil)
		if !ok || got.CheckValid() != nil {
			return
		}
		want, err := profile.ParseUncompressed(data)
		if err != nil {
			t.Fatalf("Decode took data pprof refuses: %v", err)
		}
		if !bytes.Equal(encode(t, got), encode(t, want)) {
			t.Fatalf("decoded:\n%s\nwant (pprof):\n%s", got, want)
		}
	})
}

// BenchmarkDecodePprof decodes tools/synth's 200,000-stack synthetic
// profile (uncompressed, from memory) with the fast decoder and with
// profile.ParseData.
func BenchmarkDecodePprof(b *testing.B) {
	data := encode(b, synth.Generate(synth.Config{Seed: 1}).Base)
	b.Run("ctdiff", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		stop := benchcpu.Start(b)
		for b.Loop() {
			if _, ok := pprofio.Decode(data, nil); !ok {
				b.Fatal("refused")
			}
		}
		stop()
	})
	b.Run("pprof", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		stop := benchcpu.Start(b)
		for b.Loop() {
			if _, err := profile.ParseData(data); err != nil {
				b.Fatal(err)
			}
		}
		stop()
	})
}

// TestReadAllSizeHint: ReadAll from a buffer sized by the gzip trailer (or
// the file size) reads every byte, whether the hint is right, short or
// absent.
func TestReadAllSizeHint(t *testing.T) {
	data := encode(t, synth.Generate(synth.Config{Seed: 1, Stacks: 500, Functions: 50}).Base)
	dir := t.TempDir()
	gzipped := func(parts ...[]byte) []byte {
		var b bytes.Buffer
		for _, p := range parts { // one member per part: the trailer tells the last one's size
			zw := gzip.NewWriter(&b)
			zw.Write(p)
			zw.Close()
		}
		return b.Bytes()
	}
	cut := len(data) - 100
	for name, content := range map[string][]byte{
		"plain.pb":  data,
		"one.pb.gz": gzipped(data),
		"two.pb.gz": gzipped(data[:cut], data[cut:]), // a hint of 100 bytes
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := ReadFile(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if want := 500; len(res.Profile.Sample) != want {
			t.Errorf("%s: %d samples, want %d", name, len(res.Profile.Sample), want)
		}
	}
}
