package main

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/report"
)

// A diffConfig is what diff's flags decide, as the options of each stage:
// diffOptions.config translates the flags into it once per command (once
// per component for ctdiff report), as pprof's reportOptions does, and
// what runs the comparison reads the config, never the flags.
type diffConfig struct {
	flags *diffOptions // inputs and filters: their state (URLs, matches)

	read    convert.Options
	build   cct.Options
	compare diff.Options // but the benchmark outputs' profile paths
	metric  metricChoice
	// autoPools: --pools=auto, which compares as one thread a pool that
	// has another size on each side (compareSides).
	autoPools bool

	format    report.Format
	output    string
	names     diffNames
	functions bool // --view functions

	failOnRegression, failOnUntested, allowUnrelated bool
}

// A metricChoice is --metric parsed (parseMetric): a sample type ("" for
// the profiles' default), or latency inferred from timestamped stacks.
type metricChoice struct {
	sampleType string
	latency    bool
	aggressive bool // latency-aggressive
}

// parseMetric reads --metric; every string is a sample type but the two
// latency metrics.
func parseMetric(s string) metricChoice {
	switch s {
	case "latency":
		return metricChoice{latency: true}
	case "latency-aggressive":
		return metricChoice{latency: true, aggressive: true}
	}
	return metricChoice{sampleType: s}
}

func (m metricChoice) String() string {
	switch {
	case m.aggressive:
		return "latency-aggressive"
	case m.latency:
		return "latency"
	}
	return m.sampleType
}

// config parses and validates diff's flags, each in one place, and
// translates them into each stage's options (formatGiven: --format was
// set). diff.Options.Check validates what the comparison takes; its errors
// are worded by their flags here.
func (o *diffOptions) config(formatGiven bool) (*diffConfig, error) {
	c := &diffConfig{flags: o, output: o.output, names: o.names, allowUnrelated: o.allowUnrelated,
		metric: parseMetric(o.metric), functions: o.view.view == viewFunctions}
	format, err := outputFormat(formatGiven, o.format, o.output, "text", diffFormats)
	if err != nil {
		return nil, err
	}
	c.format = report.Format(format)
	if err := oneOf("--pools", o.pools, "auto", "on", "off"); err != nil {
		return nil, err
	}
	c.autoPools = o.pools == "auto"
	// --fail-on-untested is a gate of its own: alone it would gate
	// nothing, and exit 0 silently.
	c.failOnRegression, c.failOnUntested = o.failOnRegression || o.failOnUntested, o.failOnUntested

	opts := diff.DefaultOptions()
	opts.Aggregate, opts.Match = diff.Aggregate(o.aggregate), diff.Matching(o.match)
	opts.Top, opts.Alpha = o.top, o.alpha
	opts.Tree = c.format.NeedsTree()
	if opts.Code, err = codeRules(o.app, o.lib); err != nil {
		return nil, err
	}
	if o.minDelta != "" {
		if opts.MinDelta, err = diff.ParseThreshold(o.minDelta); err != nil {
			return nil, fmt.Errorf("--min-delta %w", err)
		}
	}
	if err := o.view.check(format); err != nil {
		return nil, err
	}
	o.view.apply(&opts)
	if err := optionFlagError(opts.Check()); err != nil {
		return nil, err
	}
	if c.metric.latency {
		opts.Metric = diff.LatencyMetric(c.metric.aggressive)
	} else {
		opts.SampleType = c.metric.sampleType
	}
	if err := o.filters.check(); err != nil {
		return nil, err
	}
	c.build = cct.Options{Prune: !o.noPrune, CallSites: o.callSites, Timeline: c.metric.latency, Pools: o.pools == "on"}
	o.filters.apply(&c.build)
	if c.read, err = o.inputs.options(); err != nil {
		return nil, err
	}
	if err := o.norm.apply(&opts); err != nil {
		return nil, err
	}
	c.compare = opts
	return c, nil
}

// codeRules compiles --app and --lib as diff takes them.
func codeRules(app, lib string) (diff.CodeRules, error) {
	var r diff.CodeRules
	for _, f := range []struct {
		name, re string
		to       **regexp.Regexp
	}{{"--app", app, &r.App}, {"--lib", lib, &r.Lib}} {
		re, err := regexp.Compile(f.re)
		if err != nil {
			return r, fmt.Errorf("%s %q: %v", f.name, f.re, err)
		}
		if f.re != "" {
			*f.to = re
		}
	}
	return r, nil
}

// optionFlags name the flags of diff.Options' fields as diff.OptionError
// names them.
var optionFlags = map[string]string{
	"aggregate": "--aggregate", "match": "--match", "alpha": "--alpha", "top": "--top",
	"node fraction": "--node-fraction",
}

// optionFlagError words a *diff.OptionError by the flag that sets the
// option.
func optionFlagError(err error) error {
	var oe *diff.OptionError
	if errors.As(err, &oe) && optionFlags[oe.Option] != "" {
		return hinted(err, optionFlags[oe.Option]+" "+oe.Reason)
	}
	return err
}

// compareOptions are the comparison's options for the runs of paths:
// benchmark outputs name the profiles they go with.
func (c *diffConfig) compareOptions(paths [2][]string) diff.Options {
	opts := c.compare
	if opts.Bench != nil {
		b := *opts.Bench
		b.BaseProfiles, b.NewProfiles = paths[0], paths[1]
		opts.Bench = &b
	}
	return opts
}
