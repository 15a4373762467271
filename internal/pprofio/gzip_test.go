package pprofio

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/google/pprof/profile"
)

// compressible returns n bytes that compress about as profile.proto does.
func compressible(n int) []byte {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	b := make([]byte, n)
	for i := range b {
		b[i] = "aabbcdefghij\x00\x01\x02\x08\x12"[rng.IntN(17)]
	}
	return b
}

// members returns the gzip members of z, each decompressed.
func members(t *testing.T, z []byte) [][]byte {
	t.Helper()
	r := bytes.NewReader(z) // an io.ByteReader: gzip.Reader reads no further than a member
	zr, err := gzip.NewReader(r)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for {
		zr.Multistream(false)
		m, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
		if err := zr.Reset(r); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatal(err)
		}
	}
}

func TestGzipWriterChunks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		size    int
		write   int // bytes a Write
		members int
	}{
		{"empty", 0, 1, 1},
		{"one byte", 1, 1, 1},
		{"below a chunk", chunkSize - 1, 1000, 1},
		{"a chunk exactly", chunkSize, 64 << 10, 1},
		{"a chunk in one write", chunkSize, chunkSize, 1},
		{"a byte over", chunkSize + 1, 64 << 10, 2},
		{"two chunks in one write", 2*chunkSize + 3, 2*chunkSize + 3, 3},
		{"more than in flight", (maxInFlight+2)*chunkSize + 7, 1 << 20, maxInFlight + 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := compressible(tc.size)
			var z bytes.Buffer
			zw := newGzipWriter(&z)
			for b := data; len(b) > 0; {
				k := min(tc.write, len(b))
				if n, err := zw.Write(b[:k]); n != k || err != nil {
					t.Fatalf("Write: %d, %v; expected %d, nil", n, err, k)
				}
				b = b[k:]
			}
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			ms := members(t, z.Bytes())
			if len(ms) != tc.members {
				t.Fatalf("%d members, expected %d", len(ms), tc.members)
			}
			for i, m := range ms[:len(ms)-1] {
				if len(m) != chunkSize {
					t.Errorf("member %d holds %d bytes, expected %d", i, len(m), chunkSize)
				}
			}
			zr, err := gzip.NewReader(bytes.NewReader(z.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if got, err := io.ReadAll(zr); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("read back %d bytes (%v), expected the %d written", len(got), err, len(data))
			}
			if tc.size > chunkSize {
				return
			}
			// One chunk: gzip.Writer's bytes.
			var want bytes.Buffer
			gw, _ := gzip.NewWriterLevel(&want, gzip.BestSpeed)
			_, _ = gw.Write(data)
			_ = gw.Close()
			if !bytes.Equal(z.Bytes(), want.Bytes()) {
				t.Errorf("%d bytes differ from gzip.Writer's %d", z.Len(), want.Len())
			}
		})
	}
}

// A big profile is written as several members that profile.Parse reads as
// the profile.
func TestWriteSourceMembers(t *testing.T) {
	_, s := randomStacks(rand.New(rand.NewPCG(5, 6)), 200_000, func(int) bool { return true })
	var raw, z bytes.Buffer
	if err := WriteSourceUncompressed(&raw, s); err != nil {
		t.Fatal(err)
	}
	if raw.Len() <= 2*chunkSize {
		t.Fatalf("%d bytes: too few for several members", raw.Len())
	}
	if err := WriteSource(&z, s); err != nil {
		t.Fatal(err)
	}
	if ms := members(t, z.Bytes()); len(ms) != (raw.Len()+chunkSize-1)/chunkSize || !bytes.Equal(bytes.Join(ms, nil), raw.Bytes()) {
		t.Fatalf("%d members of %d bytes, expected the %d bytes written in chunks of %d", len(ms), len(bytes.Join(ms, nil)), raw.Len(), chunkSize)
	}
	got, err := profile.Parse(&z)
	if err != nil {
		t.Fatal(err)
	}
	var again bytes.Buffer
	if err := WriteUncompressed(&again, got); err != nil {
		t.Fatal(err)
	}
	if len(got.Sample) != s.Len() || !bytes.Equal(again.Bytes(), raw.Bytes()) {
		t.Fatalf("read back %d samples, differing from the %d written", len(got.Sample), s.Len())
	}
}

// failAt fails its write number n (from 1) and every one after.
type failAt struct{ n int }

func (f *failAt) Write(b []byte) (int, error) {
	if f.n--; f.n <= 0 {
		return 0, errors.New("disk full")
	}
	return len(b), nil
}

// A write error is returned by Write or Close, whichever meets it first,
// and by later writes. A member is one write; one member alone is written
// as gzip.Writer writes it, its header first.
func TestGzipWriterError(t *testing.T) {
	for _, tc := range []struct {
		name      string
		size, at  int // bytes written, the write that fails
		fromWrite bool
	}{
		{"one member's header", chunkSize / 2, 1, false},
		{"one member's data", chunkSize / 2, 2, false},
		{"the first of several", (maxInFlight + 3) * chunkSize, 1, true},
		{"a later member", (maxInFlight + 3) * chunkSize, 2, true},
		{"the last member", 2*chunkSize + 1, 3, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			zw := newGzipWriter(&failAt{tc.at})
			data := compressible(tc.size)
			var werr error
			for b := data; len(b) > 0 && werr == nil; {
				k := min(1<<20, len(b))
				_, werr = zw.Write(b[:k])
				b = b[k:]
			}
			cerr := zw.Close()
			if (werr != nil) != tc.fromWrite {
				t.Errorf("Write's error %v; expected one: %v", werr, tc.fromWrite)
			}
			if cerr == nil || cerr.Error() != "disk full" {
				t.Errorf("Close's error %v, expected disk full", cerr)
			}
			if _, err := zw.Write([]byte("x")); err == nil || err.Error() != "disk full" {
				t.Errorf("Write after the error: %v, expected disk full", err)
			}
		})
	}
}

// BenchmarkGzipWriter compresses 64 MB in 64 KB writes with gzipWriter
// (members at memberLevel, in parallel) and with one gzip.Writer at
// BestSpeed.
func BenchmarkGzipWriter(b *testing.B) {
	data := compressible(64 << 20)
	for _, w := range []struct {
		name string
		new  func(io.Writer) io.WriteCloser
	}{
		{"parallel", func(w io.Writer) io.WriteCloser { return newGzipWriter(w) }},
		{"gzip.Writer", func(w io.Writer) io.WriteCloser {
			zw, _ := gzip.NewWriterLevel(w, gzip.BestSpeed)
			return zw
		}},
	} {
		b.Run(w.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				zw := w.new(io.Discard)
				for p := data; len(p) > 0; p = p[min(64<<10, len(p)):] {
					if _, err := zw.Write(p[:min(64<<10, len(p))]); err != nil {
						b.Fatal(err)
					}
				}
				if err := zw.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
