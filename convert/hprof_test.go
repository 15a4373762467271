package convert_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/golden"
)

func TestHPROFGolden(t *testing.T) {
	for _, name := range []string{"hprof-samples-threads.hprof.txt", "hprof-times.hprof.txt"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", "java", name)
			res := jpRead(t, path)
			if res.Format != "hprof" {
				t.Fatalf("format %q", res.Format)
			}
			golden.CheckString(t, path+".golden", jpDump(res))
		})
	}
}

// TestHPROFCorpusTotals: the converted totals equal the totals the files
// state in their CPU table headers.
func TestHPROFCorpusTotals(t *testing.T) {
	jdbc := jpRead(t, corpus.Path(t, "java/gprof2dot-jdbc.hprof.txt")).Profile
	if n := jpTotal(jdbc, jpTypeIndex(t, jdbc, "samples")); n != 3362 || len(jdbc.Sample) != 86 {
		t.Errorf("jdbc: %d samples in %d rows, want 3362 in 86 (CPU SAMPLES BEGIN (total = 3362))", n, len(jdbc.Sample))
	}
	if ns := jpTotal(jdbc, jpTypeIndex(t, jdbc, "cpu")); ns != 3362*10_000_000 {
		t.Errorf("jdbc: cpu %d ns, want 3362 × 10 ms", ns)
	}
	// The leaf of the top row is close0, 2654 samples (78.94%).
	top := jdbc.Sample[0]
	if top.Value[0] != 2654 || top.Location[0].Line[0].Function.Name != "java.io.RandomAccessFile.close0" || top.Location[0].Line[0].Function.Filename != "RandomAccessFile.java" {
		t.Errorf("jdbc top row: %v %s", top.Value, jpFrame(top.Location[0]))
	}

	res := jpRead(t, corpus.Path(t, "java/gprof2dot-hadoop.hprof.txt"))
	hadoop := res.Profile
	cpu := jpTypeIndex(t, hadoop, "cpu")
	if ns := jpTotal(hadoop, cpu); ns != 633_138*1_000_000 {
		t.Errorf("hadoop: cpu %d ns, want 633138 ms (CPU TIME (ms) BEGIN (total = 633138))", ns)
	}
	// 288 rows plus the unlisted remainder; the first row is 23,26% (decimal comma).
	if len(hadoop.Sample) != 289 || hadoop.Sample[0].Value[cpu] != (2326*633_138+5000)/10000*1_000_000 {
		t.Errorf("hadoop: %d samples, first %v", len(hadoop.Sample), hadoop.Sample[0].Value)
	}
	if calls := jpTotal(hadoop, jpTypeIndex(t, hadoop, "calls")); calls != 3_626_741 {
		t.Errorf("hadoop: %d calls, want the table's 3626741", calls)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "(unlisted traces)") {
		t.Errorf("no warning about unlisted traces: %q", res.Warnings)
	}
}

// Ids are decimal numbers of any size: two beyond 2^63 are two traces,
// and each row names its own.
func TestHPROFLargeIDs(t *testing.T) {
	in := "JAVA PROFILE 1.0.1, created Fri Dec 18 16:33:33 2009\n" +
		"THREAD START (obj=1, id = 18446744073709551617, name=\"big\", group=\"main\")\n" +
		"TRACE 9223372036854775808: (thread=18446744073709551617)\n\ta.first(A.java:1)\n" +
		"TRACE 9223372036854775809:\n\ta.second(A.java:2)\n" +
		"TRACE 0100000000000000000000000:\n\ta.third(A.java:3)\n" +
		"CPU SAMPLES BEGIN (total = 6) now\nrank   self  accum   count trace method\n" +
		"   1 50.00% 50.00% 3 9223372036854775809 a.second\n" +
		"   2 33.33% 83.33% 2 9223372036854775808 a.first\n" +
		"   3 16.67% 100.00% 1 100000000000000000000000 a.third\nCPU SAMPLES END\n"
	res, err := convert.Read(strings.NewReader(in), "x.txt", convert.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Profile.Sample {
		got = append(got, fmt.Sprintf("%s %d %v", s.Location[0].Line[0].Function.Name, s.Value[0], s.Label["thread"]))
	}
	if want := "a.second 3 [] | a.first 2 [big] | a.third 1 []"; strings.Join(got, " | ") != want {
		t.Errorf("samples %q, want %s", got, want)
	}
}

func TestHPROFErrors(t *testing.T) {
	const head = "JAVA PROFILE 1.0.1, created Fri Dec 18 16:33:33 2009\n"
	tests := []struct{ name, in, want string }{
		{"bad frame", head + "TRACE 1:\n\tno parentheses here\n", `x.txt: line 3: expected a frame "pkg.Class.method(File.java:LINE)" in the TRACE, found "\tno parentheses here"`},
		{"bad thread", head + "THREAD START (obj=1, id = x)\n", `x.txt: line 2: expected THREAD START (obj=..., id = N, name="...", group="..."), found "THREAD START (obj=1, id = x)"`},
		{"bad begin", head + "CPU SAMPLES BEGIN (total = many)\n", `x.txt: line 2: expected "CPU SAMPLES BEGIN (total = N)" or "CPU TIME (ms) BEGIN (total = N)", found "CPU SAMPLES BEGIN (total = many)"`},
		{"bad row", head + "CPU SAMPLES BEGIN (total = 1) now\nrank   self  accum   count trace method\n   1 100% 100% 1 1 a.b\n", `x.txt: line 4: expected a table row "rank self accum count trace method", found "   1 100% 100% 1 1 a.b"`},
		{"no end", head + "CPU SAMPLES BEGIN (total = 1) now\n   1 100.00% 100.00% 1 1 a.b\n", `x.txt: line 3: unexpected end of input: the CPU table begun on line 2 has no END line`},
		{"undefined trace", head + "CPU SAMPLES BEGIN (total = 1) now\n   1 100.00% 100.00% 1 7 a.b\nCPU SAMPLES END\n", `x.txt: line 3: trace 7 is not defined by a TRACE record`},
		{"twice", head + "TRACE 1:\n\ta.b(A.java:1)\nTRACE 1:\n", `x.txt: line 4: TRACE 1 is defined twice`},
		{"two tables", head + "CPU SAMPLES BEGIN (total = 0) now\nCPU SAMPLES END\nCPU TIME (ms) BEGIN (total = 0) now\n", `x.txt: line 4: a second CPU table; HPROF writes one per run`},
		{"no table", head + "TRACE 1:\n\ta.b(A.java:1)\n", `x.txt: no samples: no CPU SAMPLES or CPU TIME table`},
		{"id beyond 2^63, undefined", head + "TRACE 9223372036854775809:\n\ta.b(A.java:1)\nCPU SAMPLES BEGIN (total = 1) now\n   1 100.00% 100.00% 1 9223372036854775808 a.b\nCPU SAMPLES END\n",
			`x.txt: line 5: trace 9223372036854775808 is not defined by a TRACE record`},
		{"count beyond 2^63", head + "TRACE 1:\n\ta.b(A.java:1)\nCPU SAMPLES BEGIN (total = 1) now\n   1 100.00% 100.00% 9223372036854775808 1 a.b\nCPU SAMPLES END\n",
			`x.txt: line 5: a count of 9223372036854775808 samples, more than the 922337203685 whose 10 ms fit in 64 bits of nanoseconds`},
		{"total beyond 2^63", head + "CPU TIME (ms) BEGIN (total = 99999999999999999999) now\n",
			`x.txt: line 2: a total of 99999999999999999999 ms, more than the 9223372036854 ms whose nanoseconds fit in 64 bits`},
		{"share above 100%", head + "TRACE 1:\n\ta.b(A.java:1)\nCPU TIME (ms) BEGIN (total = 10) now\n   1 9999999999999999999.00% 100.00% 1 1 a.b\nCPU TIME (ms) END\n",
			`x.txt: line 5: a share of 9999999999999999999.00%, more than 100%`},
		{"heap dump", "JAVA PROFILE 1.0.2\x00\x00\x00\x00\x08\x00\x00\x01\x8c", `x.txt: byte 18: this is a binary HPROF heap dump (jmap, HeapDumpOnOutOfMemoryError), which holds no CPU samples`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := convert.Read(strings.NewReader(tc.in), "x.txt", convert.Options{})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v\nwant prefix %s", err, tc.want)
			}
		})
	}
}

func FuzzHPROF(f *testing.F) {
	jpFuzzSeeds(f, "testdata/java", "java/gprof2dot-jdbc.hprof.txt", "java/gprof2dot-hadoop.hprof.txt")
	f.Fuzz(func(t *testing.T, in string) { jpFuzzCheck(t, "hprof", in) })
}
