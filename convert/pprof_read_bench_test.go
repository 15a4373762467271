package convert

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ctdiff/ctdiff/internal/benchcpu"
	"github.com/ctdiff/ctdiff/tools/synth"
)

// BenchmarkReadPprof reads tools/synth's 200,000-stack synthetic profile the
// whole way ctdiff does: from a gzipped file, decompressed, decoded and
// checked; "stacks" as diff and cct read it (Options.Stacks), "profile"
// with every sample as a profile.Sample.
func BenchmarkReadPprof(b *testing.B) {
	path := filepath.Join(b.TempDir(), "base.pb.gz")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if err := synth.Generate(synth.Config{Seed: 1}).Base.Write(f); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		opts Options
	}{
		{"stacks", Options{Stacks: true}},
		{"profile", Options{}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(st.Size())
			b.ReportAllocs()
			stop := benchcpu.Start(b)
			for b.Loop() {
				if _, err := ReadFile(path, bc.opts); err != nil {
					b.Fatal(err)
				}
			}
			stop()
		})
	}
}
