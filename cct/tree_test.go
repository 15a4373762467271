package cct_test

import (
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/cctest"
	"github.com/google/pprof/profile"
)

func TestBuild(t *testing.T) {
	tests := []struct {
		name  string
		opts  cct.Options
		lines []string
		want  string
	}{
		{
			name:  "children keep first-appearance order",
			lines: []string{"main;b 1", "main;a 2", "main;b 3", "main;a;x 4"},
			want: `(all threads) 0 10
  main 0 10
    b 4 4
    a 2 6
      x 4 4
`,
		},
		{
			name:  "timestamps order children by first execution, not file order",
			lines: []string{"@30 main;late 1", "@10 main;early 2", "@20 main;early 3"},
			want: `(all threads) 0 6
  main 0 6
    early 5 5
    late 1 1
`,
		},
		{
			name:  "threads are separate subtrees, named by label",
			lines: []string{"thread=ui main;a 1", "thread=worker main;b 2", "thread=ui main;c 3"},
			want: `ui 0 4
  main 0 4
    a 1 1
    c 3 3
worker 0 2
  main 0 2
    b 2 2
`,
		},
		{
			name:  "prune drops anonymous and one-letter frames and re-parents children",
			opts:  cct.Options{Prune: true},
			lines: []string{"main;(anonymous);e;work 5", "main;x 2"},
			want: `(all threads) 0 7
  main 2 7
    work 5 5
`,
		},
		{
			name:  "self on an inner frame",
			lines: []string{"main;a 3", "main 1"},
			want: `(all threads) 0 4
  main 1 4
    a 3 3
`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := cctest.Tree(t, tt.opts, tt.lines...)
			if got := cctest.Dump(tr, 0); got != tt.want {
				t.Errorf("tree:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

func TestCallSites(t *testing.T) {
	// f calls g from two different lines: one node without call sites, two with.
	p := cctest.Profile(t, "f;g 1", "f;g 2")
	p.Sample[0].Location[1].Line[0].Line = 10 // caller f at line 10
	fn := p.Sample[0].Location[1].Line[0].Function
	p.Sample[1].Location[1] = &profile.Location{ID: 99, Line: []profile.Line{{Function: fn, Line: 20}}}
	p.Location = append(p.Location, p.Sample[1].Location[1])
	for _, tt := range []struct {
		callSites bool
		want      int
	}{{false, 1}, {true, 2}} {
		tr, err := cct.FromProfile(p, cct.Options{CallSites: tt.callSites})
		if err != nil {
			t.Fatal(err)
		}
		f := tr.Children(tr.Children(1)[0])
		if len(f) != tt.want {
			t.Errorf("CallSites=%v: f has %d children, want %d", tt.callSites, len(f), tt.want)
		}
		if tt.callSites {
			if cs := tr.FrameOf(f[1]).CallSite; cs != 20 {
				t.Errorf("second g's call site = %d, want 20", cs)
			}
		}
	}
}

func TestInlinedFramesExpand(t *testing.T) {
	p := cctest.Profile(t, "outer;leaf 1")
	// Make the leaf location hold an inlined frame: Line[0] is innermost.
	inl := &profile.Function{ID: 50, Name: "inlined", SystemName: "inlined"}
	p.Function = append(p.Function, inl)
	loc := p.Sample[0].Location[0]
	loc.Line = append([]profile.Line{{Function: inl}}, loc.Line...)
	tr, err := cct.FromProfile(p, cct.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "(all threads) 0 1\n  outer 0 1\n    leaf 0 1\n      inlined 1 1\n"
	if got := cctest.Dump(tr, 0); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestThreadOrdinals(t *testing.T) {
	p := cctest.Profile(t, "a 1", "b 2", "c 3")
	for i, tid := range []int64{7, 9, 7} {
		p.Sample[i].Label = map[string][]string{"thread": {"worker"}}
		p.Sample[i].NumLabel = map[string][]int64{"tid": {tid}}
	}
	tr, err := cct.FromProfile(p, cct.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := "worker 0 4\n  a 1 1\n  c 3 3\nworker #2 0 2\n  b 2 2\n"
	if got := cctest.Dump(tr, 0); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestPools: with Options.Pools the threads of a pool (names equal but
// for numbers, and ordinals of one name) are one thread frame per pool;
// without it, one per thread.
func TestPools(t *testing.T) {
	p := cctest.Profile(t, "a 1", "b 2", "c 3", "d 4", "e 5")
	for i, th := range []struct {
		name string
		tid  int64
	}{{"worker", 7}, {"worker", 9}, {"pool-1-thread-2", 11}, {"pool-1-thread-12", 12}, {"main", 1}} {
		p.Sample[i].Label = map[string][]string{"thread": {th.name}}
		p.Sample[i].NumLabel = map[string][]int64{"tid": {th.tid}}
	}
	for _, tt := range []struct {
		pools bool
		names []string
		want  string
	}{
		{false, nil, "worker 0 1\n  a 1 1\nworker #2 0 2\n  b 2 2\npool-1-thread-2 0 3\n  c 3 3\npool-1-thread-12 0 4\n  d 4 4\nmain 0 5\n  e 5 5\n"},
		{true, nil, "worker 0 3\n  a 1 1\n  b 2 2\npool-#-thread-# 0 7\n  c 3 3\n  d 4 4\nmain 0 5\n  e 5 5\n"},
		// PoolNames: that pool only
		{true, []string{"pool-#-thread-#"}, "worker 0 1\n  a 1 1\nworker #2 0 2\n  b 2 2\npool-#-thread-# 0 7\n  c 3 3\n  d 4 4\nmain 0 5\n  e 5 5\n"},
	} {
		tr, err := cct.FromProfile(p, cct.Options{Pools: tt.pools, PoolNames: tt.names})
		if err != nil {
			t.Fatal(err)
		}
		if got := cctest.Dump(tr, 0); got != tt.want {
			t.Errorf("pools %v: got\n%s\nwant\n%s", tt.pools, got, tt.want)
		}
	}
	for in, want := range map[string]string{"pool-1-thread-12": "pool-#-thread-#", "worker": "worker", "GC Thread#3": "GC Thread#", "": ""} {
		if got := cct.PoolName(in); got != want {
			t.Errorf("PoolName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestThreadFrames: a thread node's frame names its thread and process in
// Thread and Process, not in Function and File, and ThreadLabel shows them.
func TestThreadFrames(t *testing.T) {
	p := cctest.Profile(t, "a 1", "b 2")
	p.Sample[0].Label = map[string][]string{"thread": {"main"}, "process": {"app"}}
	tr, err := cct.FromProfile(p, cct.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []cct.Frame
	for _, id := range tr.Children(cct.RootID) {
		got = append(got, tr.FrameOf(id))
	}
	want := []cct.Frame{{Thread: "main", Process: "app", Kind: cct.KindThread}, {Kind: cct.KindThread}}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("thread frames %+v, want %+v", got, want)
	}
	for _, tt := range []struct {
		f    cct.Frame
		want string
	}{
		{cct.Frame{Thread: "main", Process: "app", Kind: cct.KindThread}, "app/main"},
		{cct.Frame{Thread: "main", Ordinal: 1, Kind: cct.KindThread}, "main #2"},
		{cct.Frame{Process: "app", Kind: cct.KindThread}, "app/(thread)"},
		{cct.Frame{Ordinal: 2, Kind: cct.KindThread}, "(thread) #3"},
		{cct.Frame{Kind: cct.KindThread}, "(all threads)"},
		// A function's name is not a thread's.
		{cct.Frame{Function: "f", File: "f.go", Kind: cct.KindThread}, "(all threads)"},
	} {
		if got := cct.ThreadLabel(tt.f); got != tt.want {
			t.Errorf("ThreadLabel(%+v) = %q, want %q", tt.f, got, tt.want)
		}
	}
}

func TestPathIndex(t *testing.T) {
	tr := cctest.Tree(t, cct.Options{}, "main;a;b 1", "main;c 1")
	for id := cct.NodeID(1); int(id) < len(tr.Nodes); id++ {
		path := tr.Path(id)
		frames := make([]cct.FrameID, len(path))
		for i, n := range path {
			frames[i] = tr.Node(n).Frame
		}
		got, ok := tr.Lookup(frames)
		if !ok || got != id {
			t.Errorf("Lookup(Path(%d)) = %d, %v", id, got, ok)
		}
	}
	if _, ok := tr.Lookup([]cct.FrameID{99}); ok {
		t.Error("Lookup of an unknown frame succeeded")
	}
}

func TestMergeRejectsOtherSampleTypes(t *testing.T) {
	b := cct.NewBuilder(cct.Options{})
	if err := b.Add(cctest.Profile(t, "a 1")); err != nil {
		t.Fatal(err)
	}
	other := cctest.ProfileTypes(t, []*profile.ValueType{{Type: "samples", Unit: "count"}}, "a 1")
	err := b.Add(other)
	if err == nil || !strings.Contains(err.Error(), "sample types [samples/count] differ from the first profile's [cpu/nanoseconds]") {
		t.Fatalf("err = %v", err)
	}
}

func TestSampleIndex(t *testing.T) {
	tr := cct.New([]cct.ValueType{{"samples", "count"}, {"cpu", "nanoseconds"}})
	for _, tt := range []struct {
		in   string
		want int
		err  string
	}{
		{"", 1, ""},
		{"samples", 0, ""},
		{"cpu/nanoseconds", 1, ""},
		{"alloc", 0, `sample type "alloc" not found: must be one of: [samples/count cpu/nanoseconds]`},
	} {
		got, err := tr.SampleIndex(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("SampleIndex(%q) err = %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("SampleIndex(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
}

// deepLine returns a folded stack of n frames cycling through a few names.
func deepLine(n int, value string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString([]string{"rec", "helper", "step"}[i%3])
	}
	return b.String() + " " + value
}

func TestDeepStacks(t *testing.T) {
	const depth = 100_000
	tr := cctest.Tree(t, cct.Options{}, deepLine(depth, "5"), deepLine(depth/2, "3"))
	if len(tr.Nodes) != depth+2 {
		t.Fatalf("nodes = %d, want %d", len(tr.Nodes), depth+2)
	}
	if got := tr.Total(cct.RootID)[0]; got != 8 {
		t.Errorf("root total = %d, want 8", got)
	}
	if p := tr.Path(cct.NodeID(len(tr.Nodes) - 1)); len(p) != depth+1 {
		t.Errorf("deepest path has %d nodes, want %d", len(p), depth+1)
	}
	flat := cct.Flat(tr)
	for _, e := range flat {
		if e.Total[0] != 8 { // every function is on both stacks: counted once per stack
			t.Errorf("flat %s total = %d, want 8", e.Function, e.Total[0])
		}
	}
	up := cct.BottomUp(tr)
	if err := up.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := up.Total(cct.RootID)[0]; got != 8 {
		t.Errorf("bottom-up root total = %d, want 8", got)
	}
}
