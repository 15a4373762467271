package eval

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/cctest"
	"github.com/google/pprof/profile"
)

// ms is one tick of the test profiles: 1 ms in nanoseconds.
const ms = 1_000_000

// timeline builds folded lines of 1 ms ticks: each block is a stack and a
// tick count, in time order, on thread "main" unless the stack starts with
// "thread=NAME ".
func timeline(blocks ...any) []string {
	var lines []string
	at := map[string]int64{}
	for i := 0; i < len(blocks); i += 2 {
		stack, n := blocks[i].(string), blocks[i+1].(int)
		thread := "main"
		if rest, ok := strings.CutPrefix(stack, "thread="); ok {
			thread, stack, _ = strings.Cut(rest, " ")
		}
		for range n {
			lines = append(lines, fmt.Sprintf("@%d thread=%s %s %d", at[thread], thread, stack, ms))
			at[thread] += ms
		}
	}
	return lines
}

// app is a small web-app-like profile: idle time, a click handler with a
// render and a fetch, minified library code and a worker thread.
func app(tb testing.TB) *profile.Profile {
	tb.Helper()
	return cctest.Profile(tb, timeline(
		"(idle)", 100,
		"onClick@app.js;render@app.js;layout@app.js", 50,
		"onClick@app.js;render@app.js", 30,
		"onClick@app.js;render@app.js;getComputedStyle", 5,
		"onClick@app.js;fetchData@app.js;parse@app.js", 40,
		"onClick@app.js;fetchData@app.js;parse@app.js;tiny@app.js", 2,
		"(idle)", 50,
		"(anonymous)@app.js;Xa@lib.min.js;Qb@lib.min.js", 60,
		"(anonymous)@app.js;Xa@lib.min.js;Rc@lib.min.js", 20,
		"(anonymous)@app.js;Xa@lib.min.js;Ud@lib.min.js;Ve@lib.min.js", 30,
		"(anonymous)@app.js;Xa@lib.min.js;Wf@lib.min.js", 10,
		"(anonymous)@app.js;Xa@lib.min.js;Yg@lib.min.js", 5,
		"(anonymous)@app.js;Xa@lib.min.js;Zh@lib.min.js", 5,
		"onClick@app.js;render@app.js;layout@app.js", 20,
		"(idle)", 30,
		"thread=worker onmessage@worker.js;compute@worker.js;step@worker.js", 80,
		"thread=worker onmessage@worker.js;compute@worker.js", 20,
		"thread=worker onmessage@worker.js;compute@worker.js;check@worker.js", 40,
		"thread=worker onmessage@worker.js;compute@worker.js;check@worker.js;rule@worker.js", 8,
		"thread=worker onmessage@worker.js;compute@worker.js;check@worker.js;rule2@worker.js", 7,
	)...)
}

func mustTemplate(tb testing.TB, p *profile.Profile) *template {
	tb.Helper()
	t, err := newTemplate("app", p)
	if err != nil {
		tb.Fatal(err)
	}
	return t
}

// nodeAt finds the template node of a thread and root-first function names.
func nodeAt(tb testing.TB, w *world, thread int32, names ...string) int32 {
	tb.Helper()
	n := w.roots[thread]
	for _, name := range names {
		found := false
		for i, x := range w.nodes {
			if x.parent == n && w.frames[x.frame].Function == name {
				n, found = int32(i), true
				break
			}
		}
		if !found {
			tb.Fatalf("no node %v", names)
		}
	}
	return n
}

// dump builds the tree of a profile the way the harness does and renders it.
func dump(tb testing.TB, p *profile.Profile) string {
	tb.Helper()
	tr, err := cct.FromProfile(p, cct.Options{Prune: true})
	if err != nil {
		tb.Fatal(err)
	}
	if err := tr.Validate(); err != nil {
		tb.Fatal(err)
	}
	return cctest.Dump(tr, 0)
}

func TestTemplate(t *testing.T) {
	p := app(t)
	tm := mustTemplate(t, p)
	if tm.period != ms || !tm.timed || len(tm.thread) != 2 {
		t.Fatalf("period %d, timed %v, %d threads; want 1ms, true, 2", tm.period, tm.timed, len(tm.thread))
	}
	if tm.thread[0].Label != "main" || tm.thread[1].Label != "worker" {
		t.Errorf("thread labels %q, %q", tm.thread[0].Label, tm.thread[1].Label)
	}
	// "(anonymous)" is pruned as cct prunes it: Xa hangs off the thread.
	xa := nodeAt(t, &tm.world, 0, "Xa")
	if got := tm.path(xa); !slices.Equal(got, []Frame{{Function: "Xa", File: "lib.min.js"}}) {
		t.Errorf("path of Xa = %v", got)
	}
	if got := tm.total[xa]; got != 130*ms {
		t.Errorf("total of Xa = %d, want 130ms", got)
	}
	render := nodeAt(t, &tm.world, 0, "onClick", "render")
	if got := tm.total[render]; got != 105*ms {
		t.Errorf("total of render = %d, want 105ms", got)
	}
	if tm.idle[0] < 0 || tm.idle[1] >= 0 {
		t.Errorf("idle stacks %v: want one on main only", tm.idle)
	}
	layout := nodeAt(t, &tm.world, 0, "onClick", "render", "layout")
	if !tm.within(layout, render) || tm.within(render, layout) || tm.within(xa, render) {
		t.Error("within is wrong")
	}
	locs, ok := tm.locsTo(render)
	if !ok || len(locs) != 2 {
		t.Fatalf("locsTo(render) = %v, %v", locs, ok)
	}
	if got := tm.stacks[tm.stackID(0, locs)].node; got != render {
		t.Errorf("the stack of locsTo(render) ends at node %d, want %d", got, render)
	}
}

// TestProfileRoundTrip: writing the template's own run gives a profile whose
// tree is the original's, with the same thread labels and time order.
func TestProfileRoundTrip(t *testing.T) {
	p := app(t)
	tm := mustTemplate(t, p)
	out := tm.profile(tm, tm.base, nil, nil)
	if err := out.CheckValid(); err != nil {
		t.Fatal(err)
	}
	if got, want := dump(t, out), dump(t, p); got != want {
		t.Errorf("round trip changed the tree:\n%s\nwant:\n%s", got, want)
	}
	// Consecutive ticks of a stack are one sample: 20 blocks, 20 samples.
	if len(out.Sample) != 20 {
		t.Errorf("%d samples, want one per block (20)", len(out.Sample))
	}
}

func TestProfileRename(t *testing.T) {
	tm := mustTemplate(t, app(t))
	out := tm.profile(tm, tm.base, map[Frame]string{{Function: "Qb", File: "lib.min.js"}: "Kp"}, nil)
	if err := out.CheckValid(); err != nil {
		t.Fatal(err)
	}
	d := dump(t, out)
	if strings.Contains(d, "Qb") || !strings.Contains(d, "    Kp 60000000 60000000") {
		t.Errorf("Qb not renamed to Kp:\n%s", d)
	}
	// The template's functions are untouched.
	for _, fn := range tm.funcs {
		if fn.Name == "Kp" {
			t.Error("renaming changed the template")
		}
	}
}

func TestNewTemplateErrors(t *testing.T) {
	p := app(t)
	p.SampleType = []*profile.ValueType{{Type: "samples", Unit: "count"}}
	if _, err := newTemplate("x.cpuprofile", p); err == nil || !strings.Contains(err.Error(), "x.cpuprofile: no sample type in nanoseconds") {
		t.Errorf("err = %v", err)
	}
	p = app(t)
	p.Sample = nil
	if _, err := newTemplate("x.cpuprofile", p); err == nil || err.Error() != "x.cpuprofile: no samples" {
		t.Errorf("err = %v", err)
	}
}

// TestFrameIdentity: the harness tells functions apart as cct does — two
// functions of one name in one script (hx) by where they are defined, and a
// frame without a position joins the one position its name has — so that
// every node it picks is one node of cct's tree.
func TestFrameIdentity(t *testing.T) {
	fn := func(id uint64, name string, start int64) *profile.Function {
		return &profile.Function{ID: id, Name: name, SystemName: name, Filename: "s.js", StartLine: start}
	}
	main, h5, h9, g3, g0 := fn(1, "main", 1), fn(2, "hx", 5), fn(3, "hx", 9), fn(4, "gx", 3), fn(5, "gx", 0)
	loc := func(id uint64, f *profile.Function, line, col int64) *profile.Location {
		return &profile.Location{ID: id, Line: []profile.Line{{Function: f, Line: line, Column: col}}}
	}
	lm, lh5, lh9, lg3, lg0 := loc(1, main, 1, 0), loc(2, h5, 5, 2), loc(3, h9, 9, 4), loc(4, g3, 3, 1), loc(5, g0, 0, 0)
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		Function:   []*profile.Function{main, h5, h9, g3, g0},
		Location:   []*profile.Location{lm, lh5, lh9, lg3, lg0},
	}
	for _, s := range []struct {
		leaf *profile.Location
		n    int
	}{{lh5, 3}, {lh9, 2}, {lg3, 1}, {lg0, 4}} {
		for range s.n {
			p.Sample = append(p.Sample, &profile.Sample{Location: []*profile.Location{s.leaf, lm}, Value: []int64{ms}})
		}
	}
	tm := mustTemplate(t, p)
	tr := treeOf(t, tm, &tm.world, tm.base, nil)
	for _, c := range []struct {
		f    Frame
		want int64
	}{
		{Frame{Function: "hx", File: "s.js", Line: 5, Column: 2}, 3 * ms},
		{Frame{Function: "hx", File: "s.js", Line: 9, Column: 4}, 2 * ms},
		{Frame{Function: "gx", File: "s.js", Line: 3, Column: 1}, 5 * ms},
	} {
		path := Path{Thread: tm.thread[0].Label, Frames: []Frame{{Function: "main", File: "s.js", Line: 1}, c.f}}
		totals, ok := pathTotals(tr, path, nil)
		if !ok || totals[2] != c.want {
			t.Errorf("%v: %v, %v; want %v", c.f, totals, ok, time.Duration(c.want))
		}
		if !slices.Contains(tm.frames, c.f) {
			t.Errorf("the template has no frame %v: %v", c.f, tm.frames)
		}
	}
	if n := len(tm.kids[nodeAt(t, &tm.world, 0, "main")]); n != 3 {
		t.Errorf("main has %d children in the template, want 3 as in cct", n)
	}
	if fs := tm.funcsOf[Frame{Function: "gx", File: "s.js", Line: 3, Column: 1}]; len(fs) != 2 {
		t.Errorf("gx at line 3 is made by %d functions, want both", len(fs))
	}
}
