// Command ctdiff-eval runs ctdiff's accuracy benchmark (package
// tools/eval, modelled on ZAM's RQ1, with the case families) on
// the shared corpus, once per K (runs per side), and prints the results per
// case family and K against the per-family bar, ZAM's Table 2 layout for the
// standard family, and one summary row per aggregation mode and μ, so
// defaults can be chosen by measurement. -sensitivity runs the sensitivity
// sweep instead.
//
//	go run ./tools/eval/cmd/ctdiff-eval
//	go run ./tools/eval/cmd/ctdiff-eval -aggregate stats -runs 1,3,5,10
//	go run ./tools/eval/cmd/ctdiff-eval -min-delta 25ms,50ms,100ms -failures
//	go run ./tools/eval/cmd/ctdiff-eval -sensitivity -runs 1,3,5,10
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/tools/eval"
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
		runs      = flag.String("runs", "3", "comma-separated runs per side (K); the benchmark runs once per K")
		families  = flag.String("families", "all", "comma-separated case families (standard,spread,long-task,noisy-gc,artifacts,origins) or all")
		zam       = flag.Bool("zam", false, "print ZAM's Table 2 layout for the standard family at every K (default: when one K is given)")
		sens      = flag.Bool("sensitivity", false, "run the sensitivity sweep instead (smallest regression found at each K, against an oracle and pprof -diff_base)")
		shares    = flag.String("shares", "", "sensitivity: comma-separated injected shares of the profile's busy time, in percent (default: "+sharesDefault()+")")
		sensCases = flag.Int("sens-cases", eval.DefaultSensitivity("").Cases, "sensitivity: injected targets per profile")
		primaryMu time.Duration
	)
	flag.StringVar(&cfg.Corpus, "corpus", cfg.Corpus, "corpus directory")
	flag.Uint64Var(&cfg.Seed, "seed", cfg.Seed, "seed of everything")
	flag.IntVar(&cfg.PerKind, "per-kind", cfg.PerKind, "injected cases per kind and profile")
	flag.IntVar(&cfg.Baselines, "baselines", cfg.Baselines, "base-vs-base cases per profile (per family and baseline variant)")
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
	ks, err := ints(*runs)
	if err != nil {
		return fmt.Errorf("-runs %q: %v", *runs, err)
	}
	if cfg.Families, err = eval.ParseFamilies(*families); err != nil {
		return fmt.Errorf("-families: %v", err)
	}
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
	w := os.Stdout
	if *sens {
		return sensitivity(w, cfg, ks, *shares, *sensCases, primaryMu)
	}

	var byK []*eval.Result
	for _, k := range ks {
		c := cfg
		c.Runs = k
		res, err := eval.Run(c)
		if err != nil {
			return err
		}
		byK = append(byK, res)
	}
	var names []string
	for _, f := range cfg.Families {
		names = append(names, f.String())
	}
	fmt.Fprintf(w, "ctdiff accuracy benchmark (ZAM RQ1 and the case families: %s) on %d corpus profiles, K = %s runs per side, seed %d\n\n",
		strings.Join(names, ", "), len(cfg.Profiles), *runs, cfg.Seed)
	for _, res := range byK {
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
		fmt.Fprintf(w, "K = %d: %d injected and %d base-vs-base cases in %v", res.Config.Runs, injected, baselines, res.Elapsed.Round(100*time.Millisecond))
		if skipped > 0 {
			fmt.Fprintf(w, "; %d skipped: their profile cannot take their kind or family (-failures lists them)", skipped)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	primary := func(e eval.Engine) bool { return strings.HasSuffix(e.Name, "μ="+primaryMu.String()) }
	for i, e := range cfg.Engines {
		if !primary(e) {
			continue
		}
		fmt.Fprintf(w, "### Per case family and K: %s\n\n", e.Name)
		eval.WriteFamilies(w, byK, i)
		fmt.Fprintln(w)
	}
	hasStandard := slices.Contains(cfg.Families, eval.Standard)
	for _, res := range byK {
		if !hasStandard || (!*zam && len(byK) > 1) {
			break
		}
		for i, e := range cfg.Engines {
			if !primary(e) {
				continue
			}
			fmt.Fprintf(w, "### Standard family (ZAM's Table 2), K = %d: %s\n\n", res.Config.Runs, e.Name)
			res.WriteTable2(w, i)
			fmt.Fprintln(w)
			res.WriteFalseLeaves(w, i)
			fmt.Fprintln(w)
			if miss := sumMiss(res, i); miss != "" {
				fmt.Fprintf(w, "Misses the standard bar: %s.\n\n", miss)
			} else {
				fmt.Fprintf(w, "Meets the standard bar.\n\n")
			}
		}
	}
	for _, res := range byK {
		if !hasStandard {
			break
		}
		fmt.Fprintf(w, "### Every engine, standard family, K = %d\n\n", res.Config.Runs)
		res.WriteEngines(w)
		fmt.Fprintln(w)
		if *seeds > 1 {
			all := []*eval.Result{res}
			for i := 1; i < *seeds; i++ {
				c := res.Config
				c.Seed = cfg.Seed + uint64(i)
				r, err := eval.Run(c)
				if err != nil {
					return err
				}
				all = append(all, r)
			}
			fmt.Fprintf(w, "### Every engine, standard family, K = %d, seeds %d to %d\n\n", res.Config.Runs, cfg.Seed, cfg.Seed+uint64(*seeds-1))
			eval.WriteSeeds(w, all)
			fmt.Fprintf(w, "\n### Per case family, K = %d, seeds %d to %d pooled\n\n", res.Config.Runs, cfg.Seed, cfg.Seed+uint64(*seeds-1))
			for i, e := range cfg.Engines {
				if primary(e) {
					fmt.Fprintf(w, "%s:\n\n", e.Name)
					eval.WriteFamilies(w, []*eval.Result{eval.Pool(all)}, i)
					fmt.Fprintln(w)
				}
			}
		}
	}
	if *failures {
		for _, res := range byK {
			for i, e := range cfg.Engines {
				if !primary(e) {
					continue
				}
				fmt.Fprintf(w, "\n### Cases that are not clean hits, K = %d: %s\n\n", res.Config.Runs, e.Name)
				res.WriteFailures(w, i)
			}
		}
	}
	return nil
}

// ints parses a comma-separated list of positive integers.
func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || k < 1 {
			return nil, fmt.Errorf("want positive integers such as 1,3,5,10")
		}
		out = append(out, k)
	}
	return out, nil
}

func sumMiss(res *eval.Result, e int) string {
	s := res.Summary(e, func(c *eval.Case) bool { return c.Family == eval.Standard })
	return strings.Join(s.Check(eval.DoneWhen), "; ")
}

func sharesDefault() string {
	var s []string
	for _, f := range eval.DefaultShares {
		s = append(s, strconv.FormatFloat(100*f, 'g', -1, 64))
	}
	return strings.Join(s, ",")
}

// sensitivity runs the sensitivity sweep for the engine of the default
// aggregation mode at the first μ, or the first engine.
func sensitivity(w *os.File, cfg eval.Config, ks []int, shares string, cases int, mu time.Duration) error {
	sc := eval.DefaultSensitivity(cfg.Corpus)
	sc.Profiles, sc.Runs, sc.Seed, sc.Noise, sc.Changes, sc.Parallel = cfg.Profiles, ks, cfg.Seed, cfg.Noise, cfg.Changes, cfg.Parallel
	sc.Cases, sc.Baselines, sc.Mu = cases, max(cfg.Baselines, sc.Baselines), mu
	sc.Engine = cfg.Engines[0]
	for _, e := range cfg.Engines {
		if strings.HasPrefix(e.Name, string(diff.DefaultAggregate)+" ") {
			sc.Engine = e // the default aggregation mode when asked for
			break
		}
	}
	if shares != "" {
		sc.Shares = nil
		for _, f := range strings.Split(shares, ",") {
			p, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || p <= 0 || p >= 100 {
				return fmt.Errorf("-shares %q: want percentages such as 0.1,1,5", shares)
			}
			sc.Shares = append(sc.Shares, p/100)
		}
	}
	res, err := eval.RunSensitivity(sc)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "ctdiff sensitivity sweep: %s against an oracle (one-sided test at α = %g on the injected function's self time, its null distribution drawn from %d noise-only runs) and pprof -top -diff_base (injected function among the top %d by |flat delta|; a baseline is flagged when the top function grew by more than %v); %d injected long loops and %d baselines per profile on %d profiles, K = %v, seed %d; %v\n\n",
		sc.Engine.Name, sc.Alpha, sc.OracleRuns, sc.Top, sc.Mu, sc.Cases, sc.Baselines, len(sc.Profiles), ks, sc.Seed, res.Elapsed.Round(time.Second))
	res.WriteSensitivity(w)
	fmt.Fprintln(w)
	return nil
}
