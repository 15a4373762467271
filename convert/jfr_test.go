package convert_test

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/google/pprof/profile"
)

// Helpers shared by the Java and perf reader tests (jfr, jfrprint, hprof,
// perfscript, cctdump): prefixed jp so they do not clash with other tests.

func jpRead(t testing.TB, path string) *convert.Result {
	t.Helper()
	res, err := convert.ReadFile(path, convert.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// jpFrame shows a location's first line: name{systemName}:line@file.
func jpFrame(l *profile.Location) string {
	ln := l.Line[0]
	s := ln.Function.Name
	if ln.Function.SystemName != s {
		s += "{" + ln.Function.SystemName + "}"
	}
	if ln.Line != 0 {
		s += fmt.Sprintf(":%d", ln.Line)
	}
	if ln.Function.Filename != "" {
		s += "@" + ln.Function.Filename
	}
	return s
}

// jpDump renders a result for golden files: header, samples with labels
// and root-first frames, warnings.
func jpDump(res *convert.Result) string {
	p := res.Profile
	var b strings.Builder
	var types []string
	for _, st := range p.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	fmt.Fprintf(&b, "format: %s\nsample types: %s (default %s)\n", res.Format, strings.Join(types, ", "), p.DefaultSampleType)
	if p.PeriodType != nil {
		fmt.Fprintf(&b, "period: %d %s/%s\n", p.Period, p.PeriodType.Type, p.PeriodType.Unit)
	}
	fmt.Fprintf(&b, "time_nanos: %d, duration_nanos: %d\n", p.TimeNanos, p.DurationNanos)
	for _, c := range p.Comments {
		fmt.Fprintf(&b, "comment: %s\n", c)
	}
	for _, s := range p.Sample {
		b.WriteString("sample")
		var keys []string
		for k := range s.NumLabel {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=%d", k, s.NumLabel[k][0])
		}
		keys = keys[:0]
		for k := range s.Label {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, " %s=%q", k, s.Label[k][0])
		}
		fmt.Fprintf(&b, " values=%v\n   ", s.Value)
		for i := len(s.Location) - 1; i >= 0; i-- {
			b.WriteString(" " + jpFrame(s.Location[i]))
		}
		b.WriteString("\n")
	}
	for _, w := range res.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

// jpTypeIndex returns the index of sample type typ, failing the test if absent.
func jpTypeIndex(t testing.TB, p *profile.Profile, typ string) int {
	t.Helper()
	for i, st := range p.SampleType {
		if st.Type == typ {
			return i
		}
	}
	t.Fatalf("no sample type %q in %v", typ, p.SampleType)
	return -1
}

func jpTotal(p *profile.Profile, i int) int64 {
	var s int64
	for _, x := range p.Sample {
		s += x.Value[i]
	}
	return s
}

// jpCheckTimeOrder fails unless every thread's samples carry timestamps in
// non-decreasing order.
func jpCheckTimeOrder(t testing.TB, p *profile.Profile) {
	t.Helper()
	last := map[string]int64{}
	for i, s := range p.Sample {
		ts := s.NumLabel[labels.Timestamp]
		if len(ts) != 1 || s.NumUnit[labels.Timestamp][0] != labels.TimestampUnit {
			t.Fatalf("sample %d has no %s label: %v", i, labels.Timestamp, s.NumLabel)
		}
		key := fmt.Sprint(convert.ThreadName(s), s.NumLabel[labels.TID])
		if prev, ok := last[key]; ok && ts[0] < prev {
			t.Fatalf("sample %d of thread %s at %d precedes the previous one at %d", i, key, ts[0], prev)
		}
		last[key] = ts[0]
	}
}

// jpStackKey is a sample's stack root first, frames as name:line.
func jpStackKey(s *profile.Sample) string {
	parts := make([]string, 0, len(s.Location))
	for i := len(s.Location) - 1; i >= 0; i-- {
		ln := s.Location[i].Line[0]
		parts = append(parts, fmt.Sprintf("%s:%d", ln.Function.Name, ln.Line))
	}
	return strings.Join(parts, ";")
}

func jpReadGzipLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestJFRMatchesJFRParser checks recordings against jfr-parser's own
// expected output for them: the same stacks with the same shares of
// cpu/nanoseconds (and, where jfr-parser's period is the recording's, the
// same values). jfr-parser writes class names with '/', ctdiff with '.' as
// jfr print and JMC show them; that is the only change made to the
// expected frames. parse-failure-repro1 holds a java.lang.String constant
// pool of bare strings, which the pre-reader once refused.
func TestJFRMatchesJFRParser(t *testing.T) {
	for _, tc := range []struct {
		jfr, expected string
		samples       int
		total         int64 // cpu/nanoseconds in both
		period        int64
	}{
		{"java/jfrparser-cortex-kafka-cpu0.jfr.gz", "expected/jfrparser-cortex-kafka-cpu0.expected_collapsed.txt.gz", 478, 4_780_000_000, 10_000_000},
		{"java/jfrparser-parse-failure-repro1.jfr.gz", "expected/jfrparser-parse-failure-repro1.expected_collapsed.txt.gz", 1500, 15_000_000_000, 10_000_000},
	} {
		t.Run(filepath.Base(tc.jfr), func(t *testing.T) {
			res := jpRead(t, corpus.Path(t, tc.jfr))
			if res.Format != "jfr" {
				t.Fatalf("format %q, want jfr", res.Format)
			}
			p := res.Profile
			cpu := jpTypeIndex(t, p, "cpu")
			got := map[string]int64{}
			for _, s := range p.Sample {
				got[jpStackKey(s)] += s.Value[cpu]
			}
			want := map[string]int64{}
			var wantTotal int64
			for _, line := range jpReadGzipLines(t, corpus.Path(t, tc.expected)) {
				i := strings.LastIndex(line, " [")
				var v int64
				if _, err := fmt.Sscanf(line[i:], " [%d]", &v); err != nil {
					t.Fatalf("expected line %q: %v", line, err)
				}
				frames := strings.Split(line[:i], ";")
				for k, f := range frames {
					// The class is the part before the last '.'; async-profiler's
					// native frames with an empty class keep '/' in the method name.
					if j := strings.LastIndexByte(f, '.'); j > 0 && f[0] != '.' {
						frames[k] = strings.ReplaceAll(f[:j], "/", ".") + f[j:]
					}
				}
				want[strings.Join(frames, ";")] += v
				wantTotal += v
			}
			gotTotal := jpTotal(p, cpu)
			if wantTotal != tc.total || gotTotal != tc.total {
				t.Errorf("cpu total %d, expected file total %d, want %d", gotTotal, wantTotal, tc.total)
			}
			if len(got) != len(want) {
				t.Errorf("%d distinct stacks, expected %d", len(got), len(want))
			}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("stack %s: %d ns, expected %d", k, got[k], v)
				}
			}
			for k, v := range got {
				if _, ok := want[k]; !ok {
					t.Errorf("stack %s (%d ns) is not in the expected output", k, v)
				}
			}
			if n := jpTotal(p, jpTypeIndex(t, p, "samples")); n != int64(tc.samples) || len(p.Sample) != tc.samples {
				t.Errorf("%d samples (count %d), want %d", len(p.Sample), n, tc.samples)
			}
			if p.Period != tc.period || p.PeriodType.Type != "cpu" || p.DefaultSampleType != "cpu" {
				t.Errorf("period %d %v, default %q", p.Period, p.PeriodType, p.DefaultSampleType)
			}
			jpCheckTimeOrder(t, p)
			if len(res.Warnings) != 0 {
				t.Errorf("warnings: %q", res.Warnings)
			}
		})
	}
}

// TestJFRPrintTwin reads the recording and its `jfr print --stack-depth 64`
// text: the same samples, in the same order, with the same threads,
// timestamps, stacks and values.
func TestJFRPrintTwin(t *testing.T) {
	bin := jpRead(t, corpus.Path(t, "java/jfrparser-cortex-kafka-cpu0.jfr.gz")).Profile
	txtRes := jpRead(t, corpus.Path(t, "java/jfrparser-cortex-kafka-cpu0.DERIVED-jfr-print-d64.txt"))
	if txtRes.Format != "jfrprint" {
		t.Fatalf("format %q, want jfrprint", txtRes.Format)
	}
	txt := txtRes.Profile
	if len(bin.Sample) != len(txt.Sample) {
		t.Fatalf("%d samples from the recording, %d from the text", len(bin.Sample), len(txt.Sample))
	}
	if !slices.EqualFunc(bin.SampleType, txt.SampleType, func(a, b *profile.ValueType) bool { return *a == *b }) {
		t.Fatalf("sample types %v vs %v", bin.SampleType, txt.SampleType)
	}
	// Equal timestamps may come in either order; compare in a canonical one.
	canon := func(p *profile.Profile) []string {
		var out []string
		for _, s := range p.Sample {
			out = append(out, fmt.Sprintf("%d %q %v %s", s.NumLabel[labels.Timestamp][0], convert.ThreadName(s), s.Value, jpStackKey(s)))
		}
		sort.Strings(out)
		return out
	}
	b, x := canon(bin), canon(txt)
	for i := range b {
		if b[i] != x[i] {
			t.Fatalf("sample %d differs:\nrecording: %s\ntext:      %s", i, b[i], x[i])
		}
	}
	for i := range bin.Sample { // and the time order is the same
		tb, tt := bin.Sample[i].NumLabel[labels.Timestamp][0], txt.Sample[i].NumLabel[labels.Timestamp][0]
		if tb != tt {
			t.Fatalf("sample %d: time %d in the recording, %d in the text", i, tb, tt)
		}
	}
}

// TestJFRAsyncProfiler is the scale test: async-profiler 2.10 in cpu+wall
// mode with allocation events. The numbers for cpu and allocations are
// jfr-parser's expected outputs for this file (parser/testdata/async-profiler_*).
func TestJFRAsyncProfiler(t *testing.T) {
	res := jpRead(t, corpus.Path(t, "java/jfrparser-async-profiler.jfr.gz"))
	p := res.Profile
	samples, cpu, wall := jpTypeIndex(t, p, "samples"), jpTypeIndex(t, p, "cpu"), jpTypeIndex(t, p, "wall")
	allocN, allocB := jpTypeIndex(t, p, "alloc_samples"), jpTypeIndex(t, p, "alloc_space")
	if got := jpTotal(p, samples); got != 199_661 {
		t.Errorf("%d execution samples, want 199661", got)
	}
	if got := jpTotal(p, cpu); got != 112*10_000_000 {
		t.Errorf("cpu %d ns, want 1120000000 (112 samples × 10 ms)", got)
	}
	if got := jpTotal(p, wall); got != (199_661-112)*200_000_000 {
		t.Errorf("wall %d ns, want %d (sleeping samples × the 200 ms wall interval)", got, int64(199_661-112)*200_000_000)
	}
	if n, b := jpTotal(p, allocN), jpTotal(p, allocB); n != 17 || b != 21_379_904+8_208 {
		t.Errorf("allocations: %d events, %d bytes; want 17, 21388112", n, b)
	}
	threads := map[string]bool{}
	for _, s := range p.Sample {
		if s.Value[samples] > 0 {
			threads[fmt.Sprint(convert.ThreadName(s), s.NumLabel[labels.TID])] = true
		}
		if s.Value[wall] > 0 && s.Label[labels.State][0] != "STATE_SLEEPING" {
			t.Fatalf("wall sample in state %v", s.Label[labels.State])
		}
	}
	if len(threads) != 669 {
		t.Errorf("%d sampled threads, want 669", len(threads))
	}
	jpCheckTimeOrder(t, p)
}

// TestJFRWall: async-profiler 4 wall-clock samples weigh "samples" × the
// interval (10 ms here), with the thread state as a label.
func TestJFRWall(t *testing.T) {
	res := jpRead(t, corpus.Path(t, "java/jfrparser-wall.jfr.gz"))
	p := res.Profile
	if len(p.SampleType) != 2 || p.DefaultSampleType != "wall" || p.Period != 10_000_000 {
		t.Fatalf("types %v, default %q, period %d", p.SampleType, p.DefaultSampleType, p.Period)
	}
	if len(p.Sample) != 1780 || jpTotal(p, 0) != 26_246 || jpTotal(p, 1) != 26_246*10_000_000 {
		t.Errorf("%d events, %d samples, %d ns; want 1780, 26246, 262460000000", len(p.Sample), jpTotal(p, 0), jpTotal(p, 1))
	}
	states := map[string]int{}
	for _, s := range p.Sample {
		states[s.Label[labels.State][0]]++
	}
	if states["STATE_SLEEPING"] == 0 || states["STATE_RUNNABLE"] == 0 {
		t.Errorf("thread states %v", states)
	}
	jpCheckTimeOrder(t, p)
}

// TestJFRFrameTypes: the JDK recording has interpreted, JIT-compiled and
// inlined frames. The type goes into SystemName; Name stays the same for a
// method seen at several tiers, so matching does not depend on the JIT.
func TestJFRFrameTypes(t *testing.T) {
	res := jpRead(t, corpus.Path(t, "java/speedscope-heavy.jfr"))
	p := res.Profile
	if p.Period != 20_000_000 || len(p.Comments) == 0 || p.Comments[0] != "sampling period from jdk.ExecutionSample period=20 ms" {
		t.Errorf("period %d, comments %q", p.Period, p.Comments)
	}
	kinds := map[string]map[string]bool{}
	for _, f := range p.Function {
		if strings.Contains(f.Name, "_[") || strings.Contains(f.Name, "/") {
			t.Errorf("name %q carries a frame type or a slash", f.Name)
		}
		i := strings.LastIndex(f.SystemName, "_[")
		if i < 0 {
			if !strings.HasPrefix(f.Name, "(") {
				t.Errorf("%s has no frame type in its system name %q", f.Name, f.SystemName)
			}
			continue
		}
		if kinds[f.Name] == nil {
			kinds[f.Name] = map[string]bool{}
		}
		kinds[f.Name][f.SystemName[i:]] = true
	}
	all := map[string]bool{}
	multi := 0
	for _, k := range kinds {
		for s := range k {
			all[s] = true
		}
		if len(k) > 1 {
			multi++
		}
	}
	for _, want := range []string{"_[0]", "_[j]", "_[i]"} {
		if !all[want] {
			t.Errorf("no frame of type %s; types seen: %v", want, all)
		}
	}
	if multi == 0 {
		t.Errorf("no method seen at two tiers under one name")
	}
	if cpu := jpTypeIndex(t, p, "cpu"); jpTotal(p, cpu) != 346*20_000_000 {
		t.Errorf("cpu %d, want 346 × 20 ms", jpTotal(p, cpu))
	}
	jpCheckTimeOrder(t, p)
	joined := strings.Join(res.Warnings, "\n")
	for _, want := range []string{"2 events were recorded without a stack trace", "44 jdk.NativeMethodSample"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings lack %q:\n%s", want, joined)
		}
	}
}

// TestJFRPerfEvent: async-profiler sampling a perf event instead of time
// (here the cortex recording with its "event" setting changed from cpu to
// cycles) gets a type named after the event, counting events.
func TestJFRPerfEvent(t *testing.T) {
	data := jpGunzip(t, corpus.Path(t, "java/jfrparser-cortex-kafka-cpu0.jfr.gz"))
	from, to := "\x03\x05event\x03\x03cpu", "\x03\x05event\x03\x03cyc"
	if strings.Count(string(data), from) != 1 {
		t.Fatalf("the event setting is not where expected")
	}
	res, err := convert.Read(strings.NewReader(strings.Replace(string(data), from, to, 1)), "cycles.jfr", convert.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Profile
	if len(p.SampleType) != 2 || p.SampleType[1].Type != "cyc" || p.SampleType[1].Unit != "count" || p.DefaultSampleType != "cyc" {
		t.Fatalf("types %v, default %q", p.SampleType, p.DefaultSampleType)
	}
	// The interval setting is 0 (async-profiler's default), so each sample counts 1.
	if jpTotal(p, 1) != 478 || !strings.Contains(strings.Join(res.Warnings, "\n"), `samples the event "cyc", not time`) {
		t.Errorf("total %d, warnings %q", jpTotal(p, 1), res.Warnings)
	}
}

// TestJFRNativeMemoryAndLocks: async-profiler's native-memory
// (profiler.Malloc) and lock (jdk.JavaMonitorEnter, jdk.ThreadPark) events
// are sample types of their own, with 0 in samples/count beside CPU samples
// (so latency inference leaves them out); a recording of only such events
// converts, and one of no convertible event names what it holds. Once
// they were "not converted", and a recording of only them refused.
func TestJFRNativeMemoryAndLocks(t *testing.T) {
	read := func(t *testing.T, events ...jfrTEvent) *convert.Result {
		t.Helper()
		res, err := convert.Read(strings.NewReader(string(jfrTRecording(events...))), "t.jfr", convert.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	malloc := func(at, stack, size int) jfrTEvent {
		return jfrTEvent{"profiler.Malloc", []any{at, 1, stack, 0x1000, size}}
	}
	free := jfrTEvent{"profiler.Free", []any{3500, 1, 2, 0x1000}}
	monitor := jfrTEvent{"jdk.JavaMonitorEnter", []any{4000, 2_000_000, 1, 1, 1, 1, 0x2000}}
	park := jfrTEvent{"jdk.ThreadPark", []any{5000, 3_000_000, 1, 2, 1, 0, 0, 0x3000}}

	t.Run("only malloc", func(t *testing.T) {
		res := read(t, malloc(1000, 1, 64), malloc(2000, 2, 4096), free)
		want := `format: jfr
sample types: malloc_samples/count, malloc_space/bytes (default malloc_space)
period: 0 malloc_space/bytes
time_nanos: 0, duration_nanos: 1000000000
sample tid=7 timestamp_ns=1000 thread="main" values=[1 64]
    app.Main.run{app/Main.run_[j]}:10 app.Main.work{app/Main.work_[j]}:20
sample tid=7 timestamp_ns=2000 thread="main" values=[1 4096]
    app.Main.run{app/Main.run_[j]}:11 app.Main.alloc{app/Main.alloc_[j]}:30
warning: not converted (events of kinds this reader does not convert: 1 profiler.Free)
`
		if got := jpDump(res); got != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("cpu, malloc and locks", func(t *testing.T) {
		res := read(t, jfrTEvent{"jdk.ExecutionSample", []any{500, 1, 1, 1}}, malloc(1000, 2, 64), monitor, park)
		want := `format: jfr
sample types: samples/count, cpu/nanoseconds, malloc_samples/count, malloc_space/bytes, contentions/count, delay/nanoseconds (default cpu)
period: 10000000 cpu/nanoseconds
time_nanos: 0, duration_nanos: 1000000000
sample tid=7 timestamp_ns=500 thread="main" values=[1 10000000 0 0 0 0]
    app.Main.run{app/Main.run_[j]}:10 app.Main.work{app/Main.work_[j]}:20
sample tid=7 timestamp_ns=1000 thread="main" values=[0 0 1 64 0 0]
    app.Main.run{app/Main.run_[j]}:11 app.Main.alloc{app/Main.alloc_[j]}:30
sample tid=7 timestamp_ns=4000 monitor_class="app.Main" thread="main" values=[0 0 0 0 1 2000000]
    app.Main.run{app/Main.run_[j]}:10 app.Main.work{app/Main.work_[j]}:20
sample tid=7 timestamp_ns=5000 parked_class="app.Main" thread="main" values=[0 0 0 0 1 3000000]
    app.Main.run{app/Main.run_[j]}:11 app.Main.alloc{app/Main.alloc_[j]}:30
warning: the recording states no sampling period for jdk.ExecutionSample; assuming 10 ms per sample
`
		if got := jpDump(res); got != want {
			t.Errorf("got:\n%s\nwant:\n%s", got, want)
		}
	})
	t.Run("only locks", func(t *testing.T) {
		if p := read(t, monitor, park).Profile; p.DefaultSampleType != "delay" || jpTotal(p, 1) != 5_000_000 {
			t.Errorf("default %q, delay %d ns; want delay, 5000000", p.DefaultSampleType, jpTotal(p, 1))
		}
	})
	t.Run("nothing convertible", func(t *testing.T) {
		load := jfrTEvent{"jdk.CPULoad", []any{1000, float32(0), float32(0), float32(0)}}
		_, err := convert.Read(strings.NewReader(string(jfrTRecording(load, load, free))), "t.jfr", convert.Options{})
		want := "t.jfr: no samples: the recording has no execution, wall-clock, allocation, native-memory or lock events; it holds 2 jdk.CPULoad, 1 profiler.Free"
		if err == nil || err.Error() != want {
			t.Errorf("error %v\nwant %s", err, want)
		}
	})
}

// TestJFRMalformed: broken recordings fail with the byte offset or event
// index and what was expected, never with a panic.
func TestJFRMalformed(t *testing.T) {
	header := func(version uint32, size, cp, meta uint64, features uint32) []byte {
		b := make([]byte, 68)
		copy(b, "FLR\x00")
		b[4], b[5], b[6], b[7] = byte(version>>24), byte(version>>16), byte(version>>8), byte(version)
		put := func(off int, v uint64) {
			for i := 0; i < 8; i++ {
				b[off+i] = byte(v >> (56 - 8*i))
			}
		}
		put(8, size)
		put(16, cp)
		put(24, meta)
		put(56, 1e9)
		b[67] = byte(features)
		return b
	}
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"short", []byte("FLR\x00\x00\x02"), "x.jfr: byte 0: truncated JFR chunk header: 6 bytes, expected 68"},
		{"version1", header(0x00010000, 68, 68, 68, 1), "x.jfr: byte 0: JFR format version 1.0 is not supported"},
		{"size", header(0x00020000, 1000, 68, 68, 1), "x.jfr: byte 0: JFR chunk size 1000 does not fit the 68 bytes left (truncated recording?)"},
		{"offsets", header(0x00020000, 68, 200, 68, 1), "x.jfr: byte 0: JFR chunk offsets (metadata 68, constant pool 200) lie outside the chunk of 68 bytes"},
		{"uncompressed", append(header(0x00020000, 70, 68, 69, 0), 0, 0), "x.jfr: byte 0: JFR chunk with uncompressed integers is not supported"},
		{"metadata cut", append(header(0x00020000, 70, 68, 69, 1), 0, 0), "x.jfr: byte 70: JFR chunk metadata: unexpected end of chunk"},
		{"not metadata", append(header(0x00020000, 72, 68, 69, 1), 1, 2, 3, 4), "x.jfr: byte 71: JFR chunk metadata: expected the metadata event (type 0), found type 3"},
		{"string table", append(header(0x00020000, 79, 68, 69, 1), 0, 10, 0, 0, 0, 0, 0x7f, 0, 0, 0, 0), "x.jfr: byte 75: JFR chunk metadata: count 127 cannot fit the 4 bytes left"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := convert.Read(strings.NewReader(string(tc.data)), "x.jfr", convert.Options{})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want prefix %q", err, tc.want)
			}
		})
	}
}

// TestJFRTruncatedCorpus cuts a real recording short at several points.
func TestJFRTruncatedCorpus(t *testing.T) {
	data := jpGunzip(t, corpus.Path(t, "java/jfrparser-cortex-kafka-cpu0.jfr.gz"))
	for _, n := range []int{68, 100, 1000, len(data) / 2, len(data) - 1} {
		_, err := convert.Read(strings.NewReader(string(data[:n])), "cut.jfr", convert.Options{})
		if err == nil || !strings.Contains(err.Error(), "cut.jfr: byte 0: JFR chunk size") {
			t.Errorf("cut at %d: %v", n, err)
		}
	}
	// A corrupt byte inside the events fails cleanly (or still converts).
	for _, off := range []int{70, 200, 5000, 20000, len(data) / 2} {
		bad := slices.Clone(data)
		bad[off] ^= 0xff
		if _, err := convert.Read(strings.NewReader(string(bad)), "bad.jfr", convert.Options{}); err != nil && !strings.HasPrefix(err.Error(), "bad.jfr: ") {
			t.Errorf("corrupt byte %d: error without the file name: %v", off, err)
		}
	}
}

func jpGunzip(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if _, err := bufio.NewReader(zr).WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return []byte(b.String())
}

// FuzzJFR feeds mutated recordings to the binary reader: it may fail, but
// only with an error that names the input.
func FuzzJFR(f *testing.F) {
	f.Add([]byte("FLR\x00\x00\x02\x00\x00"))
	f.Add(jfrTRecording(jfrTEvent{"jdk.ExecutionSample", []any{500, 1, 1, 1}},
		jfrTEvent{"profiler.Malloc", []any{1000, 1, 2, 0x1000, 64}},
		jfrTEvent{"jdk.ThreadPark", []any{5000, 3_000_000, 1, 2, 1, 0, 0, 0x3000}}))
	if d := corpus.Dir(); d != "" {
		if data, err := os.ReadFile(filepath.Join(d, "java", "speedscope-heavy.jfr")); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := convert.Read(strings.NewReader(string(data)), "fuzz.jfr", convert.Options{From: "jfr"})
		convert.CheckRead(t, "fuzz.jfr", res, err)
	})
}

// BenchmarkJFRAsyncProfiler converts the 199,661-sample async-profiler
// recording (3.3 MB decompressed) from its gzipped bytes in memory.
func BenchmarkJFRAsyncProfiler(b *testing.B) {
	data, err := os.ReadFile(corpus.Path(b, "java/jfrparser-async-profiler.jfr.gz"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := convert.Read(strings.NewReader(string(data)), "async-profiler.jfr.gz", convert.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
