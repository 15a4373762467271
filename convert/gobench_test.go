package convert

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const benchText = `goos: linux
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

func TestParseBench(t *testing.T) {
	rs, err := ParseBench(strings.NewReader(benchText), "old.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 4 || rs[0].Name != "Handle-2" || rs[0].Iters != 1000 || rs[0].SecPerOp != 100e-6 || rs[0].Line != 5 {
		t.Errorf("results %+v", rs)
	}
	for _, tt := range []struct{ in, want string }{
		{"BenchmarkX-2 abc 100 ns/op\n", "bad.txt:1: parsing iteration count: invalid syntax"},
		{"PASS\nok x 1s\n", `bad.txt: no benchmark result with a time per iteration (a line such as "BenchmarkX-8  1000  1234 ns/op")`},
	} {
		if _, err := ParseBench(strings.NewReader(tt.in), "bad.txt"); err == nil || err.Error() != tt.want {
			t.Errorf("ParseBench(%q) error %v, want %q", tt.in, err, tt.want)
		}
	}
}

// FuzzParseBench: any input gives results or an error, never a panic, and
// every result has a name, a position and a finite time.
func FuzzParseBench(f *testing.F) {
	f.Add(benchText)
	for _, name := range []string{"old.txt", "new.txt"} {
		if b, err := os.ReadFile(filepath.Join("..", "testdata", "bench", name)); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		rs, err := ParseBench(strings.NewReader(in), "f.txt")
		if err != nil {
			return
		}
		for _, r := range rs {
			if r.File != "f.txt" || r.Line <= 0 || math.IsNaN(r.SecPerOp) {
				t.Fatalf("result %+v", r)
			}
		}
	})
}
