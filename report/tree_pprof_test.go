package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/cctest"
	"github.com/google/pprof/profile"
)

// roundTrip writes a tree as pprof, parses it and builds its tree again.
func roundTrip(t *testing.T, tr *cct.Tree, o TreeOptions, opts cct.Options) (*profile.Profile, *cct.Tree) {
	t.Helper()
	var buf bytes.Buffer
	if err := writeTreePprof(&buf, tr, o); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatalf("the written profile does not parse: %v", err)
	}
	back, err := cct.FromProfile(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	return p, back
}

func TestTreePprofEqualsTree(t *testing.T) {
	lines := []string{
		"thread=ui main;a;b 10", "thread=ui main;a 3", "thread=ui main;c 5",
		"thread=worker run;a;b 7", "thread=worker run;fib;fib;fib 2",
	}
	tr := cctest.Tree(t, cct.Options{}, lines...)
	p, back := roundTrip(t, tr, TreeOptions{}, cct.Options{})
	if got, want := cctest.Dump(back, 0), cctest.Dump(tr, 0); got != want {
		t.Errorf("pprof's tree:\n%s\nthe tree:\n%s", got, want)
	}
	if len(p.Sample) != 5 { // one per node with self: b, a, c, b, the deepest fib
		t.Errorf("%d samples, want 5", len(p.Sample))
	}
	if len(p.SampleType) != 1 || p.SampleType[0].Type != "cpu" {
		t.Errorf("sample types %v", p.SampleType)
	}
}

// Threads of the same name stay apart through thread_ordinal, and call-site
// frames keep their caller's line.
func TestTreePprofThreadsAndCallSites(t *testing.T) {
	p := cctest.Profile(t, "f;g 1", "f;g 2", "f;g 4")
	fn := p.Sample[0].Location[1].Line[0].Function
	p.Sample[0].Location[1].Line[0].Line = 10
	p.Sample[1].Location[1] = &profile.Location{ID: 99, Line: []profile.Line{{Function: fn, Line: 20}}}
	p.Location = append(p.Location, p.Sample[1].Location[1])
	for i, tid := range []int64{1, 1, 2} {
		p.Sample[i].Label = map[string][]string{"thread": {"w"}, "process": {"app"}}
		p.Sample[i].NumLabel = map[string][]int64{"tid": {tid}}
	}
	opts := cct.Options{CallSites: true}
	tr, err := cct.FromProfile(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := roundTrip(t, tr, TreeOptions{}, opts)
	// Read back, the second thread is told apart by its ordinal label, not
	// a tid: compare by dump after mapping ordinals to tids.
	for _, s := range out.Sample {
		if o := s.NumLabel[threadOrdinalLabel]; len(o) > 0 {
			s.NumLabel["tid"] = o
		}
	}
	back, err := cct.FromProfile(out, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := "app/w 0 3\n  f 0 3\n    g 1 1\n    g 2 2\napp/w #2 0 4\n  f 0 4\n    g 4 4\n"
	if got := cctest.Dump(back, 0); got != want || cctest.Dump(tr, 0) != want {
		t.Errorf("pprof's tree:\n%s\nthe tree:\n%s\nwant:\n%s", got, cctest.Dump(tr, 0), want)
	}
	if cs := back.FrameOf(back.Children(back.Children(1)[0])[1]).CallSite; cs != 20 {
		t.Errorf("second g's call site = %d, want 20", cs)
	}
}

func TestTreePprofLatency(t *testing.T) {
	tr := cctest.Tree(t, cct.Options{Timeline: true},
		"@1000 thread=t A;B;D 1", "@2000 thread=t A;B;D 1", "@3000 thread=t A;C;D 1", "@4000 thread=t A;C 1",
		"@4500 thread=t A;C;D;D 1", "@5000 thread=t A 1")
	if err := tr.InferLatency(cct.LatencyOptions{Gap: -1}); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []cct.LatencyMode{cct.Conservative, cct.Aggressive} {
		p, back := roundTrip(t, tr, TreeOptions{LatencyMode: mode}, cct.Options{})
		var types []string
		for _, st := range p.SampleType {
			types = append(types, st.Type+"/"+st.Unit)
		}
		if got := strings.Join(types, " "); got != "calls/count latency_conservative/nanoseconds latency_aggressive/nanoseconds cpu/nanoseconds" {
			t.Errorf("sample types %s", got)
		}
		if want := "latency_" + mode.String(); p.DefaultSampleType != want {
			t.Errorf("default sample type %q, want %q", p.DefaultSampleType, want)
		}
		// pprof's cumulative value of every calling context is the inferred
		// total, its flat calls the instance count, its flat cpu the self.
		for _, id := range tr.PreOrder()[1:] {
			path := tr.Path(id)
			frames := make([]cct.FrameID, len(path))
			for i, n := range path {
				f, ok := back.FrameID(tr.FrameOf(n))
				if !ok {
					t.Fatalf("frame %s missing from pprof", tr.Label(n))
				}
				frames[i] = f
			}
			bid, ok := back.Lookup(frames)
			if !ok {
				t.Fatalf("path of %s missing from pprof", tr.Label(id))
			}
			want := []int64{tr.Count(id), tr.LatencyTotal(id, false), tr.LatencyTotal(id, true), tr.Total(id)[0]}
			got := []int64{back.Self(bid)[0], back.Total(bid)[1], back.Total(bid)[2], back.Total(bid)[3]}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("%s: pprof %s = %d, want %d", tr.Label(id), types[i], got[i], want[i])
				}
			}
		}
	}
}

func TestTreeTextLatencyColumns(t *testing.T) {
	tr := cctest.Tree(t, cct.Options{Timeline: true}, "@1000 A;B;D 1", "@2000 A;B;D 1", "@3000 A;C;D 1", "@4000 A;C 1")
	if err := tr.InferLatency(cct.LatencyOptions{}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := writeTreeText(&buf, tr, TreeOptions{LatencyMode: cct.Aggressive}); err != nil {
		t.Fatal(err)
	}
	want := `Type: cpu/nanoseconds
View: top-down; total 4ns; 6 nodes
Latency: aggressive, inferred from stack continuity (IntroPerf): 6 instances from 4 timestamped samples; instances end after 4µs without a sample (0 gaps; sampling interval 1µs)
Latency total 3µs; own latencies add up to it

      self   self%      total  total%    calls       mean    latency        own
         0   0.00%        4ns 100.00%        1        3µs        3µs          0  [(all threads)]
         0   0.00%        4ns 100.00%        1        3µs        3µs          0  └─ A
         0   0.00%        2ns  50.00%        1        2µs        2µs          0     ├─ B
       2ns  50.00%        2ns  50.00%        1        2µs        2µs        2µs     │  └─ D
       1ns  25.00%        2ns  50.00%        1        1µs        1µs          0     └─ C
       1ns  25.00%        1ns  25.00%        1        1µs        1µs        1µs        └─ D
`
	if got := buf.String(); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// A 100,000-deep recursion: without latency only the leaf has a sample and
// pprof gets one 100,000-frame stack; with latency every frame would need
// its own full stack, which pprof cannot hold, and the error says so.
func TestTreePprofDeep(t *testing.T) {
	const depth = 100_000
	stack := strings.TrimSuffix(strings.Repeat("rec;", depth), ";")
	tr := cctest.Tree(t, cct.Options{Timeline: true}, "@10 "+stack+" 1", "@20 "+stack+" 1")
	p, err := treeProfile(tr, TreeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sample) != 1 || len(p.Sample[0].Location) != depth || len(p.Location) != 1 {
		t.Fatalf("%d samples, %d frames, %d locations; want 1, %d, 1", len(p.Sample), len(p.Sample[0].Location), len(p.Location), depth)
	}
	if err := tr.InferLatency(cct.LatencyOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err = treeProfile(tr, TreeOptions{})
	want := "the tree is too deep for pprof, which repeats the whole stack in every sample: 5000050000 frames in all, more than 268435456 (use the text or json format)"
	if err == nil || err.Error() != want {
		t.Errorf("err = %v, want %s", err, want)
	}
	var buf bytes.Buffer
	if err := writeTreeText(&buf, tr, TreeOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "[depth 100000] rec") {
		t.Errorf("text lacks the deepest frame")
	}
}
