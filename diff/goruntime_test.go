package diff

import (
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/google/pprof/profile"
)

// A regression that allocates more: the allocation under the user function
// and the background collector both grow; GoRuntime reports both and
// names the allocating function, and the cause's path goes through it.
func TestGoRuntime(t *testing.T) {
	base := `main;app.serve;app.render;runtime.mallocgc;runtime.nextFreeFast 20
main;app.serve;app.render 100
main;app.serve;app.parse;runtime.growslice;runtime.mallocgc 30
runtime.gcBgMarkWorker;runtime.gcDrain;runtime.scanobject 40
runtime.bgsweep;runtime.sweepone 5`
	nw := `main;app.serve;app.render;runtime.mallocgc;runtime.nextFreeFast 20
main;app.serve;app.render;runtime.mallocgc;runtime.gcAssistAlloc;runtime.gcDrainN 200
main;app.serve;app.render 100
main;app.serve;app.parse;runtime.growslice;runtime.mallocgc 30
runtime.gcBgMarkWorker;runtime.gcDrain;runtime.scanobject 240
runtime.bgsweep;runtime.sweepone 5`
	res, err := Compare(trees(t, base, base), trees(t, nw, nw), Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := res.GoRuntime
	if g == nil {
		t.Fatal("no GoRuntime summary")
	}
	if g.BackgroundGC != (Change{45 * ms, 245 * ms, 200 * ms}) {
		t.Errorf("background GC %+v", g.BackgroundGC)
	}
	if g.Allocation != (Change{50 * ms, 250 * ms, 200 * ms}) {
		t.Errorf("allocation %+v", g.Allocation)
	}
	if len(g.Allocators) != 1 || g.Allocators[0].Function != "app.render" || g.Allocators[0].Delta != 200*ms {
		t.Errorf("allocators %+v, want app.render +200ms only (parse's did not grow)", g.Allocators)
	}
	found := false
	for _, c := range res.Causes {
		p := framesOf(c.Path)
		if len(p) >= 3 && p[2] == "app.render" {
			found = true
		}
	}
	if !found {
		t.Errorf("no cause through app.render: %+v", res.Causes)
	}
	plain, err := Compare(trees(t, "main;a 10"), trees(t, "main;a 20"), Options{})
	if err != nil || plain.GoRuntime != nil {
		t.Errorf("profiles without runtime frames: GoRuntime %+v, %v", plain.GoRuntime, err)
	}
}

func framesOf(p []Frame) []string {
	s := make([]string, len(p))
	for i, f := range p {
		s[i] = f.Function
	}
	return s
}

// goProfile builds a pprof profile the way runtime/pprof writes one: cpu
// samples of leaf-first stacks. inlined puts helper into serve's location
// (two Line entries) instead of a location of its own; labels adds a
// goroutine label with a different value per sample.
func goProfile(inlined, labels bool) *profile.Profile {
	fn := func(id uint64, name string) *profile.Function {
		return &profile.Function{ID: id, Name: name, SystemName: name, Filename: "app.go"}
	}
	main, serve, helper := fn(1, "main.main"), fn(2, "app.serve"), fn(3, "app.helper")
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, Period: 1e7,
		Function: []*profile.Function{main, serve, helper},
	}
	lm := &profile.Location{ID: 1, Line: []profile.Line{{Function: main, Line: 10}}}
	var stack []*profile.Location
	if inlined {
		// One location: helper inlined into serve, innermost first.
		l := &profile.Location{ID: 2, Line: []profile.Line{{Function: helper, Line: 30}, {Function: serve, Line: 20}}}
		p.Location = []*profile.Location{lm, l}
		stack = []*profile.Location{l, lm}
	} else {
		ls := &profile.Location{ID: 2, Line: []profile.Line{{Function: serve, Line: 20}}}
		lh := &profile.Location{ID: 3, Line: []profile.Line{{Function: helper, Line: 30}}}
		p.Location = []*profile.Location{lm, ls, lh}
		stack = []*profile.Location{lh, ls, lm}
	}
	for i := range 10 {
		s := &profile.Sample{Location: stack, Value: []int64{1, 1e7}}
		if labels {
			s.Label = map[string][]string{"request": {string(rune('a' + i))}}
		}
		p.Sample = append(p.Sample, s)
	}
	return p
}

// A function that gets inlined in the new build keeps its calling context
// (cct expands a location's Line entries into frames), and goroutine labels
// do not split the tree: nothing changes between these builds.
func TestInlinedFramesAndLabels(t *testing.T) {
	build := func(inlined, labels bool) *cct.Tree {
		tr, err := cct.FromProfile(goProfile(inlined, labels), cct.Options{Prune: true})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	for _, tt := range []struct {
		name        string
		base, other *cct.Tree
	}{
		{"inlined in new", build(false, false), build(true, false)},
		{"goroutine labels in new", build(false, false), build(false, true)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := len(tt.other.Nodes), len(tt.base.Nodes); got != want {
				t.Errorf("%d nodes, want %d (root, thread, main, serve, helper)", got, want)
			}
			res, err := Compare([]*cct.Tree{tt.base}, []*cct.Tree{tt.other}, Options{MinDelta: Threshold{Value: 1}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Causes) != 0 || res.Topology.AddedCount != 0 || res.Topology.RemovedCount != 0 || res.Overlap.Percent != 100 {
				t.Errorf("causes %+v, topology %+v, overlap %.2f%%: want an identical tree", res.Causes, res.Topology, res.Overlap.Percent)
			}
		})
	}
	// The inlined helper is a frame below serve, not merged into it.
	tr := build(true, false)
	leaf := cct.NodeID(len(tr.Nodes) - 1)
	if tr.Label(leaf) != "app.helper" || tr.Label(tr.Nodes[leaf].Parent) != "app.serve" {
		t.Errorf("inlined location gave leaf %s under %s", tr.Label(leaf), tr.Label(tr.Nodes[leaf].Parent))
	}
}

// Go's runtime/internal packages (before Go 1.23) are the runtime too:
// mallocgc below one is charged to the user function above it. Before, the
// walk took runtime/internal/... for user code and named it the allocator.
func TestGoRuntimeInternal(t *testing.T) {
	base := "main;app.serve;runtime/internal/x.F;runtime.mallocgc 10"
	nw := "main;app.serve;runtime/internal/x.F;runtime.mallocgc 110"
	res, err := Compare(trees(t, base, base), trees(t, nw, nw), Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := res.GoRuntime
	if g == nil || len(g.Allocators) != 1 || g.Allocators[0].Function != "app.serve" {
		t.Fatalf("GoRuntime %+v, want the allocator app.serve", g)
	}
}
