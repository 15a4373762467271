package main

import (
	"fmt"
	"os"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/spf13/pflag"
)

// normalizeFlags are diff's normalization and go test -bench flags.
type normalizeFlags struct {
	normalize           string
	benchBase, benchNew string
}

func (f *normalizeFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.normalize, "normalize", "auto", "how each run's values are scaled before comparing: none (absolute; fixed work), total (base scaled to the new total, pprof's -normalize), share (percent of each run's total; fixed-duration profiles), per=FUNC (per call or sample of FUNC, e.g. per=handleRequest), iteration (per benchmark iteration); auto picks from the inputs and the report says why")
	fl.StringVar(&f.benchBase, "bench-base", "", "go test -bench output of the OLD profiles' runs: values per iteration, and benchstat's verdict in the report")
	fl.StringVar(&f.benchNew, "bench-new", "", "go test -bench output of the NEW profiles' runs (with --bench-base)")
}

// apply sets opts.Normalize and opts.Bench from the flags. diff.Compare
// plans the normalization (diff.PlanNormalization) and reads --min-delta
// in the unit it plans.
func (f *normalizeFlags) apply(opts *diff.Options) error {
	n, err := diff.ParseNormalize(f.normalize)
	if err != nil {
		return fmt.Errorf("--normalize %w", err)
	}
	opts.Normalize = n
	if (f.benchBase == "") != (f.benchNew == "") {
		return fmt.Errorf("--bench-base and --bench-new go together: give the go test -bench output of both sides")
	}
	if f.benchBase != "" {
		b := &diff.Bench{}
		if b.Base, err = readBench(f.benchBase); err != nil {
			return err
		}
		if b.New, err = readBench(f.benchNew); err != nil {
			return err
		}
		opts.Bench = b
	}
	return nil
}

func readBench(path string) ([]diff.BenchResult, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	rs, err := convert.ParseBench(fh, path)
	if err != nil {
		return nil, err
	}
	out := make([]diff.BenchResult, len(rs))
	for i, r := range rs {
		out[i] = diff.BenchResult(r)
	}
	return out, nil
}
