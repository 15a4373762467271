package main

import (
	"fmt"

	"github.com/ctdiff/ctdiff/diff"
	"github.com/spf13/pflag"
)

// Views of diff's result (--view): the report, or pprof's -top of the
// diff, one row per function (diff.FunctionTable). The name is not "top":
// --top already counts the report's ranked paths.
const (
	viewReport    = "report"
	viewFunctions = "functions"
)

var diffViews = []string{viewReport, viewFunctions}

// viewFlags choose the view of diff's result and order the function table.
type viewFlags struct {
	view         string
	cum          bool
	nodeFraction float64
}

func (v *viewFlags) register(fl *pflag.FlagSet) {
	fl.StringVar(&v.view, "view", viewReport, "report, or functions: one row per function with its flat (own) and cum (with callees) delta, their 95% CIs and significance, as go tool pprof -top -diff_base (text and markdown print the table instead of the report, json adds it as \"functions\")")
	fl.BoolVar(&v.cum, "cum", false, "with --view functions, sort by the cum delta (pprof's -cum) instead of the flat delta")
	fl.Float64Var(&v.nodeFraction, "node-fraction", diff.DefaultNodeFraction, "with --view functions, leave out the functions whose flat and cum deltas are both at most this share of the base total (pprof's -nodefraction)")
}

// check validates the flags for the output format.
func (v *viewFlags) check(format string) error {
	if err := oneOf("--view", v.view, diffViews...); err != nil {
		return err
	}
	if v.view != viewFunctions {
		switch {
		case v.cum:
			return fmt.Errorf("--cum orders the function table: use it with --view functions")
		case v.nodeFraction != diff.DefaultNodeFraction:
			return fmt.Errorf("--node-fraction leaves functions out of the function table: use it with --view functions")
		}
		return nil
	}
	if format != "text" && format != "markdown" && format != "json" {
		return fmt.Errorf("--view functions is written as text, markdown or json, not --format %s", format)
	}
	return nil // the table's options: diff.Options.Check
}

// apply asks the comparison for the function table when it is shown.
func (v *viewFlags) apply(opts *diff.Options) {
	if v.view != viewFunctions {
		return
	}
	fo := &diff.FunctionOptions{Sort: diff.SortFlat, NodeFraction: v.nodeFraction}
	if v.cum {
		fo.Sort = diff.SortCum
	}
	opts.Functions = fo
}
