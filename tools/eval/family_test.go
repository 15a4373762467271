package eval

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/internal/cctest"
	"github.com/ctdiff/ctdiff/internal/golden"
	"github.com/google/pprof/profile"
)

// appURL is the rich profile's script, served from an origin.
const appURL = "https://example.com:8443/js/app.js"

// rich is a profile every family can take: a 1.5 s task with a deep frame
// whose inclusive time is large and self time small, a function (validate)
// in eight calling contexts, a caller of nine callees, a GC frame and idle time.
func rich(tb testing.TB) *profile.Profile {
	tb.Helper()
	at := func(stack string) string {
		var fs []string
		for _, f := range strings.Split(stack, ";") {
			if !strings.HasPrefix(f, "(") {
				f += "@" + appURL
			}
			fs = append(fs, f)
		}
		return strings.Join(fs, ";")
	}
	var blocks []any
	add := func(stack string, n int) { blocks = append(blocks, at(stack), n) }
	add("(idle)", 100)
	add("task;run;loop;step", 20)
	add("task;run;loop;step;compute", 1200)
	add("task;run;loop;tail", 280)
	for i := range 8 {
		add(fmt.Sprintf("caller%d;validate", i), 5)
		add(fmt.Sprintf("caller%d;validate;leafWork%d", i, i), 3)
	}
	for i := range 9 {
		add(fmt.Sprintf("hub;callee%d", i), 30)
	}
	add("(garbage_collector)", 100) // folded lines cannot hold its space
	add("(idle)", 50)
	p := cctest.Profile(tb, timeline(blocks...)...)
	for _, fn := range p.Function {
		if fn.Name == "(garbage_collector)" {
			fn.Name, fn.SystemName = gcFrame, gcFrame
		}
	}
	return p
}

// richConfig writes rich to a temporary directory and returns a config of
// every family on it.
func richConfig(tb testing.TB, engines ...Engine) Config {
	tb.Helper()
	dir := tb.TempDir()
	f, err := os.Create(filepath.Join(dir, "rich.pb.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := rich(tb).Write(f); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	cfg := DefaultConfig(dir, engines...)
	cfg.Profiles = []string{"rich.pb.gz"}
	cfg.Noise.Recording = 50 * time.Millisecond
	cfg.Runs = 2
	return cfg
}

func TestScoreTruth(t *testing.T) {
	ctx := []Path{mainPath("a", "F", "isStale"), mainPath("b", "F", "isStale")}
	truth := Truth{Paths: ctx, Name: "isStale"}
	for _, tc := range []struct {
		name string
		out  Output
		want Score
	}{
		{"one context", Output{Causes: leaves(ctx[1])},
			Score{NodeHit: true, PathHit: true, NameHit: true, Named: true, Leaves: 1, NodeLeaves: 1, PathLeaves: 1}},
		{"folded, anywhere", Output{Causes: leaves(mainPath("F", "isStale"))},
			Score{NodeHit: true, PathHit: true, NameHit: true, Named: true, Leaves: 1, NodeLeaves: 1, PathLeaves: 1}},
		{"one level too high", Output{Causes: leaves(mainPath("b", "F"))},
			Score{PathHit: true, Named: true, Leaves: 1, PathLeaves: 1, Distance: 1}},
		{"elsewhere", Output{Causes: leaves(mainPath("c", "F"))},
			Score{Named: true, Leaves: 1}},
		{"every context and a false leaf", Output{Causes: leaves(ctx[0], ctx[1], mainPath("x"))},
			Score{NodeHit: true, PathHit: true, NameHit: true, Named: true, Leaves: 3, NodeLeaves: 2, PathLeaves: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.want.Longest = 3
			if got := scoreTruth(tc.out, truth); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("score = %+v\nwant    %+v", got, tc.want)
			}
		})
	}
	if got := scoreTruth(Output{Ranked: []Path{mainPath("x"), mainPath("q", "F", "isStale", "y")}}, truth).PMin; got != 2 {
		t.Errorf("p_min %d, want 2: a ranked path through the new function counts", got)
	}
	var s Summary
	s.add(scoreTruth(Output{Causes: leaves(ctx[0])}, truth))
	s.add(scoreTruth(Output{}, truth))
	s.add(score(Output{}, ctx[0]))
	if s.NameCases != 2 || s.NameHits != 1 || s.NameRecall() != 0.5 {
		t.Errorf("name hits %d of %d", s.NameHits, s.NameCases)
	}
	miss := s.Misses(FamilyBar)
	if i := slices.IndexFunc(miss, func(m Miss) bool { return m.Metric == "found by name" }); i < 0 || miss[i].Text != "found by the new function's name in 50.00% of cases < 90.00%" {
		t.Errorf("misses %v", miss)
	}
}

func TestSpreadCallee(t *testing.T) {
	tm := mustTemplate(t, rich(t))
	w := tm.fork()
	in, err := pickSpreadCallee(tm, w, seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Contexts) != 8 || len(in.parts) != 8 || !slices.Contains(checkNames, in.Name) {
		t.Fatalf("%d contexts, %d parts, name %q; want 8, 8, a check", len(in.Contexts), len(in.parts), in.Name)
	}
	for _, p := range in.Contexts {
		if n := len(p.Frames); n != 3 || p.Frames[1].Function != "validate" || p.Frames[2] != (Frame{Function: in.Name, File: appURL}) {
			t.Errorf("context %v: want callerN → validate → %s", p, in.Name)
		}
	}
	r := tm.base.clone()
	in.apply(tm, w, r, seeded(2))
	tr := treeOf(t, tm, w, r, nil)
	per := (int64(in.Delta)/8 + tm.period - 1) / tm.period * tm.period
	for i := range 8 {
		if got := nodeTotal(t, tr, "main", fmt.Sprintf("caller%d", i), "validate", in.Name); got != per {
			t.Errorf("caller%d → validate → %s: %v, want %v", i, in.Name, time.Duration(got), time.Duration(per))
		}
	}
	if per >= int64(spreadPerCallee) {
		t.Errorf("%v per context: a context alone would be close to μ", time.Duration(per))
	}
}

func TestSpreadCallees(t *testing.T) {
	tm := mustTemplate(t, rich(t))
	w := tm.fork()
	in, err := pickSpreadCallees(tm, w, seeded(3))
	if err != nil {
		t.Fatal(err)
	}
	if got := in.Path; len(got) != 1 || got[0].Function != "hub" {
		t.Fatalf("truth %v, want hub", got)
	}
	r := tm.base.clone()
	in.apply(tm, w, r, seeded(4))
	tr := treeOf(t, tm, w, r, nil)
	base := treeOf(t, tm, &tm.world, tm.base, nil)
	if got := nodeTotal(t, tr, "main", "hub") - nodeTotal(t, base, "main", "hub"); got < int64(in.Delta) || got > int64(in.Delta)+9*ms {
		t.Errorf("hub grew by %v, want %v", time.Duration(got), in.Delta)
	}
	grown := 0
	for i := range 9 {
		name := fmt.Sprintf("callee%d", i)
		d := nodeTotal(t, tr, "main", "hub", name) - nodeTotal(t, base, "main", "hub", name)
		if d > int64(spreadPerCallee)+ms {
			t.Errorf("%s grew by %v, more than %v", name, time.Duration(d), spreadPerCallee)
		}
		if d > 0 {
			grown++
		}
	}
	if grown != len(in.parts) || grown < 6 {
		t.Errorf("%d callees grew, %d parts; want the parts, at least 6", grown, len(in.parts))
	}
}

func TestPickDeep(t *testing.T) {
	tm := mustTemplate(t, rich(t))
	task, spread := tm.longTask()
	if task < 0 || tm.frames[tm.nodes[task].frame].Function != "task" {
		t.Fatalf("long task %d", task)
	}
	if want := 1.5 * float64(deepDelta) / float64(tm.total[task]); spread != want {
		t.Errorf("spread %g, want %g", spread, want)
	}
	in, err := pickDeep(tm, tm.fork(), seeded(1))
	if err != nil {
		t.Fatal(err)
	}
	// step is the one frame three calls below the task whose inclusive
	// time the task's factor moves by more than 160 ms and whose self time
	// is small.
	if got := in.Path; len(got) != 4 || got[3].Function != "step" {
		t.Errorf("target %v, want task → run → loop → step", got)
	}
	small := mustTemplate(t, app(t))
	if _, err := pickDeep(small, small.fork(), seeded(1)); err == nil || !strings.Contains(err.Error(), "no top-level call of 1.2s") {
		t.Errorf("no long task: %v", err)
	}
}

func TestGCDraws(t *testing.T) {
	rng := seeded(1)
	for _, k := range []int{1, 3, 10} {
		g, err := gcDraws(k, false, rng)
		if err != nil {
			t.Fatal(err)
		}
		for _, side := range g {
			for _, x := range side {
				if x < 1-gcSpread || x > 1+gcSpread {
					t.Errorf("K=%d: factor %g outside ±%g", k, x, gcSpread)
				}
			}
		}
		g, err = gcDraws(k, true, rng)
		if err != nil {
			t.Fatal(err)
		}
		var d float64
		for i := range k {
			d += (g[1][i] - g[0][i]) / float64(k)
		}
		if z := d / gcSE(k); z < gcShiftLow || z > gcShiftHigh {
			t.Errorf("K=%d: shifted draw at %.2f SE", k, z)
		}
	}
	// On sucrase's 3.45 s of GC at K = 3 the shift is +330 ms.
	if d := 2.2 * gcSE(3) * 3.45; d < 0.33 || d > 0.36 {
		t.Errorf("+2.2 SE at K = 3 is %.3f s on 3.45 s", d)
	}
	tm := mustTemplate(t, rich(t))
	if s := tm.gcScale(); s*float64(100*ms) < gcShare*float64(tm.busy())-1 {
		t.Errorf("GC scaled by %g: %v of %v busy", s, time.Duration(s*float64(100*ms)), time.Duration(tm.busy()))
	}
	if tm := mustTemplate(t, app(t)); tm.gcScale() != 0 {
		t.Error("a profile without GC has a GC scale")
	}
}

func TestOrigins(t *testing.T) {
	for in, want := range map[string]string{
		"http://172.30.3.176:7777/worker.js": "http://172.30.3.176:7777",
		"chrome-extension://abc/injected.js": "chrome-extension://abc",
		"/Users/me/src/index.js":             "",
		"extensions::SafeBuiltins":           "",
		"https://example.com":                "",
	} {
		if got := originOf(in); got != want {
			t.Errorf("originOf(%q) = %q, want %q", in, got, want)
		}
	}
	files := moveOrigins([]Frame{{Function: "a", File: "http://172.30.3.176:7777/worker.js"}, {Function: "b", File: "app.js"}, {Function: "c", File: newOrigin + "/x.js"}})
	if want := map[string]string{"http://172.30.3.176:7777/worker.js": newOrigin + "/worker.js"}; !reflect.DeepEqual(files, want) {
		t.Errorf("moveOrigins = %v", files)
	}
	tm := mustTemplate(t, rich(t))
	p := tm.profile(tm, tm.base, nil, moveOrigins(tm.frames))
	for _, fn := range p.Function {
		if strings.HasPrefix(fn.Filename, "https://example.com") {
			t.Errorf("%s still in %s", fn.Name, fn.Filename)
		}
	}
	for _, fn := range tm.funcs {
		if strings.HasPrefix(fn.Filename, newOrigin) {
			t.Errorf("the template's %s was moved", fn.Name)
		}
	}
}

func TestArtifacts(t *testing.T) {
	tm := mustTemplate(t, rich(t))
	w := tm.fork()
	x := nodeAt(t, w, 0, "hub", "callee0")
	in := newInjection(tm, w, LongLoop, x, 100*time.Millisecond, seeded(1))
	a := newArtifacts(w, ArtifactFrames[0])
	in.art, in.artShare = a.stack(w, in.stack), artifactShare
	r := tm.base.clone()
	in.apply(tm, w, r, seeded(2))
	tr := treeOf(t, tm, w, r, nil)
	if got := nodeTotal(t, tr, "main", "hub", "callee0", "runtime.asyncPreempt"); got != 60*ms {
		t.Errorf("the artifact under the target has %v, want 60%% of 100ms", time.Duration(got))
	}
	if got := nodeTotal(t, tr, "main", "hub", "callee0"); got != 130*ms {
		t.Errorf("the target has %v, want 30ms + 100ms", time.Duration(got))
	}
	r = tm.base.clone()
	a.sprinkle(w, r, seeded(3))
	n, js := 0, 0
	for _, s := range r.seq[0] {
		node := w.nodes[w.stacks[s.stack].node]
		if w.frames[node.frame].Function == "runtime.asyncPreempt" {
			n++
		} else if !special(w.frames[node.frame].Function) {
			js++
		}
	}
	if rate := float64(n) / float64(n+js); rate < 0.005 || rate > 0.02 {
		t.Errorf("%d of %d samples got the artifact, want about %g", n, n+js, artifactRate)
	}
}

// TestFamilies runs every family on the rich profile: every case runs (none
// is skipped), the runs are deterministic, and each family's noise is
// there.
func TestFamilies(t *testing.T) {
	o := diff.DefaultOptions()
	o.MinDelta = diff.Threshold{Value: int64(50 * time.Millisecond)}
	cfg := richConfig(t, DiffEngine("stats", o))
	cfg.Baselines = 1
	cfg.Parallel = 1
	a, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Parallel = 3
	b, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	count := map[Family]int{}
	for i, c := range a.Cases {
		if c.Skipped != "" {
			t.Errorf("%s skipped: %s", c.label(), c.Skipped)
		}
		if !reflect.DeepEqual(c.Outputs, b.Cases[i].Outputs) || !reflect.DeepEqual(c.Along, b.Cases[i].Along) {
			t.Errorf("%s differs between runs", c.label())
		}
		count[c.Family]++
	}
	// Per profile: standard 3 kinds × 2 + 1 baseline; spread 2 × 2; long
	// task 2 + 1; noisy GC 3 + 1 plain + 1 shifted; artifacts 2 + 1;
	// origins 1 + 1.
	want := map[Family]int{Standard: 7, Spread: 4, LongTask: 3, NoisyGC: 5, Artifacts: 3, Origins: 2}
	if !reflect.DeepEqual(count, want) {
		t.Errorf("cases per family %v, want %v", count, want)
	}
	for _, c := range a.Cases {
		if c.Injection == nil {
			continue
		}
		switch c.Family {
		case Spread:
			if c.Kind == SpreadCallee && (c.Injection.Name == "" || len(c.Injection.Contexts) != 8) {
				t.Errorf("%s: name %q, %d contexts", c.label(), c.Injection.Name, len(c.Injection.Contexts))
			}
		case LongTask:
			if c.Injection.Delta != deepDelta {
				t.Errorf("%s: %v injected", c.label(), c.Injection.Delta)
			}
		}
	}
	var b2 strings.Builder
	WriteFamilies(&b2, []*Result{a}, 0)
	for _, f := range Families {
		if !regexp.MustCompile(`\|\s+` + f.String() + `\s+\|`).MatchString(b2.String()) {
			t.Errorf("the family table has no row for %s:\n%s", f, b2.String())
		}
	}
}

// TestFamilyNoise: the GC node varies by its factors, the long task by its
// own, and origins move in the new runs only.
func TestFamilyNoise(t *testing.T) {
	tm := mustTemplate(t, rich(t))
	w := tm.fork()
	c := &Case{Family: NoisyGC}
	fs, err := prepare(&Config{Runs: 3}, tm, w, c, seeded(1))
	if err != nil || c.Skipped != "" {
		t.Fatal(err, c.Skipped)
	}
	gcStack := w.stackID(0, mustLocs(t, tm, nodeAt(t, w, 0, "(garbage collector)")))
	for side := range 2 {
		for i := range 3 {
			f := fs.factors(w, side, i, seeded(2))
			if want := fs.gcScale * fs.gc[side][i]; f[gcStack] != want {
				t.Errorf("side %d run %d: GC factor %g, want %g", side, i, f[gcStack], want)
			}
		}
	}
	c = &Case{Family: LongTask}
	fs, err = prepare(&Config{Runs: 3}, tm, w, c, seeded(1))
	if err != nil || c.Skipped != "" {
		t.Fatal(err, c.Skipped)
	}
	step := w.stackID(0, mustLocs(t, tm, nodeAt(t, w, 0, "task", "run", "loop", "step")))
	hub := w.stackID(0, mustLocs(t, tm, nodeAt(t, w, 0, "hub")))
	seen := map[float64]bool{}
	for i := range 20 {
		f := fs.factors(w, 0, i, seeded(uint64(i)))
		if d := f[step] - 1; d < -fs.taskSpread || d > fs.taskSpread || f[hub] != 1 {
			t.Errorf("run %d: task factor %g (spread %g), outside %g", i, f[step], fs.taskSpread, f[hub])
		}
		seen[f[step]] = true
	}
	if len(seen) < 20 {
		t.Errorf("%d distinct task factors in 20 runs", len(seen))
	}
	c = &Case{Family: Origins}
	if fs, _ = prepare(&Config{Runs: 3}, tm, w, c, seeded(1)); fs.newFiles()[appURL] != newOrigin+"/js/app.js" {
		t.Errorf("origins: %v", fs.newFiles())
	}
	c = &Case{Family: Origins}
	if small := mustTemplate(t, app(t)); func() bool { prepare(&Config{Runs: 3}, small, small.fork(), c, seeded(1)); return c.Skipped == "" }() {
		t.Error("a profile without URLs takes the origins family")
	}
}

func TestParseFamilies(t *testing.T) {
	if fs, err := ParseFamilies("all"); err != nil || !slices.Equal(fs, Families) {
		t.Errorf("all: %v, %v", fs, err)
	}
	if fs, err := ParseFamilies("spread, noisy-gc"); err != nil || !slices.Equal(fs, []Family{Spread, NoisyGC}) {
		t.Errorf("spread, noisy-gc: %v, %v", fs, err)
	}
	if _, err := ParseFamilies("spread,gc"); err == nil || !strings.Contains(err.Error(), `unknown case family "gc"`) {
		t.Errorf("gc: %v", err)
	}
}

func TestFlat(t *testing.T) {
	tm := mustTemplate(t, app(t))
	flat := flatOf(tm, &tm.world, tm.base, map[Frame]string{{Function: "Qb", File: "lib.min.js"}: "Kp"})
	for f, want := range map[Frame]int64{
		{Function: "layout", File: "app.js"}: 70 * ms, {Function: "render", File: "app.js"}: 30 * ms, {Function: "Kp", File: "lib.min.js"}: 60 * ms,
		{Function: "(anonymous)", File: "app.js"}: 0, {Function: "(idle)"}: 180 * ms,
	} {
		if flat[f] != want {
			t.Errorf("flat %v = %v, want %v", f, time.Duration(flat[f]), time.Duration(want))
		}
	}
	a, b, c, d := Frame{Function: "a"}, Frame{Function: "b"}, Frame{Function: "c"}, Frame{Function: "d"}
	base := []map[Frame]int64{{a: 10, b: 50, c: 5}}
	nw := []map[Frame]int64{{a: 40, b: 20, c: 5, d: 30}, {a: 40, b: 20, c: 5, d: 30}}
	got := topFlat(base, nw, 3)
	want := []flatDelta{{Frame{Function: "a"}, 30}, {Frame{Function: "b"}, -30}, {Frame{Function: "d"}, 30}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("topFlat = %v, want %v (by |delta|, then name; unchanged c left out)", got, want)
	}
}

func TestOracle(t *testing.T) {
	if got := oracleThreshold([]float64{5, 5, 5}, 3, 0.001, seeded(1)); got != 0 {
		t.Errorf("constant noise: threshold %g, want 0", got)
	}
	xs := make([]float64, 200)
	rng := seeded(2)
	for i := range xs {
		xs[i] = 100 * rng.NormFloat64()
	}
	// The difference of two means of k draws of N(0, 100²) has standard
	// deviation 100·√(2/k); its 0.999 quantile is 3.09 of those.
	for _, k := range []int{1, 4, 10} {
		got := oracleThreshold(xs, k, 0.001, seeded(3))
		want := 3.09 * 100 * math.Sqrt(2/float64(k))
		if got < 0.8*want || got > 1.25*want {
			t.Errorf("K=%d: threshold %.1f, want about %.1f", k, got, want)
		}
	}
	if !oracleFinds([]int64{1, 2}, []int64{10, 11}, 8) || oracleFinds([]int64{1, 2}, []int64{9, 10}, 8) {
		t.Error("oracleFinds compares the mean difference with the threshold, strictly")
	}
}

// TestSensitivity runs a small sweep on the rich profile: its shape, its
// determinism, and that every method finds an injection of a third of the
// busy time with more runs.
func TestSensitivity(t *testing.T) {
	cfg := DefaultSensitivity(richConfig(t).Corpus)
	cfg.Profiles = []string{"rich.pb.gz"}
	cfg.Runs, cfg.Shares, cfg.Cases, cfg.Baselines, cfg.OracleRuns = []int{1, 3}, []float64{0.001, 0.3}, 3, 2, 10
	cfg.Noise.Recording = 50 * time.Millisecond
	o := diff.DefaultOptions()
	o.MinDelta = diff.Threshold{Value: int64(50 * time.Millisecond)}
	cfg.Engine = DiffEngine("stats", o)
	a, err := RunSensitivity(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Parallel = 1
	b, err := RunSensitivity(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Cases) != 5 {
		t.Fatalf("%d cases, want 3 injected and 2 baselines", len(a.Cases))
	}
	for i, c := range a.Cases {
		if c.Skipped != "" {
			t.Fatalf("case %d skipped: %s", i, c.Skipped)
		}
		if !reflect.DeepEqual(c.Found, b.Cases[i].Found) || !reflect.DeepEqual(c.False, b.Cases[i].False) {
			t.Errorf("case %d differs between runs", i)
		}
		if len(c.Found[MethodPprof]) != 2 || len(c.Found[MethodPprof][1]) != 2 || len(c.False[MethodOracle]) != 2 {
			t.Fatalf("case %d: shapes %d×%d, %d", i, len(c.Found[MethodPprof]), len(c.Found[MethodPprof][1]), len(c.False[MethodOracle]))
		}
	}
	for m := range numMethods {
		if rec, n := a.sensRecall(m, 1, 1, func(*SensCase) bool { return true }); n != 3 || rec != 1 {
			t.Errorf("%s finds %.0f%% of %d cases of 30%% at K = 3", MethodNames[m], 100*rec, n)
		}
	}
	var out strings.Builder
	a.WriteSensitivity(&out)
	for _, s := range []string{"| K | ctdiff | oracle | pprof top-10 |", "| 30%   |", "Baselines (noise-only pairs) flagged"} {
		if !strings.Contains(strings.Join(strings.Fields(out.String()), " "), strings.Join(strings.Fields(s), " ")) {
			t.Errorf("the tables lack %q:\n%s", s, out.String())
		}
	}
	if _, err := RunSensitivity(Sensitivity{}); err == nil {
		t.Error("an empty sweep ran")
	}
	bad := cfg
	bad.Shares = []float64{1.5}
	if _, err := RunSensitivity(bad); err == nil || !strings.Contains(err.Error(), "share 1.5") {
		t.Errorf("share 1.5: %v", err)
	}
}

// TestSensitivityTables: the smallest share needs ≥ 95% recall at it and
// at every larger share, and flagged baselines rule a method out.
func TestSensitivityTables(t *testing.T) {
	cfg := Sensitivity{Profiles: []string{"p/a.json", "p/b.json"}, Runs: []int{1, 3}, Shares: []float64{0.001, 0.01, 0.1}}
	mk := func(p string, found [numMethods][][]bool) *SensCase {
		return &SensCase{Profile: p, Busy: 10 * time.Second, Found: found, False: [numMethods][]bool{{false, false}, {false, false}, {false, false}}}
	}
	all := [][]bool{{true, true, true}, {true, true, true}}
	from1 := [][]bool{{false, true, true}, {false, true, true}}
	holes := [][]bool{{true, false, true}, {false, false, true}}
	res := &SensResult{Config: cfg, Cases: []*SensCase{
		mk("p/a.json", [numMethods][][]bool{from1, all, holes}),
		mk("p/b.json", [numMethods][][]bool{from1, all, all}),
	}}
	base := &SensCase{Profile: "p/a.json", Baseline: true, False: [numMethods][]bool{{true, false}, {false, false}, {false, false}}}
	res.Cases = append(res.Cases, base)
	keep := func(*SensCase) bool { return true }
	if got := res.Smallest(MethodCtdiff, 1, keep); got != 1 {
		t.Errorf("ctdiff: smallest %d, want 1", got)
	}
	if got := res.Smallest(MethodPprof, 0, keep); got != 2 {
		t.Errorf("pprof K=1: smallest %d, want 2 (a hole at 1%% stops it)", got)
	}
	if got := res.verdict(MethodCtdiff, 0, keep, 0); got != "✗ 1/1 baselines flagged (≥ 95% recall: 1%)" {
		t.Errorf("ctdiff K=1: %q", got)
	}
	if got := res.verdict(MethodOracle, 1, keep, 10*time.Second); got != "≤ 0.1% (10ms)" {
		t.Errorf("oracle K=3: %q", got)
	}
	var b strings.Builder
	res.WriteSensitivity(&b)
	golden.CheckString(t, "testdata/sensitivity.golden", b.String())
}

// TestFamiliesGolden: the per-family table of a hand-made result.
func TestFamiliesGolden(t *testing.T) {
	truth := mainPath("onClick", "render", "layout")
	spread := &Injection{Kind: SpreadCallee, Name: "isStale", Contexts: []Path{mainPath("a", "F", "isStale"), mainPath("b", "F", "isStale")}}
	cases := []*Case{
		{Family: Standard, Injection: &Injection{Thread: "main", Path: truth.Frames}, Outputs: []Output{{Causes: leaves(truth)}}},
		{Family: Standard, Baseline: true, Outputs: []Output{{}}},
		{Family: Spread, Kind: SpreadCallee, Injection: spread, Outputs: []Output{{Causes: leaves(mainPath("a", "F"))}}},
		{Family: NoisyGC, Baseline: true, Variant: gcShifted, Outputs: []Output{{Causes: leaves(mainPath("(garbage collector)"))}}},
	}
	for _, c := range cases {
		if c.Injection != nil {
			c.Scores = []Score{scoreTruth(c.Outputs[0], c.Injection.Truth())}
		}
	}
	var b strings.Builder
	for _, k := range []int{1, 3} {
		WriteFamilies(&b, []*Result{{Config: Config{Runs: k, Families: []Family{Standard, Spread, NoisyGC}}, Cases: cases}}, 0)
		b.WriteString("\n")
	}
	golden.CheckString(t, "testdata/families.golden", b.String())
}
