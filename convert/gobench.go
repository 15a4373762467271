package convert

import (
	"fmt"
	"io"

	"golang.org/x/perf/benchfmt"
)

// A BenchResult is one result line of `go test -bench` output (the
// benchmark results that go with Go CPU profiles: diff.BenchResult).
type BenchResult struct {
	// Name is the full name without "Benchmark" ("Handle-2", "Parse/small-8").
	Name string
	// Iters is b.N; SecPerOp the time per iteration in seconds.
	Iters    int
	SecPerOp float64
	// File and Line say where the line was.
	File string
	Line int
}

// ParseBench reads benchmark results in the Go benchmark format (the output
// of go test -bench, golang.org/x/perf/benchfmt), in order. Lines that are
// not results (headers, PASS, ok) are skipped; a malformed result line is an
// error naming the file and line, as is a file without a sec/op result.
func ParseBench(r io.Reader, fileName string) ([]BenchResult, error) {
	br := benchfmt.NewReader(r, fileName)
	var out []BenchResult
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			sec, ok := rec.Value("sec/op")
			if !ok {
				continue // a result of another unit only (custom metrics)
			}
			f, line := rec.Pos()
			out = append(out, BenchResult{Name: rec.Name.String(), Iters: rec.Iters, SecPerOp: sec, File: f, Line: line})
		}
	}
	if err := br.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no benchmark result with a time per iteration (a line such as \"BenchmarkX-8  1000  1234 ns/op\")", fileName)
	}
	return out, nil
}
