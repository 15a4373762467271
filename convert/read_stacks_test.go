package convert

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
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

// TestSelectSamples: --thread and --pid keep the same samples of either
// form, and a selection that keeps none names the threads there are.
func TestSelectSamples(t *testing.T) {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}}}
	fn := &profile.Function{ID: 1, Name: "f"}
	p.Function = []*profile.Function{fn}
	p.Location = []*profile.Location{{ID: 1, Line: []profile.Line{{Function: fn}}}}
	for i, th := range []struct {
		thread, process string
		pid             int64
	}{{"main", "app", 1}, {"worker", "app", 1}, {"main", "", 2}, {"main", "app", 1}, {"", "", 3}} {
		s := &profile.Sample{Location: p.Location, Value: []int64{int64(i + 1)}, NumLabel: map[string][]int64{labels.PID: {th.pid}}}
		s.Label = map[string][]string{}
		if th.thread != "" {
			s.Label[labels.Thread] = []string{th.thread}
		}
		if th.process != "" {
			s.Label[labels.Process] = []string{th.process}
		}
		p.Sample = append(p.Sample, s)
	}
	data := encode(t, p)
	for _, tt := range []struct {
		name string
		opts Options
		want []int64 // the values kept
		err  string
	}{
		{"thread", Options{Thread: regexp.MustCompile("^app/main$")}, []int64{1, 4}, ""},
		{"pid", Options{PIDs: []int64{2, 3}}, []int64{3, 5}, ""},
		{"both", Options{Thread: regexp.MustCompile("main"), PIDs: []int64{1}}, []int64{1, 4}, ""},
		{"none", Options{Thread: regexp.MustCompile("^ui$")}, nil,
			`x.pb: no samples: no sample matches the thread/pid selection; threads present: "", "app/main", "app/worker", "main"`},
	} {
		for _, compactForm := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stacks=%v", tt.name, compactForm), func(t *testing.T) {
				opts := tt.opts
				opts.Stacks = compactForm
				res, err := Read(bytes.NewReader(data), "x.pb", opts)
				if tt.err != "" {
					if err == nil || err.Error() != tt.err {
						t.Fatalf("error %v, want %s", err, tt.err)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if (compact(res) != nil) != compactForm {
					t.Fatalf("samples %T with Stacks %v", res.Samples, compactForm)
				}
				var got []int64
				for i := range res.Samples.Len() {
					got = append(got, res.Samples.Value(i)[0])
				}
				if !slices.Equal(got, tt.want) {
					t.Fatalf("kept %v, want %v", got, tt.want)
				}
			})
		}
	}
}
