package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/google/pprof/profile"
)

// The public speedscope and Firefox files convert, sniffed and with
// --from, to profiles of the same totals; the invalid ones exit 2 with
// one line that names the file and the format.
func TestConvertNextFormats(t *testing.T) {
	files := corpus.NextFiles(t)
	if len(files) == 0 {
		t.Skip("the next formats' files (../shared/next-formats) are absent")
	}
	for _, in := range files {
		name := filepath.Base(in)
		format := filepath.Base(filepath.Dir(in))
		if strings.HasPrefix(name, "speedscope-Firefox_") || strings.HasPrefix(name, "profiler-") {
			format = "firefox"
		}
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.pb.gz")
			_, errOut, code := ctdiff("convert", in, "-o", out)
			if strings.Contains(name, "-invalid-") {
				if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.HasPrefix(errOut, "ctdiff: "+in+": speedscope profile 0 ") {
					t.Errorf("exit %d, stderr %q; want exit 2 and one line naming the file and speedscope", code, errOut)
				}
				return
			}
			if code != 0 {
				t.Fatalf("convert: exit %d: %s", code, errOut)
			}
			forced := filepath.Join(t.TempDir(), "forced.pb.gz")
			if _, errOut, code := ctdiff("convert", "--from", format, in, "-o", forced); code != 0 {
				t.Fatalf("convert --from %s: exit %d: %s", format, code, errOut)
			}
			a, err := convert.ReadFile(out, convert.Options{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := convert.ReadFile(forced, convert.Options{})
			if err != nil {
				t.Fatal(err)
			}
			src, err := convert.ReadFile(in, convert.Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := sampleSums(src.Profile)
			for _, got := range [][]int64{sampleSums(a.Profile), sampleSums(b.Profile)} {
				if len(got) != len(want) {
					t.Fatalf("totals %v, want %v", got, want)
				}
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("totals %v, want %v", got, want)
					}
				}
			}
		})
	}
}

// sampleSums adds up a profile's values per sample type.
func sampleSums(p *profile.Profile) []int64 {
	sums := make([]int64, len(p.SampleType))
	for _, s := range p.Sample {
		for i, v := range s.Value {
			sums[i] += v
		}
	}
	return sums
}
