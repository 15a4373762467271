package eval

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctdiff/ctdiff/cct"
)

func TestMinifiedName(t *testing.T) {
	for name, want := range map[string]bool{
		"Nc": true, "C8": true, "$b": true, "s_Zi": true, "s_$b.Ora": true, "f.vFb": true, "_G": true,
		"a": false, "render": false, "8a": false, "f.subscribe": false, "(idle)": false, "a-b": false,
	} {
		if got := minifiedName(name); got != want {
			t.Errorf("minifiedName(%q) = %v, want %v", name, got, want)
		}
	}
	files := minifiedFiles(mustTemplate(t, app(t)).frames)
	if !files["lib.min.js"] || files["app.js"] || len(files) != 1 {
		t.Errorf("minified files %v, want lib.min.js only", files)
	}
}

func TestRepeatedCause(t *testing.T) {
	tm := mustTemplate(t, app(t))
	const d = 100 * time.Millisecond
	for _, tc := range []struct {
		target []string
		thread int32
		want   []string // nil: no unambiguous cause
	}{
		// parse (42 ms) calls tiny (2 ms): tiny gains 5 ms, parse is the cause.
		{[]string{"onClick", "fetchData", "parse"}, 0, []string{"onClick", "fetchData", "parse"}},
		// Ud's time is all in Ve: Ve gains everything and is the cause.
		{[]string{"Xa", "Ud"}, 0, []string{"Xa", "Ud", "Ve"}},
		// render: layout would gain 67 ms of 100, render 29: ambiguous.
		{[]string{"onClick", "render"}, 0, nil},
		// compute: step gains 52 ms of 100: ambiguous.
		{[]string{"onmessage", "compute"}, 1, nil},
	} {
		x := nodeAt(t, &tm.world, tc.thread, tc.target...)
		c, ok := tm.repeatedCause(x, d)
		switch {
		case tc.want == nil && ok:
			t.Errorf("%v: cause %v, want none", tc.target, tm.path(c))
		case tc.want != nil && (!ok || c != nodeAt(t, &tm.world, tc.thread, tc.want...)):
			t.Errorf("%v: cause %v (ok %v), want %v", tc.target, tm.path(c), ok, tc.want)
		}
	}
}

// nodeTotal is the total of a root-first path of function names in a run's
// tree (0 when absent).
func nodeTotal(tb testing.TB, tr *cct.Tree, thread string, names ...string) int64 {
	tb.Helper()
	for _, th := range tr.Children(0) {
		if tr.Label(th) != thread {
			continue
		}
		id := th
	next:
		for _, name := range names {
			for _, c := range tr.Children(id) {
				if tr.FrameOf(c).Function == name {
					id = c
					continue next
				}
			}
			return 0
		}
		return tr.Total(id)[0]
	}
	return 0
}

func treeOf(tb testing.TB, tm *template, w *world, r *run, rename map[Frame]string) *cct.Tree {
	tb.Helper()
	p := w.profile(tm, r, rename, nil)
	if err := p.CheckValid(); err != nil {
		tb.Fatal(err)
	}
	tr, err := cct.FromProfile(p, cct.Options{Prune: true})
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// TestInjections: each kind adds its time where its ground truth says, and
// nowhere else.
func TestInjections(t *testing.T) {
	tm := mustTemplate(t, app(t))
	base := treeOf(t, tm, &tm.world, tm.base, nil)
	for _, tc := range []struct {
		kind   Kind
		target []string
		thread int32
		truth  string
		// grows lists the paths that must gain exactly the injected time.
		grows [][]string
	}{
		{SlowAPI, []string{"onClick", "fetchData"}, 0, "main: onClick fetchData getComputedStyle",
			[][]string{{"onClick"}, {"onClick", "fetchData"}, {"onClick", "fetchData", "getComputedStyle"}}},
		{LongLoop, []string{"onClick", "render", "layout"}, 0, "main: onClick render layout",
			[][]string{{"onClick"}, {"onClick", "render"}, {"onClick", "render", "layout"}}},
		{RepeatedCheck, []string{"Xa", "Ud"}, 0, "main: Xa Ud Ve",
			[][]string{{"Xa"}, {"Xa", "Ud"}, {"Xa", "Ud", "Ve"}}},
	} {
		t.Run(tc.kind.String(), func(t *testing.T) {
			w := tm.fork()
			x := nodeAt(t, w, tc.thread, tc.target...)
			in := newInjection(tm, w, tc.kind, x, 100*time.Millisecond, seeded(1))
			var names []string
			for _, f := range in.Path {
				names = append(names, f.Function)
			}
			if got := in.Thread + ": " + strings.Join(names, " "); got != tc.truth {
				t.Fatalf("truth %q, want %q", got, tc.truth)
			}
			r := tm.base.clone()
			in.apply(tm, w, r, seeded(2))
			tr := treeOf(t, tm, w, r, nil)
			for _, p := range tc.grows {
				got := nodeTotal(t, tr, in.Thread, p...) - nodeTotal(t, base, in.Thread, p...)
				if got < 100*ms || got > 101*ms {
					t.Errorf("%v grew by %v, want 100ms", p, time.Duration(got))
				}
			}
			if got := runTime(tm, r) - runTime(tm, tm.base); got < 100*ms || got > 101*ms {
				t.Errorf("the run grew by %v, want 100ms", time.Duration(got))
			}
		})
	}
}

// TestRepeatedCheckScales: the extra calls scale the callee's parts alike.
func TestRepeatedCheckScales(t *testing.T) {
	tm := mustTemplate(t, app(t))
	w := tm.fork()
	x := nodeAt(t, w, 1, "onmessage", "compute", "check") // 55 ms: self 40, rule 8, rule2 7
	in := &Injection{Kind: RepeatedCheck, Delta: 550 * time.Millisecond, target: x}
	r := tm.base.clone()
	in.apply(tm, w, r, seeded(1))
	tr := treeOf(t, tm, w, r, nil)
	// × 11 in expectation: rule 8 → 88 ms, rule2 7 → 77 ms.
	for name, want := range map[string]int64{"rule": 88 * ms, "rule2": 77 * ms} {
		got := nodeTotal(t, tr, "worker", "onmessage", "compute", "check", name)
		if got < want*6/10 || got > want*14/10 {
			t.Errorf("%s: %v, want about %v", name, time.Duration(got), time.Duration(want))
		}
	}
}

func TestPickInjection(t *testing.T) {
	tm := mustTemplate(t, app(t))
	for _, k := range Kinds {
		seen := map[string]bool{}
		for seed := range uint64(40) {
			in, err := pickInjection(tm, tm.fork(), k, 100*time.Millisecond, seeded(seed))
			if err != nil {
				t.Fatal(err)
			}
			last := in.Path[len(in.Path)-1].Function
			seen[last] = true
			if special(last) || cct.Prunable(last) {
				t.Errorf("%s: target %q", k, last)
			}
		}
		switch k {
		case RepeatedCheck:
			// Only parse, Ve (via Ud) and the leaves of at least 5 ms with
			// ... qualify; never an ambiguous one.
			for _, bad := range []string{"render", "compute", "Xa", "onClick"} {
				if seen[bad] {
					t.Errorf("%s picked the ambiguous %s", k, bad)
				}
			}
		case SlowAPI:
			if !seen["getComputedStyle"] {
				t.Errorf("%s never called the native getComputedStyle: %v", k, seen)
			}
		}
		if len(seen) < 3 {
			t.Errorf("%s: only %v picked in 40 seeds", k, seen)
		}
	}
	one := mustTemplate(t, app(t))
	one.nodes = one.nodes[:1] // only a thread
	if _, err := pickInjection(one, one.fork(), LongLoop, 100*time.Millisecond, seeded(1)); err == nil || err.Error() != "app: no function can take the injection: long loop" {
		t.Errorf("err = %v", err)
	}
}

func TestChanges(t *testing.T) {
	tm := mustTemplate(t, app(t))
	w := tm.fork()
	keep := newInjection(tm, w, LongLoop, nodeAt(t, w, 0, "Xa", "Qb"), 100*time.Millisecond, seeded(1))
	c := Changes{Renames: 10, AddCalls: 2, RemoveCalls: 5, TinyMin: 2 * time.Millisecond, TinyMax: 8 * time.Millisecond}
	cs := drawChanges(tm, w, c, keep, seeded(3))
	// Xa and Qb are on the truth's path; Rc, Ud, Ve, Wf, Yg, Zh may go.
	if len(cs.rename) != 6 {
		t.Errorf("%d renames, want the 6 minified functions off the path", len(cs.rename))
	}
	seen := map[string]bool{}
	for f, name := range cs.rename {
		if f.File != "lib.min.js" || f.Function == "Xa" || f.Function == "Qb" || !minifiedName(name) || len(name) != len(f.Function) || seen[name] {
			t.Errorf("renamed %v to %q", f, name)
		}
		seen[name] = true
	}
	if len(cs.adds) != 2 {
		t.Fatalf("%d added calls, want 2", len(cs.adds))
	}
	for _, a := range cs.adds {
		if a.n < 2 || a.n > 8 {
			t.Errorf("added call of %d ticks, want 2-8", a.n)
		}
	}
	// Callees of at most 8 ms at depth ≥ 2, off the truth's path and
	// subtree: getComputedStyle 5, tiny 2, rule 8, rule2 7, Yg 5, Zh 5.
	if len(cs.removed) != 5 {
		t.Fatalf("%d removed calls, want 5", len(cs.removed))
	}
	r := tm.base.clone()
	cs.apply(r, seeded(4))
	tr := treeOf(t, tm, w, r, cs.rename)
	if nodeTotal(t, tr, "main", "Xa", "Qb") != 60*ms {
		t.Error("a change touched the truth's path")
	}
	var gone int
	for _, p := range [][]string{{"onClick", "render", "getComputedStyle"}, {"onClick", "fetchData", "parse", "tiny"}} {
		if nodeTotal(t, tr, "main", p...) == 0 {
			gone++
		}
	}
	for _, p := range [][]string{{"onmessage", "compute", "check", "rule"}, {"onmessage", "compute", "check", "rule2"}} {
		if nodeTotal(t, tr, "worker", p...) == 0 {
			gone++
		}
	}
	if renamedAway := !slices.ContainsFunc(tr.Frames, func(f cct.Frame) bool { return f.Function == "Yg" || f.Function == "Zh" }); gone < 3 || !renamedAway {
		t.Errorf("%d of the small callees gone (want ≥ 3), Yg and Zh renamed: %v", gone, renamedAway)
	}
}
