package convert

import (
	"bytes"
	"testing"

	"github.com/ctdiff/ctdiff/stacks"
	"github.com/ctdiff/ctdiff/tools/synth"
	"github.com/google/pprof/profile"
)

// Profiles read one after another with Buffers (Options.Buffers) decode
// as they do alone;
// the tables of one whose table fields repeat the previous profile's are
// shared, and the arrays given back hold the next profile's samples.
func TestBuffersReuse(t *testing.T) {
	t.Parallel()
	base := synth.Generate(synth.Config{Seed: 3, Stacks: 500, Functions: 80}).Base
	// Other samples over the same tables: fewer stacks, other values.
	fewer := base.Copy()
	fewer.Sample = fewer.Sample[:len(fewer.Sample)/2]
	for _, s := range fewer.Sample {
		s.Value[0] *= 3
	}
	other := synth.Generate(synth.Config{Seed: 4, Stacks: 300, Functions: 60}).Base
	renamed := base.Copy()
	renamed.Function[0].Name += "'"
	tests := []struct {
		name  string
		runs  []*profile.Profile
		keep  bool
		share []bool // per run: tables shared with the run before
	}{
		{"same tables", []*profile.Profile{base, fewer, base}, true, []bool{false, true, true}},
		{"same tables, arrays not given back", []*profile.Profile{base, fewer}, false, []bool{false, true}},
		{"other tables", []*profile.Profile{base, other, base}, true, []bool{false, false, false}},
		{"a function renamed", []*profile.Profile{base, renamed, renamed}, true, []bool{false, false, true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var bufs Buffers
			var prevP *profile.Profile
			var prevS *stacks.Samples
			for i, run := range tt.runs {
				data := encode(t, run)
				res, err := Read(bytes.NewReader(data), "run.pb", Options{Stacks: true, Buffers: &bufs})
				if err != nil {
					t.Fatalf("run %d: %v", i, err)
				}
				p := res.Profile
				s, ok := res.Samples.(*stacks.Samples)
				if !ok {
					t.Fatalf("run %d: samples %T, want *stacks.Samples", i, res.Samples)
				}
				if prevP != nil {
					if shared := &p.Location[0] != &prevP.Location[0] && p.Location[0] == prevP.Location[0]; shared != tt.share[i] {
						t.Errorf("run %d: tables shared with the run before: %v, want %v", i, shared, tt.share[i])
					}
					// Arrays given back hold this run's samples when they
					// have the room (each run here fits the first's).
					reused := &s.Ends[0] == &prevS.Ends[:1][0]
					if want := tt.keep && cap(prevS.Ends) >= s.Len(); reused != want {
						t.Errorf("run %d: samples in the arrays given back: %v, want %v", i, reused, want)
					}
				}
				want, err := profile.ParseData(data)
				if err != nil {
					t.Fatal(err)
				}
				matchStacks(t, p, s, want)
				if tt.keep {
					bufs.Keep(s)
				}
				prevP, prevS = p, s
			}
		})
	}
}
