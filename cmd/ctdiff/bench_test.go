package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctdiff/ctdiff/internal/benchcpu"
	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/tools/synth"
)

// writePair writes a synthetic pair (tools/synth) to dir and returns the
// two paths.
func writePair(tb testing.TB, dir string, c synth.Config) (base, nw string) {
	tb.Helper()
	pair := synth.Generate(c)
	base, nw = filepath.Join(dir, "base.pb.gz"), filepath.Join(dir, "new.pb.gz")
	for path, p := range map[string]interface{ Write(io.Writer) error }{base: pair.Base, nw: pair.New} {
		f, err := os.Create(path)
		if err != nil {
			tb.Fatal(err)
		}
		if err := p.Write(f); err != nil {
			tb.Fatal(err)
		}
		if err := f.Close(); err != nil {
			tb.Fatal(err)
		}
	}
	return base, nw
}

// BenchmarkDiffSynth runs `ctdiff diff` end to end (read, build, compare,
// text report) on the 200,000-stack synthetic pair (tools/synth), the pair
// bench/run.sh times against go tool pprof -diff_base.
func BenchmarkDiffSynth(b *testing.B) {
	dir := b.TempDir()
	base, nw := writePair(b, dir, synth.Config{Seed: 1, Stacks: 200_000})
	out := filepath.Join(dir, "report.txt")
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	for b.Loop() {
		if code := run([]string{"diff", base, nw, "-o", out}, io.Discard, io.Discard); code != exitOK {
			b.Fatalf("exit code %d", code)
		}
	}
	stop()
}

// BenchmarkConvertDevtools runs `ctdiff convert` end to end (read, convert,
// write gzipped pprof) on the largest corpus DevTools trace, the trace
// bench/run.sh times against node's JSON.parse.
func BenchmarkConvertDevtools(b *testing.B) {
	in := corpus.Path(b, "devtools/devtools-web-dev-screenshot-source-ids.json.gz")
	out := filepath.Join(b.TempDir(), "trace.pb.gz")
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	for b.Loop() {
		if code := run([]string{"convert", in, "-o", out}, io.Discard, io.Discard); code != exitOK {
			b.Fatalf("exit code %d", code)
		}
	}
	stop()
}
