// Command gen writes K "before" and K "after" pprof CPU profiles of one of
// package audit's cases, with its ground truth:
//
//	go run ./tools/audit/cmd/gen -case null -k 5 -seed 3 -out /tmp/audit/x
//
// writes OUT/before/runNN.pb.gz, OUT/after/runNN.pb.gz and OUT/truth.json.
// Its flags are the audit's generator's, so the audit's reproducers
// (repro.sh on branch audit) run unchanged.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/ctdiff/ctdiff/tools/audit"
)

func main() {
	c := audit.NewCase("null", 1)
	flag.StringVar(&c.Name, "case", c.Name, "case: "+strings.Join(audit.AllCases(), ", "))
	format := flag.String("format", "pprof", "run format: "+strings.Join(audit.Formats, ", "))
	formatAfter := flag.String("formatafter", "", "the after runs' format (default -format)")
	flag.IntVar(&c.K, "k", c.K, "runs per side")
	flag.IntVar(&c.KNew, "knew", 0, "runs of the after side (default k)")
	flag.Uint64Var(&c.Seed, "seed", c.Seed, "noise seed")
	out := flag.String("out", "", "output directory")
	flag.Float64Var(&c.Sigma, "sigma", c.Sigma, "per-subtree lognormal jitter sigma")
	flag.Float64Var(&c.Hot, "hot", 0, "if > 0: a load-dependent handler subtree (handleSearch) with this jitter sigma")
	flag.Float64Var(&c.RunSigma, "runsigma", c.RunSigma, "whole-run jitter sigma")
	flag.Float64Var(&c.Outlier, "outlier", 0, "probability of a 30% slower run per side")
	flag.Float64Var(&c.DeltaMs, "delta", c.DeltaMs, "injected growth, ms per run (absolute, at the base duration)")
	base := flag.String("base", "synthetic", "base workload: synthetic, or a pprof/collapsed file")
	flag.Float64Var(&c.Seconds, "dur", c.Seconds, "before duration s")
	flag.Float64Var(&c.SecondsAfter, "durafter", 0, "after duration s (default = dur)")
	flag.Parse()
	if *out == "" {
		fail(fmt.Errorf("-out is required"))
	}
	if *base != "synthetic" {
		w, err := audit.ReadBase(*base)
		if err != nil {
			fail(err)
		}
		c.Base = w
	}
	p, err := audit.Generate(c)
	if err != nil {
		fail(err)
	}
	p.Format, p.FormatAfter = *format, *formatAfter
	if err := p.Write(*out); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen:", err)
	os.Exit(2)
}
