package convert

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"testing"

	"github.com/ctdiff/ctdiff/internal/benchcpu"
	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/ctdiff/ctdiff/tools/synth"
	"github.com/google/pprof/profile"
)

// streamAll makes every pprof input streamed (parsePprofStream) for the
// rest of the test.
func streamAll(tb testing.TB) {
	tb.Helper()
	gz, raw := pprofStreamGzip, pprofStreamRaw
	pprofStreamGzip, pprofStreamRaw = 0, 0
	tb.Cleanup(func() { pprofStreamGzip, pprofStreamRaw = gz, raw })
}

// streamed decodes data with parsePprofStream.
func streamed(data []byte) (*profile.Profile, *stacks.Samples, error) {
	in := &parserInput{Name: "x.pb", R: bufio.NewReaderSize(bytes.NewReader(data), 64<<10), Options: &Options{}}
	return parsePprofStream(in)
}

// threadedProfile is a profile as a converted DevTools trace is, many
// times over: samples of a few threads interleaved, each with thread,
// process, pid, tid and timestamp labels, few distinct stacks sampled
// again and again (some a tail of another), one thread's samples without
// a time, location ids not in order and some too big for an int32.
func threadedProfile(samples int) *profile.Profile {
	fn := &profile.Function{ID: 1, Name: "f", Filename: "f.js"}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "wall", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "wall", Unit: "nanoseconds"}, Period: 100_000,
		Function: []*profile.Function{fn},
	}
	for i := range 40 {
		id := uint64(40 - i) // not in order: the ids are looked up
		if i%7 == 0 {
			id = 1<<40 + uint64(i)
		}
		p.Location = append(p.Location, &profile.Location{ID: id, Line: []profile.Line{{Function: fn, Line: int64(i)}}})
	}
	for i := range samples {
		stack := p.Location[i%13 : 13+i%17]
		if i%29 == 0 {
			stack = nil
		}
		tid := int64(1 + i%3)
		s := &profile.Sample{
			Location: stack,
			Value:    []int64{1, int64(100_000 + i%5)},
			Label:    map[string][]string{labels.Thread: {fmt.Sprint("worker-", tid)}, labels.Process: {"renderer"}},
			NumLabel: map[string][]int64{labels.PID: {42}, labels.TID: {tid}},
		}
		if tid != 3 {
			s.NumLabel[labels.Timestamp] = []int64{int64(1_000_000 + 100*i)}
			s.NumUnit = map[string][]string{labels.Timestamp: {labels.TimestampUnit}}
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

// TestPprofStreamMatchesPprof: the streaming decoder gives, sample for
// sample, what profile.ParseData reads (stacks, values, thread, time),
// and shares each distinct stack among its samples.
func TestPprofStreamMatchesPprof(t *testing.T) {
	tests := []struct {
		name string
		p    *profile.Profile
	}{
		{"every field", everyFieldProfile()},
		{"repeated thread labels", repeatedLabelsProfile()},
		{"threaded", threadedProfile(5000)},
		{"synth", synth.Generate(synth.Config{Seed: 2, Stacks: 2000, Functions: 300}).New},
	}
	res, err := ReadFile(convertedTrace(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests = append(tests, struct {
		name string
		p    *profile.Profile
	}{"converted devtools trace", res.Profile})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := encode(t, tt.p)
			want, err := profile.ParseData(data)
			if err != nil {
				t.Fatal(err)
			}
			p, s, err := streamed(data)
			if err != nil {
				t.Fatal(err)
			}
			frames := 0
			for _, ws := range want.Sample {
				frames += len(ws.Location)
			}
			matchStacks(t, p, s, want)
			if len(s.Locations) >= frames && frames > 100 {
				t.Errorf("%d locations laid out for %d frames: stacks not shared", len(s.Locations), frames)
			}
		})
	}
}

// TestPprofStreamRead: a big file (here, every file) is streamed through
// Read, gzipped or not, with the same samples as the whole-buffer decoder
// gives.
func TestPprofStreamRead(t *testing.T) {
	data := encode(t, threadedProfile(3000))
	whole, err := Read(bytes.NewReader(data), "x.pb", Options{Stacks: true})
	if err != nil {
		t.Fatal(err)
	}
	streamAll(t)
	dir := t.TempDir()
	for _, gz := range []bool{false, true} {
		path := filepath.Join(dir, fmt.Sprint("x", gz, ".pb"))
		body := data
		if gz {
			body = gzipped(t, func(w io.Writer) error { _, err := w.Write(data); return err })
		}
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := ReadFile(path, Options{Stacks: true})
		if err != nil {
			t.Fatal(err)
		}
		s, w := compact(res), compact(whole)
		if s == nil || s.Starts == nil || s.Len() != w.Len() {
			t.Fatalf("gzip %v: %d samples (%T), want %d shared", gz, res.Samples.Len(), res.Samples, w.Len())
		}
		for i := range w.Len() {
			if !slices.Equal(s.Stack(i), w.Stack(i)) || !slices.Equal(s.Value(i), w.Value(i)) ||
				s.Threads()[s.Thread(i)] != w.Threads()[w.Thread(i)] {
				t.Fatalf("gzip %v: sample %d differs", gz, i)
			}
			ts, ok := s.Time(i)
			wts, wok := w.Time(i)
			if ts != wts || ok != wok {
				t.Fatalf("gzip %v: sample %d: time %d %v, want %d %v", gz, i, ts, ok, wts, wok)
			}
		}
	}
}

// TestPprofStreamSelects: --thread keeps the same samples streamed.
func TestPprofStreamSelects(t *testing.T) {
	data := encode(t, threadedProfile(3000))
	opts := Options{Stacks: true, Thread: regexp.MustCompile("worker-2$")}
	want, err := Read(bytes.NewReader(data), "x.pb", opts)
	if err != nil {
		t.Fatal(err)
	}
	streamAll(t)
	got, err := Read(bytes.NewReader(data), "x.pb", opts)
	if err != nil {
		t.Fatal(err)
	}
	s, w := compact(got), compact(want)
	if s == nil || s.Starts == nil || s.Len() != w.Len() || s.Len() != 1000 {
		t.Fatalf("kept %d samples, want %d (1000)", got.Samples.Len(), want.Samples.Len())
	}
	for i := range w.Len() {
		if !slices.Equal(s.Stack(i), w.Stack(i)) || s.Times[i] != w.Times[i] || s.Threads()[s.Thread(i)].Thread != "worker-2" {
			t.Fatalf("sample %d differs", i)
		}
	}
}

// TestPprofStreamLegacy: what the streaming decoder does not read (a
// legacy profile) is read as before.
func TestPprofStreamLegacy(t *testing.T) {
	path := corpus.Path(t, "pprof/pprof-legacy-go.crc32.cpu")
	want, err := ReadFile(path, Options{Stacks: true})
	if err != nil {
		t.Fatal(err)
	}
	streamAll(t)
	got, err := ReadFile(path, Options{Stacks: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.Samples.Len() != want.Samples.Len() || got.Samples.Len() == 0 {
		t.Fatalf("%d samples, want %d", got.Samples.Len(), want.Samples.Len())
	}
}

// TestPprofStreamErrors: what the streaming decoder refuses, with where
// and why.
func TestPprofStreamErrors(t *testing.T) {
	good := encode(t, everyFieldProfile())
	badValues := everyFieldProfile()
	badValues.Sample[2].Value = []int64{3}
	untyped := everyFieldProfile()
	untyped.SampleType, untyped.DefaultSampleType = nil, ""
	for _, s := range untyped.Sample {
		s.Value = nil
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"values short of the sample types", encode(t, badValues),
			"not a valid pprof profile: sample 2 has a number of values other than its 2 sample types"},
		{"samples without sample types", encode(t, untyped),
			"not a valid pprof profile: malformed profile: missing sample type information"},
		{"unknown location id", append(bytes.Clone(good), 2<<3|2, 6, 1<<3, 99, 2<<3, 1, 2<<3, 1),
			"not a valid pprof profile: a sample names location id 99, which no location has"},
		{"cut-off location id", append(bytes.Clone(good), 2<<3|2, 3, 1<<3|2, 1, 0x80),
			"byte " + fmt.Sprint(len(good)) + ": not a valid pprof profile: a sample's location ids end in a cut-off varint"},
		{"string label out of the table", append(bytes.Clone(good), 2<<3|2, 10, 2<<3, 1, 2<<3, 1, 3<<3|2, 4, 1<<3, 1, 2<<3, 120),
			"not a valid pprof profile: a sample's label names a string the string table does not hold"},
		{"sample cut off", append(bytes.Clone(good), 2<<3|2, 9, 1<<3, 1),
			"byte " + fmt.Sprint(len(good)) + ": not a valid pprof profile: field 2 is cut off by the end of the input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := streamed(tt.data)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// FuzzPprofStream: whenever the streaming decoder takes data, pprof takes
// it too, with the same samples.
func FuzzPprofStream(f *testing.F) {
	f.Add(encode(f, everyFieldProfile()))
	f.Add(encode(f, threadedProfile(40)))
	f.Add(encode(f, synth.Generate(synth.Config{Seed: 1, Stacks: 20, Functions: 10}).Base))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, s, err := streamed(data)
		if err != nil || s == nil {
			return
		}
		want, err := profile.ParseData(data)
		if err != nil {
			t.Fatalf("the streaming decoder took data pprof refuses: %v", err)
		}
		matchStacks(t, p, s, want)
	})
}

// TestPprofStreamMemory: a profile of many samples of a few deep stacks
// takes memory for its samples, not their frames: the live heap after
// reading 200,000 samples of 400-frame stacks (80 M frames, 320 MB as
// location indexes) stays under 20 MB.
func TestPprofStreamMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 200,000-sample profile")
	}
	data := deepStacksProfile(t, false)
	var s *stacks.Samples
	grew := liveHeapGrowth(data, func(data []byte) {
		var err error
		if _, s, err = streamed(data); err != nil {
			t.Fatal(err)
		}
	})
	if s.Len() != 200_000 {
		t.Fatalf("%d samples, want 200000", s.Len())
	}
	if grew > 20<<20 {
		t.Fatalf("the samples take %d MB of heap, want under 20", grew>>20)
	}
}

// deepStacksProfile encodes the memory tests' profile: 200,000 samples,
// each with a timestamp, of eight distinct 400-frame stacks (80 M frames,
// 320 MB as location indexes), with one of three thread labels each when
// threads.
func deepStacksProfile(t testing.TB, threads bool) []byte {
	fn := &profile.Function{ID: 1, Name: "f", Filename: "f.go"}
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}}, Function: []*profile.Function{fn}}
	for i := range 1000 {
		p.Location = append(p.Location, &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: fn, Line: int64(i)}}})
	}
	for i := range 200_000 {
		s := &profile.Sample{Location: p.Location[i%8 : 400+i%8], Value: []int64{1},
			NumLabel: map[string][]int64{labels.Timestamp: {int64(i)}}}
		if threads {
			s.Label = map[string][]string{labels.Thread: {fmt.Sprint("t", i%3)}}
			s.NumUnit = map[string][]string{labels.Timestamp: {labels.TimestampUnit}}
		}
		p.Sample = append(p.Sample, s)
	}
	return encode(t, p)
}

// liveHeapGrowth runs read on data and returns how much the live heap
// grew by it, measured after a collection on each side: what read keeps
// (in variables the caller holds) counts, its garbage does not, and data
// (kept alive to the end) neither. Were data let go during read, its size
// (130 MB of uncompressed pprof here) would come off the growth, which
// then stayed negative whatever read kept.
func liveHeapGrowth(data []byte, read func([]byte)) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	read(data)
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(data)
	return int64(after.HeapAlloc) - int64(before.HeapAlloc)
}

// BenchmarkPprofStream reads, streamed and whole for comparison, a
// profile of 200,000 threaded samples of a few stacks ("threaded") and
// synth's 200,000 distinct stacks ("synth").
func BenchmarkPprofStream(b *testing.B) {
	for _, in := range []struct {
		name string
		p    *profile.Profile
	}{{"threaded", threadedProfile(200_000)}, {"synth", synth.Generate(synth.Config{Seed: 1}).Base}} {
		data := encode(b, in.p)
		for _, bc := range []struct {
			name   string
			stream bool
		}{{"stream", true}, {"whole", false}} {
			b.Run(in.name+"/"+bc.name, func(b *testing.B) {
				if bc.stream {
					streamAll(b)
				}
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				stop := benchcpu.Start(b)
				for b.Loop() {
					if _, err := Read(bytes.NewReader(data), "x.pb", Options{Stacks: true}); err != nil {
						b.Fatal(err)
					}
				}
				stop()
			})
		}
	}
}
