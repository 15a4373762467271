package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
)

// withStdin runs fn with standard input reading path.
func withStdin(t *testing.T, path string, fn func()) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	old := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = old }()
	fn()
}

// TestConvertStdin: a profile on standard input, whose size is not known
// before it is read, converts to the bytes the same file converts to: a
// pprof one streamed (convert.Read with Options.Rewrite, in memory that grows with
// its distinct stacks, not read whole), others read as before; and errors
// name standard input.
func TestConvertStdin(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "cut.pb")
	whole, err := os.ReadFile("../../testdata/example/old/run1.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, whole[:len(whole)/2], 0o666); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, in, err string }{
		{name: "pprof", in: "../../testdata/example/old/run1.pb.gz"},
		{name: "pprof, not gzipped", in: "../../testdata/bench/old/run1.pprof"},
		{name: "folded stacks", in: corpus.Path(t, "collapsed/asyncprofiler-sample1.collapsed")},
		{name: "DevTools trace", in: corpus.Path(t, "devtools/devtools-two-workers.json.gz")},
		{name: "cut-off pprof", in: bad, err: "ctdiff: -: gzip: truncated gzip stream after "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fromFile := filepath.Join(t.TempDir(), "file.pb.gz")
			_, fileErr, fileCode := ctdiff("convert", tc.in, "-o", fromFile)
			var out, errOut string
			var code int
			withStdin(t, tc.in, func() { out, errOut, code = ctdiff("convert", "-") })
			if tc.err != "" {
				if code != 2 || fileCode != 2 || !strings.HasPrefix(errOut, tc.err) {
					t.Fatalf("exit %d (file: %d, %q), %q; want exit 2 and %q...", code, fileCode, fileErr, errOut, tc.err)
				}
				return
			}
			if code != 0 || fileCode != 0 {
				t.Fatalf("exit %d, %s (file: exit %d, %s)", code, errOut, fileCode, fileErr)
			}
			want, err := os.ReadFile(fromFile)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal([]byte(out), want) {
				t.Fatalf("from standard input %d bytes, from the file %d, not the same", len(out), len(want))
			}
		})
	}
}
