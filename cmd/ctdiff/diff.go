package main

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/internal/oneline"
	"github.com/ctdiff/ctdiff/report"
	"github.com/spf13/cobra"
)

type diffOptions struct {
	inputs           inputFlags
	minDelta         string
	threshold        diff.Threshold // minDelta, read by check
	aggregate        string
	match            string
	metric           string
	format           string
	output           string
	failOnRegression bool
	failOnUntested   bool
	allowUnrelated   bool
	app, lib         string
	top              int
	noPrune          bool
	callSites        bool
	pools            string
	poolNames        []string // with pools "on": only these (auto's resized pools)
	alpha            float64
	norm             normalizeFlags
	names            diffNames
	filters          filterFlags
	view             viewFlags
}

func newDiffCmd(s *streams) *cobra.Command {
	o := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Compare base runs with new runs and report the regressed call paths",
		Long: `diff compares the "before" runs OLD with the "after" runs NEW. Each is a profile, a
directory of profiles, a glob or @LIST (a file naming one input per line); several files
are several runs of the same workload.
It reports the lowest functions whose time grew by at least --min-delta (ZAM's critical
graph), the call paths that cost most more (IntroPerf's ranking), the calls that appeared
or disappeared and how similar the runs are (PARCS).

--aggregate stats (the default) tests every calling context across all runs and keeps
significant regressions; --aggregate intersect is ZAM's method: runs are paired by sorted
file name, and a cause must appear in every pair.

--normalize says how each run's values are scaled first, and the report says which and
why: by default share when every profile covers the same duration (fixed-duration
profiles such as /debug/pprof/profile?seconds=30, where absolute times are wrong), per
benchmark iteration with --bench-base/--bench-new (go test -bench output), else none.
OLD and NEW may be URLs, fetched as go tool pprof does (--seconds, --timeout, --save-dir).

Exit codes: 0 success, 1 with --fail-on-regression when a cause was found, 2 on errors.`,
		Args: func(cmd *cobra.Command, args []string) error { return checkDiffArgs(args) },
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.check(cmd.Flags().Changed("format")); err != nil {
				return err
			}
			return runDiff(s, o, args[0], args[1])
		},
	}
	o.register(cmd)
	for _, f := range []struct {
		name   string
		values []string
	}{
		{"aggregate", []string{string(diff.Stats), string(diff.Intersect)}},
		{"match", []string{string(diff.ZAM), string(diff.PARCS)}},
		{"format", diffFormats},
		{"view", diffViews},
	} {
		_ = cmd.RegisterFlagCompletionFunc(f.name, fixedCompletion(f.values))
	}
	return cmd
}

// register defines diff's flags on cmd, bound to o. ctdiff report decodes
// a manifest component's options through the same flags (manifest.go), so
// an option means there what its flag means here.
func (o *diffOptions) register(cmd *cobra.Command) {
	o.inputs.register(cmd)
	fl := cmd.Flags()
	o.norm.register(fl)
	o.filters.register(fl)
	o.view.register(fl)
	fl.StringVar(&o.minDelta, "min-delta", "", "least growth of a cause, with its unit: a duration (50ms) for time metrics, a size (1MB) for byte metrics, a number for counts (samples), or a share of the base total (1%) for any (default 50ms for time metrics under --normalize none or total, 1% otherwise)")
	fl.StringVar(&o.aggregate, "aggregate", string(diff.DefaultAggregate), "how runs combine: stats (per-node significance tests) or intersect (ZAM)")
	fl.StringVar(&o.match, "match", string(diff.DefaultMatching), "sibling matching: zam (LCS with hash-map fallback) or parcs (relaxed common-tree matching, siblings in call-site order: sampled profiles do not record call order)")
	fl.StringVar(&o.metric, "metric", "", "sample type to compare (default: the profiles' default, else the last), or latency / latency-aggressive for latencies inferred from timestamped stacks")
	fl.StringVar(&o.format, "format", "", "text, json (schema ctdiff.diff/v1), dot (the critical graph), pprof (new − base in pprof's diff convention), markdown or html (default: from -o's extension, else text)")
	fl.StringVarP(&o.output, "output", "o", "", "output file (default stdout)")
	fl.BoolVar(&o.failOnRegression, "fail-on-regression", false, "exit with status 1 when a regression cause is found (tested causes only: nodes above --min-delta that no test could judge do not count)")
	fl.BoolVar(&o.failOnUntested, "fail-on-untested", false, "with --fail-on-regression, also exit 1 for nodes above --min-delta that could not be tested (threshold-only gating, e.g. one run per side)")
	fl.BoolVar(&o.allowUnrelated, "allow-unrelated", false, "with --fail-on-regression, gate even when the sides share under 20% of their time (profiles of different programs, or of one program symbolized differently), which is refused otherwise")
	fl.StringVar(&o.app, "app", "", "regular expression of functions (or files) that are the program's own code, to which causes are charged (default: not the runtime, the standard library, JDK or V8 builtins, shared libraries)")
	fl.StringVar(&o.lib, "lib", "", "regular expression of functions (or files) that are library code: causes are charged to the program's function that calls them")
	fl.IntVar(&o.top, "top", diff.DefaultTop, "ranked paths (and weight differences) to report")
	fl.BoolVar(&o.names.allPaths, "all-paths", false, "text report: also list the ranked paths that cost less than --min-delta (counted, not listed, by default)")
	fl.BoolVar(&o.names.full, "full-names", false, "text and markdown reports: name functions in full (Go import paths, Java packages) instead of example.checkRules")
	fl.BoolVar(&o.noPrune, "no-prune", false, "keep anonymous, empty and one-letter frames (ZAM prunes them)")
	fl.BoolVar(&o.callSites, "call-sites", false, "distinguish calls from different lines of the caller (PARCS call-site CCT)")
	fl.StringVar(&o.pools, "pools", "auto", "compare each thread pool as one thread (threads named alike but for numbers: pool-1-thread-7, worker #3): on, off, or auto, which does so for a pool that has another size on each side (a setting, or the machine's cores), so that it compares as a whole")
	fl.Lookup("pools").NoOptDefVal = "on"
	fl.Float64Var(&o.alpha, "alpha", diff.DefaultAlpha, "with --aggregate stats, the chance of any false cause (family-wise error rate)")
}

// checkDiffArgs checks diff's OLD and NEW.
func checkDiffArgs(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("diff takes OLD and NEW, got %d arguments%s (see 'ctdiff diff --help')", len(args), sidesHint(args))
	}
	if args[0] == "-" && args[1] == "-" {
		return fmt.Errorf("OLD and NEW are both standard input (-), which can be read once: give at least one of them as a file")
	}
	return nil
}

// check validates what the flags' types do not, and resolves the output
// format (formatGiven: --format was set).
func (o *diffOptions) check(formatGiven bool) error {
	if err := oneOf("--aggregate", o.aggregate, string(diff.Stats), string(diff.Intersect)); err != nil {
		return err
	}
	if err := oneOf("--match", o.match, string(diff.ZAM), string(diff.PARCS)); err != nil {
		return err
	}
	format, err := outputFormat(formatGiven, o.format, o.output, "text", diffFormats)
	if err != nil {
		return err
	}
	o.format = format
	if err := oneOf("--pools", o.pools, "auto", "on", "off"); err != nil {
		return err
	}
	if o.top < 0 {
		return fmt.Errorf("--top %d must not be negative", o.top)
	}
	if !(o.alpha > 0 && o.alpha < 1) {
		return fmt.Errorf("--alpha %g must be between 0 and 1", o.alpha)
	}
	for _, f := range []struct{ name, re string }{{"--app", o.app}, {"--lib", o.lib}} {
		if _, err := regexp.Compile(f.re); err != nil {
			return fmt.Errorf("%s %q: %v", f.name, f.re, err)
		}
	}
	// --fail-on-untested is a gate of its own: alone it would gate
	// nothing, and exit 0 silently.
	o.failOnRegression = o.failOnRegression || o.failOnUntested
	if o.minDelta != "" {
		if o.threshold, err = diff.ParseThreshold(o.minDelta); err != nil {
			return fmt.Errorf("--min-delta %w", err)
		}
	}
	if err := o.view.check(o.format); err != nil {
		return err
	}
	return o.filters.check()
}

// codeRules are --app and --lib as diff takes them (check has compiled
// both).
func (o *diffOptions) codeRules() diff.CodeRules {
	var r diff.CodeRules
	if o.app != "" {
		r.App = regexp.MustCompile(o.app)
	}
	if o.lib != "" {
		r.Lib = regexp.MustCompile(o.lib)
	}
	return r
}

// side is one side of a comparison: its inputs and their trees.
type side struct {
	paths []string
	trees []*cct.Tree
	// fold holds the runs of both sides when loadSides folded them
	// (fold.go); trees are then headers only.
	fold *diff.Fold
	// sums identify the inputs by content, and formats name their
	// formats, in path order.
	sums    []digest
	formats []string
}

func runDiff(s *streams, o *diffOptions, oldArg, newArg string) error {
	defer comparisonGC()()
	res, _, err := compareSides(s, o, oldArg, newArg, false)
	if err != nil {
		return err
	}
	if err := writeDiff(s, res, o.format, o.output, o.names, o.view.view == viewFunctions); err != nil {
		return err
	}
	if o.failOnRegression || o.format != "text" || (o.output != "" && o.output != "-") {
		// The report holds the warnings; say them where CI logs show
		// them, and under a gate always: they say what the gate's
		// verdict is worth.
		for _, w := range res.Warnings {
			printLine(s.Err, "ctdiff: warning: %s", w)
		}
	}
	if !o.failOnRegression {
		return nil
	}
	return gate(s, o, res)
}

// gate is --fail-on-regression's verdict on res: errRegression (exit 1)
// for a cause, or with --fail-on-untested for a node above μ no test could
// judge; an error (exit 2) for sides that share too little to be judged
// (--allow-unrelated gates them anyway). What it judges, and what it
// could not, goes to stderr: a gate never passes silently over findings.
func gate(s *streams, o *diffOptions, res *diff.Result) error {
	if res.Shared < diff.SharedMin && !o.allowUnrelated {
		return fmt.Errorf("the base and new runs share %.2g%% of their time in calling contexts both have (under %g%%): they look like profiles of different programs, and a gate on them judges nothing; --allow-unrelated gates them anyway",
			100*res.Shared, 100*diff.SharedMin)
	}
	if len(res.Causes) > 0 {
		printLine(s.Err, "ctdiff: %s", report.VerdictLine(res))
		return errRegression
	}
	if n := len(res.Untested); n > 0 {
		c := res.Untested[0]
		if o.failOnUntested {
			printLine(s.Err, "ctdiff: regression (untested, --fail-on-untested): %d node(s) above the threshold, the largest %s %s in %s",
				n, c.Kind, signedValue(c.Delta, res.Unit), causeWhere(c))
			return errRegression
		}
		printLine(s.Err, "ctdiff: untested: %d call path(s) grew by %s or more where no test could judge them, the largest %s in %s; they do not fail the gate (--fail-on-untested makes them; more runs a side test them)",
			n, report.FormatValue(res.MinDelta, res.Unit), signedValue(c.Delta, res.Unit), causeWhere(c))
	}
	return nil
}

// signedValue formats a delta with its sign: a cause tested on its self
// time may show an inclusive delta below zero, which "+" put as "+-1.27%".
func signedValue(v int64, unit string) string {
	if v < 0 {
		return report.FormatValue(v, unit)
	}
	return "+" + report.FormatValue(v, unit)
}

// comparisonGC raises GOGC for a comparison and returns the function that
// restores it. A comparison builds every run's tree and then the union of
// them, and most of what it allocates stays live until the end: at the
// default GOGC=100 the collector ran a dozen times, marking the same trees
// again and again. 150 spends 10% more peak memory (200,000-stack pair:
// 528 -> 580 MB, pprof -diff_base needs 742 MB) for 13% less CPU and 12%
// less wall time (bench/run.sh's pair, 8 rounds interleaved). A Fold that
// streams many runs lowers it instead (streamGC), and so does the
// comparison of folded runs once they are all built (compareGC); restore
// undoes any of them.
// GOGC, when set, is the user's choice and wins.
func comparisonGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(150)
	return func() { debug.SetGCPercent(old) }
}

// compareSides is a comparison as ctdiff diff makes it, and as ctdiff
// report makes it for a manifest's component (runComponent): it reads and
// builds the runs OLD and NEW stand for and compares them with the options
// o holds, which check has validated. It returns the comparison and the
// runs' trees, base runs first, when keepTrees asks for them; otherwise
// the runs are folded into the comparison as they are read (fold.go) and
// the trees returned are headers. diff.Compare resolves the metric, plans
// the normalization and reads --min-delta; its typed errors become
// messages that name the flags (flagError).
func compareSides(s *streams, o *diffOptions, oldArg, newArg string, keepTrees bool) (*diff.Result, []*cct.Tree, error) {
	o.inputs.warnFetchFlags(s, []string{oldArg, newArg})
	latency := o.metric == "latency" || o.metric == "latency-aggressive"
	copts := cct.Options{Prune: !o.noPrune, CallSites: o.callSites, Timeline: latency, Pools: o.pools == "on", PoolNames: o.poolNames}
	o.filters.apply(&copts)
	if paths, err := expandInputs([]string{oldArg, newArg}); err == nil {
		s.progress = startProgress(s, "reading", inputSize(paths))
		defer func() { s.progress.finish(); s.progress = nil }()
	}
	sides, err := loadSides(s, o, [2]string{oldArg, newArg}, copts, keepTrees)
	if err != nil {
		return nil, nil, err
	}
	if err := o.filters.leftNothing(); err != nil {
		return nil, nil, err
	}
	s.progress.phase("comparing")
	all := append(append([]*cct.Tree{}, sides[0].trees...), sides[1].trees...)
	allPaths := append(append([]string{}, sides[0].paths...), sides[1].paths...)
	opts := diff.DefaultOptions()
	opts.Aggregate = diff.Aggregate(o.aggregate)
	opts.Match = diff.Matching(o.match)
	opts.Top = o.top
	opts.Alpha = o.alpha
	opts.Tree = report.Format(o.format).NeedsTree()
	opts.MinDelta = o.threshold
	opts.Code = o.codeRules()
	o.view.apply(&opts)
	if latency {
		for i, t := range all {
			if err := t.InferLatency(cct.LatencyOptions{}); err != nil {
				return nil, nil, fmt.Errorf("%s: --metric %s: %w", allPaths[i], o.metric, err)
			}
		}
		opts.Metric = diff.LatencyMetric(o.metric == "latency-aggressive")
	} else {
		opts.SampleType = o.metric
	}
	if err := o.norm.apply(&opts); err != nil {
		return nil, nil, err
	}
	if opts.Bench != nil {
		opts.Bench.BaseProfiles, opts.Bench.NewProfiles = sides[0].paths, sides[1].paths
	}
	var res *diff.Result
	if f := sides[0].fold; f != nil {
		res, err = f.Compare(opts)
	} else {
		res, err = diff.Compare(sides[0].trees, sides[1].trees, opts)
	}
	s.progress.finish()
	if err != nil {
		formats := append(append([]string{}, sides[0].formats...), sides[1].formats...)
		return nil, nil, flagError(err, allPaths, inputKinds(all, formats))
	}
	res.Base.Profiles, res.New.Profiles = sides[0].paths, sides[1].paths
	if w := sharedProfiles([2][]string{sides[0].paths, sides[1].paths}, [2][]digest{sides[0].sums, sides[1].sums}); w != "" {
		res.Warnings = append([]string{w}, res.Warnings...)
	}
	res.Filters = o.filters.spec
	res.Warnings = append(res.Warnings, o.filters.unmatched()...)
	if o.pools == "auto" && len(res.ResizedPools) > 0 && rereadable(oldArg, newArg) {
		// A pool of another size on each side (audit C4): thread by
		// thread, the threads one side lacks are added causes. The runs
		// are read again with each pool one thread.
		on := *o
		on.pools, on.poolNames = "on", res.ResizedPoolNames
		res2, all2, err := compareSides(s, &on, oldArg, newArg, keepTrees)
		if err != nil {
			return nil, nil, err
		}
		res2.Warnings = append([]string{fmt.Sprintf("threads: a thread pool is compared as one thread where it has another size on each side: %s (--pools=off compares thread by thread, --pools merges every pool)", strings.Join(res.ResizedPools, "; "))}, res2.Warnings...)
		return res2, all2, nil
	}
	return res, all, nil
}

// rereadable reports whether the inputs can be read a second time: not
// standard input or a URL.
func rereadable(args ...string) bool {
	for _, a := range args {
		if a == "-" || isURL(a) {
			return false
		}
	}
	return true
}

// minDeltaHint words a --min-delta that does not fit the compared values
// by the flags that set them.
func minDeltaHint(e *diff.MinDeltaError) string {
	if e.Unit != diff.UnitShare {
		return fmt.Sprintf("--min-delta %q: %s", e.Threshold, e.Reason)
	}
	how := "--normalize share"
	if e.AutoShare {
		how = "--normalize auto chose share for these inputs"
	}
	return fmt.Sprintf("--min-delta %q: values are shares of each run's total (%s): use a share such as 1%%", e.Threshold, how)
}

// flagError words diff.Compare's typed errors the way the command line
// sees them: by the flags that set what is wrong, and the inputs by path
// and kind (paths and kinds: the base runs' and then the new runs'; kinds
// may be nil). Other errors pass as they are.
func flagError(err error, paths []string, kinds []inputKind) error {
	var (
		unpaired *diff.UnpairedRunsError
		missing  *diff.SampleTypeError
		mixed    *diff.MixedSampleTypesError
		norm     *diff.NormalizeError
		minDelta *diff.MinDeltaError
	)
	switch {
	case errors.As(err, &unpaired):
		return hinted(err, fmt.Sprintf("--aggregate intersect pairs runs by sorted file name (ZAM Section 3.1) and needs as many base runs as new runs, got %d and %d: use --aggregate stats", unpaired.Base, unpaired.New))
	case errors.As(err, &missing) && missing.Tree < len(paths):
		return hinted(err, missingTypeHint(missing, paths, kinds))
	case errors.As(err, &mixed) && mixed.Tree < len(paths):
		return hinted(err, mixedTypesHint(mixed, paths, kinds))
	case errors.As(err, &norm) && norm.NoIterations:
		return hinted(err, "--"+norm.Error()+" (--bench-base and --bench-new)")
	case errors.As(err, &norm):
		return hinted(err, "--"+norm.Error())
	case errors.As(err, &minDelta):
		return hinted(err, minDeltaHint(minDelta))
	}
	return err
}

// A hintedError is a library error worded for the command line; it
// unwraps to the library's.
type hintedError struct {
	err error
	msg string
}

func (e *hintedError) Error() string { return e.msg }
func (e *hintedError) Unwrap() error { return e.err }

func hinted(err error, msg string) error { return &hintedError{err: err, msg: msg} }

// loadSides reads the profiles the two arguments stand for and builds one
// tree per profile: each profile is a run. Both sides are read and built in
// parallel (buildTrees).
func loadSides(s *streams, o *diffOptions, args [2]string, copts cct.Options, keepTrees bool) ([2]side, error) {
	var sides [2]side
	opts, err := o.inputs.options()
	if err != nil {
		return sides, err
	}
	var paths []string
	for i, arg := range args {
		if sides[i].paths, err = o.inputs.resolve(s, []string{arg}, o.output); err != nil {
			return sides, err
		}
		if err := sameFiles(i, arg, sides[i].paths); err != nil {
			return sides, err
		}
		paths = append(paths, sides[i].paths...)
	}
	var trees []builtTree
	if f := newFold(o, keepTrees, len(sides[0].paths), len(sides[1].paths)); f != nil {
		sides[0].fold = f
		trees, err = foldTrees(s, f, len(sides[0].paths), paths, opts, foldOptions(o, copts))
	} else {
		trees, err = buildTrees(s, paths, opts, copts)
	}
	if err != nil {
		return sides, err
	}
	for i := range sides {
		for range sides[i].paths {
			t := trees[0]
			trees = trees[1:]
			sides[i].trees = append(sides[i].trees, t.tree)
			sides[i].sums = append(sides[i].sums, t.sum)
			sides[i].formats = append(sides[i].formats, t.format)
		}
		if err := sameContent(i, args[i], sides[i].paths, sides[i].sums); err != nil {
			return sides, err
		}
	}
	return sides, nil
}

// causeWhere names a cause's lowest function, or its thread.
func causeWhere(c diff.Cause) string {
	if c.Blame != nil {
		return oneline.Escape(c.Blame.Function)
	}
	if n := len(c.Path); n > 0 {
		return oneline.Escape(c.Path[n-1].Function)
	}
	return oneline.Escape(c.Thread)
}
