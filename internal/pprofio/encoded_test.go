package pprofio

import (
	"bytes"
	"errors"
	"testing"

	"github.com/google/pprof/profile"
)

// encodedProfile is a profile whose samples have one string label each,
// and the Sample messages pprof writes for them, given the label strings'
// ids: location ids packed, values as two fields, the label.
func encodedProfile() (*profile.Profile, []string, func(ids []int64) [][]byte) {
	fn := &profile.Function{ID: 1, Name: "f", Filename: "f.go"}
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		Function: []*profile.Function{fn}, Comments: []string{"c"}}
	for i := range 3 {
		p.Location = append(p.Location, &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: fn, Line: int64(i)}}})
	}
	for i, th := range []string{"main", "worker", "main"} {
		p.Sample = append(p.Sample, &profile.Sample{Location: p.Location, Value: []int64{1, int64(10 * i)},
			Label: map[string][]string{"thread": {th}}})
	}
	msgs := func(ids []int64) [][]byte {
		var out [][]byte
		for i, v := range []int64{ids[1], ids[3], ids[1]} {
			m := []byte{1<<3 | 2, 3, 1, 2, 3, 2 << 3, 1, 2 << 3, byte(10 * i)}
			m = append(m, 3<<3|2, 4, 1<<3, byte(ids[0]), 2<<3, byte(v))
			out = append(out, m)
		}
		return out
	}
	return p, []string{"thread", "main", "thread", "worker"}, msgs
}

// TestWriteEncoded: samples given encoded, with the strings of their
// labels interned in pprof's order, are written as Write writes the
// profile holding them; an error of the samples' or the writer's stops
// the writing and is returned.
func TestWriteEncoded(t *testing.T) {
	p, labels, msgs := encodedProfile()
	var want, got bytes.Buffer
	if err := Write(&want, p); err != nil {
		t.Fatal(err)
	}
	bare, _, _ := encodedProfile()
	bare.Sample = nil
	samples := func(ids []int64, emit func([]byte) error) error {
		for _, m := range msgs(ids) {
			if err := emit(m); err != nil {
				return err
			}
		}
		return nil
	}
	if err := WriteEncoded(&got, bare, labels, samples); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("WriteEncoded wrote %d bytes, Write %d, not the same", got.Len(), want.Len())
	}

	stop := errors.New("no more samples")
	err := WriteEncoded(&got, bare, labels, func([]int64, func([]byte) error) error { return stop })
	if err != stop {
		t.Fatalf("error %v, want the samples' %v", err, stop)
	}
	full := errors.New("disk full")
	var emitErr error
	err = WriteEncoded(failingWriter{full}, bare, labels, func(ids []int64, emit func([]byte) error) error {
		// The writer's error comes back from emit once the output is
		// written: here, at the gzip writer's close at the latest.
		for range 2 << 20 {
			if emitErr = emit(msgs(ids)[0]); emitErr != nil {
				return emitErr
			}
		}
		return nil
	})
	if !errors.Is(err, full) || !errors.Is(emitErr, full) {
		t.Fatalf("error %v, emit's %v, want %v from both", err, emitErr, full)
	}
}

type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }
