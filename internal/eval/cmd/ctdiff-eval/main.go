// Command ctdiff-eval runs ctdiff's accuracy benchmark (package
// internal/eval, modelled on ZAM's RQ1) on the shared corpus and prints the
// results in the layout of ZAM's Table 2, per aggregation mode, then one
// summary row per aggregation mode and μ, so defaults can be chosen by
// measurement.
//
//	go run ./internal/eval/cmd/ctdiff-eval
//	go run ./internal/eval/cmd/ctdiff-eval -min-delta 25ms,50ms,100ms -failures
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/eval"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "ctdiff-eval:", err)
		os.Exit(2)
	}
}

func run() error {
	cfg := eval.DefaultConfig(corpus.Dir())
	var (
		profiles  = flag.String("profiles", strings.Join(cfg.Profiles, ","), "comma-separated corpus profiles")
		aggs      = flag.String("aggregate", "intersect,stats", "comma-separated aggregation modes")
		deltas    = flag.String("min-delta", "50ms", "comma-separated μ values; the first one gets the full tables")
		failures  = flag.Bool("failures", false, "list every case that is not a clean hit, with the engine's output")
		seeds     = flag.Int("seeds", 1, "also run the benchmark with the next seeds, for one summary row per seed and engine")
		primaryMu time.Duration
	)
	flag.StringVar(&cfg.Corpus, "corpus", cfg.Corpus, "corpus directory")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of everything")
	flag.IntVar(&cfg.Runs, "runs", cfg.Runs, "runs per side (K)")
	flag.IntVar(&cfg.PerKind, "per-kind", cfg.PerKind, "injected cases per kind and profile")
	flag.IntVar(&cfg.Baselines, "baselines", cfg.Baselines, "base-vs-base cases per profile")
	flag.IntVar(&cfg.Parallel, "parallel", 0, "cases run at once (0: GOMAXPROCS)")
	flag.DurationVar(&cfg.Noise.Recording, "recording", cfg.Noise.Recording, "most idle time added at each end of a recording")
	flag.Float64Var(&cfg.Noise.Jitter, "jitter", cfg.Noise.Jitter, "probability that a subtree is jittered in a run")
	flag.Float64Var(&cfg.Noise.Reorder, "reorder", cfg.Noise.Reorder, "probability that a top-level call block moves")
	flag.Float64Var(&cfg.Noise.HandlerRuns, "handlers", cfg.Noise.HandlerRuns, "probability that a run gets extraneous handlers")
	flag.IntVar(&cfg.Changes.Renames, "renames", cfg.Changes.Renames, "minified functions renamed in the new version")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if cfg.Corpus == "" {
		return fmt.Errorf("no corpus: pass -corpus or set CTDIFF_CORPUS")
	}
	cfg.Profiles = strings.Split(*profiles, ",")
	var modes []diff.Aggregate
	for _, a := range strings.Split(*aggs, ",") {
		modes = append(modes, diff.Aggregate(strings.TrimSpace(a)))
	}
	var mus []time.Duration
	for _, s := range strings.Split(*deltas, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(s))
		if err != nil || d <= 0 {
			return fmt.Errorf("-min-delta %q: want durations such as 50ms", s)
		}
		mus = append(mus, d)
	}
	primaryMu = mus[0]
	cfg.Engines = eval.DiffEngines(modes, mus)

	res, err := eval.Run(cfg)
	if err != nil {
		return err
	}
	injected, baselines, skipped := 0, 0, 0
	for _, c := range res.Cases {
		switch {
		case c.Skipped != "":
			skipped++
		case c.Baseline:
			baselines++
		default:
			injected++
		}
	}
	w := os.Stdout
	fmt.Fprintf(w, "ctdiff accuracy benchmark (ZAM RQ1): %d injected cases (%d per kind and profile) and %d base-vs-base cases on %d corpus profiles, K = %d runs per side, seed %d; %v\n\n",
		injected, cfg.PerKind, baselines, len(cfg.Profiles), cfg.Runs, cfg.Seed, res.Elapsed.Round(100*time.Millisecond))
	if skipped > 0 {
		fmt.Fprintf(w, "%d cases skipped: their profile has no function that can take their kind (-failures lists them).\n\n", skipped)
	}
	for i, e := range cfg.Engines {
		if !strings.HasSuffix(e.Name, "μ="+primaryMu.String()) {
			continue
		}
		fmt.Fprintf(w, "### %s\n\n", e.Name)
		res.WriteTable2(w, i)
		fmt.Fprintln(w)
		res.WriteFalseLeaves(w, i)
		fmt.Fprintln(w)
		if miss := sumMiss(res, i); miss != "" {
			fmt.Fprintf(w, "Misses issue 7's bar: %s.\n\n", miss)
		} else {
			fmt.Fprintf(w, "Meets issue 7's bar.\n\n")
		}
	}
	fmt.Fprintf(w, "### Every engine\n\n")
	res.WriteEngines(w)
	if *seeds > 1 {
		all := []*eval.Result{res}
		for i := 1; i < *seeds; i++ {
			c := cfg
			c.Seed = cfg.Seed + uint64(i)
			r, err := eval.Run(c)
			if err != nil {
				return err
			}
			all = append(all, r)
		}
		fmt.Fprintf(w, "\n### Every engine, seeds %d to %d\n\n", cfg.Seed, cfg.Seed+uint64(*seeds-1))
		eval.WriteSeeds(w, all)
	}
	if *failures {
		for i, e := range cfg.Engines {
			if !strings.HasSuffix(e.Name, "μ="+primaryMu.String()) {
				continue
			}
			fmt.Fprintf(w, "\n### Cases that are not clean hits: %s\n\n", e.Name)
			res.WriteFailures(w, i)
		}
	}
	return nil
}

func sumMiss(res *eval.Result, e int) string {
	s := res.Summary(e, nil)
	return strings.Join(s.Check(eval.DoneWhen), "; ")
}
