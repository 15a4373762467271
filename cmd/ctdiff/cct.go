package main

import (
	"fmt"
	"io"

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
	prune        bool
	nodeFraction float64
	output       string
}

func newCCTCmd(s *streams) *cobra.Command {
	o := &cctOptions{}
	cmd := &cobra.Command{
		Use:   "cct INPUT...",
		Short: "Show the calling-context tree of profiles (several inputs are merged)",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := oneOf("--view", o.view, "top-down", "bottom-up", "flat"); err != nil {
				return err
			}
			if err := oneOf("--format", o.format, "text", "json"); err != nil {
				return err
			}
			return runCCT(s, o, args)
		},
	}
	o.inputs.register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&o.view, "view", "top-down", "top-down, bottom-up or flat")
	fl.StringVar(&o.format, "format", "text", "text or json")
	fl.StringVar(&o.metric, "metric", "", "sample type shown in text (default: the profile's default, else the last)")
	fl.BoolVar(&o.callSites, "call-sites", false, "distinguish calls from different lines of the caller (PARCS call-site CCT)")
	fl.BoolVar(&o.prune, "prune", false, "drop anonymous, empty and one-letter frames (ZAM pruning)")
	fl.Float64Var(&o.nodeFraction, "node-fraction", 0.005, "in text, hide nodes below this share of the total")
	fl.StringVarP(&o.output, "output", "o", "", "output file (default stdout)")
	for _, f := range []struct {
		name   string
		values []string
	}{{"view", []string{"top-down", "bottom-up", "flat"}}, {"format", []string{"text", "json"}}} {
		_ = cmd.RegisterFlagCompletionFunc(f.name, fixedCompletion(f.values))
	}
	return cmd
}

func runCCT(s *streams, o *cctOptions, args []string) error {
	copts, err := o.inputs.options()
	if err != nil {
		return err
	}
	paths, err := expandInputs(args)
	if err != nil {
		return err
	}
	results, err := readProfiles(s, paths, copts)
	if err != nil {
		return err
	}
	b := cct.NewBuilder(cct.Options{CallSites: o.callSites, Prune: o.prune})
	for i, r := range results {
		if err := b.Add(r.Profile); err != nil {
			return fmt.Errorf("%s: %w", paths[i], err)
		}
	}
	t := b.Finish()
	if o.view == "bottom-up" {
		t = cct.BottomUp(t)
	}
	si, err := t.SampleIndex(o.metric)
	if err != nil {
		return fmt.Errorf("--metric: %w", err)
	}
	ro := report.TreeOptions{SampleIndex: si, View: o.view, NodeFraction: o.nodeFraction, Inputs: paths}
	return writeOutput(s, o.output, false, func(w io.Writer) error {
		switch {
		case o.format == "json" && o.view == "flat":
			return fmt.Errorf("--format json supports the top-down and bottom-up views")
		case o.format == "json":
			return report.WriteTreeJSON(w, t, ro)
		case o.view == "flat":
			return report.WriteFlatText(w, t, ro)
		}
		return report.WriteTreeText(w, t, ro)
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
