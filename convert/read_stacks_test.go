package convert

import (
	"bytes"
	"testing"
)

// TestReadCompleteStacks: with CompleteStacks, a reader whose stacks drop
// labels (pprof) returns its samples in the profile, labels and all.
func TestReadCompleteStacks(t *testing.T) {
	data := encode(t, everyFieldProfile())
	res, err := Read(bytes.NewReader(data), "x.pb", Options{Stacks: true})
	if err != nil || res.Stacks == nil {
		t.Fatalf("Stacks: %v, stacks %v; want stacks", err, res.Stacks)
	}
	res, err = Read(bytes.NewReader(data), "x.pb", Options{Stacks: true, CompleteStacks: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stacks != nil || len(res.Profile.Sample) != len(everyFieldProfile().Sample) {
		t.Fatalf("CompleteStacks: %d samples and stacks %v, want the samples", len(res.Profile.Sample), res.Stacks)
	}
}
