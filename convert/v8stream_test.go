package convert

import (
	"math"
	"path/filepath"
	"testing"
)

// TestV8StreamLimits: checkSamples passes a v8Stream without reading its
// samples one by one only when they meet the limits; otherwise its error
// is the one for the samples made one by one.
func TestV8StreamLimits(t *testing.T) {
	for _, tt := range []struct {
		name   string
		change func(v *v8Stream)
		bytes  int64
		want   string // "" for no error
	}{
		{"met", func(*v8Stream) {}, 0, ""},
		{"last duration overflows", func(v *v8Stream) { v.runs[0].lastDur = math.MaxInt64 },
			0, "sample 4: the wall/nanoseconds values add up to more than 9223372036854775807"},
		{"frames over the budget", func(v *v8Stream) { v.frames = stackFrameLimit(0) + 1 }, 0, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := ReadFile(filepath.Join("testdata", "devtools", "children.cpuprofile"), Options{Stacks: true, CompleteStacks: true})
			if err != nil {
				t.Fatal(err)
			}
			v, ok := res.Samples.(*v8Stream)
			if !ok {
				t.Fatalf("samples %T, want a v8Stream", res.Samples)
			}
			tt.change(v)
			wantMet := tt.name == "met"
			if met := v.limitsMet(tt.bytes); met != wantMet {
				t.Fatalf("limitsMet = %v, want %v", met, wantMet)
			}
			err = checkSamples(v, tt.bytes)
			if got := errText(err); got != tt.want {
				t.Fatalf("checkSamples: %q, want %q", got, tt.want)
			}
			if v.full == nil == !wantMet {
				t.Fatalf("samples made one by one: %v, want %v", v.full != nil, !wantMet)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
