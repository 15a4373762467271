package convert

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctdiff/ctdiff/tools/hostile"
)

// stdGunzip is compress/gzip's reading of data, as read does it
// (multistream).
func stdGunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	zr.Multistream(true)
	return io.ReadAll(zr)
}

func gzipLevel(t testing.TB, level int, parts ...[]byte) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, p := range parts {
		zw, err := gzip.NewWriterLevel(&b, level)
		if err != nil {
			t.Fatal(err)
		}
		zw.Name = "x.pb" // FNAME, as gzip(1) writes it
		if _, err := zw.Write(p); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// TestGunzipWhole: gunzipWhole gives compress/gzip's output for real
// profiles and for inputs that exercise each kind of block, and refuses
// (so that compress/gzip decides) what is malformed or over the limit.
func TestGunzipWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 100_000)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	text := bytes.Repeat([]byte("runtime.mallocgc main.(*server).handle net/http.(*conn).serve "), 3000)
	var mixed []byte
	for i := range 50_000 {
		mixed = append(mixed, text[rng.IntN(len(text)-40):][:rng.IntN(40)]...)
		mixed = append(mixed, byte(i))
	}
	profiles, _ := filepath.Glob("../testdata/example/*/*.pb.gz")
	type tc struct {
		name string
		gz   []byte
	}
	var cases []tc
	for _, level := range []int{gzip.NoCompression, gzip.HuffmanOnly, gzip.BestSpeed, gzip.DefaultCompression, gzip.BestCompression} {
		for name, data := range map[string][]byte{"random": random, "text": text, "mixed": mixed, "empty": nil, "one": {7}, "runs": bytes.Repeat([]byte{0}, 70_000)} {
			cases = append(cases, tc{fmt.Sprintf("%s/level %d", name, level), gzipLevel(t, level, data)})
		}
	}
	cases = append(cases, tc{"two members", gzipLevel(t, gzip.DefaultCompression, text, mixed)})
	for _, p := range profiles {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, tc{filepath.Base(p), b})
	}
	if len(profiles) == 0 {
		t.Fatal("no profiles in ../testdata/example")
	}
	for _, c := range cases {
		want, err := stdGunzip(c.gz)
		if err != nil {
			t.Fatalf("%s: compress/gzip: %v", c.name, err)
		}
		got, ok := gunzipWhole(c.gz, nil, 1<<30)
		if !ok || !bytes.Equal(got, want) {
			t.Fatalf("%s: gunzipWhole gave %d bytes (ok %v), want compress/gzip's %d", c.name, len(got), ok, len(want))
		}
		if len(want) > 0 {
			if _, ok := gunzipWhole(c.gz, nil, int64(len(want))-1); ok {
				t.Errorf("%s: took %d bytes under a limit of %d", c.name, len(want), len(want)-1)
			}
		}
		// Cut short, or with a byte changed: refused, or compress/gzip's.
		for _, bad := range [][]byte{c.gz[:len(c.gz)-1], c.gz[:len(c.gz)/2], append(c.gz[:len(c.gz):len(c.gz)], 0), flip(c.gz, len(c.gz)/2), flip(c.gz, len(c.gz)-6)} {
			if got, ok := gunzipWhole(bad, nil, 1<<30); ok {
				if want, err := stdGunzip(bad); err != nil || !bytes.Equal(got, want) {
					t.Errorf("%s: took a damaged input compress/gzip reads differently (%v)", c.name, err)
				}
			}
		}
	}
}

// A trailer that understates the size does not make gunzipWhole grow its
// buffer past the limit, even for literals only (a 1-bit code each).
func TestGunzipWholeLiteralsLimit(t *testing.T) {
	gz := gzipLevel(t, gzip.HuffmanOnly, bytes.Repeat([]byte{'a'}, 1<<20))
	gz[len(gz)-4] = 0xe8 // 1000
	gz[len(gz)-3], gz[len(gz)-2], gz[len(gz)-1] = 3, 0, 0
	out, ok := gunzipWhole(gz, make([]byte, 0, 1000), 1000)
	if ok || cap(out) > 1000 {
		t.Fatalf("ok %v with %d bytes of room for a limit of 1000", ok, cap(out))
	}
}

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x10
	return c
}

// FuzzGunzipWhole: what gunzipWhole takes, compress/gzip reads the same;
// what compress/gzip writes, gunzipWhole takes.
func FuzzGunzipWhole(f *testing.F) {
	f.Add([]byte("hello, hello, hello"), 6)
	f.Add(bytes.Repeat([]byte{1, 2, 3}, 1000), 1)
	f.Fuzz(func(t *testing.T, data []byte, level int) {
		data = data[:min(len(data), 4096)] // each run compresses it
		if got, ok := gunzipWhole(data, nil, 1<<24); ok {
			if want, err := stdGunzip(data); err != nil || !bytes.Equal(got, want) {
				t.Fatalf("took %q, which compress/gzip reads as %q (%v)", data, want, err)
			}
		}
		level = (level%11+11)%11 - 2 // HuffmanOnly .. BestCompression
		gz := gzipLevel(t, level, data)
		if got, ok := gunzipWhole(gz, nil, 1<<24); !ok || !bytes.Equal(got, data) {
			t.Fatalf("level %d: refused or misread compress/gzip's output (ok %v)", level, ok)
		}
	})
}

// TestPprofWholeGzip: a gzipped file is read whole where it can be
// (wholeGzip) and the result, or the error, is the one streaming it gives:
// for profiles, a profile gzipped twice or in two members, one with a
// field to skip, and damaged files.
func TestPprofWholeGzip(t *testing.T) {
	example, err := os.ReadFile("../testdata/example/old/run1.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := stdGunzip(example)
	if err != nil {
		t.Fatal(err)
	}
	var withUnknown bytes.Buffer // a small field pprof does not read
	if err := hostile.PprofUnknownField(&withUnknown, 100); err != nil {
		t.Fatal(err)
	}
	bomb := gzipped(t, pprofWithUnknown(8<<20))
	dir := t.TempDir()
	for _, tc := range []struct {
		name  string
		data  []byte
		whole bool // read whole, not streamed
	}{
		{"profile", example, true},
		{"two members", gzipLevel(t, gzip.BestSpeed, plain[:len(plain)-1000], plain[len(plain)-1000:]), true}, // as pprofenc writes big ones; the trailer sizes the last only
		{"gzipped twice", gzipLevel(t, gzip.DefaultCompression, example), true},
		{"a field to skip", gzipLevel(t, gzip.DefaultCompression, withUnknown.Bytes()), true},
		{"expands too much", bomb, false},
		{"cut short", example[:len(example)-5], false},
		{"trailing bytes", append(bytes.Clone(example), 0, 0, 0), false},
		{"a changed byte", flip(example, len(example)/2), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "p.pb.gz")
			if err := os.WriteFile(path, tc.data, 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			w := newWholeGzip(f, bytes.NewReader(nil), DefaultMaxDecompressed)
			if w == nil {
				t.Fatal("a gzipped file is not read whole")
			}
			data, ok := w.read()
			if ok != tc.whole {
				t.Fatalf("read whole: %v, want %v", ok, tc.whole)
			}
			if want, err := stdGunzip(tc.data); ok && (err != nil || !bytes.Equal(data, want)) {
				t.Fatalf("read whole %d bytes, compress/gzip %d (%v)", len(data), len(want), err)
			}
			for _, opts := range []Options{{}, {Stacks: true}} {
				got, gotErr := ReadFile(path, opts)
				want, wantErr := Read(bytes.NewReader(tc.data), path, opts)
				if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
					t.Fatalf("from the file: error %v; streamed: %v", gotErr, wantErr)
				}
				if gotErr == nil && (got.Profile.String() != want.Profile.String() || got.Samples.Len() != want.Samples.Len() || fmt.Sprint(got.Warnings) != fmt.Sprint(want.Warnings)) {
					t.Fatalf("from the file:\n%s\nstreamed:\n%s", got.Profile, want.Profile)
				}
			}
		})
	}
}
