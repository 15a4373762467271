package eval

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/golden"
)

var (
	bar    = flag.Bool("eval", false, "run the corpus benchmark (about a minute of CPU) and check the standard and per-family bars")
	strict = flag.Bool("strict", false, "with -eval: fail on the known failures (knownFailures) too")
)

// appConfig is a small benchmark on the app profile, written to a
// temporary directory as a pprof file, so it runs without the corpus.
func appConfig(t testing.TB, engines ...Engine) Config {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "app.pb.gz"))
	if err != nil {
		t.Fatal(err)
	}
	if err := app(t).Write(f); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig(dir, engines...)
	cfg.Profiles = []string{"app.pb.gz"}
	cfg.Families = []Family{Standard}
	cfg.Noise.Recording = 50 * time.Millisecond
	return cfg
}

func TestRunDeterministic(t *testing.T) {
	cfg := appConfig(t, DiffEngines([]diff.Aggregate{diff.Intersect, diff.Stats}, []time.Duration{50 * time.Millisecond})...)
	cfg.Parallel = 1
	a, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Parallel = 4
	b, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Cases) != 3*2+1 {
		t.Fatalf("%d cases, want 2 per kind and a baseline", len(a.Cases))
	}
	for i := range a.Cases {
		ca, cb := a.Cases[i], b.Cases[i]
		if !reflect.DeepEqual(ca.Outputs, cb.Outputs) || !reflect.DeepEqual(ca.Along, cb.Along) {
			t.Errorf("case %d (%s) differs between runs", i, ca.label())
		}
		if !ca.Baseline && (len(ca.Scores) != 2 || ca.Injection == nil || len(ca.Along[1]) != cfg.Runs) {
			t.Errorf("case %d (%s): %d scores, injection %v, %d new runs measured", i, ca.label(), len(ca.Scores), ca.Injection, len(ca.Along[1]))
		}
	}
	cfg.Seed = 2
	c, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(a.Cases[0].Along, c.Cases[0].Along) {
		t.Error("another seed gave the same runs")
	}
	// The injection is there: on average over the new runs every node on
	// the cause's path grew by at least the injected time, less noise.
	for _, cs := range a.Cases {
		if cs.Baseline {
			continue
		}
		for d, f := range cs.Injection.Path {
			var grow float64
			for i := range cfg.Runs {
				grow += float64(cs.Along[1][i][d+1]-cs.Along[0][i][d+1]) / float64(cfg.Runs)
			}
			if grow < 0.5*float64(cs.Injection.Delta) {
				t.Errorf("%s: %v grew by %v on average, injected %v", cs.label(), f, time.Duration(grow), cs.Injection.Delta)
			}
		}
	}
}

func TestRunErrors(t *testing.T) {
	cfg := appConfig(t)
	if _, err := Run(cfg); err == nil || !strings.Contains(err.Error(), "one engine") {
		t.Errorf("no engines: %v", err)
	}
	cfg = appConfig(t, DiffEngine("stats", diff.DefaultOptions()))
	cfg.Profiles = []string{"missing.cpuprofile"}
	if _, err := Run(cfg); err == nil || !strings.Contains(err.Error(), "missing.cpuprofile") {
		t.Errorf("missing profile: %v", err)
	}
	cfg = appConfig(t, DiffEngine("stats", diff.DefaultOptions()))
	cfg.DeltaMax = cfg.DeltaMin - 1
	if _, err := Run(cfg); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("empty delta range: %v", err)
	}
}

// fixedResult is a hand-made result for the golden test of the tables.
func fixedResult() *Result {
	cfg := Config{Profiles: []string{"cpuprofile/a.cpuprofile.gz", "devtools/b.json"}, Engines: []Engine{{Name: "e1"}, {Name: "e2"}}}
	truth := mainPath("onClick", "render", "layout")
	inj := func(k Kind) *Injection {
		return &Injection{Kind: k, Delta: 120 * time.Millisecond, Thread: truth.Thread, Path: truth.Frames}
	}
	along := [2][][]int64{{{900 * ms, 300 * ms, 200 * ms, 100 * ms}}, {{930 * ms, 410 * ms, 330 * ms, 221 * ms}}}
	hit := Output{Causes: leaves(truth), Ranked: []Path{truth}, CriticalNodes: 3, TreeNodes: 400}
	partial := Output{Causes: append(leaves(mainPath("onClick", "render")), Cause{Path: mainPath("idle"), Kind: "added", Delta: 61 * ms}), Ranked: []Path{mainPath("x"), mainPath("y"), mainPath("z"), truth}, CriticalNodes: 3, TreeNodes: 400}
	var cases []*Case
	for i, p := range cfg.Profiles {
		for _, k := range Kinds {
			c := &Case{Profile: p, Kind: k, Injection: inj(k), Along: along}
			c.Outputs = []Output{hit, hit}
			if i == 1 && k == LongLoop {
				c.Outputs[1] = partial
			}
			for _, o := range c.Outputs {
				c.Scores = append(c.Scores, score(o, truth))
			}
			cases = append(cases, c)
		}
		cases = append(cases, &Case{Profile: p, Baseline: true, Outputs: []Output{{}, {Causes: leaves(mainPath("idle"))}}})
	}
	return &Result{Config: cfg, Cases: cases}
}

func TestTablesGolden(t *testing.T) {
	var b bytes.Buffer
	r := fixedResult()
	for e := range r.Config.Engines {
		r.WriteTable2(&b, e)
		b.WriteString("\n")
	}
	r.WriteEngines(&b)
	b.WriteString("\n")
	r2 := fixedResult()
	r2.Config.Seed = 2
	r2.Cases = r2.Cases[:4] // profile a only
	WriteSeeds(&b, []*Result{r, r2})
	b.WriteString("\n")
	r.WriteFalseLeaves(&b, 1)
	b.WriteString("\n")
	r.WriteFailures(&b, 1)
	golden.Check(t, "testdata/tables.golden", b.Bytes())
}

// TestDoneWhen is the published benchmark (BENCHMARKS.md, "diff:
// accuracy") with the case families: the default configuration on
// the corpus, scored for the diff engine's defaults with μ = 50 ms, at K = 3
// and at K = 1 (two baselines per profile and family: ten noise-only pairs
// of the standard family). It checks the standard bar on the standard family
// at K = 3 (DoneWhen), and the per-family bar: FamilyBar at K = 3,
// FamilyBarK1 at K = 1.
// It runs with -eval (go test ./tools/eval -run TestDoneWhen -eval -v),
// and then skips without the corpus, except under CI=true.
//
// The checks the engine fails today are listed in knownFailures: they are
// logged, not failed, unless -strict is given, so that the harness can hold
// the failing cases before the engine is fixed.
func TestDoneWhen(t *testing.T) {
	if !*bar {
		t.Skip("the corpus benchmark runs with -eval")
	}
	corpus.Path(t, ".")
	o := diff.DefaultOptions()
	o.MinDelta = diff.Threshold{Value: int64(50 * time.Millisecond)}
	cfg := DefaultConfig(corpus.Dir(), DiffEngine("default μ=50ms", o))
	r3, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Runs, cfg.Baselines = 1, 2
	r1, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	WriteFamilies(&b, []*Result{r1, r3}, 0)
	b.WriteString("\n")
	r3.WriteTable2(&b, 0)
	b.WriteString("\n")
	r3.WriteFailures(&b, 0)
	b.WriteString("\nK = 1:\n")
	r1.WriteFailures(&b, 0)
	t.Logf("%d cases at K = 3 in %v, %d at K = 1 in %v\n%s", len(r3.Cases), r3.Elapsed.Round(time.Millisecond),
		len(r1.Cases), r1.Elapsed.Round(time.Millisecond), b.String())

	s := r3.Summary(0, standard)
	if s.Cases < 30 || s.Baselines < 5 {
		t.Fatalf("%d injected and %d baseline cases, want at least 30 and 5", s.Cases, s.Baselines)
	}

	type check struct {
		name string
		s    Summary
		bar  Thresholds
	}
	checks := []check{{"K=3 standard", s, DoneWhen}}
	for _, f := range Families {
		fam := func(c *Case) bool { return c.Family == f }
		s3 := r3.Summary(0, fam)
		if s3.Cases < 4 {
			t.Errorf("K=3 %s: %d injected cases ran, want at least 4", f, s3.Cases)
		}
		checks = append(checks, check{fmt.Sprintf("K=3 %s", f), s3, FamilyBar})
		if s1 := r1.Summary(0, fam); s1.Baselines > 0 {
			checks = append(checks, check{fmt.Sprintf("K=1 %s", f), s1, FamilyBarK1})
		}
	}
	checks = append(checks, check{"K=3 all", r3.Summary(0, nil), FamilyBar})
	if n := r1.Summary(0, standard).Baselines; n != 10 {
		t.Errorf("K=1: %d noise-only pairs of the standard family, want 10", n)
	}
	missed := map[string]bool{}
	for _, c := range checks {
		for _, m := range c.s.Misses(c.bar) {
			key := c.name + ": " + m.Metric
			missed[key] = true
			if knownFailures[key] && !*strict {
				t.Logf("known failure (-strict fails on it): %s: %s", c.name, m.Text)
				continue
			}
			t.Errorf("%s: %s", c.name, m.Text)
		}
	}
	for key := range knownFailures {
		if !missed[key] {
			t.Logf("%s now meets the bar: remove it from knownFailures", key)
		}
	}
}

// knownFailures are TestDoneWhen's checks that package diff fails at this
// commit, keyed by check and metric as TestDoneWhen names them;
// `go test ./tools/eval -run TestDoneWhen -eval -strict` fails on them
// too. Remove an entry once the engine meets it. Every other check of the
// bar fails the test: the 19 the engine meets
// (false causes at K = 1 and K = 3, artifacts, origins, precision) are
// held.
var knownFailures = map[string]bool{
	// spread growth over 6-9 callees of one caller inside sucrase's 18 s
	// task: the caller's inclusive time varies by more than the growth,
	// and no single callee reaches μ (both of sucrase's cases)
	"K=3 spread: path recall": true,
	"K=3 spread: node recall": true,
	// a repeated check deep in the large profile's recursion under a
	// noisy GC: one pair's growth is 42 ms of the injected 142 ms
	"K=3 noisy-gc: path recall": true,
	"K=3 noisy-gc: node recall": true,
	"K=3 all: path recall":      true,
	// one run a side of web.dev with its long task scaled by ±25% per run
	// (the family's adversarial noise), four times the rest of the
	// profile's: a top-level function's 65 ms swing looks like growth
	"K=1 long-task: false causes": true,
}

// BenchmarkRunApp times a small benchmark end to end: 6 injected and 1
// baseline case of K = 3 runs per side on the app profile, one engine.
//
//	go test ./tools/eval -run '^$' -bench RunApp -benchmem
func BenchmarkRunApp(b *testing.B) {
	cfg := appConfig(b, DiffEngine("stats", diff.DefaultOptions()))
	cfg.Parallel = 1
	b.ResetTimer()
	for b.Loop() {
		if _, err := Run(cfg); err != nil {
			b.Fatal(err)
		}
	}
}
