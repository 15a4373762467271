package convert

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/golden"
	"github.com/ctdiff/ctdiff/internal/labels"
)

// TestV8Golden converts every fixture in testdata/devtools and compares
// the dump with its .golden file (go test ./convert -run V8Golden -update).
func TestV8Golden(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("testdata", "devtools", "*"))
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") {
			continue
		}
		n++
		t.Run(filepath.Base(f), func(t *testing.T) {
			res, err := ReadFile(f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := res.Profile.CheckValid(); err != nil {
				t.Fatal(err)
			}
			golden.CheckString(t, "testdata/devtools/"+filepath.Base(f)+".golden", v8Dump(res))
		})
	}
	if n < 10 {
		t.Fatalf("only %d fixtures in testdata/devtools", n)
	}
}

func readV8String(t *testing.T, name, content string) *Result {
	t.Helper()
	res, err := Read(strings.NewReader(content), name, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestDevtoolsChunks checks the core semantics on testdata/devtools/chunks.json:
// two processes reusing profile id 0x1, chunks written on the profiler's
// thread, nodes spread over chunks, a chunk without args.data, a negative
// delta and the special frames.
func TestDevtoolsChunks(t *testing.T) {
	res, err := ReadFile(filepath.Join("testdata", "devtools", "chunks.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	threads := v8Threads(res.Profile)
	if len(threads) != 2 {
		t.Fatalf("%d threads, want 2 (pid 10 and pid 20 both use profile id 0x1)", len(threads))
	}
	main, other := threads[0], threads[1]
	if main.pid != 10 || main.tid != 1 || other.pid != 20 || other.tid != 1 {
		t.Errorf("threads pid/tid %d/%d and %d/%d, want 10/1 and 20/1 (the Profile event's thread, not the chunks' 99 and 77)",
			main.pid, main.tid, other.pid, other.tid)
	}
	if main.name != "Renderer/CrRendererMain" {
		t.Errorf("thread name %q", main.name)
	}
	// Profile ts 1000 µs; deltas 10,100,100,100 | 100,-50,150,100: the
	// sample at 1360 µs comes before the one at 1410 after sorting.
	wantTimes := []int64{1010, 1110, 1210, 1310, 1360, 1410, 1510, 1610}
	wantLeaves := []string{"(anonymous)", "work", "work", "(program)", "(garbage collector)", "helper", "(idle)", "work"}
	// Each sample lasts until the next; the last gets the mean interval,
	// (1610-1010)/7 µs.
	wantDur := []int64{100000, 100000, 100000, 50000, 50000, 100000, 100000, 85714}
	if len(main.samples) != len(wantTimes) {
		t.Fatalf("%d samples, want %d", len(main.samples), len(wantTimes))
	}
	for i, s := range main.samples {
		if got := timestamp(s); got != wantTimes[i]*1000 {
			t.Errorf("sample %d at %d ns, want %d", i, got, wantTimes[i]*1000)
		}
		if got := v8Key(s.Location[0]).name; got != wantLeaves[i] {
			t.Errorf("sample %d leaf %s, want %s", i, got, wantLeaves[i])
		}
		if s.Value[0] != 1 || s.Value[1] != wantDur[i] {
			t.Errorf("sample %d values %v, want [1 %d]", i, s.Value, wantDur[i])
		}
		if u := s.NumUnit[labels.Timestamp]; len(u) != 1 || u[0] != "nanoseconds" {
			t.Errorf("sample %d timestamp unit %v", i, u)
		}
	}
	// helper@app.js, 0-based 20:2 in the file, under work (9:14) under the
	// anonymous script body (0:0); no (root).
	if got := v8StackString(main.samples[5]); got != "(anonymous)@https://a.example/app.js:1:1;work@https://a.example/app.js:10:15;helper@https://a.example/app.js:21:3" {
		t.Errorf("stack %s", got)
	}
	p := res.Profile
	if p.DefaultSampleType != "wall" || len(p.SampleType) != 2 || p.SampleType[0].Type != "samples" || p.SampleType[1].Unit != "nanoseconds" {
		t.Errorf("sample types %v default %s", p.SampleType, p.DefaultSampleType)
	}
	// Mean interval over both profiles: (600 + 50) µs / (7 + 1).
	if p.Period != 81250 {
		t.Errorf("period %d, want 81250", p.Period)
	}
	// From the earlier Profile start (1000 µs) to the end of the last
	// sample (1610 µs + 85.714 µs).
	if p.DurationNanos != 695714 {
		t.Errorf("duration %d, want 695714", p.DurationNanos)
	}
}

// TestDevtoolsContainers checks the container forms DevTools accepts.
func TestDevtoolsContainers(t *testing.T) {
	res, err := ReadFile(filepath.Join("testdata", "devtools", "object-metadata.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(1738246159825000000); res.Profile.TimeNanos != want {
		t.Errorf("TimeNanos %d, want %d (metadata.startTime)", res.Profile.TimeNanos, want)
	}
	if n := len(res.Profile.Sample); n != 3 {
		t.Errorf("%d samples, want 3", n)
	}
	if got := v8Key(res.Profile.Sample[0].Location[0]).name; got != "café" {
		t.Errorf("name %q, want the \\u escape decoded", got)
	}
	// A fractional delta (2.5 µs) is kept in ns.
	if d := res.Profile.Sample[0].Value[1]; d != 2500 {
		t.Errorf("first sample lasts %d ns, want 2500", d)
	}

	res, err = ReadFile(filepath.Join("testdata", "devtools", "unclosed.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "no closing ']'") {
		t.Errorf("warnings %q, want one about the missing ']'", res.Warnings)
	}
	for _, content := range []string{
		`[{"name":"Profile","id":"0x1","pid":1,"tid":1,"ts":0},{"name":"ProfileChunk","id":"0x1","pid":1,"tid":1,"ts":1,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"f"}}],"samples":[1]},"timeDeltas":[5]}}}]`,
		`[{"name":"Profile","id":"0x1","pid":1,"tid":1,"ts":0},{"name":"ProfileChunk","id":"0x1","pid":1,"tid":1,"ts":1,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"f"}}],"samples":[1]},"timeDeltas":[5]}}},]`,
		`[{"name":"Profile","id":"0x1","pid":1,"tid":1,"ts":0},{"name":"ProfileChunk","id":"0x1","pid":1,"tid":1,"ts":1,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"f"}}],"samples":[1]},"timeDeltas":[5]}}}`,
		`{"traceEvents":[{"name":"Profile","id":"0x1","pid":1,"tid":1,"ts":0},{"name":"ProfileChunk","id":"0x1","pid":1,"tid":1,"ts":1,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"f"}}],"samples":[1]},"timeDeltas":[5]}}},`,
		"\ufeff" + `{"traceEvents":[{"name":"Profile","id":"0x1","pid":1,"tid":1,"ts":0},{"name":"ProfileChunk","id":"0x1","pid":1,"tid":1,"ts":1,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"f"}}],"samples":[1]},"timeDeltas":[5]}}}]}`,
	} {
		res := readV8String(t, "t.json", content)
		if res.Format != "devtools" || len(res.Profile.Sample) != 1 {
			t.Errorf("%.40q...: format %s, %d samples", content, res.Format, len(res.Profile.Sample))
		}
	}
}

// TestDevtoolsProfilesPerThread: several profiles on one thread make one
// thread; numeric and missing ids; chunks before any Profile are skipped
// with a warning.
func TestDevtoolsProfilesPerThread(t *testing.T) {
	res, err := ReadFile(filepath.Join("testdata", "devtools", "profiles-per-thread.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	threads := v8Threads(res.Profile)
	if len(threads) != 2 || len(threads[0].samples) != 5 || len(threads[1].samples) != 1 {
		t.Fatalf("threads %+v, want tid 4 with 2+3 samples and tid 5 with 1", threads)
	}
	if threads[0].name != "tokio-1" {
		t.Errorf("thread name %q", threads[0].name)
	}
	// Each profile's last sample gets its own profile's mean interval.
	var durs []int64
	for _, s := range threads[0].samples {
		durs = append(durs, s.Value[1])
	}
	if want := []int64{20000, 20000, 5000, 5000, 5000}; !slicesEqual(durs, want) {
		t.Errorf("durations %v, want %v", durs, want)
	}
	w := strings.Join(res.Warnings, "\n")
	if !strings.Contains(w, "skipped 2 samples in 2 ProfileChunk events that no Profile event precedes (profiles 0x9 of pid 3") ||
		!strings.Contains(w, "profile tid 5 of pid 3 (Profile event 7) has a single sample") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

func slicesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDevtoolsMissingNodes: a trace that lost chunks keeps every sample,
// under "(missing node ID)" frames, and says so.
func TestDevtoolsMissingNodes(t *testing.T) {
	res, err := ReadFile(filepath.Join("testdata", "devtools", "missing-node.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var stacks []string
	for _, s := range res.Profile.Sample {
		stacks = append(stacks, v8StackString(s))
	}
	want := []string{"kept@k.js:4:4", "(missing node 753)@:0:0;orphaned@k.js:9:1", "(missing node 752)@:0:0", "kept@k.js:4:4"}
	if strings.Join(stacks, "\n") != strings.Join(want, "\n") {
		t.Errorf("stacks\n%s\nwant\n%s", strings.Join(stacks, "\n"), strings.Join(want, "\n"))
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "name 2 node ids that no node has") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// TestDevtoolsSelection: --thread and --pid select threads from the labels
// the reader writes.
func TestDevtoolsSelection(t *testing.T) {
	path := filepath.Join("testdata", "devtools", "chunks.json")
	res, err := ReadFile(path, Options{PIDs: []int64{20}})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Profile.Sample); n != 2 {
		t.Errorf("--pid 20: %d samples, want 2", n)
	}
	res, err = ReadFile(path, Options{Thread: regexp.MustCompile(`^Renderer/CrRendererMain$`), Aggregate: true})
	if err != nil {
		t.Fatal(err)
	}
	if n, c := len(res.Profile.Sample), sumValues(res.Profile, 0); n != 7 || c != 10 {
		t.Errorf("--thread --aggregate: %d samples summing to %d, want 7 distinct stacks of 10 samples", n, c)
	}
	for _, s := range res.Profile.Sample {
		if _, ok := s.NumLabel[labels.Timestamp]; ok {
			t.Fatal("--aggregate kept a timestamp")
		}
	}
	_, err = ReadFile(path, Options{Thread: regexp.MustCompile(`Worker`)})
	if !errors.Is(err, errNoSamples) || !strings.Contains(err.Error(), `"Renderer/CrRendererMain"`) {
		t.Errorf("selecting no thread: %v", err)
	}
}

// TestDevtoolsErrors checks that bad input fails with the position and
// what was expected.
func TestDevtoolsErrors(t *testing.T) {
	const profile = `{"name":"Profile","id":"0x1","pid":1,"tid":1,"ts":0}`
	chunk := func(data string) string {
		return `{"name":"ProfileChunk","id":"0x1","pid":1,"tid":1,"ts":1,"args":{"data":` + data + `}}`
	}
	tests := []struct{ name, in, want string }{
		{"no profile", `[{"name":"RunTask","ph":"X","pid":1,"tid":1,"ts":1}]`, "no samples: the trace (1 events) has no V8 CPU profile"},
		{"not an event", `[` + profile + `, 42]`, "t.json: event 1 (byte 55): expected a trace event object, found \"42\""},
		{"bad json in event", `[` + profile + `, {"name":"ProfileChunk", "pid": 1 "tid": 2}]`, "t.json: event 1 (byte 88): invalid character '\"' after object key:value pair"},
		{"pid type", `[{"name":"Profile","id":"0x1","pid":"one","tid":1,"ts":0}]`, "t.json: event 0 (byte 1): Profile event: field pid: expected an integer, found string"},
		{"unbalanced", `[` + profile + `, {"name":"x"]]`, "t.json: byte 66: unbalanced ']'"},
		{"cut in an event", `[` + profile + `, {"name":"Pro`, "t.json: byte 55: the value starting here is cut off by the end of the input"},
		{"samples and deltas", `[` + profile + `,` + chunk(`{"cpuProfile":{"nodes":[{"id":1}],"samples":[1,1]},"timeDeltas":[1]}`) + `]`,
			"t.json: event 1 (byte 54): ProfileChunk event: 2 samples but 1 timeDeltas; they must pair up"},
		{"bad delta", `[` + profile + `,` + chunk(`{"cpuProfile":{"samples":[1]},"timeDeltas":["x"]}`) + `]`,
			`event 1 (byte 54): ProfileChunk event: expected a number within ±2^60, found "\"x\""`},
		{"fractional sample id", `[` + profile + `,` + chunk(`{"cpuProfile":{"nodes":[{"id":1}],"samples":[1,2.9]},"timeDeltas":[1,1]}`) + `]`,
			`t.json: event 1 (byte 54): ProfileChunk event: expected an integer node id, found "2.9"`},
		{"huge delta", `[` + profile + `,` + chunk(`{"cpuProfile":{"samples":[1]},"timeDeltas":[1e300]}`) + `]`,
			`ProfileChunk event: expected a number within ±2^60, found "1e300"`},
		{"duplicate node", `[` + profile + `,` + chunk(`{"cpuProfile":{"nodes":[{"id":1},{"id":1}],"samples":[]},"timeDeltas":[]}`) + `]`,
			"t.json: event 1: profile node id 1 is defined twice"},
		{"two parents", `[` + profile + `,` + chunk(`{"cpuProfile":{"nodes":[{"id":1,"children":[3]},{"id":2,"children":[3]},{"id":3}],"samples":[3]},"timeDeltas":[1]}`) + `]`,
			"t.json: event 1: node 3 has two parents, 1 and 2"},
		{"cycle", `[` + profile + `,` + chunk(`{"cpuProfile":{"nodes":[{"id":1,"parent":2},{"id":2,"parent":1}],"samples":[1]},"timeDeltas":[1]}`) + `]`,
			"t.json: event 1: the parent links of node 1 form a loop"},
		{"legacy without profile", `[{"name":"CpuProfile","pid":1,"tid":1,"ts":5,"args":{"data":{}}}]`,
			"t.json: event 0 (byte 1): CpuProfile event: expected args.data.cpuProfile, found none"},
		{"trailing garbage", `[` + profile + `] x`, `t.json: byte 55: expected the end of the trace, found 'x'`},
		{"object without events", `{"metadata":{}}`, `t.json: byte 0: expected a "traceEvents" array in the trace object, found none`},
		{"ts out of range", `[{"name":"Profile","id":"0x1","pid":1,"tid":1,"ts":1e300}]`, "t.json: event 0 (byte 1): ts 1e+300 is out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tt.in), "t.json", Options{From: "devtools"})
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q\n      want %q", err, tt.want)
			}
		})
	}
}

// TestV8Sniff checks which heads the two readers claim.
func TestV8Sniff(t *testing.T) {
	tests := []struct {
		head string
		want string // the format Read picks; "" for none of ours
	}{
		{`[{"args":{"name":"swapper"},"cat":"__metadata","name":"thread_name","ph":"M","pid":0}`, "devtools"},
		{"[\n  {\n    \"args\": {},\n    \"ph\": \"M\"", "devtools"},
		{`{"traceEvents":[`, "devtools"},
		{`{"metadata": {"source": "DevTools"}, "traceEvents": [`, "devtools"},
		{"\ufeff" + `{"traceEvents":[]}`, "devtools"},
		{`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}}]}`, "cpuprofile"},
		{"{\n\"nodes\": [\n  {\"callFrame\":{}}", "cpuprofile"},
		{`{"head":{"functionName":"(root)","children":[]}}`, "cpuprofile"},
		{`{"startTime":1,"nodes":[{"callFrame":{}}]}`, "cpuprofile"},
		{`[1,2,3]`, ""},
		{`{"profiles":[],"shared":{"frames":[]}}`, ""},
		{`{"nodes":[1,2]}`, ""},
		{`main;a;b 10`, ""},
	}
	for _, tt := range tests {
		got := ""
		if f := sniff([]byte(tt.head)); f != nil && (f.Name == "devtools" || f.Name == "cpuprofile") {
			got = f.Name
		}
		if got != tt.want {
			t.Errorf("sniff(%q) = %q, want %q", tt.head, got, tt.want)
		}
	}
}

// TestDevtoolsGzip: gzip is undone by content, whatever the name.
func TestDevtoolsGzip(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "devtools", "chunks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(raw)
	zw.Close()
	res, err := Read(&buf, "trace.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "devtools" || len(res.Profile.Sample) != 10 {
		t.Errorf("format %s, %d samples", res.Format, len(res.Profile.Sample))
	}
}

// TestV8SpeedscopeDisagreements shows, on fixtures small enough to check
// by hand, each rule by which our output differs from speedscope's view
// (the corpus tests show these rules account for every difference), and
// why ours is right for ctdiff:
//
//   - Negative deltas: V8's samples are not always written in time order
//     (lighthouse-cpu-profiler-m86 has a -145 µs delta). DevTools sorts them
//     (CPUProfileDataModel.sortSamples) and so do we: a sample then lasts
//     until the next sample in time. speedscope instead moves the early
//     sample to the time of the previous one, which gives one sample no time
//     and its neighbour time it did not run.
//   - The last sample: speedscope gives it nothing; DevTools and we give it
//     the profile's mean interval, so a profile's time is its span plus one
//     interval and no sample is weightless.
//   - (program) and (garbage collector): speedscope stacks them on the
//     previous sample's stack; we keep the stack V8 recorded (just the
//     special frame). A diff must not charge GC to whichever function ran
//     before it; pprof users can still see GC by focusing on it.
//   - (idle): speedscope drops it; we keep it, so that the time adds up.
func TestV8SpeedscopeDisagreements(t *testing.T) {
	res, err := ReadFile(filepath.Join("testdata", "devtools", "chunks.json"), Options{PIDs: []int64{10}})
	if err != nil {
		t.Fatal(err)
	}
	samples := res.Profile.Sample
	ours := pureView(samples)
	theirs := speedscopeView(ssSamples(samples))
	work := v8FrameKey{"work", "https://a.example/app.js", 10, 15}
	gc := v8FrameKey{name: "(garbage collector)"}
	idle := v8FrameKey{name: "(idle)"}
	// work: samples at 1110, 1210 (100 µs each) and the last at 1610.
	if got := ours[work].self; got != 200000+85714 {
		t.Errorf("our self time of work: %d ns, want 285714 (the last sample gets the mean interval)", got)
	}
	if got := theirs[work].self; got != 200000 {
		t.Errorf("speedscope's rules: work self %d ns, want 200000 (the last sample gets nothing)", got)
	}
	// GC at 1360 µs, after (program): speedscope puts it on (program).
	if got := ours[v8FrameKey{name: "(program)"}].total; got != 50000 {
		t.Errorf("our (program) total %d ns, want 50000: its own sample only", got)
	}
	if got := theirs[v8FrameKey{name: "(program)"}].total; got != 100000 {
		t.Errorf("speedscope's rules: (program) total %d ns, want 100000 (GC stacked on it)", got)
	}
	if ours[gc].self != 50000 || ours[idle].self != 100000 || theirs[idle] != nil {
		t.Errorf("gc %+v idle %+v (speedscope: %+v)", ours[gc], ours[idle], theirs[idle])
	}
	// Negative delta: in file order the samples run 1310 (program), 1410
	// (helper), 1360 (gc). Sorted, helper runs 1410..1510 and gc 1360..1410;
	// speedscope moves gc to 1410, so gc gets 100 µs and helper none.
	raw := rawV8Threads(t, filepath.Join("testdata", "devtools", "chunks.json"))
	theirsRaw := speedscopeView(rawSamples(raw[0].profiles[0]))
	helper := v8FrameKey{"helper", "https://a.example/app.js", 21, 3}
	if ours[helper].self != 100000 || theirsRaw[helper].self != 0 || theirsRaw[gc].self != 100000 {
		t.Errorf("helper: ours %d ns, speedscope's %d; gc: speedscope's %d", ours[helper].self, theirsRaw[helper].self, theirsRaw[gc].self)
	}
}

// TestDevtoolsCorpusErrorsKeepPosition: a damaged copy of a real trace
// fails with the position, never a panic.
func TestDevtoolsCorpusErrorsKeepPosition(t *testing.T) {
	data, err := os.ReadFile(corpus.Path(t, "devtools/speedscope-Chrome_69-simple.json"))
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(`"ProfileChunk"`))
	bad := append(append(append([]byte{}, data[:i]...), `"ProfileChunk" "broken"`...), data[i+len(`"ProfileChunk"`):]...)
	_, err = Read(bytes.NewReader(bad), "damaged.json", Options{})
	var se *SyntaxError
	if !errors.As(err, &se) || se.File != "damaged.json" || !strings.HasPrefix(se.Where, "event ") {
		t.Fatalf("error %v, want a SyntaxError at an event", err)
	}
}

// v8FuzzSeeds adds the fixtures and the small corpus files of a format.
func v8FuzzSeeds(f *testing.F, match func(name string) bool, corpusFiles ...string) {
	files, _ := filepath.Glob(filepath.Join("testdata", "devtools", "*"))
	if d := corpus.Dir(); d != "" {
		for _, c := range corpusFiles {
			files = append(files, filepath.Join(d, filepath.FromSlash(c)))
		}
	}
	for _, p := range files {
		if strings.HasSuffix(p, ".golden") || !match(filepath.Base(p)) {
			continue
		}
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
}

// checkV8Fuzz checks what must hold of any profile the readers accept.
func checkV8Fuzz(t *testing.T, res *Result) {
	for _, th := range v8Threads(res.Profile) {
		last := int64(-1 << 63)
		for _, s := range th.samples {
			if len(s.Location) == 0 || s.Value[0] < 1 || s.Value[1] < 0 {
				t.Fatalf("sample %v with %d frames", s.Value, len(s.Location))
			}
			if ts := timestamp(s); ts != -1 && ts < last {
				t.Fatalf("thread %s: timestamps go back", th.name)
			} else {
				last = ts
			}
		}
	}
	var buf bytes.Buffer
	if err := res.Profile.Write(&buf); err != nil {
		t.Fatal(err)
	}
}

func FuzzDevtools(f *testing.F) {
	v8FuzzSeeds(f, func(n string) bool { return strings.HasSuffix(n, ".json") },
		"devtools/speedscope-Chrome_141-no-arg-data.json", "devtools/ffprofiler-chrome-trace-issue-5429.json.gz")
	f.Add([]byte(`[{"name":"Profile","id":"0x1","pid":1,"tid":1,"ts":0},{"name":"ProfileChunk","id":"0x1","pid":1,"tid":2,"ts":1,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"callFrame":{"functionName":"(root)"}},{"id":2,"parent":1,"callFrame":{"functionName":"f","lineNumber":1}}],"samples":[2,2,1]},"timeDeltas":[5,-3,4]}}},`))
	f.Add([]byte(`{"traceEvents":[{"name":"CpuProfile","pid":1,"tid":1,"args":{"data":{"cpuProfile":{"nodes":[{"id":1,"children":[2]},{"id":2}],"startTime":0,"samples":[2],"timeDeltas":[1]}}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := Options{From: "devtools", MaxDecompressed: 1 << 20}
		res, err := Read(bytes.NewReader(data), "fuzz.json", opts)
		CheckRead(t, "fuzz.json", res, err)
		CheckStacks(t, "fuzz.json", data, opts)
		if err != nil {
			return
		}
		checkV8Fuzz(t, res)
	})
}
