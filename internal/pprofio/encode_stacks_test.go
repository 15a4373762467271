package pprofio

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// samples returns s's samples as profile.Samples of p, labelled as
// WriteSource documents (and convert.Builder does): one string label map
// per thread, the timestamp's unit.
func samples(p *profile.Profile, s *stacks.Samples) []*profile.Sample {
	var out []*profile.Sample
	str := make([]map[string][]string, len(s.ThreadList))
	for i, th := range s.ThreadList {
		if th.Thread != "" || th.Process != "" {
			str[i] = map[string][]string{}
			if th.Thread != "" {
				str[i][labels.Thread] = []string{th.Thread}
			}
			if th.Process != "" {
				str[i][labels.Process] = []string{th.Process}
			}
		}
	}
	for i := range s.Len() {
		smp := &profile.Sample{Value: s.Value(i), Label: str[s.SampleThreads[i]]}
		for _, x := range s.Stack(i) {
			smp.Location = append(smp.Location, p.Location[x])
		}
		th := s.ThreadList[s.SampleThreads[i]]
		num := map[string][]int64{}
		if th.HasPID {
			num[labels.PID] = []int64{th.PID}
		}
		if th.HasTID {
			num[labels.TID] = []int64{th.TID}
		}
		if ts, ok := s.Time(i); ok {
			num[labels.Timestamp] = []int64{ts}
			smp.NumUnit = map[string][]string{labels.Timestamp: {labels.TimestampUnit}}
		}
		if len(num) > 0 {
			smp.NumLabel = num
		}
		out = append(out, smp)
	}
	return out
}

// randomStacks returns a profile without samples and n samples for it:
// stacks of 0 to 5 frames (packed and not), threads with and without
// names, pid and tid; timed decides which samples have a time.
func randomStacks(rng *rand.Rand, n int, timed func(i int) bool) (*profile.Profile, *stacks.Samples) {
	p := everyField()
	p.Sample = nil
	p.Location[1].Line = p.Location[1].Line[:2] // a line without a function does not read back
	for i := len(p.Location); i < 300; i++ {    // ids from 1 to 300: one- and two-byte varints
		fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: fmt.Sprintf("f%d", i), Filename: "x.js"}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: fn, Line: int64(i)}}})
	}
	s := stacks.New(p)
	s.ThreadList = []stacks.Thread{
		{Thread: "main", Process: "app", PID: 1, TID: 1, HasPID: true, HasTID: true},
		{Thread: "worker", PID: 1, HasPID: true},
		{},
		{Process: "gpu", TID: 300, HasTID: true},
		{Thread: "main", Process: "app", PID: 2, TID: 2, HasPID: true, HasTID: true},
	}
	for i := range n {
		for range rng.IntN(6) {
			s.Locations = append(s.Locations, int32(rng.IntN(len(p.Location))))
		}
		s.Ends = append(s.Ends, int32(len(s.Locations)))
		s.Values = append(s.Values, 1, rng.Int64N(1<<40))
		s.SampleThreads = append(s.SampleThreads, int32(rng.IntN(len(s.ThreadList))))
		if timed(i) {
			if s.Timed == nil {
				s.Times, s.Timed = make([]int64, n), make([]bool, n)
			}
			s.Times[i], s.Timed[i] = rng.Int64N(1<<50), true
		}
	}
	return p, s
}

func TestWriteSourceSameAsWrite(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tt := range []struct {
		name  string
		timed func(int) bool
	}{
		{"timed", func(int) bool { return true }},
		{"untimed", func(int) bool { return false }},
		{"some timed", func(i int) bool { return i%3 == 2 }},
		{"later timed", func(i int) bool { return i > 500 }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, s := randomStacks(rng, 1000, tt.timed)
			sameStacks(t, p, s)
		})
	}
	t.Run("no samples", func(t *testing.T) {
		p, s := randomStacks(rng, 0, nil)
		sameStacks(t, p, s)
	})
	// Stacks laid out once and shared, as the call tree readers do
	// (Starts): runs of a stack, stacks that come back, one a tail of
	// another, an empty one.
	for _, timed := range []bool{true, false} {
		t.Run(fmt.Sprintf("shared stacks, timed %v", timed), func(t *testing.T) {
			p, s := randomStacks(rng, 1000, func(int) bool { return timed })
			share(rng, s)
			if sharedFrames(s) >= 2*int64(len(s.Locations)) {
				t.Fatal("the samples' frames are encoded as a pool; want the case without")
			}
			sameStacks(t, p, s)
		})
		// The pool holds only the shared stacks: encoded once (pooledIDs).
		t.Run(fmt.Sprintf("shared stacks, compact pool, timed %v", timed), func(t *testing.T) {
			p, s := randomStacks(rng, 1000, func(int) bool { return timed })
			share(rng, s)
			s.Locations = s.Locations[:slices.Max(s.Ends)]
			if sharedFrames(s) < 2*int64(len(s.Locations)) {
				t.Fatal("the samples' frames are not encoded as a pool; want the case with")
			}
			sameStacks(t, p, s)
		})
	}
}

// share makes s's samples share 40 stacks (Starts), picked at random in
// runs of 1 to 4 samples; stacks 0-19 are s's first 20, and stack 20+k
// is stack k's tail, one frame shorter.
func share(rng *rand.Rand, s *stacks.Samples) {
	type span struct{ start, end int32 }
	var pool []span
	for i := range min(20, s.Len()) {
		pool = append(pool, span{int32(s.Start(i)), s.Ends[i]})
	}
	for k := range len(pool) {
		pool = append(pool, span{min(pool[k].start+1, pool[k].end), pool[k].end})
	}
	s.Starts = make([]int32, s.Len())
	for i := 0; i < s.Len(); {
		sp := pool[rng.IntN(len(pool))]
		for n := 1 + rng.IntN(4); n > 0 && i < s.Len(); n-- {
			s.Starts[i], s.Ends[i] = sp.start, sp.end
			i++
		}
	}
}

// sameStacks checks that WriteSource writes what Write writes for the
// samples as profile.Samples, and that pprof reads it back.
func sameStacks(t *testing.T, p *profile.Profile, s *stacks.Samples) {
	t.Helper()
	var want, got bytes.Buffer
	p.Sample = samples(p, s)
	err := p.WriteUncompressed(&want)
	p.Sample = nil
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteSourceUncompressed(&got, s); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want.Bytes()) {
		t.Fatalf("%d bytes differ from pprof's %d for the samples as profile.Samples", got.Len(), want.Len())
	}
	// The same samples as a Stream, with the pool and without.
	for _, frames := range []int64{0, 1 << 40} {
		var streamed bytes.Buffer
		if err := WriteSourceUncompressed(&streamed, &testStream{s, frames}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(streamed.Bytes(), want.Bytes()) {
			t.Fatalf("as a Stream (frames %d): %d bytes differ from pprof's %d", frames, streamed.Len(), want.Len())
		}
	}
	var z bytes.Buffer
	if err := WriteSource(&z, s); err != nil {
		t.Fatal(err)
	}
	// Gzipped, samples go into the gzip chunk by another path.
	zr, err := gzip.NewReader(bytes.NewReader(z.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if unz, err := io.ReadAll(zr); err != nil || !bytes.Equal(unz, want.Bytes()) {
		t.Fatalf("WriteSource: %d bytes gunzipped (error %v) differ from pprof's %d", len(unz), err, want.Len())
	}
	back, err := profile.Parse(&z)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Sample) != s.Len() {
		t.Fatalf("read back %d samples, want %d", len(back.Sample), s.Len())
	}
	// A profile's own samples are written as Write writes them.
	p.Sample = samples(p, s)
	defer func() { p.Sample = nil }()
	var own bytes.Buffer
	if err := WriteSourceUncompressed(&own, stacks.FromProfile(p)); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(own.Bytes(), want.Bytes()) {
		t.Fatalf("FromProfile: %d bytes differ from pprof's %d", own.Len(), want.Len())
	}
}

// BenchmarkWriteSource writes 400,000 timestamped samples (the largest
// corpus trace's count) from stacks.
func BenchmarkWriteSource(b *testing.B) {
	_, s := randomStacks(rand.New(rand.NewPCG(3, 4)), 400_000, func(int) bool { return true })
	b.ReportAllocs()
	for b.Loop() {
		if err := WriteSource(io.Discard, s); err != nil {
			b.Fatal(err)
		}
	}
}

// Location ids too big for varintTable's 7 bytes are looked up, to the
// same bytes.
func TestWriteSourceBigIDs(t *testing.T) {
	p, s := randomStacks(rand.New(rand.NewPCG(7, 8)), 2000, func(i int) bool { return i%2 == 0 })
	p.Location[len(p.Location)/2].ID = 1 << 50
	if varintTable(p.Location) != nil {
		t.Fatal("an id of 51 bits in the table")
	}
	sameStacks(t, p, s)
}

// appendStackIDs writes what appendLocationIDs writes, at the lengths
// where the field's length takes one, two and three bytes, after bytes
// already in the buffer.
func TestAppendStackIDs(t *testing.T) {
	p := &profile.Profile{}
	for _, id := range []uint64{1, 127, 128, 300, 16383, 16384, 1 << 21, 1<<49 - 1} {
		p.Location = append(p.Location, &profile.Location{ID: id})
	}
	ids := varintTable(p.Location)
	for _, tc := range []struct {
		name   string
		frames int
		loc    int32 // every frame's location index, or -1 for all in turn
	}{
		{"three one-byte ids", 3, 0},
		{"127 bytes", 127, 0},
		{"128 bytes", 128, 0},
		{"two-byte ids, 16382 bytes", 8191, 3},
		{"two-byte ids, 16384 bytes", 8192, 3},
		{"seven-byte ids", 10, 7},
		{"every length", 200, -1},
		{"2^21 bytes and more", 1<<21/7 + 1, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stack := make([]int32, tc.frames)
			for i := range stack {
				if stack[i] = tc.loc; tc.loc < 0 {
					stack[i] = int32(i % len(p.Location))
				}
			}
			prefix := []byte{0x0a, 0x01, 0x02}
			want := appendLocationIDs(bytes.Clone(prefix), stack, func(x int32) uint64 { return p.Location[x].ID })
			got := appendStackIDs(bytes.Clone(prefix), stack, ids, p)
			if !bytes.Equal(got, want) {
				t.Fatalf("%d bytes, differing from appendLocationIDs' %d", len(got), len(want))
			}
		})
	}
}

// BenchmarkAppendStackIDs encodes stacks of 30-60 frames of 100,000
// locations, as a converted 500 MB trace's samples are.
func BenchmarkAppendStackIDs(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	p := &profile.Profile{}
	for i := range 100_000 {
		p.Location = append(p.Location, &profile.Location{ID: uint64(i + 1)})
	}
	ids := varintTable(p.Location)
	stacks := make([][]int32, 1000)
	frames := 0
	for i := range stacks {
		for range 30 + rng.IntN(31) {
			stacks[i] = append(stacks[i], int32(rng.IntN(len(p.Location))))
		}
		frames += len(stacks[i])
	}
	var buf []byte
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range stacks {
			buf = appendStackIDs(buf[:0], s, ids, p)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*frames), "ns/frame")
}

// appendTimestamp writes what numLabelIDs writes, for times that take no
// field, one byte and ten, and for keys and units of one to three bytes.
func TestAppendTimestamp(t *testing.T) {
	e := &encoder{}
	for _, ids := range [][2]int64{{1, 2}, {127, 128}, {300, 1 << 20}} {
		for _, ts := range []int64{0, 1, 127, 128, -1, 1 << 62} {
			want := e.numLabelIDs([]byte{9}, ids[0], ts, ids[1])
			got := appendTimestamp([]byte{9}, appendOpt(nil, 1, uint64(ids[0])), ts, appendOpt(nil, 4, uint64(ids[1])))
			if !bytes.Equal(got, want) {
				t.Errorf("key %d, unit %d, time %d: % x, want % x", ids[0], ids[1], ts, got, want)
			}
		}
	}
}

// A testStream is Samples as a Stream: its samples are those of EachSample.
type testStream struct {
	*stacks.Samples
	frames int64
}

func (st *testStream) Pool() (*stacks.Samples, int64) { return st.Samples, st.frames }

func (st *testStream) EachSample(f func(start, end int32, values []int64, thread int32, time int64, timed bool)) {
	s := st.Samples
	for i := range s.Len() {
		ts, ok := s.Time(i)
		f(int32(s.Start(i)), s.Ends[i], s.Value(i), s.SampleThreads[i], ts, ok)
	}
}
