package pprofio

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctdiff/ctdiff/internal/benchcpu"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/tools/synth"
	"github.com/google/pprof/profile"
)

// everyField uses every field of profile.proto: mappings, inlined lines,
// string and numeric labels with and without units (several values per
// key, keys out of order), comments, drop/keep frames, a doc URL.
func everyField() *profile.Profile {
	m := &profile.Mapping{ID: 1, Start: 0x1000, Limit: 0x2000, Offset: 0x10, File: "/bin/app", BuildID: "abc", HasFunctions: true, HasFilenames: true, HasLineNumbers: true, HasInlineFrames: true}
	f1 := &profile.Function{ID: 1, Name: "main.main", SystemName: "main.main", Filename: "main.go", StartLine: 3}
	f2 := &profile.Function{ID: 2, Name: "main.work", SystemName: "_main_work", Filename: "work.go"}
	l1 := &profile.Location{ID: 1, Mapping: m, Address: 0x1100, Line: []profile.Line{{Function: f1, Line: 10, Column: 2}}}
	l2 := &profile.Location{ID: 2, Mapping: m, Address: 0x1200, Line: []profile.Line{{Function: f2, Line: 5}, {Function: f1, Line: 20}, {}}, IsFolded: true}
	l3 := &profile.Location{ID: 3}
	thread := map[string][]string{labels.Thread: {"main"}, "k": {"b", "a"}, "a": {"z"}}
	return &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		DefaultSampleType: "cpu",
		Mapping:           []*profile.Mapping{m},
		Function:          []*profile.Function{f1, f2},
		Location:          []*profile.Location{l1, l2, l3},
		Sample: []*profile.Sample{
			{Location: []*profile.Location{l2, l1, l3}, Value: []int64{1, 10}, Label: thread,
				NumLabel: map[string][]int64{labels.Timestamp: {100}, labels.TID: {7}, "bytes": {1, 2}, "zz": {-3}}, NumUnit: map[string][]string{labels.Timestamp: {labels.TimestampUnit}, "bytes": {"", "bytes"}}},
			{Location: []*profile.Location{l1, l2}, Value: []int64{2, 20}, Label: thread,
				NumLabel: map[string][]int64{labels.Timestamp: {200}, labels.TID: {7}}, NumUnit: map[string][]string{labels.Timestamp: {labels.TimestampUnit}}},
			{Location: []*profile.Location{l1}, Value: []int64{3, 30}},
			{Value: []int64{4, 40}, Label: map[string][]string{labels.Thread: {"other"}}},
		},
		DropFrames: "runtime\\..*", KeepFrames: "main",
		TimeNanos: 1234, DurationNanos: 5678,
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 10_000_000,
		Comments: []string{"one", "two", "three"},
		DocURL:   "https://example.com/doc",
	}
}

func same(t *testing.T, p *profile.Profile) {
	t.Helper()
	var want, got bytes.Buffer
	if err := p.WriteUncompressed(&want); err != nil {
		t.Fatal(err)
	}
	if err := WriteUncompressed(&got, p); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("%d bytes differ from pprof's %d", got.Len(), want.Len())
	}
	if p.CheckValid() != nil {
		return
	}
	// And gzipped, it reads back.
	var z bytes.Buffer
	if err := Write(&z, p); err != nil {
		t.Fatal(err)
	}
	back, err := profile.Parse(&z)
	if err != nil {
		t.Fatal(err)
	}
	if wantBack, err := profile.ParseUncompressed(want.Bytes()); err == nil && back.String() != wantBack.String() {
		t.Fatal("read back differs")
	}
}

func TestSameBytesAsPprof(t *testing.T) {
	t.Run("every field", func(t *testing.T) { same(t, everyField()) })
	t.Run("no period type", func(t *testing.T) {
		p := everyField()
		p.PeriodType, p.DefaultSampleType, p.Comments = nil, "", []string{"a", "b"}
		same(t, p)
	})
	t.Run("empty", func(t *testing.T) { same(t, &profile.Profile{}) })
	t.Run("synth", func(t *testing.T) { same(t, synth.Generate(synth.Config{Seed: 1, Stacks: 3000, Functions: 300}).New) })
	files, _ := filepath.Glob("../../testdata/*/*/*.pb.gz")
	for _, path := range files {
		t.Run(path, func(t *testing.T) {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			p, err := profile.Parse(f)
			if err != nil {
				t.Fatal(err)
			}
			same(t, p)
		})
	}
}

// FuzzSameBytesAsPprof: any profile pprof reads, this package writes as
// pprof does.
func FuzzSameBytesAsPprof(f *testing.F) {
	var b bytes.Buffer
	if err := everyField().WriteUncompressed(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := profile.ParseUncompressed(data)
		if err != nil || p.CheckValid() != nil {
			return
		}
		for _, s := range p.Sample {
			for k, vs := range s.NumLabel {
				if u := s.NumUnit[k]; len(u) != 0 && len(u) < len(vs) {
					return // pprof's encoder panics on these
				}
			}
		}
		same(t, p)
	})
}

// BenchmarkWrite writes the 200,000-stack synthetic profile gzipped, with
// this package and with pprof.
func BenchmarkWrite(b *testing.B) {
	p := synth.Generate(synth.Config{Seed: 1}).Base
	for _, w := range []struct {
		name  string
		write func(io.Writer, *profile.Profile) error
	}{
		{"pprofio", Write},
		{"pprof", func(w io.Writer, p *profile.Profile) error { return p.Write(w) }},
		{"pprof-bestspeed", func(w io.Writer, p *profile.Profile) error {
			zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
			if err := p.WriteUncompressed(zw); err != nil {
				return err
			}
			return zw.Close()
		}},
	} {
		b.Run(w.name, func(b *testing.B) {
			b.ReportAllocs()
			stop := benchcpu.Start(b)
			for b.Loop() {
				if err := w.write(io.Discard, p); err != nil {
					b.Fatal(err)
				}
			}
			stop()
		})
	}
}
