package convert

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/google/pprof/profile"
)

// Helpers shared by the DevTools and .cpuprofile tests.

// v8Dump writes a converted profile as text: a header, then one line per
// sample: thread, timestamp, values, stack root first as name@file:line:col.
func v8Dump(res *Result) string {
	p := res.Profile
	var sb strings.Builder
	var types []string
	for _, st := range p.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	fmt.Fprintf(&sb, "format %s; sample types %s (default %s); period %d %s/%s; time %d; duration %d\n",
		res.Format, strings.Join(types, ", "), p.DefaultSampleType, p.Period, p.PeriodType.Type, p.PeriodType.Unit,
		p.TimeNanos, p.DurationNanos)
	for _, w := range res.Warnings {
		fmt.Fprintf(&sb, "warning: %s\n", w)
	}
	for _, s := range p.Sample {
		ts := "-"
		if v := s.NumLabel[labels.Timestamp]; len(v) > 0 {
			ts = fmt.Sprint(v[0])
		}
		fmt.Fprintf(&sb, "%s pid=%v tid=%v t=%s %v %s\n", strings.TrimSpace(ThreadName(s)+" "),
			s.NumLabel[labels.PID], s.NumLabel[labels.TID], ts, s.Value, v8StackString(s))
	}
	return sb.String()
}

func v8StackString(s *profile.Sample) string {
	var fs []string
	for i := len(s.Location) - 1; i >= 0; i-- {
		k := v8Key(s.Location[i])
		fs = append(fs, fmt.Sprintf("%s@%s:%d:%d", k.name, k.file, k.line, k.col))
	}
	return strings.Join(fs, ";")
}

// v8FrameKey is a frame as speedscope and the samples tables key it.
type v8FrameKey struct {
	name, file string
	line, col  int64 // 1-based, 0 unknown
}

func v8Key(l *profile.Location) v8FrameKey {
	ln := l.Line[0]
	return v8FrameKey{name: ln.Function.Name, file: ln.Function.Filename, line: ln.Line, col: ln.Column}
}

// v8ThreadSamples is one thread's samples in output order.
type v8ThreadSamples struct {
	pid, tid int64
	name     string
	samples  []*profile.Sample
}

// v8Threads groups samples by (pid, tid) in order of first appearance.
func v8Threads(p *profile.Profile) []*v8ThreadSamples {
	var out []*v8ThreadSamples
	idx := map[[2]int64]*v8ThreadSamples{}
	for _, s := range p.Sample {
		k := [2]int64{firstNum(s, labels.PID), firstNum(s, labels.TID)}
		th := idx[k]
		if th == nil {
			th = &v8ThreadSamples{pid: k[0], tid: k[1], name: ThreadName(s)}
			idx[k] = th
			out = append(out, th)
		}
		th.samples = append(th.samples, s)
	}
	return out
}

func firstNum(s *profile.Sample, key string) int64 {
	if v := s.NumLabel[key]; len(v) > 0 {
		return v[0]
	}
	return -1
}

func timestamp(s *profile.Sample) int64 { return firstNum(s, labels.Timestamp) }

// v8Times are a frame's self and total samples and time (ns).
type v8Times struct {
	selfN, totalN int64
	self, total   int64
}

// pureView is the plain sampling view: a sample's weight (its value) goes
// to its leaf's self and, once per stack, to every frame's total.
func pureView(samples []*profile.Sample) map[v8FrameKey]*v8Times {
	out := map[v8FrameKey]*v8Times{}
	get := func(k v8FrameKey) *v8Times {
		if out[k] == nil {
			out[k] = &v8Times{}
		}
		return out[k]
	}
	for _, s := range samples {
		leaf := get(v8Key(s.Location[0]))
		leaf.selfN += s.Value[0]
		leaf.self += s.Value[1]
		seen := map[v8FrameKey]bool{}
		for _, l := range s.Location {
			k := v8Key(l)
			if !seen[k] {
				seen[k] = true
				get(k).totalN += s.Value[0]
				get(k).total += s.Value[1]
			}
		}
	}
	return out
}

// ssSample is a sample as speedscope's model needs it.
type ssSample struct {
	stack []*profile.Location // leaf first
	t     int64
}

func ssSamples(samples []*profile.Sample) []ssSample {
	out := make([]ssSample, len(samples))
	for i, s := range samples {
		out[i] = ssSample{s.Location, timestamp(s)}
	}
	return out
}

// rawV8Threads reads a trace into its threads and profiles without the
// emitter's sorting: the samples in file order, as speedscope sees them.
func rawV8Threads(t *testing.T, path string) []*v8Thread {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		if r, err = gzip.NewReader(f); err != nil {
			t.Fatal(err)
		}
	}
	in := &parserInput{Name: path, R: bufio.NewReader(r), Options: &Options{}}
	if strings.Contains(path, ".cpuprofile") {
		th, err := readCpuprofile(in)
		if err != nil {
			t.Fatal(err)
		}
		return []*v8Thread{th}
	}
	tr := newTraceReader(in)
	if err := tr.read(); err != nil {
		t.Fatal(err)
	}
	threads, err := tr.threads()
	if err != nil {
		t.Fatal(err)
	}
	return threads
}

// disagreeingLeaves returns the frames whose self time speedscope's rules
// give differently from ours, beyond the last sample:
//   - the leaves of the samples around each negative delta (the run before
//     it, it and the two after): sorting them (DevTools, us) or clamping
//     them (speedscope) shares their time out differently;
//   - the leaf before a sample on an undefined node: speedscope skips that
//     sample and gives its time to the previous stack; we keep it under a
//     "(missing node ID)" frame.
func disagreeingLeaves(samples []ssSample) map[v8FrameKey]bool {
	out := map[v8FrameKey]bool{}
	for i := 1; i < len(samples); i++ {
		if k := v8Key(samples[i].stack[0]); strings.HasPrefix(k.name, "(missing node") && len(samples[i].stack) == 1 {
			out[v8Key(samples[i-1].stack[0])] = true
		}
		if samples[i].t >= samples[i-1].t {
			continue
		}
		from := i - 1
		for from > 0 && &samples[from-1].stack[0] == &samples[i-1].stack[0] {
			from--
		}
		for j := max(from-1, 0); j <= min(i+2, len(samples)-1); j++ {
			out[v8Key(samples[j].stack[0])] = true
		}
	}
	return out
}

// rawSamples lists a raw profile's samples in file order.
func rawSamples(p *v8Profile) []ssSample {
	b := newProfileBuilder()
	p.unpack()       // a trace's samples are packed (chunkProfile)
	nodes := p.nodes // resolved by unpack, or not yet
	if nodes == nil {
		for _, id := range p.ids {
			nodes = append(nodes, p.tree.resolve(id))
		}
	}
	out := make([]ssSample, len(nodes))
	memo := map[int32][]*profile.Location{} // one stack per node, as the reader shares them
	for i, n := range nodes {
		st, ok := memo[n]
		if !ok {
			frames, _ := p.tree.walk(n, b, nil, nil)
			for _, x := range frames {
				st = append(st, b.Profile().Location[x])
			}
			memo[n] = st
		}
		out[i] = ssSample{st, p.times[i]}
	}
	return out
}

// speedscopeView recomputes what speedscope's Chrome importer
// (src/import/chrome.ts, importFromChromeCPUProfile) shows for samples in
// the order given:
//   - runs of samples on the same node collapse into one; a run lasts until
//     the next run starts, and the last run ends at the last sample;
//   - a run that starts before the previous run did (a negative delta) is
//     moved to the previous run's start ("lastValidElapsed"), rather than
//     sorted into place as DevTools does;
//   - (idle) samples open no frame;
//   - (program) and (garbage collector) samples are put on top of the
//     previous sample's stack, so they count in its frames' totals (or, if
//     that stack holds the same frame, it is cut back to it);
//   - a sample on an undefined node is skipped (the previous stack stays
//     open), and a stack whose parent link dangles is cut there;
//   - totals count a recursive frame once per stack.
func speedscopeView(samples []ssSample) map[v8FrameKey]*v8Times {
	type run struct {
		stack []*profile.Location
		t     int64
	}
	var runs []run
	var lastValid int64
	for i, s := range samples {
		if i > 0 && &s.stack[0] == &samples[i-1].stack[0] { // stacks are memoized per node
			continue
		}
		t := s.t
		if i > 0 && t < lastValid {
			t = lastValid
		} else {
			lastValid = t
		}
		runs = append(runs, run{s.stack, t})
	}
	var end int64
	if n := len(samples); n > 0 {
		end = max(samples[n-1].t, lastValid)
	}
	out := map[v8FrameKey]*v8Times{}
	var prev []v8FrameKey
	for i, r := range runs {
		w := end - r.t
		if i+1 < len(runs) {
			w = runs[i+1].t - r.t
		}
		leaf := v8Key(r.stack[0])
		var open []v8FrameKey
		switch {
		case strings.HasPrefix(leaf.name, "(missing node") && len(r.stack) == 1:
			open = prev
		case leaf.name == "(idle)":
		case leaf.name == "(program)" || leaf.name == "(garbage collector)":
			// speedscope looks for the node anywhere in the previous stack
			// (prevStack.indexOf): (program) after [a, (program), (gc)]
			// closes (gc) and stays.
			if j := slices.Index(prev, leaf); j >= 0 {
				open = prev[:j+1]
			} else {
				open = append(slices.Clip(prev), leaf)
			}
		default:
			for j := len(r.stack) - 1; j >= 0; j-- {
				if k := v8Key(r.stack[j]); !strings.HasPrefix(k.name, "(missing node") {
					open = append(open, k)
				}
			}
		}
		seen := map[v8FrameKey]bool{}
		for j, k := range open {
			t := out[k]
			if t == nil {
				t = &v8Times{}
				out[k] = t
			}
			if j == len(open)-1 {
				t.self += w
			}
			if !seen[k] {
				seen[k] = true
				t.total += w
			}
		}
		prev = open
	}
	return out
}

// within reports whether got is within rel (relative) or abs of want.
func within(got, want, rel, abs float64) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	return d <= abs || d <= rel*max(want, -want)
}
