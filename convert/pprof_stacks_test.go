package convert

import (
	"bytes"
	"errors"
	"regexp"
	"slices"
	"testing"

	"github.com/ctdiff/ctdiff/internal/benchcpu"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/ctdiff/ctdiff/tools/synth"
	"github.com/google/pprof/profile"
)

// sameStacks checks that decodeStacks gives the samples pprof's
// decoder gives: stacks, values, thread labels (first values) and
// timestamps, and the same profile otherwise.
func sameStacks(t *testing.T, data []byte) {
	t.Helper()
	want, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	p, s, ok := pprofio.DecodeStacks(data, nil, nil)
	if !ok {
		t.Fatal("decodeStacks refused a valid profile")
	}
	matchStacks(t, p, s, want)
}

func matchStacks(t *testing.T, p *profile.Profile, s *stacks.Samples, want *profile.Profile) {
	t.Helper()
	if p.Sample != nil || s.Len() != len(want.Sample) {
		t.Fatalf("%d samples in the profile, %d stacks, want 0 and %d", len(p.Sample), s.Len(), len(want.Sample))
	}
	samples := want.Sample
	want.Sample = nil
	if g, w := p.String(), want.String(); g != w {
		t.Fatalf("profile:\n%s\nwant:\n%s", g, w)
	}
	first := func(m map[string][]string, k string) string {
		if v := m[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	for i, ws := range samples {
		stack := s.Stack(i)
		if len(stack) != len(ws.Location) {
			t.Fatalf("sample %d: %d locations, want %d", i, len(stack), len(ws.Location))
		}
		for j, x := range stack {
			if p.Location[x].ID != ws.Location[j].ID {
				t.Fatalf("sample %d: location %d has id %d, want %d", i, j, p.Location[x].ID, ws.Location[j].ID)
			}
		}
		if !slices.Equal(s.Value(i), ws.Value) {
			t.Fatalf("sample %d: values %v, want %v", i, s.Value(i), ws.Value)
		}
		th := s.Threads()[s.Thread(i)]
		wt := stacks.Thread{Thread: first(ws.Label, labels.Thread), Process: first(ws.Label, labels.Process)}
		if v := ws.NumLabel[labels.PID]; len(v) > 0 {
			wt.PID, wt.HasPID = v[0], true
		}
		if v := ws.NumLabel[labels.TID]; len(v) > 0 {
			wt.TID, wt.HasTID = v[0], true
		}
		if th != wt {
			t.Fatalf("sample %d: thread %+v, want %+v", i, th, wt)
		}
		ts, has := s.Time(i)
		wts := ws.NumLabel[labels.Timestamp]
		if has != (len(wts) > 0) || (has && ts != wts[0]) {
			t.Fatalf("sample %d: time %d (%v), want %v", i, ts, has, wts)
		}
	}
}

func TestDecodePprofStacksMatchesPprof(t *testing.T) {
	t.Run("every field", func(t *testing.T) { sameStacks(t, encode(t, everyFieldProfile())) })
	t.Run("repeated thread labels", func(t *testing.T) { sameStacks(t, encode(t, repeatedLabelsProfile())) })
	t.Run("synth", func(t *testing.T) {
		sameStacks(t, encode(t, synth.Generate(synth.Config{Seed: 2, Stacks: 2000, Functions: 300}).New))
	})
	t.Run("converted devtools trace", func(t *testing.T) {
		res, err := ReadFile(convertedTrace(t), Options{})
		if err != nil {
			t.Fatal(err)
		}
		sameStacks(t, encode(t, res.Profile))
	})
}

// TestReadStacksErrors: with Options.Stacks, Read gives the errors it gives
// without.
func TestReadStacksErrors(t *testing.T) {
	threaded := everyFieldProfile()
	negative := everyFieldProfile()
	negative.Sample[1].Value[1] = -5
	empty := everyFieldProfile()
	empty.Sample = nil
	tests := []struct {
		name string
		p    *profile.Profile
		opts Options
		err  error
	}{
		{"negative value", negative, Options{}, errNegativeValue},
		{"no samples", empty, Options{}, errNoSamples},
		{"no thread matches", threaded, Options{Thread: regexp.MustCompile("^nothing$")}, errNoSamples},
		{"no pid matches", threaded, Options{PIDs: []int64{42}}, errNoSamples},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := encode(t, tt.p)
			_, want := Read(bytes.NewReader(data), "x.pb", tt.opts)
			stacksOpts := tt.opts
			stacksOpts.Stacks = true
			_, got := Read(bytes.NewReader(data), "x.pb", stacksOpts)
			if !errors.Is(want, tt.err) || got == nil || got.Error() != want.Error() {
				t.Fatalf("error %v, want %v (%v)", got, want, tt.err)
			}
		})
	}
}

// TestReadStacksSelects: --thread keeps the same samples either way.
func TestReadStacksSelects(t *testing.T) {
	data := encode(t, everyFieldProfile())
	opts := Options{Thread: regexp.MustCompile("^other$"), Stacks: true}
	res, err := Read(bytes.NewReader(data), "x.pb", opts)
	if err != nil {
		t.Fatal(err)
	}
	if s := compact(res); s == nil || s.Len() != 1 || s.Value(0)[0] != 4 {
		t.Fatalf("kept %+v, want the one sample of thread other", res.Samples)
	}
	opts.Thread = regexp.MustCompile("main")
	res, err = Read(bytes.NewReader(data), "x.pb", opts)
	if err != nil {
		t.Fatal(err)
	}
	if s := compact(res); s == nil || s.Len() != 2 || len(s.Stack(1)) != 3 || s.Times[1] != 200 {
		t.Fatalf("kept %+v, want the two samples of thread main", res.Samples)
	}
}

// FuzzDecodePprofStacks: whenever decodeStacks takes data, pprof
// takes it too, with the same samples.
func FuzzDecodePprofStacks(f *testing.F) {
	f.Add(encode(f, everyFieldProfile()))
	f.Add(encode(f, synth.Generate(synth.Config{Seed: 1, Stacks: 20, Functions: 10}).Base))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, s, ok := pprofio.DecodeStacks(data, nil, nil)
		if !ok || p.CheckValid() != nil {
			return
		}
		want, err := profile.ParseUncompressed(data)
		if err != nil {
			t.Fatalf("decodeStacks took data pprof refuses: %v", err)
		}
		matchStacks(t, p, s, want)
	})
}

// BenchmarkDecodePprofStacks is BenchmarkDecodePprof for the compact form.
func BenchmarkDecodePprofStacks(b *testing.B) {
	data := encode(b, synth.Generate(synth.Config{Seed: 1}).Base)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	for b.Loop() {
		if _, _, ok := pprofio.DecodeStacks(data, nil, nil); !ok {
			b.Fatal("refused")
		}
	}
	stop()
}
