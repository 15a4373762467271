package convert

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/ctdiff/ctdiff/tools/hostile"
	"github.com/ctdiff/ctdiff/tools/synth"
	"github.com/google/pprof/profile"
)

// reencoded is what ctdiff convert writes of data read by Read with
// Options.Rewrite (as of standard input, whose size is unknown); taken is
// false when Read reads data as without it.
func reencoded(data []byte, name string, opts Options) (out []byte, taken bool, err error) {
	opts.Rewrite = true
	res, err := Read(bytes.NewReader(data), name, opts)
	if err != nil {
		return nil, false, err
	}
	if res.Rewrite == nil {
		if res.Profile == nil {
			return nil, false, fmt.Errorf("Read with Options.Rewrite returned neither a profile nor a PprofStream")
		}
		return nil, false, nil
	}
	if res.Profile != nil || res.Samples != nil {
		return nil, true, fmt.Errorf("Read with Options.Rewrite returned a profile beside the PprofStream")
	}
	var b bytes.Buffer
	if err := res.Rewrite.Write(&b); err != nil {
		return nil, true, err
	}
	return b.Bytes(), true, nil
}

// convertedWhole is what ctdiff convert writes of data read whole: Read,
// then WriteSource (cmd/ctdiff/convert.go).
func convertedWhole(data []byte, opts Options) ([]byte, error) {
	opts.Stacks, opts.CompleteStacks = true, true
	res, err := Read(bytes.NewReader(data), "x.pb", opts)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	err = pprofio.WriteSource(&b, res.Samples)
	return b.Bytes(), err
}

// pb builds protobuf by hand, for encodings pprof's writer never makes.
type pb []byte

func (b pb) varint(num int, u uint64) pb {
	return binary.AppendUvarint(binary.AppendUvarint(b, uint64(num)<<3), u)
}

func (b pb) bytes(num int, data []byte) pb {
	return append(binary.AppendUvarint(binary.AppendUvarint(b, uint64(num)<<3|2), uint64(len(data))), data...)
}

// stringCount is the number of strings data's table holds.
func stringCount(t *testing.T, data []byte) uint64 {
	t.Helper()
	n := uint64(0)
	for b := data; len(b) > 0; {
		key, w := binary.Uvarint(b)
		if w <= 0 {
			t.Fatal("malformed profile")
		}
		b = b[w:]
		switch key & 7 {
		case 0:
			_, w = binary.Uvarint(b)
		case 1:
			w = 8
		case 5:
			w = 4
		case 2:
			var l uint64
			l, w = binary.Uvarint(b)
			if w > 0 && l <= uint64(len(b)-w) {
				w += int(l)
			} else {
				w = -1
			}
		default:
			w = -1
		}
		if w <= 0 || w > len(b) {
			t.Fatal("malformed profile")
		}
		if key>>3 == 6 {
			n++
		}
		b = b[w:]
	}
	return n
}

// oddlyEncoded is everyFieldProfile with samples as other writers may
// write them: location ids and values one field each (three of them) or
// packed (one), ids in varints longer than they need, labels out of
// order, a key's values interleaved with another key's, two strings
// equal, a string label whose value is "" (a second empty string), a
// label of neither kind (dropped), one with a string and a number (a
// string label), and numbers of one key with and without a unit.
func oddlyEncoded(t *testing.T) []byte {
	data := encode(t, everyFieldProfile())
	n := stringCount(t, data)
	strs := []string{"k", "a", "b", "x", "dropped", "n2", "units", "s", "", "k"}
	id := map[string]uint64{}
	out := pb(data)
	for i, s := range strs {
		out = out.bytes(6, []byte(s))
		if _, dup := id[s]; !dup {
			id[s] = n + uint64(i)
		}
	}
	kDup, empty2 := n+9, n+8
	label := func(key, str, num, unit uint64) []byte {
		l := pb(nil).varint(1, key)
		if str != 0 {
			l = l.varint(2, str)
		}
		if num != 0 {
			l = l.varint(3, num)
		}
		if unit != 0 {
			l = l.varint(4, unit)
		}
		return l
	}
	sample := func(num uint64) []byte {
		s := pb(nil).varint(1, 1).varint(1, 2).varint(1, 5).varint(2, 7).varint(2, 70)
		s = s.bytes(3, label(id["k"], id["b"], 0, 0)).bytes(3, label(id["x"], id["a"], 0, 0))
		s = s.bytes(3, label(kDup, id["x"], 0, 0)).bytes(3, label(id["dropped"], 0, 0, 0))
		s = s.bytes(3, label(id["n2"], 0, num, id["units"])).bytes(3, label(id["n2"], 0, num+1, 0))
		s = s.bytes(3, label(id["s"], empty2, 9, 0)).bytes(3, label(id["a"], 0, 0, id["units"]))
		return s.bytes(3, label(id["k"], id["a"], 0, 0))
	}
	out = out.bytes(2, sample(3)).bytes(2, sample(300))
	// Ids 2, 1, 5 packed, the first in two bytes; one id, packed, in two.
	out = out.bytes(2, pb(nil).bytes(1, []byte{0x82, 0x00, 1, 5}).varint(2, 1).varint(2, 2))
	out = out.bytes(2, pb(nil).bytes(1, []byte{0x81, 0x00}).bytes(2, []byte{3, 4}))
	return out
}

// TestPprofStreamConvert: a pprof written again by Read with Options.Rewrite is,
// byte for byte, what ctdiff convert writes of it read whole (the profile
// as profile.ParseData reads it, written as pprof writes it), gzipped or
// not.
func TestPprofStreamConvert(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"every field", encode(t, everyFieldProfile())},
		{"repeated thread labels", encode(t, repeatedLabelsProfile())},
		{"threaded, big ids", encode(t, threadedProfile(5000))},
		{"synth", encode(t, synth.Generate(synth.Config{Seed: 2, Stacks: 2000, Functions: 300}).New)},
		{"oddly encoded", oddlyEncoded(t)},
	}
	res, err := ReadFile(convertedTrace(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	tests = append(tests, struct {
		name string
		data []byte
	}{"converted devtools trace", encode(t, res.Profile)})
	for _, tt := range tests {
		for _, gz := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/gzip=%v", tt.name, gz), func(t *testing.T) {
				data := tt.data
				if gz {
					data = generated(t, true, func(w io.Writer) error { _, err := w.Write(tt.data); return err })
				}
				want, err := convertedWhole(data, Options{})
				if err != nil {
					t.Fatal(err)
				}
				got, taken, err := reencoded(data, "x.pb", Options{})
				if err != nil || !taken {
					t.Fatalf("taken %v, error %v", taken, err)
				}
				sameAsWhole(t, got, want)
			})
		}
	}
}

// TestPprofStreamConvertSelects: with --thread and --pid, the samples
// written again are those Read keeps, and the string table holds what
// theirs need, in the order pprof makes it, byte for byte.
func TestPprofStreamConvertSelects(t *testing.T) {
	threaded := encode(t, threadedProfile(3000))
	every := encode(t, everyFieldProfile())
	tests := []struct {
		name string
		data []byte
		opts Options
		err  string
	}{
		{"--thread, one of three", threaded, Options{Thread: regexp.MustCompile("worker-2")}, ""},
		{"--thread, two of three", threaded, Options{Thread: regexp.MustCompile("worker-[13]")}, ""},
		{"--pid", threaded, Options{PIDs: []int64{42}}, ""},
		// The thread of the first sample goes: the labels' strings come
		// in another order.
		{"--thread, not the first", every, Options{Thread: regexp.MustCompile("other")}, ""},
		{"--thread, none", threaded, Options{Thread: regexp.MustCompile("nothing")},
			`x.pb: no samples: no sample matches the thread/pid selection; threads present: "renderer/worker-1", "renderer/worker-2", "renderer/worker-3"`},
		{"--pid, none", every, Options{PIDs: []int64{7}},
			`x.pb: no samples: no sample matches the thread/pid selection; threads present: "", "main", "other"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, werr := convertedWhole(tt.data, tt.opts)
			got, taken, err := reencoded(tt.data, "x.pb", tt.opts)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err || werr == nil || werr.Error() != tt.err {
					t.Fatalf("error %v (read whole: %v), want %q", err, werr, tt.err)
				}
				return
			}
			if werr != nil {
				t.Fatal(werr)
			}
			if err != nil || !taken {
				t.Fatalf("taken %v, error %v", taken, err)
			}
			sameAsWhole(t, got, want)
			p, _ := profile.ParseData(got)
			all, _ := profile.ParseData(tt.data)
			if len(p.Sample) == 0 || (strings.HasPrefix(tt.name, "--thread") && len(p.Sample) >= len(all.Sample)) {
				t.Fatalf("%d samples of %d kept", len(p.Sample), len(all.Sample))
			}
		})
	}
}

// TestPprofStreamConvertLeaves: inputs readPprofRewrite leaves to the other readers,
// having read nothing of them: other formats, legacy pprof, options that
// merge samples, files below the size it streams from.
func TestPprofStreamConvertLeaves(t *testing.T) {
	good := encode(t, everyFieldProfile())
	tests := []struct {
		name string
		data []byte
		size int64
		opts Options
	}{
		{"folded stacks", []byte("a;b 1\n"), -1, Options{}},
		{"legacy text", []byte("--- contention:\ncycles/second=1\n"), -1, Options{}},
		{"gzipped twice", generated(t, true, func(w io.Writer) error { return hostile.NestedGzipPprof(w, 1<<10) }), -1, Options{}},
		{"--aggregate", good, -1, Options{Aggregate: true}},
		{"--from collapsed", good, -1, Options{From: "collapsed"}},
		{"a small file", good, int64(len(good)), Options{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bufio.NewReaderSize(bytes.NewReader(tt.data), 64<<10)
			x, err := readPprofRewrite(r, "x", tt.size, tt.opts)
			if x != nil || err != nil {
				t.Fatalf("taken: %v, error %v", x != nil, err)
			}
			rest, _ := io.ReadAll(r)
			if !bytes.Equal(rest, tt.data) {
				t.Fatal("the input was read")
			}
		})
	}
	// Read with Options.Rewrite reads what it leaves as without it.
	for _, tt := range tests[:5] {
		_, want := Read(bytes.NewReader(tt.data), "x", tt.opts)
		opts := tt.opts
		opts.Rewrite = true
		res, err := Read(bytes.NewReader(tt.data), "x", opts)
		if fmt.Sprint(err) != fmt.Sprint(want) || (err == nil && (res.Rewrite != nil || res.Profile == nil)) {
			t.Fatalf("%s: Read with Options.Rewrite: error %v, want %v; rewritten %v", tt.name, err, want, err == nil && res.Rewrite != nil)
		}
	}
	// From the size parsePprofStacks streams from, a file is streamed.
	r := bufio.NewReaderSize(bytes.NewReader(good), 64<<10)
	if x, err := readPprofRewrite(r, "x", pprofStreamRaw, Options{}); x == nil || err != nil {
		t.Fatalf("a file of %d bytes: taken %v, error %v", pprofStreamRaw, x != nil, err)
	}
}

// TestPprofStreamConvertErrors: what readPprofRewrite refuses, naming the
// input and, for a malformed one, the byte; all of it before anything is
// written.
func TestPprofStreamConvertErrors(t *testing.T) {
	good := encode(t, everyFieldProfile())
	badValues := everyFieldProfile()
	badValues.Sample[2].Value = []int64{3}
	negative := everyFieldProfile()
	negative.Sample[3].Value[1] = -5
	overflow := everyFieldProfile()
	overflow.Sample[1].Value[0], overflow.Sample[3].Value[0] = 1<<62, 1<<62
	empty := everyFieldProfile()
	empty.Sample = nil
	untyped := everyFieldProfile()
	untyped.SampleType, untyped.DefaultSampleType = nil, ""
	for _, s := range untyped.Sample {
		s.Value = nil
	}
	big := encode(t, threadedProfile(20000))
	gzipped := generated(t, true, func(w io.Writer) error { _, err := w.Write(big); return err })
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"cut off in a sample", big[:len(big)/2],
			"big.pb.gz: byte %d: not a valid pprof profile: field 2 is cut off by the end of the input"},
		{"gzip cut off", gzipped[:len(gzipped)/2],
			"big.pb.gz: gzip: truncated gzip stream after %d decompressed bytes"},
		{"values short of the sample types", encode(t, badValues),
			"big.pb.gz: not a valid pprof profile: sample 2 has a number of values other than its 2 sample types"},
		{"unknown location id", append(bytes.Clone(good), 2<<3|2, 6, 1<<3, 99, 2<<3, 1, 2<<3, 1),
			"big.pb.gz: not a valid pprof profile: a sample names location id 99, which no location has"},
		{"cut-off location id", append(bytes.Clone(good), 2<<3|2, 3, 1<<3|2, 1, 0x80),
			"big.pb.gz: byte " + fmt.Sprint(len(good)) + ": not a valid pprof profile: a sample's location ids end in a cut-off varint"},
		{"string label out of the table", append(bytes.Clone(good), 2<<3|2, 10, 2<<3, 1, 2<<3, 1, 3<<3|2, 4, 1<<3, 1, 2<<3, 120),
			"big.pb.gz: not a valid pprof profile: a sample's label names a string the string table does not hold"},
		{"unit out of the table", append(bytes.Clone(good), 2<<3|2, 12, 2<<3, 1, 2<<3, 1, 3<<3|2, 6, 1<<3, 1, 3<<3, 1, 4<<3, 120),
			"big.pb.gz: not a valid pprof profile: a sample's label names a string the string table does not hold"},
		{"negative value", encode(t, negative),
			"big.pb.gz: sample 3: negative sample value: cpu/nanoseconds is -5; ctdiff needs counts and times (a profile of differences, such as pprof -diff_base writes, cannot be read: pass the two profiles instead)"},
		{"values over an int64", encode(t, overflow),
			"big.pb.gz: sample 3: the samples/count values add up to more than 9223372036854775807"},
		{"no samples", encode(t, empty), "big.pb.gz: no samples: the pprof input holds no samples"},
		{"samples without sample types", encode(t, untyped),
			"big.pb.gz: not a valid pprof profile: malformed profile: missing sample type information"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, taken, err := reencoded(tt.data, "big.pb.gz", Options{})
			if err == nil || taken {
				t.Fatalf("taken %v, error %v", taken, err)
			}
			if strings.Contains(tt.want, "%d") {
				var n int
				if _, serr := fmt.Sscanf(err.Error(), tt.want, &n); serr != nil || fmt.Sprintf(tt.want, n) != err.Error() {
					t.Fatalf("error %q, want %q", err, tt.want)
				}
				return
			}
			if err.Error() != tt.want {
				t.Fatalf("error %q, want %q", err, tt.want)
			}
			// Read refuses it too, with the same words.
			if _, werr := convertedWhole(tt.data, Options{}); werr == nil {
				t.Fatalf("read whole, it is taken")
			}
		})
	}
}

// TestPprofStreamConvertTableErrors: a profile whose tables pprof
// refuses is refused with pprof's words, as Read gives them.
func TestPprofStreamConvertTableErrors(t *testing.T) {
	dupMapping := everyFieldProfile()
	dupMapping.Mapping[1].ID = 1
	zeroLocation := everyFieldProfile()
	zeroLocation.Location[2].ID = 0
	for _, tc := range []struct {
		name string
		p    *profile.Profile
		want string
	}{
		{"two mappings of one id", dupMapping, "x.pb: not a valid pprof profile: malformed profile: multiple mappings with same id: 1"},
		{"a location of id 0", zeroLocation, "x.pb: not a valid pprof profile: malformed profile: found location with reserved id=0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := encode(t, tc.p)
			_, werr := convertedWhole(data, Options{})
			_, taken, err := reencoded(data, "x.pb", Options{})
			if taken || err == nil || werr == nil || err.Error() != tc.want || werr.Error() != tc.want {
				t.Fatalf("taken %v, error %v (read whole: %v), want %q", taken, err, werr, tc.want)
			}
		})
	}
}

// TestPprofStreamConvertMemory: a profile of many samples of a few deep
// stacks, with a timestamp each, takes memory for its distinct stacks and
// a few bytes a sample, not a profile.Sample with its frames and labels
// each: the live heap after reading 200,000 samples of 400-frame stacks
// (80 M frames; read whole, 1.4 GB) stays under 20 MB, and writing them
// again allocates a bounded amount (the compressors' chunks), not the
// samples' profile.Samples.
func TestPprofStreamConvertMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes and reads a 200,000-sample profile")
	}
	data := deepStacksProfile(t, true)
	var x *PprofStream
	grew := liveHeapGrowth(data, func(data []byte) {
		var err error
		x, err = readPprofRewrite(bufio.NewReaderSize(bytes.NewReader(data), 64<<10), "x.pb", -1, Options{})
		if err != nil || x == nil {
			t.Fatalf("taken %v, error %v", x != nil, err)
		}
	})
	if x.Len() != 200_000 {
		t.Fatalf("%d samples, want 200000", x.Len())
	}
	if grew > 20<<20 {
		t.Fatalf("the samples take %d MB of heap, want under 20", grew>>20)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var n countingWriter
	if err := x.Write(&n); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64<<20 {
		t.Fatalf("writing %d MB of pprof allocated %d MB, want under 64", n>>20, alloc>>20)
	}
}

// sameAsWhole fails t unless got, the profile written again from a
// stream, is want, what the whole-profile path writes, byte for byte.
func sameAsWhole(t *testing.T, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		g, _ := profile.ParseData(got)
		w, _ := profile.ParseData(want)
		t.Fatalf("written again: %d bytes, read whole: %d bytes\n%v\nwant\n%v", len(got), len(want), g, w)
	}
}

type countingWriter int64

func (c *countingWriter) Write(b []byte) (int, error) {
	*c += countingWriter(len(b))
	return len(b), nil
}

// FuzzPprofStreamConvert: whatever readPprofRewrite takes, Read takes too,
// and the two write the same bytes; whatever Read takes in a form
// readPprofRewrite streams, it takes.
func FuzzPprofStreamConvert(f *testing.F) {
	f.Add(encode(f, everyFieldProfile()))
	f.Add(encode(f, threadedProfile(40)))
	f.Add(encode(f, repeatedLabelsProfile()))
	f.Add(encode(f, synth.Generate(synth.Config{Seed: 1, Stacks: 20, Functions: 10}).Base))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, taken, err := reencoded(data, "x.pb", Options{})
		if !taken {
			return
		}
		want, werr := convertedWhole(data, Options{})
		switch {
		case err == nil && werr != nil:
			t.Fatalf("taken streamed, refused whole: %v", werr)
		case err != nil && werr == nil:
			t.Fatalf("taken whole, refused streamed: %v", err)
		case err == nil && !bytes.Equal(got, want):
			t.Fatal("written streamed and whole, the bytes differ")
		}
	})
}
