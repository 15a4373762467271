package diff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/convert"
)

const benchOld = `goos: linux
goarch: amd64
pkg: example.com/x
cpu: Some CPU
BenchmarkHandle-2   	    1000	    100000 ns/op	   2048 B/op	      10 allocs/op
BenchmarkHandle-2   	    1000	    101000 ns/op	   2048 B/op	      10 allocs/op
BenchmarkHandle-2   	    1000	     99000 ns/op	   2048 B/op	      10 allocs/op
BenchmarkHandle-2   	    1000	    100500 ns/op	   2048 B/op	      10 allocs/op
PASS
ok  	example.com/x	1.234s
`

const benchNew = `BenchmarkHandle-2   	     800	    150000 ns/op
BenchmarkHandle-2   	     800	    151000 ns/op
BenchmarkHandle-2   	     800	    149000 ns/op
BenchmarkHandle-2   	     800	    150500 ns/op
`

func parseBench(t *testing.T, name, text string) []BenchResult {
	t.Helper()
	rs, err := readBench(text, name)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// readBench reads go test -bench output as the CLI does
// (convert.ParseBench).
func readBench(text, name string) ([]BenchResult, error) {
	rs, err := convert.ParseBench(strings.NewReader(text), name)
	if err != nil {
		return nil, err
	}
	out := make([]BenchResult, len(rs))
	for i, r := range rs {
		out[i] = BenchResult(r)
	}
	return out, nil
}

// The verdict is benchstat's: medians 100.25 µs → 150.25 µs, +49.88%,
// Mann–Whitney p = 0.029 with 4 runs per side.
func TestBenchstatVerdict(t *testing.T) {
	v := benchstat("Handle-2", parseBench(t, "old.txt", benchOld), parseBench(t, "new.txt", benchNew))
	if !v.Significant || v.Delta != "+49.88%" || v.Test != "(p=0.029 n=4)" || v.Base.N != 4 {
		t.Errorf("verdict %+v", v)
	}
	same := benchstat("Handle-2", parseBench(t, "old.txt", benchOld), parseBench(t, "old.txt", benchOld))
	if same.Significant || same.Delta != "~" {
		t.Errorf("old vs old: %+v", same)
	}
}

func TestPrepareBench(t *testing.T) {
	old, nw := parseBench(t, "old.txt", benchOld), parseBench(t, "new.txt", benchNew)
	// Two profiles per side, each of a go test run with -count 2.
	it, _, err := prepareBench(&Bench{Base: old, New: nw}, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	if it.base[0] != 2000 || it.new[1] != 1600 {
		t.Errorf("iterations %+v", it)
	}
	other := parseBench(t, "other.txt", "BenchmarkParse-2 10 5 ns/op\n")
	for _, tt := range []struct {
		b          Bench
		nBase, nNw int
		want       string
	}{
		{Bench{Base: old, New: nw}, 3, 2, "the base side has 3 profiles and 4 benchmark results: want one result per profile, or the same -count for each (a multiple of 3)"},
		{Bench{Base: old, New: other}, 1, 1, "the base benchmark output is of BenchmarkHandle-2 and the new one of BenchmarkParse-2"},
		{Bench{Base: append(append([]BenchResult{}, old...), other...), New: nw}, 1, 1, "the base benchmark output holds 2 benchmarks (BenchmarkHandle-2, BenchmarkParse-2), and one go test run profiles them all together: run one benchmark per profile (go test -bench '^BenchmarkHandle-2$')"},
	} {
		if _, _, err := prepareBench(&tt.b, tt.nBase, tt.nNw); err == nil || err.Error() != tt.want {
			t.Errorf("error %v\nwant %q", err, tt.want)
		}
	}
}

// Per-iteration normalization divides each run by its iterations, and the
// benchmark function's time per iteration lands in the verdict.
func TestCompareBench(t *testing.T) {
	// 1000 iterations of 100 µs (100 ms in all) vs 800 of 150 µs (120 ms).
	base := trees(t, "testing.(*B).runN;x.BenchmarkHandle;x.work 100", "testing.(*B).runN;x.BenchmarkHandle;x.work 100.5")
	nw := trees(t, "testing.(*B).runN;x.BenchmarkHandle;x.work 120", "testing.(*B).runN;x.BenchmarkHandle;x.work 120.4")
	old, nwb := parseBench(t, "old.txt", benchOld), parseBench(t, "new.txt", benchNew)
	res, err := Compare(base, nw, Options{Bench: &Bench{Base: old, New: nwb}})
	if err != nil {
		t.Fatal(err)
	}
	nz := res.Normalization
	if nz.Mode != NormalizeIteration || !nz.Auto || nz.Unit != "nanoseconds" || nz.Per != "iteration" {
		t.Fatalf("normalization %+v", nz)
	}
	v := res.Benchmark
	if v == nil || v.Function != "x.BenchmarkHandle" || v.ProfileBase != 50125 || v.ProfileNew != 75125 {
		t.Fatalf("benchmark %+v", v)
	}
	if len(res.Causes) == 0 || res.Causes[0].Path[len(res.Causes[0].Path)-1].Function != "x.work" {
		t.Errorf("causes %+v", res.Causes)
	}
	// The profiles hold half the benchmark's time per iteration: warned.
	found := false
	for _, w := range res.Warnings {
		found = found || strings.HasPrefix(w, "benchmark Handle-2: the base profiles show 50.1µs per iteration in x.BenchmarkHandle, and the benchmark reports 100µs/op")
	}
	if !found {
		t.Errorf("no coverage warning in %q", res.Warnings)
	}
}

// FuzzRunIterations: whatever go test -bench output convert.ParseBench
// reads, the iterations per run are positive or an error, never a panic.
func FuzzRunIterations(f *testing.F) {
	f.Add(benchOld)
	f.Add(benchNew)
	for _, name := range []string{"old.txt", "new.txt"} {
		if b, err := os.ReadFile(filepath.Join("..", "testdata", "bench", name)); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		rs, err := readBench(in, "f.txt")
		if err != nil || len(rs) == 0 {
			return
		}
		it, err := runIterations("base", rs, 1)
		if err == nil && it[0] <= 0 {
			t.Fatalf("iterations %v from %+v", it, rs)
		}
	})
}
