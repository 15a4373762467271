package convert_test

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/golden"
	"github.com/ctdiff/ctdiff/internal/labels"
)

func TestPerfScriptGolden(t *testing.T) {
	for _, name := range []string{"perf-header.txt", "simpleperf.txt", "perf-notime.txt"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", "perf", name)
			res := jpRead(t, path)
			if res.Format != "perfscript" {
				t.Fatalf("format %q", res.Format)
			}
			golden.CheckString(t, path+".golden", jpDump(res))
		})
	}
}

// The test finds the thread of a sample header line independently of the
// reader: the first token that is "tid" or "pid/tid" ends the command, and a
// "secs.frac:" token is a timestamp.
var (
	perfTidToken  = regexp.MustCompile(`^(?:\d+/)?\d+$`)
	perfTimeToken = regexp.MustCompile(`^\d+\.\d+:$`)
)

// TestPerfScriptCorpus: every perf file in the corpus converts, and each
// thread's sample count equals the number of its sample header lines.
func TestPerfScriptCorpus(t *testing.T) {
	for _, path := range corpus.Glob(t, "perf/*") {
		t.Run(filepath.Base(path), func(t *testing.T) {
			res := jpRead(t, path)
			if res.Format != "perfscript" {
				t.Fatalf("format %q", res.Format)
			}
			want := map[string]int64{}
			timed := false
			for _, line := range jpLines(t, path) {
				if line == "" || line[0] == '#' || line[0] == ' ' || line[0] == '\t' {
					continue
				}
				fields := strings.Fields(line)
				for i := 1; i < len(fields); i++ {
					if perfTidToken.MatchString(fields[i]) {
						comm := strings.TrimSpace(line[:strings.Index(line, fields[i])])
						tid := fields[i][strings.IndexByte(fields[i], '/')+1:]
						want[comm+" "+tid]++
						for _, f := range fields[i+1:] {
							timed = timed || perfTimeToken.MatchString(f)
						}
						break
					}
				}
			}
			p := res.Profile
			got := map[string]int64{}
			for _, s := range p.Sample {
				got[fmt.Sprintf("%s %d", s.Label[labels.Thread][0], s.NumLabel[labels.TID][0])] += s.Value[0]
			}
			if len(got) != len(want) {
				t.Errorf("%d threads, %d in the file", len(got), len(want))
			}
			for k, n := range want {
				if got[k] != n {
					t.Errorf("thread %q: %d samples, %d header lines", k, got[k], n)
				}
			}
			if timed {
				jpCheckTimeOrder(t, p)
			}
			if hasTime := len(p.Sample[0].NumLabel[labels.Timestamp]) > 0; hasTime != timed {
				t.Errorf("timestamps: %v, file has times: %v", hasTime, timed)
			}
		})
	}
}

// TestPerfScriptCorpusDetails checks what each variant adds: periods as
// cpu time, demangled Rust, no timestamps.
func TestPerfScriptCorpusDetails(t *testing.T) {
	p := jpRead(t, corpus.Path(t, "perf/speedscope-simple-with-header.linux-perf.txt")).Profile
	if cpu := jpTypeIndex(t, p, "cpu"); jpTotal(p, cpu) != 136*1001001 || p.Period != 1001001 {
		t.Errorf("simple-with-header: cpu %d, period %d", jpTotal(p, cpu), p.Period)
	}
	names := map[string]bool{}
	for _, f := range p.Function {
		names[f.Name] = true
	}
	for _, want := range []string{"beta()", "delta()", "main", "[unknown]!0x6ce258d4c544155"} {
		if !names[want] {
			t.Errorf("simple-with-header: no function %q", want)
		}
	}

	p = jpRead(t, corpus.Path(t, "perf/speedscope-rust-mangled.linux-perf.txt")).Profile
	found := false
	for _, f := range p.Function {
		if strings.HasPrefix(f.Name, "_R") || strings.Contains(f.Name, "+0x") {
			t.Errorf("rust-mangled: %q is not demangled or keeps its offset", f.Name)
		}
		if f.Name == "trace::multiply_matrices" && f.SystemName == "_RNvCs8K9WJNlS7Dz_5trace17multiply_matrices" && f.Filename == "/trace/target/debug/deps/trace-0f0e4af093fa4f97" {
			found = true
		}
	}
	if !found {
		t.Errorf("rust-mangled: trace::multiply_matrices missing")
	}

	// Names perf demangled halfway: no legacy escapes, ".." or build hash left.
	p = jpRead(t, corpus.Path(t, "perf/flamegraph-perf-rust-Yamakaky-dcpu.txt")).Profile
	rustNames := map[string]bool{}
	for _, f := range p.Function {
		rustNames[f.Name] = true
		if strings.Contains(f.Name, "$") || strings.Contains(f.Name, "..") || regexp.MustCompile(`::h[0-9a-f]{16}$`).MatchString(f.Name) {
			t.Errorf("Yamakaky-dcpu: %q is half demangled", f.Name)
		}
	}
	for _, want := range []string{"<core::result::Result<T, E>>::and_then", "log::set_logger::{{closure}}", "<u8 as core::clone::Clone>::clone"} {
		if !rustNames[want] {
			t.Errorf("Yamakaky-dcpu: no function %q", want)
		}
	}

	res := jpRead(t, corpus.Path(t, "perf/flamegraph-perf-vertx-stacks-01.txt"))
	p = res.Profile
	if jpTotal(p, 0) != 286 || len(p.Sample) >= 286 || len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "no timestamps") {
		t.Errorf("vertx: %d samples in %d rows, warnings %q", jpTotal(p, 0), len(p.Sample), res.Warnings)
	}
}

// TestPerfScriptEvents: a recording of several events keeps each in a
// sample type of its own, as the warning says. The FlameGraph file prints
// no periods; its header states perf record -c 100000000. Once all 444
// samples landed in samples/count alone.
func TestPerfScriptEvents(t *testing.T) {
	res := jpRead(t, corpus.Path(t, "perf/flamegraph-perf-cycles-instructions-01.txt"))
	p := res.Profile
	cycles, instr := jpTypeIndex(t, p, "cycles"), jpTypeIndex(t, p, "instructions")
	if jpTotal(p, 0) != 444 || jpTotal(p, cycles) != 111*100_000_000 || jpTotal(p, instr) != 333*100_000_000 {
		t.Errorf("samples %d, cycles %d, instructions %d; want 444, 111 and 333 × 1e8", jpTotal(p, 0), jpTotal(p, cycles), jpTotal(p, instr))
	}
	for i, s := range p.Sample {
		if (s.Value[cycles] == 0) == (s.Value[instr] == 0) {
			t.Fatalf("sample %d counts %v: want exactly one event", i, s.Value)
		}
	}
	if !slices.Contains(p.Comments, "periods of instructions, cycles from the perf header (a fixed sample_period)") {
		t.Errorf("comments %q", p.Comments)
	}

	// Without a header or periods, each event counts its samples.
	const twoEvents = "app 1 [000] 1.000000: cycles:\n\t1 f (a)\n\napp 1 [000] 1.001000: instructions:u:\n\t1 f (a)\n\napp 1 [000] 1.002000: instructions:u:\n\t2 g (a)\n"
	// A header in frequency mode ("freq = 1") states no period.
	const freqHeader = "# event : name = cycles, , { sample_period, sample_freq } = 4000, sample_type = IP|TID|TIME|CALLCHAIN, freq = 1, sample_id_all = 1\n"
	for _, tc := range []struct{ name, in, types string }{
		{"no periods", twoEvents, "samples/count cycles_samples/count instructions_samples/count [3 1 2]"},
		{"frequency mode", freqHeader + twoEvents, "samples/count cycles_samples/count instructions_samples/count [3 1 2]"},
		{"one event", "app 1 [000] 1.000000: cycles:\n\t1 f (a)\n", "samples/count [1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := convert.Read(strings.NewReader(tc.in), "x.perf", convert.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			var totals []int64
			for i, st := range res.Profile.SampleType {
				got = append(got, st.Type+"/"+st.Unit)
				totals = append(totals, jpTotal(res.Profile, i))
			}
			if g := fmt.Sprint(strings.Join(got, " "), " ", totals); g != tc.types {
				t.Errorf("types and totals %s, want %s", g, tc.types)
			}
		})
	}
}

func TestPerfScriptErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"frame first", "\t7f00 main (/bin/a)\n", `x.txt: line 1: expected a sample header "comm [pid/]tid [cpu] secs.usecs: [period] event:" before this frame, found "\t7f00 main (/bin/a)"`},
		{"bad header", "a 1 1.0: 1 cycles:\n\t1 f (/a)\n\nnot a header\n", `x.txt: line 4: expected a sample header "comm [pid/]tid [cpu] secs.usecs: [period] event:", found "not a header"`},
		{"mixed time", "a 1 1.0: cycles:\n\t1 f (/a)\n\na 1 cycles:\n\t1 f (/a)\n", `x.txt: line 4: this sample has no timestamp, unlike the samples before it`},
		{"huge time", "a 1 99999999999999999999.0: cycles:\n", `x.txt: line 1: expected a time secs.frac, found "99999999999999999999.0"`},
		{"no samples", "# only a header\n", `x.txt: no samples: no perf script sample header`},
		// Refused at the frame over the limit, as it is read: not once the
		// whole stack (and the frames after it) took their memory.
		{"a stack over the depth limit", "a 1 1.0: cycles:\n" + strings.Repeat("\t1 f (/a)\n", convert.MaxStackDepth+1) + strings.Repeat("\t1 g (/a)\n", 10) + "\n",
			`x.txt: line 1000002: sample 0: stack frames exceed the limit: a stack of 1000001 frames, more than the limit of 1000000 per stack`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := convert.Read(strings.NewReader(tc.in), "x.txt", convert.Options{From: "perfscript"})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v\nwant prefix %s", err, tc.want)
			}
		})
	}
}

func FuzzPerfScript(f *testing.F) {
	jpFuzzSeeds(f, "testdata/perf", "perf/speedscope-simple-with-header.linux-perf.txt", "perf/speedscope-rust-mangled.linux-perf.txt",
		"perf/flamegraph-perf-vertx-stacks-01.txt", "perf/speedscope-system-wide.linux-perf.txt")
	f.Fuzz(func(t *testing.T, in string) { jpFuzzCheck(t, "perfscript", in) })
}

// jpLines reads a text file, gunzipping it if needed.
func jpLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			t.Fatal(err)
		}
		r = zr
	}
	var lines []string
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// BenchmarkPerfScript converts the largest perf script file of the corpus
// (FlameGraph's example, 3.1 MB decompressed, 1,315 samples of system-wide
// stacks) from its gzipped bytes in memory.
func BenchmarkPerfScript(b *testing.B) {
	data, err := os.ReadFile(corpus.Path(b, "perf/flamegraph-example-perf-stacks.txt.gz"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := convert.Read(strings.NewReader(string(data)), "example-perf-stacks.txt.gz", convert.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
