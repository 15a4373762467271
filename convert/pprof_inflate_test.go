package convert

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/ctdiff/ctdiff/tools/hostile"
)

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

// TestPprofWholeGzip: a gzipped file is read whole where it can be
// (WholeGzip) and the result, or the error, is the one streaming it gives:
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
		{"two members", gzipLevel(t, gzip.BestSpeed, plain[:len(plain)-1000], plain[len(plain)-1000:]), true}, // as pprofio writes big ones; the trailer sizes the last only
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
			w := pprofio.NewWholeGzip(f, bytes.NewReader(nil), DefaultMaxDecompressed)
			if w == nil {
				t.Fatal("a gzipped file is not read whole")
			}
			data, ok := w.Read()
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

func flip(b []byte, i int) []byte {
	c := bytes.Clone(b)
	c[i] ^= 0x10
	return c
}
