package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// filterFlags are pprof's sample and frame filters, --focus, --ignore,
// --hide and --show, of ctdiff diff and ctdiff cct: translated here, once,
// into the filter every tree is built with (cct.Options.Filter).
type filterFlags struct {
	spec cct.Filters
	// filter is spec compiled by check; nil without filters.
	filter *cct.Filter
}

func (f *filterFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&f.spec.Focus, "focus", "", "keep only the samples with a frame matching this regexp (a function name, file or mapping), as pprof's -focus")
	fl.StringVar(&f.spec.Ignore, "ignore", "", "drop the samples with a frame matching this regexp, as pprof's -ignore")
	fl.StringVar(&f.spec.Hide, "hide", "", "remove the frames matching this regexp from every stack (their time goes to their caller), as pprof's -hide")
	fl.StringVar(&f.spec.Show, "show", "", "keep only the frames matching this regexp in every stack, as pprof's -show")
}

// check compiles the filters; an expression that does not compile is
// named by its flag.
func (f *filterFlags) check() error {
	filter, err := f.spec.Compile()
	var fe *cct.FilterError
	if errors.As(err, &fe) {
		return hinted(err, fmt.Sprintf("--%s %q: %v", fe.Name, fe.Expr, fe.Err))
	}
	if err != nil {
		return err
	}
	f.filter = filter
	return nil
}

// apply sets the tree builder's filter.
func (f *filterFlags) apply(copts *cct.Options) { copts.Filter = f.filter }

// unmatched describes the filters that matched no frame of the inputs
// read, one warning each, as pprof warns of them: usually a misspelt name.
func (f *filterFlags) unmatched() []string {
	if f.filter == nil {
		return nil
	}
	var out []string
	for _, name := range f.filter.Unmatched() {
		what := "no frame of the inputs"
		if name == "focus" || name == "show" {
			what += ", so no sample is left"
		}
		out = append(out, fmt.Sprintf("--%s %q matched %s", name, f.flagValue(name), what))
	}
	return out
}

// leftNothing returns the error of filters that left no sample in any
// input, a focus or show that matched no frame: there is nothing to
// compare, and a gate must not pass on it.
func (f *filterFlags) leftNothing() error {
	if f.filter == nil {
		return nil
	}
	for _, name := range f.filter.Unmatched() {
		if name == "focus" || name == "show" {
			return fmt.Errorf("--%s %q matched no frame of the inputs: no sample is left to compare", name, f.flagValue(name))
		}
	}
	return nil
}

func (f *filterFlags) flagValue(name string) string {
	switch name {
	case "focus":
		return f.spec.Focus
	case "ignore":
		return f.spec.Ignore
	case "hide":
		return f.spec.Hide
	}
	return f.spec.Show
}

// singleDashHint adds to pflag's error for a long flag given with one
// dash, as pprof and the go tool spell them (-focus, -top), that ctdiff's
// take two. pflag reads one dash as a run of one-letter flags (-hide is
// -h -i -d -e) and names the letter it did not know, so the word is found
// in args: the first of one dash, before "--", that names a long flag of
// the command c.
func singleDashHint(c *cobra.Command, args []string, err error) error {
	if !strings.HasPrefix(err.Error(), "unknown shorthand flag") {
		return err
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		word, ok := strings.CutPrefix(a, "-")
		if !ok || strings.HasPrefix(word, "-") {
			continue
		}
		name, _, _ := strings.Cut(word, "=")
		if len(name) > 1 && c.Flags().Lookup(name) != nil {
			return hinted(err, fmt.Sprintf("%s: ctdiff's long flags take two dashes: --%s", a, name))
		}
	}
	return err
}
