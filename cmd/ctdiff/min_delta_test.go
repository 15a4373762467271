package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// --min-delta is read once, with its unit, and the unit must fit the
// compared values: a plain number is refused for time metrics (it read as
// nanoseconds) and for shares (parts per billion), a byte metric takes a
// size, and a plain number stays a count where the metric counts.
func TestDiffMinDeltaUnits(t *testing.T) {
	dir := t.TempDir()
	heapOld := heapProfile(1).write(t, dir, "heap/old.pb.gz")
	heapNew := heapProfile(3).write(t, dir, "heap/new.pb.gz")
	manifest := writeFile(t, dir, "release.toml", `[defaults]
min-delta = 50

[[component]]
name = "example"
old = "`+filepath.Join(wd(t), exampleOld)+`"
new = "`+filepath.Join(wd(t), exampleNew)+`"
`)
	for _, tt := range []struct {
		name string
		args []string
		code int
		want string // stderr
	}{
		{"a number for a time metric", []string{"diff", exampleOld, exampleNew, "--min-delta", "50"}, exitError,
			`ctdiff: --min-delta "50": a number without a unit is ambiguous for a time metric (cpu/nanoseconds): write a duration such as 50ms or 50us, or a share of the base total such as 1%` + "\n"},
		{"a number for shares", []string{"diff", exampleOld, exampleNew, "--normalize", "share", "--min-delta", "5"}, exitError,
			`ctdiff: --min-delta "5": values are shares of each run's total (--normalize share): use a share such as 1%` + "\n"},
		{"a size for a time metric", []string{"diff", exampleOld, exampleNew, "--min-delta", "1MB"}, exitError,
			`ctdiff: --min-delta "1MB": a size needs a byte metric, and cpu/nanoseconds is not one: use a duration such as 50ms or a share such as 1%` + "\n"},
		{"a number for a byte metric", []string{"diff", heapOld, heapNew, "--min-delta", "1000"}, exitError,
			`ctdiff: --min-delta "1000": a number without a unit is ambiguous for a byte metric (inuse_space/bytes): write a size such as 1000B, 1000kB or 1000MB, or a share of the base total such as 1%` + "\n"},
		{"a duration for a byte metric", []string{"diff", heapOld, heapNew, "--min-delta", "50ms"}, exitError,
			`ctdiff: --min-delta "50ms": a duration needs a time metric, and inuse_space/bytes is not one: use a size such as 1MB or a share such as 1%` + "\n"},
		{"a number in a manifest", []string{"report", manifest}, exitError,
			"ctdiff: " + manifest + `: component "example": --min-delta "50": a number without a unit is ambiguous for a time metric (cpu/nanoseconds): write a duration such as 50ms or 50us, or a share of the base total such as 1%` + "\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := ctdiff(append(tt.args, "-o", filepath.Join(t.TempDir(), "out.txt"))...)
			if code != tt.code || errOut != tt.want {
				t.Errorf("exit %d, stderr\n%q\nwant exit %d,\n%q", code, errOut, tt.code, tt.want)
			}
		})
	}
	// Where the unit fits, μ is the amount written, in the values' unit.
	for _, tt := range []struct {
		name string
		args []string
		want int64 // min_delta
	}{
		{"a size for a byte metric", []string{heapOld, heapNew, "--min-delta", "4kB"}, 4096},
		{"a number for a count metric", []string{exampleOld, exampleNew, "--metric", "samples", "--min-delta", "5"}, 5},
		{"a number for a count metric of a heap profile", []string{heapOld, heapNew, "--metric", "inuse_objects", "--min-delta", "3"}, 3},
		{"a duration for a time metric", []string{exampleOld, exampleNew, "--min-delta", "50us"}, 50000},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.json")
			if _, errOut, code := ctdiff(append([]string{"diff", "-o", out}, tt.args...)...); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var doc struct {
				MinDelta int64 `json:"min_delta"`
			}
			if err := json.Unmarshal(readJSON(t, out), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.MinDelta != tt.want {
				t.Errorf("min_delta %d, want %d", doc.MinDelta, tt.want)
			}
		})
	}
}

// wd is the test's working directory (the package's).
func wd(t *testing.T) string {
	t.Helper()
	d, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return d
}
