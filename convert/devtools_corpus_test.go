package convert

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/long"
	"github.com/google/pprof/profile"
)

// These tests check the DevTools and .cpuprofile readers against the real
// files in ../shared/corpus and what independent tools say about them
// (corpus/expected/README.md).

// TestV8CorpusConverts converts every corpus file of both formats and
// checks the result: valid, sniffed as the right format, round-trips
// through the pprof encoding, no (root) frame, stacks and timestamps sane.
// convertedTrace is the corpus trace whose conversion the pprof tests read
// back as ctdiff's own output with timestamps and thread labels: the 3.4 MB
// web.dev trace (five threads) with the long tests, a 250 KB trace of three
// threads without.
func convertedTrace(t *testing.T) string {
	t.Helper()
	if long.Enabled() {
		return corpus.Path(t, "devtools/devtools-web-dev-screenshot-source-ids.json.gz")
	}
	return corpus.Path(t, "devtools/devtools-two-workers.json.gz")
}

func TestV8CorpusConverts(t *testing.T) {
	files := append(corpus.Glob(t, "devtools/*"), corpus.Glob(t, "cpuprofile/*")...)
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			long.File(t, f)
			res, err := ReadFile(f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			want := filepath.Base(filepath.Dir(f))
			if res.Format != want {
				t.Errorf("sniffed as %s, want %s", res.Format, want)
			}
			p := res.Profile
			if err := p.CheckValid(); err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := p.Write(&buf); err != nil {
				t.Fatal(err)
			}
			q, err := profile.Parse(&buf)
			if err != nil {
				t.Fatalf("the written profile does not parse: %v", err)
			}
			for i := range p.SampleType {
				if a, b := sumValues(p, i), sumValues(q, i); a != b || len(p.Sample) != len(q.Sample) {
					t.Errorf("round trip: sample type %d sums to %d, then %d (%d, %d samples)", i, a, b, len(p.Sample), len(q.Sample))
				}
			}
			for _, th := range v8Threads(q) {
				last := int64(-1 << 63)
				for _, s := range th.samples {
					if len(s.Location) == 0 {
						t.Fatalf("thread %s: a sample without a stack", th.name)
					}
					for _, l := range s.Location[1:] {
						if v8Key(l).name == rootName {
							t.Fatalf("thread %s: (root) inside a stack: %s", th.name, v8StackString(s))
						}
					}
					if ts := timestamp(s); ts < last {
						t.Fatalf("thread %s (pid %d tid %d): timestamp %d after %d", th.name, th.pid, th.tid, ts, last)
					} else {
						last = ts
					}
					if s.Value[0] != 1 || s.Value[1] < 0 {
						t.Fatalf("thread %s: sample values %v, want [1, >=0]", th.name, s.Value)
					}
				}
			}
			for _, w := range res.Warnings {
				t.Logf("warning: %s", w)
			}
		})
	}
}

func sumValues(p *profile.Profile, i int) int64 {
	var n int64
	for _, s := range p.Sample {
		n += s.Value[i]
	}
	return n
}

// TestDevtoolsCorpusThreads checks that every sampled thread of every
// process comes out as its own thread, named from the metadata, with all
// its samples, in the order the threads started. Counts for two-workers
// and web-dev are the expected/*.samples.txt headers; multiple-renderers
// has no expected file: its counts were taken with Python's json module
// (ProfileChunk samples grouped by (pid, id)), and its three renderers
// reuse profile id 0x1, which speedscope and old DevTools would mix.
func TestDevtoolsCorpusThreads(t *testing.T) {
	type thread struct {
		pid, tid int64
		name     string
		samples  int
	}
	tests := []struct {
		file string
		want []thread
	}{
		{"devtools/devtools-two-workers.json.gz", []thread{
			{71044, 259, "Renderer/CrRendererMain", 16881},
			{71044, 37651, "Renderer/DedicatedWorker thread", 8104},
			{71044, 35351, "Renderer/DedicatedWorker thread", 8103},
		}},
		{"devtools/devtools-multiple-top-level-renderers.json.gz", []thread{
			{78450, 259, "Renderer/CrRendererMain", 46600},
			{78473, 259, "Renderer/CrRendererMain", 31300},
			{79194, 259, "Renderer/CrRendererMain", 17002},
		}},
		{"devtools/devtools-web-dev-screenshot-source-ids.json.gz", []thread{
			{1753839, 1, "Renderer/CrRendererMain", 96364},
			{1753622, 12, "Renderer/ServiceWorker thread", 79840},
			{1753622, 1, "Renderer/CrRendererMain", 77327},
			{1753642, 1, "Renderer/CrRendererMain", 71287},
			{1753642, 27, "Renderer/DedicatedWorker thread", 63350},
		}},
		// Two profiles (0x7b, 0x7d) on one thread make one thread.
		{"devtools/speedscope-Chrome_141-no-arg-data.json", []thread{
			{7787, 6209019, "Renderer/CrRendererMain", 421},
		}},
		// Legacy CpuProfile events, one per thread.
		{"devtools/speedscope-Chrome_66-worker.json", []thread{
			{30834, 30851, "Renderer/CrRendererMain", 4447},
			{30834, 31089, "Renderer/DedicatedWorker thread", 3792},
		}},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.file), func(t *testing.T) {
			long.File(t, corpus.Path(t, tt.file))
			res, err := ReadFile(corpus.Path(t, tt.file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			var got []thread
			for _, th := range v8Threads(res.Profile) {
				got = append(got, thread{th.pid, th.tid, th.name, len(th.samples)})
			}
			if len(got) != len(tt.want) {
				t.Fatalf("threads:\n got %v\nwant %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("thread %d: got %v, want %v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// samplesTable is one profile of an expected/*.samples.txt file.
type samplesTable struct {
	pid, tid int64
	name     string
	samples  int64
	spanMs   float64
	rows     map[v8FrameKey]samplesRow
}

type samplesRow struct {
	selfN, totalN   int64
	selfMs, totalMs float64
}

var samplesHeader = regexp.MustCompile(`^## pid (\d+) tid (\d+) \((.*)\) id \S+: nodes=\d+ samples=(\d+) spanMs=([\d.]+)$`)

func readSamplesTables(t *testing.T, path string) []*samplesTable {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []*samplesTable
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if m := samplesHeader.FindStringSubmatch(line); m != nil {
			tb := &samplesTable{name: m[3], rows: map[v8FrameKey]samplesRow{}}
			tb.pid, _ = strconv.ParseInt(m[1], 10, 64)
			tb.tid, _ = strconv.ParseInt(m[2], 10, 64)
			tb.samples, _ = strconv.ParseInt(m[4], 10, 64)
			tb.spanMs, _ = strconv.ParseFloat(m[5], 64)
			out = append(out, tb)
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 || f[0] == "selfSamples" || len(out) == 0 {
			continue
		}
		// function|url|line0|col0, 0-based; empty or -1 when unknown.
		k := strings.Split(f[4], "|")
		if len(k) != 4 {
			t.Fatalf("%s: bad row %q", path, line)
		}
		key := v8FrameKey{name: k[0], file: k[1], line: zeroBasedText(k[2]), col: zeroBasedText(k[3])}
		if key.name == "" {
			key.name = "(anonymous)"
		}
		var r samplesRow
		r.selfN, _ = strconv.ParseInt(f[0], 10, 64)
		r.totalN, _ = strconv.ParseInt(f[1], 10, 64)
		r.selfMs, _ = strconv.ParseFloat(f[2], 64)
		r.totalMs, _ = strconv.ParseFloat(f[3], 64)
		out[len(out)-1].rows[key] = r
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func zeroBasedText(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0
	}
	return n + 1
}

// TestDevtoolsSamplesTables compares every thread with the per-function
// tables in expected/*.samples.txt (a plain sample aggregation written as a
// cross-check: sample time = delta to the next sample, samples sorted by
// time, profiles keyed by (pid, id)). Counts must match exactly and times to
// the table's rounding (1 µs). The tables' sums also pin down what the last
// sample of a profile gets: span + one mean interval, as DevTools does.
func TestDevtoolsSamplesTables(t *testing.T) {
	tables, _ := filepath.Glob(filepath.Join(corpus.Path(t, "expected"), "*.samples.txt"))
	if len(tables) == 0 {
		t.Fatal("no expected/*.samples.txt")
	}
	for _, path := range tables {
		input := strings.TrimSuffix(filepath.Base(path), ".samples.txt")
		t.Run(input, func(t *testing.T) {
			long.File(t, corpus.Path(t, "devtools/"+input))
			res, err := ReadFile(corpus.Path(t, "devtools/"+input), Options{})
			if err != nil {
				t.Fatal(err)
			}
			threads := map[[2]int64]*v8ThreadSamples{}
			for _, th := range v8Threads(res.Profile) {
				threads[[2]int64{th.pid, th.tid}] = th
			}
			for _, tb := range readSamplesTables(t, path) {
				th := threads[[2]int64{tb.pid, tb.tid}]
				if th == nil {
					t.Errorf("pid %d tid %d (%s): no such thread in our output", tb.pid, tb.tid, tb.name)
					continue
				}
				if !strings.HasSuffix(th.name, "/"+tb.name) {
					t.Errorf("pid %d tid %d: thread named %q, want .../%s", tb.pid, tb.tid, th.name, tb.name)
				}
				if int64(len(th.samples)) != tb.samples {
					t.Errorf("pid %d tid %d: %d samples, want %d", tb.pid, tb.tid, len(th.samples), tb.samples)
				}
				n := len(th.samples)
				span := timestamp(th.samples[n-1]) - timestamp(th.samples[0])
				if ms := float64(span) / 1e6; !within(ms, tb.spanMs, 0, 0.001) {
					t.Errorf("pid %d tid %d: span %.3f ms, want %.3f", tb.pid, tb.tid, ms, tb.spanMs)
				}
				if last, mean := th.samples[n-1].Value[1], span/int64(n-1); last != mean {
					t.Errorf("pid %d tid %d: the last sample weighs %d ns, want the mean interval %d", tb.pid, tb.tid, last, mean)
				}
				view := pureView(th.samples)
				for k, want := range tb.rows {
					got := view[k]
					if got == nil {
						t.Errorf("pid %d tid %d: no frame %+v", tb.pid, tb.tid, k)
						continue
					}
					if got.selfN != want.selfN || got.totalN != want.totalN {
						t.Errorf("pid %d tid %d %+v: samples self %d total %d, want %d %d", tb.pid, tb.tid, k, got.selfN, got.totalN, want.selfN, want.totalN)
					}
					if s, tot := float64(got.self)/1e6, float64(got.total)/1e6; !within(s, want.selfMs, 0, 0.0015) || !within(tot, want.totalMs, 0, 0.0015) {
						t.Errorf("pid %d tid %d %+v: self %.3f total %.3f ms, want %.3f %.3f", tb.pid, tb.tid, k, s, tot, want.selfMs, want.totalMs)
					}
				}
			}
		})
	}
}

// speedscopeProfile is one profile of an expected/*.speedscope.json file.
type speedscopeProfile struct {
	Profile       string            `json:"profile"`
	TotalWeightUs int64             `json:"totalWeightUs"`
	Frames        []speedscopeFrame `json:"frames"`
}

type speedscopeFrame struct {
	Name    string  `json:"name"`
	File    string  `json:"file"`
	Line    int64   `json:"line"`
	Col     int64   `json:"col"`
	SelfUs  float64 `json:"selfUs"`
	TotalUs float64 `json:"totalUs"`
}

// speedscopeKey maps speedscope's frame naming back to ours: it names an
// anonymous function "(anonymous FILE:LINE)".
func speedscopeKey(name, file string, line, col int64) v8FrameKey {
	if strings.HasPrefix(name, "(anonymous") {
		name = "(anonymous)"
	}
	return v8FrameKey{name: name, file: file, line: line, col: col}
}

// TestDevtoolsSpeedscope compares every thread with speedscope's Chrome
// importer run on the same file (expected/*.speedscope.json). speedscope
// keys profiles by id alone, which is unambiguous in all these files (no
// two processes reuse an id in them).
//
//  1. speedscope's rules (speedscopeView) applied to our reading of the
//     file, in file order, must give every frame's self and total within
//     0.5%: our nodes, stacks, deltas and thread split are speedscope's.
//  2. Our output's plain sampling view must give every JavaScript frame's
//     self time within 0.5%, except where the two disagree by design (see
//     TestDevtoolsSpeedscopeDisagreements).
func TestDevtoolsSpeedscope(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(corpus.Path(t, "expected"), "*.speedscope.json"))
	if len(files) == 0 {
		t.Fatal("no expected/*.speedscope.json")
	}
	for _, path := range files {
		input := strings.TrimSuffix(filepath.Base(path), ".speedscope.json")
		t.Run(input, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var want []speedscopeProfile
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			file := corpus.Path(t, "devtools/"+input)
			res, err := ReadFile(file, Options{})
			if err != nil {
				t.Fatal(err)
			}
			threads, raw := v8Threads(res.Profile), rawV8Threads(t, file)
			if len(threads) != len(want) || len(raw) != len(want) {
				t.Fatalf("%d threads, speedscope has %d profiles", len(threads), len(want))
			}
			for i, th := range threads { // both in order of the Profile events
				if len(want) > 1 && !strings.HasSuffix(want[i].Profile, " - "+strings.TrimPrefix(th.name, "Renderer/")) {
					t.Errorf("thread %d is %q, speedscope's profile %d is %q", i, th.name, i, want[i].Profile)
				}
				if len(raw[i].profiles) != 1 {
					t.Fatalf("thread %d has %d profiles", i, len(raw[i].profiles))
				}
				compareSpeedscope(t, th, raw[i].profiles[0], want[i].Frames, speedscopeKey)
			}
		})
	}
}

// compareSpeedscope checks one thread against speedscope's frames; key
// maps speedscope's naming to ours.
func compareSpeedscope(t *testing.T, th *v8ThreadSamples, raw *v8Profile, frames []speedscopeFrame,
	key func(name, file string, line, col int64) v8FrameKey) {
	t.Helper()
	rawSS := rawSamples(raw)
	model, pure := speedscopeView(rawSS), pureView(th.samples)
	exempt := disagreeingLeaves(rawSS)
	last := th.samples[len(th.samples)-1]
	for _, f := range frames {
		k := key(f.Name, f.File, f.Line, f.Col)
		m := model[k]
		if m == nil {
			t.Errorf("%s: no frame %+v", th.name, k)
			continue
		}
		// 1 µs of slack: speedscope's values are sums of whole µs.
		if s, tot := float64(m.self)/1e3, float64(m.total)/1e3; !within(s, f.SelfUs, speedscopeTolerance, 1) || !within(tot, f.TotalUs, speedscopeTolerance, 1) {
			t.Errorf("%s %+v: speedscope's rules on our reading: self %.0f total %.0f µs; speedscope: %.0f %.0f", th.name, k, s, tot, f.SelfUs, f.TotalUs)
		}
		if strings.HasPrefix(k.name, "(") && k.name != "(anonymous)" {
			continue // (program), (garbage collector), (missing node): see TestV8SpeedscopeDisagreements
		}
		got := float64(pure[k].self) / 1e3
		if v8Key(last.Location[0]) == k { // speedscope gives the last sample nothing
			got -= float64(last.Value[1]) / 1e3
		}
		if !within(got, f.SelfUs, speedscopeTolerance, 1) && !exempt[k] {
			t.Errorf("%s %+v: self %.0f µs, speedscope %.0f, and neither a negative delta nor a skipped sample explains it", th.name, k, got, f.SelfUs)
		}
	}
}

const speedscopeTolerance = 0.005 // 0.5%

// snapFrame matches one Frame block of speedscope's jest snapshot.
var (
	snapSection = regexp.MustCompile("^exports\\[`(.*)`\\] = `$")
	snapField   = regexp.MustCompile(`^\s*"(col|file|line|name|selfWeight|totalWeight)": (.*),$`)
)

// readSnapshot parses speedscope-chrome.test.ts.snap into its sections'
// frames and profile names.
func readSnapshot(t *testing.T) map[string]*speedscopeProfile {
	t.Helper()
	data, err := os.ReadFile(corpus.Path(t, "expected/speedscope-chrome.test.ts.snap"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*speedscopeProfile{}
	var cur *speedscopeProfile
	var f *speedscopeFrame
	for _, line := range strings.Split(string(data), "\n") {
		if m := snapSection.FindStringSubmatch(line); m != nil {
			cur = &speedscopeProfile{}
			out[m[1]] = cur
			continue
		}
		if cur == nil {
			continue
		}
		switch strings.TrimSpace(line) {
		case "Frame {":
			cur.Frames = append(cur.Frames, speedscopeFrame{})
			f = &cur.Frames[len(cur.Frames)-1]
			continue
		case "},":
			f = nil
			continue
		}
		m := snapField.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if f == nil { // the profile's own "name"
			if m[1] == "name" {
				cur.Profile, _ = strconv.Unquote(m[2])
			}
			continue
		}
		str, _ := strconv.Unquote(m[2])
		num, _ := strconv.ParseFloat(m[2], 64)
		switch m[1] {
		case "col":
			f.Col = int64(num)
		case "line":
			f.Line = int64(num)
		case "file":
			f.File = str
		case "name":
			f.Name = str
		case "selfWeight":
			f.SelfUs = num
		case "totalWeight":
			f.TotalUs = num
		}
	}
	return out
}

// TestV8SpeedscopeSnapshot compares with speedscope's own test snapshot
// (expected/speedscope-chrome.test.ts.snap) for the speedscope sample files
// in the corpus, the same way as TestDevtoolsSpeedscope. Its
// "importFromChromeTimeline chunked" section is left out: its input (a
// re-chunked simple-timeline.json) is not in the corpus.
func TestV8SpeedscopeSnapshot(t *testing.T) {
	snap := readSnapshot(t)
	tests := []struct {
		section, file string
		profile       int // index of the profile within its thread
		// legacy: speedscope reads the legacy format's 1-based lineNumber
		// as 0-based (adds 1) and invents column 1. DevTools subtracts 1
		// (CPUProfileNode), V8's GetLineNumber is 1-based: our line is
		// speedscope's minus 1, our column unknown.
		legacy bool
	}{
		{section: "importFromChromeCPUProfile 1", file: "cpuprofile/speedscope-Chrome_65-simple.cpuprofile"},
		{section: "importFromV8Profiler Node 10 1", file: "cpuprofile/speedscope-node_10.11.0-example.cpuprofile", legacy: true},
		{section: "importFromChromeTimeline 1", file: "devtools/speedscope-Chrome_65-simple-timeline.json"},
		{section: "importFromChromeTimeline Chrome 69 1", file: "devtools/speedscope-Chrome_69-simple.json"},
		{section: "importFromChromeTimeline Chrome 116 1", file: "devtools/speedscope-Chrome_116-Trace-20230603T221323.json"},
		{section: "importFromChromeTimeline Workers Chrome 66 1", file: "devtools/speedscope-Chrome_66-worker.json"},
		{section: "importFromChromeTimeline Workers Chrome 66 2", file: "devtools/speedscope-Chrome_66-worker.json"},
		{section: "importFromChromeTimeline Workers Chrome 70 1", file: "devtools/speedscope-Chrome_70-worker.json"},
		{section: "importFromChromeTimeline Workers Chrome 70 2", file: "devtools/speedscope-Chrome_70-worker.json"},
		{section: "importTraceEvents Chrome 141 profile with missing arg data 1", file: "devtools/speedscope-Chrome_141-no-arg-data.json"},
		{section: "importTraceEvents Chrome 141 profile with missing arg data 2", file: "devtools/speedscope-Chrome_141-no-arg-data.json", profile: 1},
	}
	for _, tt := range tests {
		t.Run(tt.section, func(t *testing.T) {
			want := snap[tt.section]
			if want == nil {
				t.Fatalf("no section %q in the snapshot", tt.section)
			}
			path := corpus.Path(t, tt.file)
			res, err := ReadFile(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			// speedscope names a profile "FILE - THREAD" when a trace has
			// several.
			threads, raw := v8Threads(res.Profile), rawV8Threads(t, path)
			ti := 0
			if _, thread, ok := strings.Cut(want.Profile, " - "); ok {
				ti = slices.IndexFunc(threads, func(th *v8ThreadSamples) bool { return strings.HasSuffix(th.name, "/"+thread) })
			}
			if ti < 0 || len(threads) != len(raw) {
				t.Fatalf("no thread for speedscope's profile %q", want.Profile)
			}
			rawTi := slices.IndexFunc(raw, func(th *v8Thread) bool {
				return len(raw) == 1 || th.pid == threads[ti].pid && th.tid == threads[ti].tid
			})
			p := raw[rawTi].profiles[tt.profile]
			if len(want.Frames) == 0 {
				if n := p.len(); n != 0 {
					t.Fatalf("speedscope shows no frames; profile %s has %d samples", p.name, n)
				}
				return
			}
			key := speedscopeKey
			if tt.legacy {
				key = func(name, file string, line, col int64) v8FrameKey {
					return speedscopeKey(name, file, line-1, 0)
				}
			}
			compareSpeedscope(t, threads[ti], p, want.Frames, key)
		})
	}
}
