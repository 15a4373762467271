package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestHeapEstimate(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.pb.gz", 1000)
	b := write("b.pb.gz", 3000)
	runs := filepath.Join(dir, "runs")
	if err := os.Mkdir(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"1.pb.gz", "2.pb.gz"} {
		if err := os.WriteFile(filepath.Join(runs, n), make([]byte, 500), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		command string
		args    []string
		want    int64
	}{
		{"two files", "diff", []string{a, b}, 4000 * heapPerInputByte},
		{"a directory counts its profiles", "diff", []string{runs, a}, 2000 * heapPerInputByte},
		{"a glob", "cct", []string{filepath.Join(runs, "*.pb.gz")}, 1000 * heapPerInputByte},
		{"standard input and a URL", "convert", []string{"-", "http://localhost:6060/debug/pprof/profile"}, 2 * unknownInputSize * heapPerInputByte},
		{"a missing input counts nothing", "diff", []string{a, filepath.Join(dir, "missing.pb.gz")}, 1000 * heapPerInputByte},
		{"report reads inputs too", "report", []string{b}, 3000 * heapPerInputByte},
		{"version reads none", "version", nil, 0},
		{"help reads none", "help", []string{"diff"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := heapEstimate(tc.command, tc.args); got != tc.want {
				t.Fatalf("heapEstimate(%s, %q) = %d, want %d", tc.command, tc.args, got, tc.want)
			}
		})
	}
}
