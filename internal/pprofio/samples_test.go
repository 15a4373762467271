package pprofio

import (
	"bytes"
	"errors"
	"fmt"
	"iter"
	"maps"
	"runtime"
	"testing"

	"github.com/ctdiff/ctdiff/tools/synth"
	"github.com/google/pprof/profile"
)

// reusing yields copies of samples through one Sample whose Location and
// Value slices and NumLabel and NumUnit maps are overwritten each time, as
// WriteSamples allows; Label maps are the samples' own.
func reusing(samples []*profile.Sample) iter.Seq[*profile.Sample] {
	return func(yield func(*profile.Sample) bool) {
		var s profile.Sample
		s.NumLabel, s.NumUnit = map[string][]int64{}, map[string][]string{}
		for _, src := range samples {
			s.Location = append(s.Location[:0], src.Location...)
			s.Value = append(s.Value[:0], src.Value...)
			s.Label = src.Label
			clear(s.NumLabel)
			clear(s.NumUnit)
			maps.Copy(s.NumLabel, src.NumLabel)
			maps.Copy(s.NumUnit, src.NumUnit)
			if !yield(&s) {
				return
			}
		}
	}
}

// sameAsSeq checks that WriteSamples writes for p without samples and seq
// what pprof writes for p with samples.
func sameAsSeq(t *testing.T, p *profile.Profile, seq iter.Seq[*profile.Sample]) {
	t.Helper()
	var want, got bytes.Buffer
	if err := p.WriteUncompressed(&want); err != nil {
		t.Fatal(err)
	}
	q := withoutSamples(p)
	if err := WriteSamplesUncompressed(&got, q, seq); err != nil {
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
	if err := WriteSamples(&z, q, seq); err != nil {
		t.Fatal(err)
	}
	back, err := profile.Parse(&z)
	if err != nil {
		t.Fatal(err)
	}
	if wantBack, err := profile.ParseUncompressed(want.Bytes()); err != nil || back.String() != wantBack.String() {
		t.Fatalf("read back differs (%v)", err)
	}
}

// withoutSamples is a shallow copy of p without samples.
func withoutSamples(p *profile.Profile) *profile.Profile {
	return &profile.Profile{
		SampleType: p.SampleType, DefaultSampleType: p.DefaultSampleType,
		Mapping: p.Mapping, Location: p.Location, Function: p.Function, Comments: p.Comments, DocURL: p.DocURL,
		DropFrames: p.DropFrames, KeepFrames: p.KeepFrames, TimeNanos: p.TimeNanos, DurationNanos: p.DurationNanos,
		PeriodType: p.PeriodType, Period: p.Period,
	}
}

func TestWriteSamples(t *testing.T) {
	for _, tt := range []struct {
		name string
		p    *profile.Profile
	}{
		{"every field", everyField()},
		{"synth", synth.Generate(synth.Config{Seed: 2, Stacks: 2000, Functions: 200}).New},
		{"no samples", &profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}}},
	} {
		t.Run(tt.name, func(t *testing.T) { sameAsSeq(t, tt.p, reusing(tt.p.Sample)) })
	}
}

// Label maps made for one sample and dropped after it are not mistaken
// for later ones that the allocator puts at the same address.
func TestWriteSamplesFreshLabelMaps(t *testing.T) {
	p := everyField()
	p.Sample = nil
	for i := range 2000 {
		p.Sample = append(p.Sample, &profile.Sample{
			Location: p.Location[:1+i%3], Value: []int64{int64(i), 1},
			Label: map[string][]string{"thread": {fmt.Sprint("t", i)}},
		})
	}
	fresh := func(yield func(*profile.Sample) bool) {
		for i, src := range p.Sample {
			s := *src
			s.Label = maps.Clone(src.Label)
			if i%100 == 0 {
				runtime.GC()
			}
			if !yield(&s) {
				return
			}
		}
	}
	sameAsSeq(t, p, fresh)
}

// A write error stops the samples and is returned.
func TestWriteSamplesError(t *testing.T) {
	p := synth.Generate(synth.Config{Seed: 2, Stacks: 2000, Functions: 200}).New
	made := 0
	seq := func(yield func(*profile.Sample) bool) {
		for {
			made++
			if !yield(p.Sample[made%len(p.Sample)]) {
				return
			}
			if made > 1e6 {
				t.Error("the samples went on after the error")
				return
			}
		}
	}
	if err := WriteSamplesUncompressed(failWriter{}, withoutSamples(p), seq); err == nil || err.Error() != "disk full" {
		t.Errorf("error %v, expected disk full", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
