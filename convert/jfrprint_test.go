package convert_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/golden"
	"github.com/ctdiff/ctdiff/internal/labels"
)

func TestJFRPrintGolden(t *testing.T) {
	for _, name := range []string{"print-iso.txt", "print-clock.txt"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", "java", name)
			res := jpRead(t, path)
			if res.Format != "jfrprint" {
				t.Fatalf("format %q", res.Format)
			}
			jpCheckTimeOrder(t, res.Profile)
			golden.CheckString(t, path+".golden", jpDump(res))
		})
	}
}

// TestJFRPrintClock: times of day count from midnight, and a sample after
// midnight lands on the next day.
func TestJFRPrintClock(t *testing.T) {
	p := jpRead(t, "testdata/java/print-clock.txt").Profile
	var times []int64
	for _, s := range p.Sample {
		if convert.ThreadName(s) == "main" {
			times = append(times, s.NumLabel[labels.Timestamp][0])
		}
	}
	const ms = 1_000_000
	want := []int64{86399950 * ms, 86399970 * ms, 86399990 * ms, 86400010 * ms, 86400030 * ms}
	if !slices.Equal(times, want) {
		t.Errorf("times %v, want %v", times, want)
	}
	if p.Period != 20*ms {
		t.Errorf("estimated period %d, want 20 ms", p.Period)
	}
	// The samples span 23:59:59.950 to 00:00:00.030; a time of day has no
	// date, so the start is unknown. (The duration was 0.)
	if p.DurationNanos != 80*ms || p.TimeNanos != 0 {
		t.Errorf("duration %d, start %d; want 80 ms, 0", p.DurationNanos, p.TimeNanos)
	}
}

// TestJFRPrintHeavy compares the JDK-written recording with its jfr print
// text: the same stacks, and the period estimated from the text equals the
// recorded 20 ms.
func TestJFRPrintHeavy(t *testing.T) {
	txt := jpRead(t, corpus.Path(t, "java/speedscope-heavy.DERIVED-jfr-print-d64.txt"))
	bin := jpRead(t, corpus.Path(t, "java/speedscope-heavy.jfr")).Profile
	tp := txt.Profile
	if tp.Period != 20_000_000 || bin.Period != tp.Period {
		t.Errorf("period %d from the text, %d from the recording", tp.Period, bin.Period)
	}
	count := func(p []string) map[string]int {
		m := map[string]int{}
		for _, s := range p {
			m[s]++
		}
		return m
	}
	var fromBin, fromTxt []string
	samples := jpTypeIndex(t, bin, "samples")
	cpu := jpTypeIndex(t, bin, "cpu")
	for _, s := range bin.Sample {
		if s.Value[samples] > 0 {
			// jfr print leaves out frames of hidden methods (JDK 17+
			// PrettyWriter), here the lambda proxy classes.
			var frames []string
			for _, f := range strings.Split(jpStackKey(s), ";") {
				if !strings.Contains(f, "$$Lambda") {
					frames = append(frames, f)
				}
			}
			fromBin = append(fromBin, strings.Join(frames, ";")+" "+itoa(s.Value[cpu]))
		}
	}
	for _, s := range tp.Sample {
		fromTxt = append(fromTxt, jpStackKey(s)+" "+itoa(s.Value[1]))
	}
	a, b := count(fromBin), count(fromTxt)
	if len(fromBin) != 346 || len(fromTxt) != 346 || len(a) != len(b) {
		t.Fatalf("%d/%d samples, %d/%d distinct stacks", len(fromBin), len(fromTxt), len(a), len(b))
	}
	for k, n := range a {
		if b[k] != n {
			t.Errorf("stack %s: %d in the recording, %d in the text", k, n, b[k])
		}
	}
	jpCheckTimeOrder(t, tp)
	// The text's times of day (ms) span what the recording's execution
	// samples span (ns).
	var first, last int64
	for _, s := range bin.Sample {
		if ts := s.NumLabel[labels.Timestamp][0]; s.Value[samples] > 0 {
			if first == 0 || ts < first {
				first = ts
			}
			last = max(last, ts)
		}
	}
	if d := tp.DurationNanos - (last - first); tp.DurationNanos <= 0 || d < -1_000_000 || d > 1_000_000 {
		t.Errorf("text duration %d ns, the recording's samples span %d ns", tp.DurationNanos, last-first)
	}
	for _, w := range txt.Warnings {
		if strings.Contains(w, "...") {
			t.Errorf("unexpected truncation warning: %s", w)
		}
	}
}

// TestJFRPrintErrors: malformed text fails with the line and what was
// expected.
func TestJFRPrintErrors(t *testing.T) {
	const head = "jdk.ExecutionSample {\n  startTime = 2023-08-03T04:34:34.761531348Z\n  sampledThread = \"main\" (javaThreadId = 1)\n"
	tests := []struct{ name, in, want string }{
		{"not an event", "garbage\n", `x.txt: line 1: expected an event such as "jdk.ExecutionSample {", found "garbage"`},
		{"unclosed", head + "  state = \"STATE_RUNNABLE\"\n", `x.txt: line 4: unexpected end of input: the jdk.ExecutionSample event begun on line 1 is not closed by "}"`},
		{"unclosed other", "jdk.GCPhasePause {\n  name = \"x\"\n", `x.txt: line 2: unexpected end of input: the jdk.GCPhasePause event begun on line 1 is not closed by "}"`},
		{"bad time", "jdk.ExecutionSample {\n  startTime = yesterday\n}\n", `x.txt: line 2: startTime: expected a time such as 19:51:05.752 or 2023-08-03T04:34:34.761531348Z, found "yesterday"`},
		{"bad iso time", "jdk.ExecutionSample {\n  startTime = 2023-13-03T04:34:34Z\n}\n", `x.txt: line 2: startTime: expected an ISO-8601 time such as 2023-08-03T04:34:34.761531348Z, found "2023-13-03T04:34:34Z"`},
		{"no time", "jdk.ExecutionSample {\n  state = \"STATE_RUNNABLE\"\n}\n", `x.txt: line 1: the jdk.ExecutionSample event has no startTime`},
		{"no field", head + "  whatever\n}\n", `x.txt: line 4: expected "  field = value" or "}" in the jdk.ExecutionSample event begun on line 1, found "  whatever"`},
		{"bad frame", head + "  stackTrace = [\n     indented.too.far() line: 1\n  ]\n}\n", `x.txt: line 5: expected a frame "pkg.Class.method(Args) line: N" or "  ]" in the jdk.ExecutionSample event begun on line 1, found "     indented.too.far() line: 1"`},
		{"frame after dots", head + "  stackTrace = [\n    a.b() line: 1\n    ...\n    c.d() line: 2\n  ]\n}\n", `x.txt: line 7: expected a frame`},
		{"bad line", head + "  stackTrace = [\n    a.b() line: x\n  ]\n}\n", `x.txt: line 5: expected a line number after "line:", found "x"`},
		{"stack cut", head + "  stackTrace = [\n    a.b() line: 1\n", `x.txt: line 5: unexpected end of input in the stack trace of the jdk.ExecutionSample event begun on line 1`},
		{"bad stack", head + "  stackTrace = {\n}\n", `x.txt: line 4: stackTrace: expected "[" or "null" after stackTrace =, found "{"`},
		{"bad thread id", "jdk.ExecutionSample {\n  sampledThread = \"a\" (javaThreadId = x)\n}\n", `x.txt: line 2: sampledThread: expected (javaThreadId = N), found "(javaThreadId = x)"`},
		{"bad samples", "profiler.WallClockSample {\n  startTime = 10:00:00.000\n  samples = -1\n}\n", `x.txt: line 3: samples: expected a non-negative sample count, found "-1"`},
		{"only other events", "jdk.GCPhasePause {\n  name = \"x\"\n}\n", `x.txt: no samples: the text holds no jdk.ExecutionSample or profiler.WallClockSample event (events of kinds this reader does not convert: 1 jdk.GCPhasePause)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := convert.Read(strings.NewReader(tc.in), "x.txt", convert.Options{From: "jfrprint"})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v\nwant prefix %s", err, tc.want)
			}
		})
	}
}

func TestJFRPrintSniff(t *testing.T) {
	for _, name := range []string{"print-iso.txt", "print-clock.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", "java", name))
		if err != nil {
			t.Fatal(err)
		}
		res, err := convert.Read(strings.NewReader(string(data)), name, convert.Options{})
		if err != nil || res.Format != "jfrprint" {
			t.Errorf("%s: sniffed as %v, %v", name, res, err)
		}
	}
}

// jpFuzzSeeds adds the files of a testdata directory, and the first 16 KiB
// of the named corpus files when the corpus is present.
func jpFuzzSeeds(f *testing.F, dir string, corpusFiles ...string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".golden") || e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data))
	}
	if d := corpus.Dir(); d != "" {
		for _, c := range corpusFiles {
			data, err := os.ReadFile(filepath.Join(d, c))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(string(data[:min(len(data), 16<<10)]))
		}
	}
}

// jpFuzzCheck asserts what any input must give: convert.CheckRead's
// invariants, and a position in syntax errors.
func jpFuzzCheck(t *testing.T, from, in string) {
	res, err := convert.Read(strings.NewReader(in), "fuzz.txt", convert.Options{From: from})
	convert.CheckRead(t, "fuzz.txt", res, err)
	if err != nil {
		var se *convert.SyntaxError
		if errors.As(err, &se) && !strings.HasPrefix(se.Where, "line ") && !strings.HasPrefix(se.Where, "node ") && !strings.HasPrefix(se.Where, "byte ") {
			t.Fatalf("syntax error without a position: %v", err)
		}
		return
	}
	if res.Format != from {
		t.Fatalf("read as %s, not %s", res.Format, from)
	}
}

func FuzzJFRPrint(f *testing.F) {
	jpFuzzSeeds(f, "testdata/java", "java/jfrparser-cortex-kafka-cpu0.DERIVED-jfr-print-d64.txt", "java/speedscope-heavy.DERIVED-jfr-print-d64.txt")
	f.Fuzz(func(t *testing.T, in string) { jpFuzzCheck(t, "jfrprint", in) })
}

// BenchmarkJFRPrint converts the 1 MB jfr print text of the cortex recording
// (478 samples, stacks up to 64 frames).
func BenchmarkJFRPrint(b *testing.B) {
	data, err := os.ReadFile(corpus.Path(b, "java/jfrparser-cortex-kafka-cpu0.DERIVED-jfr-print-d64.txt"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := convert.Read(strings.NewReader(string(data)), "cortex.txt", convert.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
