package audit

import (
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/internal/long"
)

var strict = flag.Bool("audit.strict", false, "TestVerdicts: fail on the known defects (knownDefect) too")

// A want is a row's right verdict, what a user should get: by default no
// cause at all.
type want struct {
	// found: the injected change is found (Outcome.Found) and no cause is
	// a false alarm.
	found bool
	// notOn: no cause ends at this function (others are not judged).
	notOn string
	// err: the comparison is refused with an error containing it (a
	// clear error is the verdict).
	err string
	// warn: a warning containing it (the verdict: it says what the
	// causes are worth, and they are not judged).
	warn string
}

// A verdictRow is one comparison of TestVerdicts.
type verdictRow struct {
	name string
	c    Case
	agg  diff.Aggregate // "" is ctdiff diff's default, stats
	// swap compares the case's after runs as the base and its before
	// runs as the new ones.
	swap bool
	// format and formatAfter are how the runs are written (Pair.Format,
	// Pair.FormatAfter); metric is --metric (diff.Options.SampleType).
	format, formatAfter, metric string
	// pools builds the trees with cct.Options.Pools (--pools).
	pools bool
	want  want
	// knownDefect describes why diff gets the row wrong at this commit:
	// the row skips with it unless -audit.strict. Clear it when the fix
	// lands.
	knownDefect string
}

// audited is NewCase with the runs, seed, jitter and (when not 0) injected
// ms the audit's reproducers gave.
func audited(name string, k int, seed uint64, sigma, deltaMs float64) Case {
	c := NewCase(name, seed)
	c.K, c.Sigma = k, sigma
	if deltaMs != 0 {
		c.DeltaMs = deltaMs
	}
	return c
}

// verdictRows are the audit's findings with their right verdicts.
func verdictRows() []verdictRow {
	rows := []verdictRow{
		{name: "D0 null intersect seed 1", c: audited("null", 5, 1, 0.03, 0), agg: diff.Intersect},
		{name: "D0 null intersect seed 21", c: audited("null", 5, 21, 0.03, 0), agg: diff.Intersect},
		// A self cause grows beyond its vanished callees, and the
		// automatic normalization's bulk check keeps it honest.
		{name: "D1 inline-flat", c: audited("inline-flat", 5, 1, 0.03, 0), want: want{notOn: Encode}},
		// At 10% jitter the moved time's own noise passed Encode's self
		// test with the mean gate alone: the callee must be folded into
		// the caller's self row for the test to compare like with like.
		{name: "D1 inline-flat σ 0.1", c: audited("inline-flat", 5, 1, 0.1, 0), want: want{notOn: Encode}},
		{name: "D2 improve", c: audited("improve", 5, 2, 0.1, 0)},
		// At K = 3 the bulk check leaves share in 15 of 30 seeds, and 4 of
		// 30 alarm. Seed 8: share kept (the absolute totals
		// fell 6.3%, the votes for none short of the 1.5× a switch needs),
		// and four contexts the change did not touch pass at K = 3
		// (json.merge 1.45% → 2.51% of the total).
		{name: "D2 improve K=3 seed 8", c: audited("improve", 3, 8, 0.1, 0),
			knownDefect: "an optimisation under equal windows, share normalization kept: contexts the change did not touch alarm"},
		{name: "D3 duration", c: audited("duration", 5, 1, 0.1, 0)},
		// The mirror of the inlined case: Marshal no longer inlined appears with
		// the time Encode's self time lost (fixed by movedFromCaller).
		{name: "D5 no longer inlined", c: audited("inline-flat", 5, 1, 0.03, 0), swap: true},
		// 2000 ms is 4.5 μ (1% of a 44.7 s run), where the audit found all 30 seeds
		{name: "small 4.5μ", c: audited("small", 5, 1, 0.1, 2000), want: want{found: true}},
		{name: "shift", c: audited("shift", 5, 1, 0.03, 1000), want: want{found: true}},
		{name: "rename", c: audited("rename", 5, 1, 0.1, 0)},
		{name: "inline-frame", c: audited("inline-frame", 5, 1, 0.1, 0)},
		// Variation cases (cases_variation.go). A recursion whose depth varies per
		// run, unchanged: 10 of 100 null comparisons at K = 3 had a false
		// cause, 9 of them deep in the recursion (the fixed-depth
		// recursion-null: 4, none there). Seed 27 reported tree.Walk at
		// depth 44 "added", +1.13% (p 0.0018): no before run went that
		// deep, all three after runs did; Walk's outermost context did
		// not grow. Fixed by recursionMoves (3 of 100 left).
		{name: "R1 recursion-vary-null K=3 seed 27", c: audited("recursion-vary-null", 3, 27, 0.1, 0)},
		// Walk at depth 8, +3.75%, where the outermost Walk's own jitter
		// grew by μ too: the mean gate cannot tell.
		{name: "R1 recursion-vary-null K=3 seed 13", c: audited("recursion-vary-null", 3, 13, 0.1, 0),
			knownDefect: "time that moved between recursion depths is a cause where the recursion's outer call grew by μ from jitter"},
		// Query in a pool of 8 same-named threads grows by 2 s (4.4 μ)
		// at 3% jitter, the threads splitting the work unevenly and
		// differently per run: found in 3 of 30 seeds, where the even pool
		// (threads) finds it in 25 of 30. A thread ordinal's context moved
		// by μ from the split alone, which dropped query's spread test;
		// fixed (29 of 30).
		// A valid Go CPU profile whose bytes 0..3 and 74..75 look
		// like a binary ETW trace's buffer and trace headers (about one
		// in 3,000 profiles) is refused as binary ETL: exit 2 where a
		// verdict was due. The after side's first run of this case.
		// Fixed: sniffETL checks the buffer's saved offset too.
		{name: "R3 pprof sniffed as ETL", c: audited("idle-one", 5, 3, 0.1, 1000), want: want{notOn: "(no function)"}},
		// The variation families with no defect, one seed each, so that a
		// change that breaks them shows here (rates: the report).
		{name: "spread σ 0.03", c: audited("spread", 5, 1, 0.03, 1000), want: want{found: true}},
		{name: "trade", c: audited("trade", 5, 1, 0.03, 1000), want: want{found: true}},
		{name: "flat-one", c: audited("flat-one", 5, 1, 0.1, 1500), want: want{found: true}},
		{name: "flat", c: audited("flat", 5, 1, 0.1, 0)},
		{name: "gc-outlier K=3", c: audited("gc-outlier", 3, 1, 0.1, 0)},
		{name: "warmup", c: audited("warmup", 5, 1, 0.1, 0)},
		{name: "threads-perm-null", c: audited("threads-perm-null", 5, 1, 0.1, 0)},
		{name: "threads-uneven-null", c: audited("threads-uneven-null", 5, 1, 0.1, 0)},
		{name: "spread-null", c: audited("spread-null", 5, 2, 0.1, 0)},
		{name: "R2 threads-uneven seed 1", c: audited("threads-uneven", 5, 1, 0.03, 2000), want: want{found: true}},
		// Identity cases (cases_identity.go; bench/audit.sh's identity
		// families, 20 seeds each, K = 5, σ 0.1 unless said). A closure added
		// above handle's two renumbers them (func1 -> func2, func2 ->
		// func3): 20 of 20 null comparisons had false causes. Seed 1:
		// handle.func2;Encode "added" +4.24% (p 2.6e-6) and
		// handle.func3;query "added" +2.73% (p 7.6e-5): the closures pair
		// by name, so the old func2 (the query closure) is matched with
		// the new func2 (the encode closure) and nothing under them
		// matches. Fixed: the numbered closures of one enclosing function
		// pair by what they call where their sets differ
		// (diff/match_closure.go): 1 of 30 null comparisons with a false
		// cause.
		{name: "C1 closure-renumber-null seed 1", c: audited("closure-renumber-null", 5, 1, 0.1, 0)},
		// With Encode under the renamed closure 1 s slower (σ 0.05): found
		// in 20 of 20, as an "added" context, beside a false
		// handle.func3;query "added" in 20 of 20 (30 of 30 both with 30
		// seeds). Fixed: found in 30 of 30 as regressed, no false cause.
		{name: "C1 closure-renumber seed 1", c: audited("closure-renumber", 5, 1, 0.05, 1000), want: want{found: true}},
		// Generics: Map[go.shape.int] and Map[go.shape.string], both
		// under handleOrders, print as one Map[...] after (the form Go
		// prints changed; their time summed, unchanged): 28 of 30 null
		// comparisons had a false cause, Map[...];parse, the one
		// instantiation's time paired with the sum. Seed 1: handleOrders;
		// util.Map[...];util.parse "regressed" 3.25% -> 4.67% of the total,
		// +1.42% (p 0.0032); seed 3: the same "added", +5.27% (p 5.6e-12).
		// (One instantiation renamed, generic-renamed: 0 of 30.) Where the
		// two forms meet: runtime/pprof printed Map[...] up to Go 1.20 and
		// the shape names from Go 1.21 (golang/go#58712, for PGO), and
		// godeltaprof still prints [...]; so a comparison across that
		// release, or of the two profilers, splits or merges the
		// instantiations. Naming every Go function's type arguments [...]
		// in cct fixes this row but loses the instantiations of every
		// modern profile (whose hot and cold instantiations users tell
		// apart): not done. The fix needs the union to merge two nodes of a
		// side into one, which its one-node-per-run-node values cannot.
		{name: "C1 generic-merged-null seed 1", c: audited("generic-merged-null", 5, 1, 0.1, 0),
			knownDefect: "two generic instantiations printed as one Map[...] after: the merged function pairs with one of them, the other's time a cause"},
		// A pool of 8 same-named threads is 16 after, the same work
		// split over them: 6 of 20 null comparisons had a false cause,
		// always on a thread ordinal that only the after side has. Seed 1:
		// worker #11's pool.(*Pool).work +1.10% (p 1.2e-7), a thread that
		// did half a before thread's work; seed 19 (absolute
		// normalization): query on each of worker #9..#16, +266..374 ms.
		// Fixed: such a comparison finds the resized pool and is made again
		// with each pool one thread (ctdiff diff's --pools=auto, which
		// compareRunsOpts does too): 6 -> 2 of 30 with a false cause.
		{name: "C4 gomaxprocs-null seed 1", c: audited("gomaxprocs-null", 5, 1, 0.1, 0)},
		// With 30 seeds: 6 of 30 (5 on a new ordinal), K = 3 the same.
		// The new thread's delta is about μ (+1.0..1.2%), so the rate is
		// the gate's: with three times the pool's load
		// (gomaxprocs-heavy-null) 30 of 30, each with 8 causes, one per
		// new ordinal. Seed 1: worker #14's runtime.goexit;pool.work;
		// query "added" +1.62% (p 5.5e-16), worker #12's +1.59%, ...
		{name: "C4 gomaxprocs-heavy-null seed 1", c: audited("gomaxprocs-heavy-null", 5, 1, 0.1, 0)},
		// The same with pool-1-thread-N names: 5 of 20 (6 of 30). Seed 1:
		// pool-1-thread-13's pool.(*Pool).work +1.08% (p 4.7e-7).
		{name: "C4 gomaxprocs-named-null seed 1", c: audited("gomaxprocs-named-null", 5, 1, 0.1, 0)},
		// The same comparisons with --pools (cct.Options.Pools), which the
		// warning on a resized pool names: each pool one thread, no cause;
		// the change (+1 s of query in the pool) found.
		{name: "C4 gomaxprocs-null seed 1 --pools", c: audited("gomaxprocs-null", 5, 1, 0.1, 0), pools: true},
		{name: "C4 gomaxprocs-heavy-null seed 1 --pools", c: audited("gomaxprocs-heavy-null", 5, 1, 0.1, 0), pools: true},
		{name: "C4 gomaxprocs-named-null seed 1 --pools", c: audited("gomaxprocs-named-null", 5, 1, 0.1, 0), pools: true},
		{name: "C4 gomaxprocs seed 1 --pools", c: audited("gomaxprocs", 5, 1, 0.05, 1000), pools: true, want: want{found: true}},
		// The before runs as pprof, the after ones as a V8
		// (diff's MixedSampleTypesError, which the command words "pick a
		// type both have with --metric")
		// .cpuprofile of the same workload: refused without --metric
		// ("pick a type both have with --metric", right); with --metric
		// samples, 20 of 20 had false causes, and no warning though the
		// trees share 0.75% (overlap 0%): the Go frames (a .go file) and
		// the JS ones (a URL, a line and column) never match, so every
		// context is "added". Seed 1: 22 causes, runtime.main;main.main;
		// auth.validate;db.encode "added" +806 samples (p 7.6e-10).
		{name: "C5 mixed pprof/cpuprofile", c: audited("null", 5, 1, 0.1, 0), formatAfter: "cpuprofile",
			want: want{err: "differs from the first tree's"}},
		// Fixed: a warning says how little time lies in contexts both
		// sides have (diff/shared_warnings.go).
		{name: "C5 mixed pprof/cpuprofile --metric samples", c: audited("null", 5, 1, 0.1, 0), formatAfter: "cpuprofile", metric: "samples",
			want: want{warn: "share little"}},
		// The after build stripped: Encode and json.Marshal are
		// shop!0x4c1a20 and shop!0x4b3f10. 20 of 20 null comparisons had
		// two "added" causes and no warning. Seed 1: handleOrders;
		// shop!0x4c1a20;shop!0x4b3f10 "added" +4.49% (p 3.5e-10), the same
		// under handleUsers +4.26%: the time of Encode, which did not
		// change. A warning that one side has unsymbolized frames (and no
		// cause from them alone) is the right verdict.
		// Fixed: a warning says how much more of one side's time is in
		// unsymbolized frames (diff/shared_warnings.go); the causes stay.
		{name: "C6 unsym-null seed 1", c: audited("unsym-null", 5, 1, 0.1, 0), want: want{warn: "unsymbolized frames (shop!0x4c1a20, shop!0x4b3f10)"}},
		// The identity families with no defect, 30 seeds each: 0 of 30 null
		// comparisons with a false cause (truncated-vary-null at K = 3: 1);
		// the changes found in 30 of 30, moved-js in 25 of 30, as many as
		// the same change in a bundle not re-laid out (small as a
		// .cpuprofile: 25 of 30).
		{name: "generic-renamed-null", c: audited("generic-renamed-null", 5, 1, 0.1, 0)},
		{name: "generic-renamed", c: audited("generic-renamed", 5, 1, 0.05, 1000), want: want{found: true}},
		{name: "truncated-null", c: audited("truncated-null", 5, 1, 0.1, 0)},
		{name: "truncated-vary-null", c: audited("truncated-vary-null", 5, 1, 0.1, 0)},
		{name: "truncated-perf-null folded", c: audited("truncated-perf-null", 5, 1, 0.1, 0), format: "folded", formatAfter: "folded"},
		{name: "moved-line-null", c: audited("moved-line-null", 5, 1, 0.1, 0)},
		{name: "moved-file-null", c: audited("moved-file-null", 5, 1, 0.1, 0)},
		{name: "moved-file", c: audited("moved-file", 5, 1, 0.05, 1000), want: want{found: true}},
		{name: "moved-js-null", c: audited("moved-js-null", 5, 1, 0.1, 0), format: "cpuprofile", formatAfter: "cpuprofile"},
		{name: "moved-js", c: audited("moved-js", 5, 1, 0.05, 1000), format: "cpuprofile", formatAfter: "cpuprofile", want: want{found: true}},
		{name: "mixed pprof/folded --metric samples", c: audited("null", 5, 1, 0.1, 0), formatAfter: "folded", metric: "samples"},
		{name: "mixed pprof/folded", c: audited("null", 5, 1, 0.1, 0), formatAfter: "folded",
			want: want{err: "differs from the first tree's"}},
	}
	// Null comparisons at σ 0.05. Stats mode's family-wise error rate is
	// 5%, so some seeds alarm by design: of seeds 1..10, K = 3 alarms on
	// 2 (db.(*Conn).query) and 9 (json.Marshal), K = 5 on none; the audit
	// measured 10 of 150 seeds at K = 3 and 0 of 50 at K = 5. The rows
	// keep the clean seeds, so that a change that makes noise alarm more
	// shows here; the rate itself is the audit's to measure, over many
	// seeds, not a test's.
	for _, n := range []struct {
		k     int
		seeds []uint64
	}{{3, []uint64{1, 3, 4, 5, 6, 7, 8, 10}}, {5, []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}}} {
		for _, s := range n.seeds {
			rows = append(rows, verdictRow{name: fmt.Sprintf("null K=%d seed %d", n.k, s), c: audited("null", n.k, s, 0.05, 0)})
		}
	}
	return rows
}

// TestVerdicts compares each row's runs as ctdiff diff does and checks the
// verdict a user would get. The rows diff gets wrong today carry a
// knownDefect and skip; -audit.strict fails on them:
//
//	go test ./tools/audit -run TestVerdicts -audit.strict -v
func TestVerdicts(t *testing.T) {
	long.Skip(t, "the audit's verdict table")
	for _, row := range verdictRows() {
		t.Run(row.name, func(t *testing.T) {
			p, err := Generate(row.c)
			if err != nil {
				t.Fatal(err)
			}
			if row.swap {
				p.Before, p.After = p.After, p.Before
				p.Truth.Before, p.Truth.After = p.Truth.After, p.Truth.Before
				p.Truth.TotalBefore, p.Truth.TotalAfter = p.Truth.TotalAfter, p.Truth.TotalBefore
			}
			p.Format, p.FormatAfter = row.format, row.formatAfter
			var problems []string
			res, err := compareRunsOpts(t, p, row.agg, row.metric, row.pools)
			switch {
			case row.want.err != "" && err == nil:
				problems = []string{fmt.Sprintf("  no error %q, %d causes", row.want.err, len(res.Causes))}
			case row.want.err != "" && !strings.Contains(err.Error(), row.want.err):
				res, problems = &diff.Result{}, []string{"  " + err.Error()}
			case row.want.err != "":
				res = &diff.Result{}
			case err != nil:
				res, problems = &diff.Result{}, []string{"  " + err.Error()}
			case row.want.warn != "":
				if !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, row.want.warn) }) {
					problems = []string{fmt.Sprintf("  no warning %q among %q", row.want.warn, res.Warnings)}
				}
			default:
				problems = check(res, p.Truth, row.want)
			}
			if n := len(problems); n > maxProblems {
				problems = append(problems[:maxProblems], fmt.Sprintf("  and %d more", n-maxProblems))
			}
			switch {
			case len(problems) > 0 && row.knownDefect != "" && !*strict:
				t.Skipf("known defect (-audit.strict fails on it): %s\n%s", row.knownDefect, strings.Join(problems, "\n"))
			case len(problems) > 0:
				t.Errorf("%s normalization, %d causes:\n%s", res.Normalization.Mode, len(res.Causes), strings.Join(problems, "\n"))
			case row.knownDefect != "":
				t.Logf("the known defect no longer shows: clear knownDefect (%s)", row.knownDefect)
			}
		})
	}
}

// maxProblems is how many wrong causes a failing row lists (a row can
// have dozens).
const maxProblems = 8

// check returns what is wrong with res, by w and t: one line per wrong
// cause, or the miss.
func check(res *diff.Result, t Truth, w want) []string {
	o := Score(res, t, false)
	var problems []string
	for i, c := range res.Causes {
		v := o.Causes[i]
		line := fmt.Sprintf("  %s %s %+d (%s; true growth %.0f)", c.Kind, v.Path, c.Delta, v.Verdict, v.Growth)
		switch {
		case w.found && v.Verdict == FalseAlarm,
			w.notOn != "" && len(c.Path) > 0 && c.Path[len(c.Path)-1].Function == w.notOn,
			!w.found && w.notOn == "":
			problems = append(problems, line)
		}
	}
	if w.found && !o.Found() {
		problems = append(problems, fmt.Sprintf("  missed %d of %d injected changes (expected growth %.0f, μ %.0f)", o.Missed, o.Injected, o.Expected, o.MinDelta))
	}
	return problems
}

// compare is ctdiff diff OLD NEW [--aggregate agg] on the pair, in
// process: the runs are written and read back as the command reads them
// (convert.ReadFile, cct with pruning), in sorted file name order (which
// --aggregate intersect pairs by), and compared with the command's
// default options. --normalize auto is Normalize's zero value: Compare
// plans it from the trees (diff.PlanNormalization), as for the command,
// and compare checks that the plan is what the result used.
func compare(t *testing.T, p *Pair, agg diff.Aggregate) *diff.Result {
	t.Helper()
	res, err := compareRuns(t, p, agg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// compareRuns is compare, a run the command could not read its error.
func compareRuns(t *testing.T, p *Pair, agg diff.Aggregate) (*diff.Result, error) {
	t.Helper()
	return compareRunsOpts(t, p, agg, "", false)
}

// compareRunsOpts is compareRuns with --metric (a sample type; "" is
// the default) and runs of any format (p.Format, p.FormatAfter); an error
// of Compare's (mixed sample types) is returned too. pools is --pools;
// without it, a comparison that finds a pool of another size on each side
// is made again with it, as ctdiff diff's default (--pools=auto) does.
func compareRunsOpts(t *testing.T, p *Pair, agg diff.Aggregate, metric string, pools bool) (*diff.Result, error) {
	t.Helper()
	res, err := compareRunsOnce(t, p, agg, metric, pools, nil)
	if err == nil && !pools && len(res.ResizedPools) > 0 {
		return compareRunsOnce(t, p, agg, metric, true, res.ResizedPoolNames)
	}
	return res, err
}

func compareRunsOnce(t *testing.T, p *Pair, agg diff.Aggregate, metric string, pools bool, poolNames []string) (*diff.Result, error) {
	t.Helper()
	dir := t.TempDir()
	if err := p.Write(dir); err != nil {
		t.Fatal(err)
	}
	var sides [2][]*cct.Tree
	for i, name := range []string{"before", "after"} {
		paths, err := filepath.Glob(filepath.Join(dir, name, "run*"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("%s: %d runs, %v", name, len(paths), err)
		}
		for _, path := range paths {
			r, err := convert.ReadFile(path, convert.Options{})
			if err != nil {
				return nil, err
			}
			tree, err := cct.FromProfile(r.Profile, cct.Options{Prune: true, Pools: pools, PoolNames: poolNames})
			if err != nil {
				t.Fatal(err)
			}
			sides[i] = append(sides[i], tree)
		}
	}
	opts := diff.DefaultOptions()
	if agg != "" {
		opts.Aggregate = agg
	}
	opts.SampleType = metric
	res, err := diff.Compare(sides[0], sides[1], opts)
	if err != nil {
		if p.FormatAfter != "" && p.FormatAfter != p.Format {
			return nil, err
		}
		t.Fatal(err)
	}
	unit := "nanoseconds"
	if metric == "samples" {
		unit = "count"
	}
	plan, err := diff.PlanNormalization(sides[0], sides[1], opts.Normalize, unit, false)
	if err != nil {
		t.Fatal(err)
	}
	// Compare may revise the plan from the values (the bulk check says
	// why, with its median ratios).
	revised := strings.Contains(res.Normalization.Reason, "unchanged within")
	if plan.Mode != res.Normalization.Mode && !revised || !res.Normalization.Auto {
		t.Fatalf("normalization %s (auto %v), planned %s", res.Normalization.Mode, res.Normalization.Auto, plan.Mode)
	}
	return res, nil
}

// With one run a side the tests assume at most 10% run-to-run jitter
// (diff's maxPairJitter); where the pair's contexts say the runs vary far
// more, the verdict says its causes may be noise (without the warning, 20 of
// 50 null comparisons at σ 0.2 had a false cause), and where they vary less it
// does not cry wolf.
func TestOnePairJitterWarning(t *testing.T) {
	for _, tt := range []struct {
		sigma float64
		warn  bool
	}{{0.05, false}, {0.2, true}} {
		c := audited("null", 1, 3, tt.sigma, 0)
		p, err := Generate(c)
		if err != nil {
			t.Fatal(err)
		}
		res := compare(t, p, "")
		got := slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.Contains(w, "where the tests assume at most 10%") })
		if got != tt.warn {
			t.Errorf("σ %.2f: jitter warning %v, want %v; warnings %q", tt.sigma, got, tt.warn, res.Warnings)
		}
	}
}
