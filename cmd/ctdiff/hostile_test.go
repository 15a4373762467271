package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctdiff/ctdiff/tools/hostile"
)

// writeGenerated writes what body generates (gzipped with gz) to dir/name.
func writeGenerated(t *testing.T, dir, name string, gz bool, body func(io.Writer) error) string {
	t.Helper()
	var b bytes.Buffer
	var err error
	if gz {
		err = hostile.Gzip(&b, body)
	} else {
		err = body(&b)
	}
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, dir, name, b.String())
}

// regzip is the gzipped file src gzipped again with name in its header:
// the same profile in other bytes.
func regzip(t *testing.T, src, name string) string {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Name = name
	if _, err := zw.Write(readJSON(t, src)); err != nil { // readJSON gunzips
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestHostileInputs runs the CLI on hostile shapes (nested gzip, huge
// unknown fields and names, deep chains, wide combs, counts at int64's
// limit), generated small enough to be quick: each ends in a correct result
// or a one-line error.
// (Memory: convert's TestMemoryBound and cct's TestInsertMemoryBound; at
// full size, README's "Limits and errors".)
func TestHostileInputs(t *testing.T) {
	dir := t.TempDir()
	const mb = 1 << 20
	nested := func(n int64) func(io.Writer) error {
		return func(w io.Writer) error { return hostile.NestedGzipPprof(w, n) }
	}
	w := func(name string, gz bool, body func(io.Writer) error) string {
		return writeGenerated(t, dir, name, gz, body)
	}
	nested8 := w("nested.pb.gz", false, nested(8*mb))
	thrice := w("thrice.pb.gz", true, nested(mb))
	unknown := w("unknown.pb.gz", true, func(w io.Writer) error { return hostile.PprofUnknownField(w, 16*mb) })
	longName := w("long.cpuprofile.gz", true, func(w io.Writer) error { return hostile.CpuprofileLongName(w, 2*mb) })
	space := w("space.perfView.xml.zip", false, func(w io.Writer) error { return hostile.PerfViewZipWhitespace(w, 8*mb) })
	chain := w("chain.cpuprofile.gz", true, func(w io.Writer) error { return hostile.V8Chain(w, 3000, 44000, hostile.Every) })
	cctChain := w("chain.cct.json.gz", true, func(w io.Writer) error { return hostile.CCTChain(w, 16000) })
	comb := w("comb.cpuprofile.gz", true, func(w io.Writer) error { return hostile.V8Comb(w, 3000) })
	maxA := w("max-a.pb", false, func(w io.Writer) error { return hostile.Pprof(w, 1<<63-1) })
	small := w("small.pb", false, func(w io.Writer) error { return hostile.Pprof(w, 1000) })
	maxes := filepath.Join(dir, "maxes")
	if err := os.Mkdir(maxes, 0o755); err != nil {
		t.Fatal(err)
	}
	// Two runs of 2^63-1 and 2^63-2: one run given twice is refused.
	for i, name := range []string{"a.pb", "b.pb"} {
		writeGenerated(t, maxes, name, false, func(w io.Writer) error { return hostile.Pprof(w, 1<<63-1-int64(i)) })
	}
	sides := map[string]string{}
	for _, side := range []string{"old", "new"} {
		sides[side] = filepath.Join(dir, side)
		if err := os.Mkdir(sides[side], 0o755); err != nil {
			t.Fatal(err)
		}
		// The chain, gzipped under each run's name: one run given twice
		// is refused.
		for _, name := range []string{"1.cpuprofile.gz", "2.cpuprofile.gz", "3.cpuprofile.gz"} {
			writeFile(t, sides[side], name, regzip(t, chain, side+"/"+name))
		}
	}
	out := filepath.Join(dir, "out.pb.gz")

	tests := []badInputCase{
		{name: "gzip inside gzip over the limit", args: []string{"convert", "--from", "pprof", "--max-input-size", "1000000", "-o", out, nested8}, code: exitError,
			stderr: "ctdiff: " + nested8 + ": decompressed input exceeds the size limit (1000000 bytes; raise it with --max-input-size)\n"},
		{name: "gzip inside gzip within the limit", args: []string{"cct", "--from", "pprof", nested8}, code: exitOK,
			stdout: "work (main.go:9)"},
		{name: "gzip thrice", args: []string{"cct", "--from", "pprof", thrice}, code: exitError,
			stderr: "ctdiff: " + thrice + ": gzip inside gzip inside gzip: a profile is compressed at most twice\n"},
		{name: "pprof with a 16 MiB unknown field", args: []string{"cct", unknown}, code: exitOK,
			stdout: "work (main.go:9)"},
		{name: "function name of 2 MiB", args: []string{"cct", longName}, code: exitOK,
			stderr: "ctdiff: " + longName + ": warning: 1 strings are longer than 1048576 bytes; each is cut to its first 1048576 bytes\n",
			stdout: "aaaa"},
		{name: "PerfView zip with 8 MiB of white space", args: []string{"cct", space}, code: exitOK,
			stdout: "└─ main"},
		{name: "V8 chain 3,000 deep sampled 44,000 times", args: []string{"cct", chain}, code: exitOK,
			stdout: "View: top-down; total 44s; 3001 nodes"},
		{name: "3 vs 3 such chains", args: []string{"diff", sides["old"], sides["new"]}, code: exitOK,
			stdout: "3 base runs vs 3 new runs"},
		{name: "ctdiff.cct/v1 chain of 16,000", args: []string{"cct", "--format", "json", cctChain}, code: exitOK,
			stdout: `{"id":16001,"function":"f5","parent":16000,"self":[1],"total":[1]}`},
		{name: "V8 comb whose leaves share no tail", args: []string{"cct", comb}, code: exitError,
			stderr: "ctdiff: " + comb + ": stack frames exceed the limit: the stacks of the sampled nodes hold more than 4194304 frames that share no tail (64 per node of the tree and 4 per input byte, at least 4194304): a deep call tree sampled at many places\n"},
		{name: "values that overflow when merged", args: []string{"convert", "-o", out, maxA, filepath.Join(maxes, "b.pb")}, code: exitError,
			stderr: "ctdiff: " + filepath.Join(maxes, "b.pb") + ": the cpu/nanoseconds values of this input and the 1 before it add up to more than 9223372036854775807\n"},
		{name: "values that overflow in one tree", args: []string{"cct", maxA, filepath.Join(maxes, "b.pb")}, code: exitError,
			stderr: "ctdiff: " + filepath.Join(maxes, "b.pb") + ": the cpu/nanoseconds values add up to more than 9223372036854775807"},
		{name: "runs whose totals overflow", args: []string{"diff", small, maxes}, code: exitError,
			stderr: "ctdiff: the cpu/nanoseconds totals of the 2 new runs add up to more than 9223372036854775807, which ctdiff cannot compare\n"},
		{name: "a total of 2^63-1 compared", args: []string{"diff", maxA, small}, code: exitOK,
			stdout: "Total: 9223372036.9s → 1µs (-9223372036.9s, -100.00%)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { runBadInput(t, tc) })
	}
}
