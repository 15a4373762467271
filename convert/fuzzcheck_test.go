package convert

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/google/pprof/profile"
)

// CheckRead asserts what holds of every Read, whatever the input: an error
// is one line that names the input; a result is a valid profile with one
// non-negative value per sample type, one-line warnings, a pprof encoding
// that reads back the same, and a calling-context tree whose root totals
// are the sums of the sample values (nothing lost on the way to the
// tree). Fuzz targets of every reader call it (exported for the
// convert_test package).
func CheckRead(t testing.TB, name string, res *Result, err error) {
	t.Helper()
	if err != nil {
		msg := err.Error()
		// "NAME: ..." or, inside an archive, "NAME (zip entry E): ...".
		if !strings.HasPrefix(msg, name+": ") && !strings.HasPrefix(msg, name+" (") {
			t.Fatalf("error without the input name %q: %v", name, err)
		}
		if strings.ContainsAny(msg, "\n\r") {
			t.Fatalf("error is not one line: %q", msg)
		}
		return
	}
	p := res.Profile
	if err := p.CheckValid(); err != nil {
		t.Fatalf("invalid profile: %v", err)
	}
	if len(p.Sample) == 0 {
		t.Fatal("a result without samples")
	}
	for _, w := range res.Warnings {
		if w == "" || strings.ContainsAny(w, "\n\r") {
			t.Fatalf("warning is not one line: %q", w)
		}
	}
	sums := SampleSums(p)
	for i, s := range sums {
		if s < 0 {
			t.Fatalf("%s values add up to %d", sampleTypeName(p, i), s)
		}
	}
	for i, s := range p.Sample {
		for _, v := range s.Value {
			if v < 0 {
				t.Fatalf("sample %d has values %v", i, s.Value)
			}
		}
	}

	var buf bytes.Buffer
	if err := p.WriteUncompressed(&buf); err != nil {
		t.Fatalf("writing pprof: %v", err)
	}
	back, err := profile.ParseData(buf.Bytes())
	if err != nil {
		t.Fatalf("reading back the pprof written: %v", err)
	}
	if len(back.Sample) != len(p.Sample) || !slices.Equal(SampleSums(back), sums) {
		t.Fatalf("pprof round trip: %d samples summing to %v, want %d summing to %v",
			len(back.Sample), SampleSums(back), len(p.Sample), sums)
	}

	tr, err := cct.FromProfile(p, cct.Options{})
	if err != nil {
		t.Fatalf("building the calling-context tree: %v", err)
	}
	if got := tr.Total(cct.RootID); !slices.Equal(got, sums) {
		t.Fatalf("calling-context tree totals %v, sample sums %v", got, sums)
	}
}

// SampleSums returns the sum of each sample type's values.
func SampleSums(p *profile.Profile) []int64 {
	sums := make([]int64, len(p.SampleType))
	for _, s := range p.Sample {
		for i, v := range s.Value {
			sums[i] += v
		}
	}
	return sums
}
