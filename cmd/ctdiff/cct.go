package main

import (
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/report"
	"github.com/spf13/cobra"
)

type cctOptions struct {
	inputs       inputFlags
	view         string
	format       string
	metric       string
	callSites    bool
	pools        bool
	prune        bool
	nodeFraction float64
	output       string
	latency      string
	latencyGap   string
	filters      filterFlags
}

func newCCTCmd(s *streams) *cobra.Command {
	o := &cctOptions{}
	cmd := &cobra.Command{
		Use:   "cct INPUT...",
		Short: "Show the calling-context tree of profiles (several inputs are merged)",
		Args:  inputArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := oneOf("--view", o.view, "top-down", "bottom-up", "flat"); err != nil {
				return err
			}
			format, err := outputFormat(cmd.Flags().Changed("format"), o.format, o.output, "text", cctFormats)
			if err != nil {
				return err
			}
			o.format = format
			if err := oneOf("--latency", o.latency, "off", "conservative", "aggressive"); err != nil {
				return err
			}
			if o.format == "pprof" && o.view != "top-down" {
				return fmt.Errorf("--format pprof writes the top-down tree (pprof makes the other views itself), not --view %s", o.view)
			}
			if o.latency != "off" && o.format == "dot" {
				return fmt.Errorf("--format dot does not show latencies: use --format text, json or pprof with --latency")
			}
			if o.latency != "off" && o.view != "top-down" {
				return fmt.Errorf("--latency needs --view top-down: inferred instances belong to calling contexts, which --view %s does not show", o.view)
			}
			if err := o.filters.check(); err != nil {
				return err
			}
			return runCCT(s, o, args)
		},
	}
	o.inputs.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&o.view, "view", "top-down", "top-down, bottom-up or flat")
	fl.StringVar(&o.format, "format", "", "text, json, dot or pprof (gzipped; with --latency its sample types are calls and own latencies) (default: from -o's extension, else text)")
	fl.StringVar(&o.metric, "metric", "", "sample type shown in text (default: the profile's default, else the last)")
	fl.BoolVar(&o.callSites, "call-sites", false, "distinguish calls from different lines of the caller (PARCS call-site CCT)")
	fl.BoolVar(&o.pools, "pools", false, "one thread per thread pool: threads named alike but for numbers (pool-1-thread-7, worker #3) merge")
	fl.BoolVar(&o.prune, "prune", false, "drop anonymous, empty and one-letter frames (ZAM pruning)")
	o.filters.register(fl)
	fl.Float64Var(&o.nodeFraction, "node-fraction", 0.005, "in text and dot, hide nodes below this share of the total")
	fl.StringVarP(&o.output, "output", "o", "", "output file (default stdout)")
	fl.StringVar(&o.latency, "latency", "off", "infer function latencies from timestamped stacks (IntroPerf): off, conservative or aggressive")
	fl.StringVar(&o.latencyGap, "latency-gap", "auto",
		"with --latency, a thread silent for longer than this ends its open instances at its last sample: "+
			"auto ("+strconv.Itoa(cct.DefaultGapIntervals)+"x the sampling interval), Nx (N sampling intervals), a duration such as 50ms, or off")
	for _, f := range []struct {
		name   string
		values []string
	}{
		{"view", []string{"top-down", "bottom-up", "flat"}},
		{"format", cctFormats},
		{"latency", []string{"off", "conservative", "aggressive"}},
	} {
		_ = cmd.RegisterFlagCompletionFunc(f.name, fixedCompletion(f.values))
	}
	return cmd
}

func runCCT(s *streams, o *cctOptions, args []string) error {
	opts, err := o.inputs.options()
	if err != nil {
		return err
	}
	// Only trees are built: readers that can return their samples as
	// stacks (pprof, DevTools, .cpuprofile) do, which takes a fraction of
	// the memory.
	opts.Stacks = true
	// Without --latency no timestamp is read one by one: readers merge a
	// thread's samples of one stack as they read them.
	opts.MergeSamples = o.latency == "off"
	o.inputs.warnFetchFlags(s, args)
	paths, results, err := o.inputs.loadWith(s, args, o.output, opts)
	if err != nil {
		return err
	}
	// What the readers left (call trees, decoding buffers) is garbage:
	// collected now, it does not set the heap the tree is built in.
	runtime.GC()
	gap, err := parseLatencyGap(o.latencyGap)
	if err != nil {
		return err
	}
	latency := o.latency != "off"
	copts := cct.Options{CallSites: o.callSites, Prune: o.prune, Timeline: latency, Pools: o.pools}
	o.filters.apply(&copts)
	b := cct.NewBuilder(copts)
	samples := make([]int, len(results))
	for i, r := range results {
		samples[i] = r.Samples.Len()
		// Nothing here refers to the samples while the builder reads
		// them, so it can let compact stacks go (Builder.AddSamples), as
		// buildTree does for a diff.
		src := r.Samples
		r.Samples, results[i] = nil, nil
		if err := b.AddSamples(src); err != nil {
			return fmt.Errorf("%s: %w", paths[i], err)
		}
	}
	t := b.Finish()
	for _, w := range o.filters.unmatched() {
		printLine(s.Err, "ctdiff: warning: %s", w)
	}
	var mode cct.LatencyMode
	if latency {
		if mode, err = cct.ParseLatencyMode(o.latency); err != nil {
			return err
		}
		if err := inferLatency(s, t, gap, paths, samples); err != nil {
			return err
		}
	}
	if o.view == "bottom-up" {
		t = cct.BottomUp(t)
	}
	si, err := t.SampleIndex(o.metric)
	if err != nil {
		return fmt.Errorf("--metric: %w", err)
	}
	ro := report.TreeOptions{SampleIndex: si, View: o.view, NodeFraction: o.nodeFraction, Inputs: paths, LatencyMode: mode}
	f := report.Format(o.format)
	return writeFormat(s, o.output, f, func(w io.Writer) error {
		if o.view == "flat" && (f == report.DOT || f == report.JSON) {
			return fmt.Errorf("--format %s supports the top-down and bottom-up views", f)
		}
		return report.WriteTree(w, t, f, ro)
	})
}

// oneOf validates an enum flag, listing the valid choices.
func oneOf(flag, v string, choices ...string) error {
	for _, c := range choices {
		if v == c {
			return nil
		}
	}
	return fmt.Errorf("%s %q must be one of: %v", flag, v, choices)
}

func fixedCompletion(values []string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// parseLatencyGap reads --latency-gap: "auto", "off", "Nx" (N sampling
// intervals) or a positive duration.
func parseLatencyGap(v string) (cct.LatencyOptions, error) {
	switch {
	case v == "auto":
		return cct.LatencyOptions{}, nil
	case v == "off":
		return cct.LatencyOptions{Gap: -1}, nil
	case strings.HasSuffix(v, "x"):
		k, err := strconv.ParseFloat(strings.TrimSuffix(v, "x"), 64)
		if err == nil && k > 0 {
			return cct.LatencyOptions{GapIntervals: k}, nil
		}
	default:
		d, err := time.ParseDuration(v)
		if err == nil && d > 0 {
			return cct.LatencyOptions{Gap: d.Nanoseconds()}, nil
		}
	}
	return cct.LatencyOptions{}, fmt.Errorf("--latency-gap %q must be auto, off, a number of sampling intervals such as 4x, or a positive duration such as 50ms", v)
}

// inferLatency annotates t with IntroPerf latencies and says on stderr
// which inputs, or how many of their samples, had no timestamps and so are
// in the tree but not in the latencies.
func inferLatency(s *streams, t *cct.Tree, opts cct.LatencyOptions, paths []string, samples []int) error {
	timed := make([]int, len(samples))
	for _, ts := range t.Timeline {
		timed[ts.Profile]++
	}
	if len(t.Timeline) == 0 {
		return fmt.Errorf("--latency: %s: %w (collapsed stacks and aggregated profiles have none: "+
			"use a trace such as a DevTools trace, a .cpuprofile, JFR, perf script or ETW)", strings.Join(paths, ", "), cct.ErrNoTimeline)
	}
	for i, n := range samples {
		if timed[i] < n {
			printLine(s.Err, "ctdiff: %s: warning: %d of %d samples have no timestamp; they are in the tree but not in the latencies",
				paths[i], n-timed[i], n)
		}
	}
	return t.InferLatency(opts)
}
