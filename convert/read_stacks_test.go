package convert

import (
	"bytes"
	"testing"

	"github.com/ctdiff/ctdiff/stacks"
)

// compact returns res's samples when they are compact, else nil.
func compact(res *Result) *stacks.Samples {
	s, _ := res.Samples.(*stacks.Samples)
	return s
}

// TestReadCompleteStacks: with CompleteStacks, a reader whose stacks drop
// labels (pprof) returns its samples in the profile, labels and all.
func TestReadCompleteStacks(t *testing.T) {
	data := encode(t, everyFieldProfile())
	res, err := Read(bytes.NewReader(data), "x.pb", Options{Stacks: true})
	if err != nil || compact(res) == nil {
		t.Fatalf("Stacks: %v, samples %T; want stacks", err, res.Samples)
	}
	res, err = Read(bytes.NewReader(data), "x.pb", Options{Stacks: true, CompleteStacks: true})
	if err != nil {
		t.Fatal(err)
	}
	if compact(res) != nil || res.Samples.Len() != len(everyFieldProfile().Sample) || len(res.Profile.Sample) != res.Samples.Len() {
		t.Fatalf("CompleteStacks: %d samples and samples %T, want the profile's", len(res.Profile.Sample), res.Samples)
	}
}
