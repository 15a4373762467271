package cct_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/cctest"
	"github.com/ctdiff/ctdiff/internal/golden"
	"github.com/ctdiff/ctdiff/internal/long"
	"github.com/google/pprof/profile"
)

// inferred builds a timeline tree from folded lines and infers latencies.
func inferred(t testing.TB, opts cct.LatencyOptions, lines ...string) *cct.Tree {
	t.Helper()
	tr := cctest.Tree(t, cct.Options{Timeline: true}, lines...)
	if err := tr.InferLatency(opts); err != nil {
		t.Fatal(err)
	}
	checkLatency(t, tr)
	return tr
}

// latencyDump renders the PA-CCT in pre-order, one node per line:
// "path C=count c=conservative/own a=aggressive/own".
func latencyDump(tr *cct.Tree) string {
	var b strings.Builder
	for _, id := range tr.PreOrder()[1:] {
		nl := tr.Latency.Nodes[id]
		fmt.Fprintf(&b, "%s C=%d c=%d/%d a=%d/%d\n", pathName(tr, id), nl.Count,
			nl.Conservative.Total, nl.Conservative.Own, nl.Aggressive.Total, nl.Aggressive.Own)
	}
	return b.String()
}

// The paper's worked example (Section 3.3, Figure 3 and Table 1): stacks
// A>B>D, A>B>D, A>C>D and A>C at t1..t4.
var paperExample = []string{
	"@1000 A;B;D 1",
	"@2000 A;B;D 1",
	"@3000 A;C;D 1",
	"@4000 A;C 1",
}

func TestLatencyPaperExample(t *testing.T) {
	tr := inferred(t, cct.LatencyOptions{KeepInstances: true}, paperExample...)
	tname := func(ns int64) string { return fmt.Sprintf("t%d", ns/1000) }

	// Figure 3: five instances. A spans t1..t4; B and D (A>B>D) end at their
	// last sample t2 (conservative) or at t3, where the context changed
	// (aggressive); C spans t3..t4; D' (A>C>D) is seen only at t3, so 0
	// conservative and t3..t4 aggressive. Times are in ns, 1000 = t1.
	want := map[string][3]int64{ // C, conservative, aggressive
		"A":     {1, 3000, 3000},
		"A>B":   {1, 1000, 2000},
		"A>B>D": {1, 1000, 2000},
		"A>C":   {1, 1000, 1000},
		"A>C>D": {1, 0, 1000}, // D'
	}
	for _, id := range tr.PreOrder()[2:] {
		name := strings.TrimPrefix(pathName(tr, id), "(all threads):")
		nl := tr.Latency.Nodes[id]
		got := [3]int64{nl.Count, nl.Conservative.Total, nl.Aggressive.Total}
		if got != want[name] {
			t.Errorf("%s: C, conservative, aggressive = %v, want %v", name, got, want[name])
		}
		delete(want, name)
	}
	if len(want) != 0 {
		t.Errorf("missing nodes: %v", want)
	}

	// Table 1, transcribed from the paper: per depth and time, I (isNew),
	// A (AllNew), L (LastStack), T (ThisStack) and R (Register: start, end,
	// function), "-" where the paper has none.
	paper := [3][4]string{
		{"1 1 - A (t1,t1,A)", "0 0 A A (t1,t2,A)", "0 0 A A (t1,t3,A)", "0 0 A A (t1,t4,A)"},
		{"1 1 - B (t1,t1,B)", "0 0 B B (t1,t2,B)", "1 1 B C (t3,t3,C)", "0 0 C C (t3,t4,C)"},
		{"1 1 - D (t1,t1,D)", "0 0 D D (t1,t2,D)", "1 1 D D (t3,t3,D)", "- - D - -"},
	}
	table := table1(tr, tname)
	for d := range paper {
		for k := range paper[d] {
			if table[d][k] != paper[d][k] {
				t.Errorf("Table 1, depth %d, t%d: got %q, the paper has %q", d, k+1, table[d][k], paper[d][k])
			}
		}
	}

	var b strings.Builder
	b.WriteString("# IntroPerf Table 1: I A L T R per depth (I isNew, A AllNew, L LastStack, T ThisStack, R Register)\n")
	for d, row := range table {
		fmt.Fprintf(&b, "depth %d | %s\n", d, strings.Join(row[:], " | "))
	}
	b.WriteString("\n# Figure 3: instances (start..conservative end / aggressive end)\n")
	for _, in := range tr.Latency.Instances {
		fmt.Fprintf(&b, "%-22s %s..%s / %s  latency c=%d a=%d\n", pathName(tr, in.Node),
			tname(in.Start), tname(in.EndConservative), tname(in.EndAggressive),
			in.Latency(cct.Conservative), in.Latency(cct.Aggressive))
	}
	b.WriteString("\n# PA-CCT: C, total/own conservative, total/own aggressive (ns)\n")
	b.WriteString(latencyDump(tr))
	golden.CheckString(t, "testdata/latency/paper-table1.txt", b.String())
}

// table1 rebuilds the paper's Table 1 from the timeline and the instance
// list: at each sample, the register of depth d holds the instance of that
// depth that covers the sample, ending (so far) at the sample.
func table1(tr *cct.Tree, tname func(int64) string) [3][4]string {
	var out [3][4]string
	var last []cct.NodeID
	for k, s := range tr.Timeline {
		this := tr.Path(s.Leaf)[1:] // without the thread
		for d := range out {
			cell := func(p []cct.NodeID) string {
				if d < len(p) {
					return tr.Label(p[d])
				}
				return "-"
			}
			l, th := cell(last), cell(this)
			r, isNew := "-", "-"
			for _, in := range tr.Latency.Instances {
				if int(tr.Node(in.Node).Depth) == d+2 && in.Start <= s.Time && s.Time <= in.EndConservative {
					r = fmt.Sprintf("(%s,%s,%s)", tname(in.Start), tname(s.Time), tr.Label(in.Node))
					isNew = map[bool]string{true: "1", false: "0"}[in.Start == s.Time]
				}
			}
			// AllNew equals isNew once a change has propagated (line 15).
			out[d][k] = fmt.Sprintf("%s %s %s %s %s", isNew, isNew, l, th, r)
		}
		last = this
	}
	return out
}

func TestLatencyCases(t *testing.T) {
	off := cct.LatencyOptions{Gap: -1}
	tests := []struct {
		name  string
		opts  cct.LatencyOptions
		lines []string
		want  string
	}{
		{
			name: "recursion: each depth is its own context",
			opts: off,
			lines: []string{
				"@10 main;f 1", "@20 main;f;f 1", "@30 main;f;f;f 1", "@40 main;f;f 1", "@50 main;f;f;f 1",
			},
			// The deepest f is seen twice, at 30 and at 50: two instances.
			want: `(all threads): C=1 c=40/0 a=40/0
(all threads):main C=1 c=40/0 a=40/0
(all threads):main>f C=1 c=40/10 a=40/10
(all threads):main>f>f C=1 c=30/30 a=30/20
(all threads):main>f>f>f C=2 c=0/0 a=10/10
`,
		},
		{
			name: "a context change in the middle of the stack breaks every deeper frame",
			opts: off,
			lines: []string{
				"@10 main;a;x;y 1", "@20 main;a;x;y 1", "@30 main;b;x;y 1", "@40 main;b;x;y 1",
			},
			// x and y stay at the same depths with the same names, but their
			// context changed at depth 2: new instances under b.
			want: `(all threads): C=1 c=30/0 a=30/0
(all threads):main C=1 c=30/10 a=30/0
(all threads):main>a C=1 c=10/0 a=20/0
(all threads):main>a>x C=1 c=10/0 a=20/0
(all threads):main>a>x>y C=1 c=10/10 a=20/20
(all threads):main>b C=1 c=10/0 a=10/0
(all threads):main>b>x C=1 c=10/0 a=10/0
(all threads):main>b>x>y C=1 c=10/10 a=10/10
`,
		},
		{
			name:  "a frame that leaves and comes back is two instances",
			opts:  off,
			lines: []string{"@10 main;a 1", "@20 main 1", "@30 main;a 1", "@40 main;a 1"},
			want: `(all threads): C=1 c=30/0 a=30/0
(all threads):main C=1 c=30/20 a=30/10
(all threads):main>a C=2 c=10/10 a=20/20
`,
		},
		{
			name: "interleaved threads do not break each other's contexts",
			opts: off,
			lines: []string{
				"@10 thread=ui main;a 1", "@15 thread=worker w;x 1", "@20 thread=ui main;a 1",
				"@25 thread=worker w;x 1", "@30 thread=ui main;b 1", "@35 thread=worker w;y 1",
			},
			want: `ui: C=1 c=20/0 a=20/0
ui:main C=1 c=20/10 a=20/0
ui:main>a C=1 c=10/10 a=20/20
ui:main>b C=1 c=0/0 a=0/0
worker: C=1 c=20/0 a=20/0
worker:w C=1 c=20/10 a=20/0
worker:w>x C=1 c=10/10 a=20/20
worker:w>y C=1 c=0/0 a=0/0
`,
		},
		{
			name:  "unsorted input is put in time order",
			opts:  off,
			lines: []string{"@40 main;a 1", "@10 main;a 1", "@30 main 1", "@20 main;a 1"},
			want: `(all threads): C=1 c=30/0 a=30/0
(all threads):main C=1 c=30/20 a=30/10
(all threads):main>a C=2 c=10/10 a=20/20
`,
		},
		{
			name: "a gap ends every open instance at the last sample before it",
			// Spacings are 10ns, so the derived threshold is 40ns; 30→1000 is a gap.
			lines: []string{
				"@10 main;a 1", "@20 main;a 1", "@30 main;b 1", "@1000 main;b 1", "@1010 main;b 1", "@1020 main;b 1",
			},
			// Without the gap, main>b would span 30..1020; with it, b ends at
			// 30 in both modes and a new instance starts at 1000.
			want: `(all threads): C=2 c=40/0 a=40/0
(all threads):main C=2 c=40/10 a=40/0
(all threads):main>a C=1 c=10/10 a=20/20
(all threads):main>b C=2 c=20/20 a=20/20
`,
		},
		{
			name:  "the same trace with gap detection off",
			opts:  off,
			lines: []string{"@10 main;a 1", "@20 main;a 1", "@30 main;b 1", "@1000 main;b 1", "@1010 main;b 1", "@1020 main;b 1"},
			want: `(all threads): C=1 c=1010/0 a=1010/0
(all threads):main C=1 c=1010/10 a=1010/0
(all threads):main>a C=1 c=10/10 a=20/20
(all threads):main>b C=1 c=990/990 a=990/990
`,
		},
		{
			name:  "a context change across a gap ends at the last sample in both modes",
			opts:  cct.LatencyOptions{Gap: 100},
			lines: []string{"@10 main;a 1", "@20 main;a 1", "@500 main;b 1"},
			want: `(all threads): C=2 c=10/0 a=10/0
(all threads):main C=2 c=10/0 a=10/0
(all threads):main>a C=1 c=10/10 a=10/10
(all threads):main>b C=1 c=0/0 a=0/0
`,
		},
		{
			name:  "samples at equal times",
			opts:  off,
			lines: []string{"@10 main;a 1", "@10 main;b 1", "@20 main;b 1"},
			want: `(all threads): C=1 c=10/0 a=10/0
(all threads):main C=1 c=10/0 a=10/0
(all threads):main>a C=1 c=0/0 a=0/0
(all threads):main>b C=1 c=10/10 a=10/10
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := inferred(t, tt.opts, tt.lines...)
			if got := latencyDump(tr); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// Two profiles of one thread are two traces: instances never span them,
// even when the second one's clock continues the first one's.
func TestLatencyProfilesAreSeparateTraces(t *testing.T) {
	b := cct.NewBuilder(cct.Options{Timeline: true})
	for _, lines := range [][]string{{"@10 main;a 1", "@20 main;a 1"}, {"@30 main;a 1", "@40 main;a 1"}} {
		if err := b.Add(cctest.Profile(t, lines...)); err != nil {
			t.Fatal(err)
		}
	}
	tr := b.Finish()
	if err := tr.InferLatency(cct.LatencyOptions{Gap: -1}); err != nil {
		t.Fatal(err)
	}
	checkLatency(t, tr)
	want := `(all threads): C=2 c=20/0 a=20/0
(all threads):main C=2 c=20/0 a=20/0
(all threads):main>a C=2 c=20/20 a=20/20
`
	if got := latencyDump(tr); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if tr.Latency.Runs != 2 {
		t.Errorf("Runs = %d, want 2", tr.Latency.Runs)
	}
}

// Events that are not stack samples (0 in samples/count: JFR allocation
// events beside CPU samples) stay out of latency inference: interleaved, an
// allocation in main>alloc cut main>work's one instance into three, and
// their 1 ns spacing made every 10 ns silence a gap.
func TestLatencyTimelineSkipsEvents(t *testing.T) {
	types := []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}, {Type: "alloc_space", Unit: "bytes"}}
	p := cctest.ProfileTypes(t, types,
		"@10 main;work 1 10 0",
		"@20 main;work 1 10 0",
		"@21 main;alloc 0 0 512",
		"@22 main;alloc 0 0 512",
		"@30 main;work 1 10 0",
		"@31 main;alloc 0 0 512",
		"@40 main;work 1 10 0",
	)
	tr, err := cct.FromProfile(p, cct.Options{Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.InferLatency(cct.LatencyOptions{}); err != nil {
		t.Fatal(err)
	}
	if lat := tr.Latency; len(tr.Timeline) != 7 || lat.Samples != 4 || lat.Events != 3 || lat.Interval != 10 {
		t.Fatalf("timeline of %d: latency from %d samples, %d events left out, interval %d; want 7, 4, 3, 10", len(tr.Timeline), lat.Samples, lat.Events, lat.Interval)
	}
	checkLatency(t, tr)
	want := `(all threads): C=1 c=30/0 a=30/0
(all threads):main C=1 c=30/0 a=30/0
(all threads):main>work C=1 c=30/30 a=30/30
(all threads):main>alloc C=0 c=0/0 a=0/0
`
	if got := latencyDump(tr); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	// The allocations stay in the tree's values.
	if got := tr.Total(cct.RootID); !slices.Equal(got, []int64{4, 40, 1536}) {
		t.Errorf("root total %v, want [4 40 1536]", got)
	}
}

// A timeline edited out of order gives the same result as the sorted one.
func TestLatencyReordersTimeline(t *testing.T) {
	lines := []string{"@10 thread=a main;x 1", "@20 thread=a main;y 1", "@15 thread=b main;x 1", "@40 thread=b main 1"}
	want := latencyDump(inferred(t, cct.LatencyOptions{}, lines...))
	tr := cctest.Tree(t, cct.Options{Timeline: true}, lines...)
	slices.Reverse(tr.Timeline)
	if err := tr.InferLatency(cct.LatencyOptions{}); err != nil {
		t.Fatal(err)
	}
	checkLatency(t, tr)
	if got := latencyDump(tr); got != want {
		t.Errorf("reversed timeline:\n%s\nsorted:\n%s", got, want)
	}
}

// A sample whose stack is empty still continues its thread's instance but
// ends every function.
func TestLatencyEmptyStack(t *testing.T) {
	p := cctest.Profile(t, "@10 thread=t main;a 1", "@20 thread=t main 1", "@30 thread=t main;a 1")
	p.Sample[1].Location = nil
	tr, err := cct.FromProfile(p, cct.Options{Timeline: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.InferLatency(cct.LatencyOptions{Gap: -1}); err != nil {
		t.Fatal(err)
	}
	checkLatency(t, tr)
	want := `t: C=1 c=20/20 a=20/10
t:main C=2 c=0/0 a=10/0
t:main>a C=2 c=0/0 a=10/10
`
	if got := latencyDump(tr); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestLatencyNeedsTimestamps(t *testing.T) {
	const want = "latency inference needs per-sample timestamps, and the input has none (no sample carries the timestamp_ns label)"
	for name, tr := range map[string]*cct.Tree{
		"built without Options.Timeline": cctest.Tree(t, cct.Options{}, "@10 main;a 1", "@20 main 1"),
		"samples without timestamps":     cctest.Tree(t, cct.Options{Timeline: true}, "main;a 1", "main 1"),
	} {
		err := tr.InferLatency(cct.LatencyOptions{})
		if !errors.Is(err, cct.ErrNoTimeline) || err.Error() != want {
			t.Errorf("%s: err = %v, want %s", name, err, want)
		}
		if tr.Latency != nil || tr.LatencyTotal(cct.RootID, false) != 0 {
			t.Errorf("%s: latency set after an error", name)
		}
	}
}

func TestLatencyAccessors(t *testing.T) {
	tr := inferred(t, cct.LatencyOptions{}, paperExample...)
	b, ok := tr.Lookup(frames(t, tr, "", "A", "B"))
	if !ok {
		t.Fatal("A>B not found")
	}
	if got := tr.LatencyTotal(b, false); got != 1000 {
		t.Errorf("LatencyTotal(A>B, conservative) = %d, want 1000", got)
	}
	if got := tr.LatencyTotal(b, true); got != 2000 {
		t.Errorf("LatencyTotal(A>B, aggressive) = %d, want 2000", got)
	}
	if got := tr.LatencyOwn(b, true); got != 0 { // D covers all of B
		t.Errorf("LatencyOwn(A>B, aggressive) = %d, want 0", got)
	}
	a := tr.Node(b).Parent
	// A: 3000 − (B 1000 + C 1000) conservative, 3000 − (2000 + 1000) aggressive.
	if c, ag := tr.LatencyOwn(a, false), tr.LatencyOwn(a, true); c != 1000 || ag != 0 {
		t.Errorf("LatencyOwn(A) = %d/%d, want 1000/0", c, ag)
	}
	nl := tr.Latency.Nodes[b]
	if nl.Mean(cct.Conservative) != 1000 || nl.Mean(cct.Aggressive) != 2000 || tr.Count(b) != 1 {
		t.Errorf("A>B: μc %v μa %v C %d", nl.Mean(cct.Conservative), nl.Mean(cct.Aggressive), tr.Count(b))
	}
	if (&cct.NodeLatency{}).Mean(cct.Aggressive) != 0 {
		t.Error("Mean without instances is not 0")
	}
	if untouched := cctest.Tree(t, cct.Options{}, "a 1"); untouched.LatencyOwn(cct.RootID, true) != 0 {
		t.Error("LatencyOwn before InferLatency is not 0")
	}
}

// frames returns the frame ids of a thread name and functions, for Lookup.
func frames(t *testing.T, tr *cct.Tree, thread string, fns ...string) []cct.FrameID {
	t.Helper()
	id, ok := tr.FrameID(cct.Frame{Thread: thread, Kind: cct.KindThread})
	out := []cct.FrameID{id}
	for _, fn := range fns {
		f, ok2 := tr.FrameID(cct.Frame{Function: fn})
		ok = ok && ok2
		out = append(out, f)
	}
	if !ok {
		t.Fatalf("frames %q %v not in the tree", thread, fns)
	}
	return out
}

func TestParseLatencyMode(t *testing.T) {
	for in, want := range map[string]cct.LatencyMode{"conservative": cct.Conservative, "Aggressive": cct.Aggressive} {
		if got, err := cct.ParseLatencyMode(in); err != nil || got != want || !strings.EqualFold(got.String(), in) {
			t.Errorf("ParseLatencyMode(%q) = %v, %v", in, got, err)
		}
	}
	if _, err := cct.ParseLatencyMode("off"); err == nil || err.Error() != `latency mode "off" must be conservative or aggressive` {
		t.Errorf("err = %v", err)
	}
}

func TestSamplingInterval(t *testing.T) {
	// Spacings 12 10 15 965 9000 14 11 (a thread that idles now and then):
	// sorted 10 11 12 14 15 965 9000, lower quartile 11.
	lines := []string{"@0 a 1", "@12 a 1", "@22 a 1", "@37 a 1", "@1002 a 1", "@10002 a 1", "@10016 a 1", "@10027 a 1"}
	tests := []struct {
		name       string
		periodType cct.ValueType
		period     int64
		want       int64
	}{
		{"the spacings' lower quartile", cct.ValueType{}, 0, 11},
		{"a longer period wins", cct.ValueType{Type: "cpu", Unit: "nanoseconds"}, 50, 50},
		{"periods in other time units", cct.ValueType{Type: "wall", Unit: "microseconds"}, 2, 2000},
		{"a period that is not a time is ignored", cct.ValueType{Type: "cycles", Unit: "count"}, 1e6, 11},
	}
	for _, tt := range tests {
		tr := cctest.Tree(t, cct.Options{Timeline: true}, lines...)
		tr.PeriodType, tr.Period = tt.periodType, tt.period
		if got := tr.SamplingInterval(); got != tt.want {
			t.Errorf("%s: SamplingInterval() = %d, want %d", tt.name, got, tt.want)
		}
		if err := tr.InferLatency(cct.LatencyOptions{GapIntervals: 2}); err != nil {
			t.Fatal(err)
		}
		if tr.Latency.Interval != tt.want || tr.Latency.Gap != 2*tt.want {
			t.Errorf("%s: Interval %d Gap %d, want %d and %d", tt.name, tr.Latency.Interval, tr.Latency.Gap, tt.want, 2*tt.want)
		}
	}
	if got := cctest.Tree(t, cct.Options{Timeline: true}, "@5 a 1").SamplingInterval(); got != 0 {
		t.Errorf("one sample: SamplingInterval() = %d, want 0", got)
	}
}

// The quartile must not depend on how many spacings repeat exactly.
func TestSamplingIntervalManyEqualSpacings(t *testing.T) {
	lines := make([]string, 0, 20001)
	for i := range 20001 {
		lines = append(lines, fmt.Sprintf("@%d a 1", i*1000))
	}
	tr := cctest.Tree(t, cct.Options{Timeline: true}, lines...)
	if got := tr.SamplingInterval(); got != 1000 {
		t.Errorf("SamplingInterval() = %d, want 1000", got)
	}
}

// Random traces, compared with the paper's frame-by-frame algorithm.
func TestLatencyMatchesAlgorithm2(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		lines := randomTrace(r, 1+r.IntN(60))
		for _, opts := range []cct.LatencyOptions{{}, {Gap: -1}, {Gap: 7}} {
			tr := cctest.Tree(t, cct.Options{Timeline: true}, lines...)
			if err := tr.InferLatency(opts); err != nil {
				t.Fatal(err)
			}
			checkLatency(t, tr)
			if t.Failed() {
				t.Fatalf("trace %d, %+v:\n%s", i, opts, strings.Join(lines, "\n"))
			}
		}
	}
}

// randomTrace returns folded timestamped lines over a small alphabet, so
// contexts continue, change at every depth, recurse and come back.
func randomTrace(r *rand.Rand, n int) []string {
	lines := make([]string, n)
	stacks := map[string][]string{}
	now := map[string]int{}
	for i := range lines {
		th := []string{"t1", "t2"}[r.IntN(2)]
		st := stacks[th]
		switch r.IntN(4) { // mostly small changes at the top, like real stacks
		case 0:
			st = st[:r.IntN(len(st)+1)]
		case 1:
			if len(st) > 0 {
				st = st[:len(st)-1]
			}
		}
		for len(st) == 0 || r.IntN(3) == 0 && len(st) < 6 {
			st = append(slices.Clip(st), string(rune('a'+r.IntN(3))))
		}
		stacks[th] = st
		now[th] += []int{0, 1, 2, 3, 30}[r.IntN(5)] // equal times, jitter, gaps
		lines[i] = fmt.Sprintf("@%d thread=%s %s 1", now[th], th, strings.Join(st, ";"))
	}
	return lines
}

func FuzzLatency(f *testing.F) {
	f.Add([]byte("\x00\x01\x02\x10\x11\x03"))
	f.Add([]byte("\x21\x22\x23\x24\x40\x41\x42"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 200 {
			return
		}
		// Each byte: 2 bits of stack change, thread bit, 3 bits of time step.
		r := rand.New(rand.NewPCG(uint64(len(data)), 0))
		var lines []string
		now, st := 0, []string{}
		for _, c := range data {
			cut := int(c & 3)
			st = st[:max(0, len(st)-cut)]
			for range int(c>>6) + 1 {
				st = append(slices.Clip(st), string(rune('a'+r.IntN(2))))
			}
			now += int(c>>3&7) * int(c>>3&7)
			lines = append(lines, fmt.Sprintf("@%d thread=t%d %s 1", now, c>>2&1, strings.Join(st, ";")))
		}
		if len(lines) == 0 {
			return
		}
		for _, opts := range []cct.LatencyOptions{{}, {Gap: -1}} {
			tr := cctest.Tree(t, cct.Options{Timeline: true}, lines...)
			if err := tr.InferLatency(opts); err != nil {
				t.Fatal(err)
			}
			checkLatency(t, tr)
		}
	})
}

// Stacks 100,000 deep: a change at the leaf costs O(1), not O(depth).
func TestLatencyDeepStacks(t *testing.T) {
	long.Skip(t, "20 stacks of 100,000 frames")
	const depth = 100_000
	deep := deepLine(depth, "1")
	shallower := deepLine(depth-1, "1")
	var lines []string
	for i := range 20 {
		line := deep
		if i%2 == 1 {
			line = shallower
		}
		lines = append(lines, fmt.Sprintf("@%d %s", i*10, line))
	}
	tr := cctest.Tree(t, cct.Options{Timeline: true}, lines...)
	if err := tr.InferLatency(cct.LatencyOptions{}); err != nil {
		t.Fatal(err)
	}
	leaf := cct.NodeID(len(tr.Nodes) - 1)
	if c := tr.Count(leaf); c != 10 {
		t.Errorf("leaf C = %d, want 10 (it comes back every other sample)", c)
	}
	top := tr.Children(tr.Children(cct.RootID)[0])[0]
	if c, tot := tr.Count(top), tr.LatencyTotal(top, false); c != 1 || tot != 190 {
		t.Errorf("outermost frame: C %d total %d, want 1 and 190", c, tot)
	}
	// One instance per frame and the thread, plus the leaf's 9 returns.
	if tr.Latency.InstanceCount != depth+1+9 {
		t.Errorf("InstanceCount = %d, want %d", tr.Latency.InstanceCount, depth+1+9)
	}
}

func BenchmarkInferLatencyDeep(b *testing.B) {
	var lines []string
	for i := range 1000 {
		lines = append(lines, fmt.Sprintf("@%d %s", i*10, deepLine(10_000-i%2, "1")))
	}
	tr := cctest.Tree(b, cct.Options{Timeline: true}, lines...)
	b.ReportAllocs()
	for b.Loop() {
		if err := tr.InferLatency(cct.LatencyOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
