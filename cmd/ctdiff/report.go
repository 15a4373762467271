package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/report"
	"github.com/spf13/cobra"
)

// reportFormats are the formats of `ctdiff report`.
var reportFormats = report.Names(report.ReleaseFormats)

type reportOptions struct {
	format           string
	output           string
	failOnRegression bool
	maxCauses        int
}

func newReportCmd(s *streams) *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report INPUT...",
		Short: "One regression report for a release: several components, languages and formats",
		Long: `report turns the comparisons of a release's components into one report: a verdict per
component (regressed, improved, or unchanged within noise), its causes with their paths,
its totals before and after in its own unit, and a ranking of the components by impact.

Each INPUT is a ctdiff.diff/v1 result (ctdiff diff --format json) or a TOML manifest that
names components and their OLD and NEW inputs, which report compares exactly as ctdiff diff
does (same code, same options):

  [defaults]                       # ctdiff diff options for every component
  min-delta = "50ms"

  [[component]]
  name = "web"
  old = "web/old"                  # paths relative to the manifest
  new = "web/new"
  options = { normalize = "none" } # any ctdiff diff option, by its flag name

  [[component]]
  name = "billing"
  result = "billing.json"          # or a result computed before

Frames are shown the way each ecosystem writes them (detected from the frames, or set with
ecosystem = "go" | "js" | "java" | "native"), and runtime and VM frames (GC, allocation,
JIT stubs, Node.js internals) are grouped apart from application code.

Exit codes: 0 success, 1 with --fail-on-regression when any component regressed, 2 on errors.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return fmt.Errorf("report takes at least one manifest or diff result (see 'ctdiff report --help')")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			format, err := outputFormat(cmd.Flags().Changed("format"), o.format, o.output, "text", reportFormats)
			if err != nil {
				return err
			}
			o.format = format
			return runReport(s, o, args)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.format, "format", "", "text, markdown, html or json (schema ctdiff.report/v1) (default: from -o's extension, else text)")
	fl.StringVarP(&o.output, "output", "o", "", "output file (default stdout)")
	fl.BoolVar(&o.failOnRegression, "fail-on-regression", false, "exit with status 1 when any component regressed")
	fl.IntVar(&o.maxCauses, "max-causes", 10, "application causes listed per component")
	_ = cmd.RegisterFlagCompletionFunc("format", fixedCompletion(reportFormats))
	return cmd
}

func runReport(s *streams, o *reportOptions, args []string) error {
	var comps []report.Component
	names := map[string]string{}
	for _, arg := range args {
		got, err := loadReportInput(s, arg)
		if err != nil {
			return err
		}
		for _, c := range got {
			if prev, ok := names[c.Name]; ok {
				return fmt.Errorf("%s: component %q is also in %s: names must be unique", arg, c.Name, prev)
			}
			names[c.Name] = arg
			comps = append(comps, c)
		}
	}
	rel := report.NewRelease(comps)
	ropts := report.ReleaseOptions{MaxCauses: o.maxCauses}
	write := func(w io.Writer) error { return report.WriteRelease(w, rel, report.Format(o.format), ropts) }
	if err := writeOutput(s, o.output, false, bufferOutput(write)); err != nil {
		return err
	}
	if o.format != "text" || (o.output != "" && o.output != "-") {
		for _, c := range rel.Components {
			for _, w := range c.Result.Warnings {
				printLine(s.Err, "ctdiff: %s: warning: %s", c.Name, w)
			}
		}
	}
	if o.failOnRegression && rel.Failed() {
		var regressed []string
		for _, c := range rel.Components {
			if c.Verdict == diff.VerdictRegressed {
				regressed = append(regressed, c.Name)
			}
		}
		printLine(s.Err, "ctdiff: regression in %d of %d components: %s", rel.Regressed, len(rel.Components), strings.Join(regressed, ", "))
		return errRegression
	}
	return nil
}

// loadReportInput reads one argument of report: a diff result, whose
// component is named after the file, or a manifest, whose components are
// compared now when they name inputs.
func loadReportInput(s *streams, path string) ([]report.Component, error) {
	if isJSON(path) {
		c, err := readResultComponent(strings.TrimSuffix(filepath.Base(path), ".json"), path)
		return []report.Component{c}, err
	}
	m, err := readManifest(path)
	if err != nil {
		return nil, err
	}
	var out []report.Component
	for _, mc := range m.Components {
		var c report.Component
		if mc.Result != "" {
			c, err = readResultComponent(mc.Name, relTo(filepath.Dir(path), mc.Result))
			c.Source = mc.Result
		} else {
			c, err = runComponent(s, m, mc, filepath.Dir(path))
		}
		if err != nil {
			return nil, fmt.Errorf("%s: component %q: %w", path, mc.Name, err)
		}
		c.Ecosystem = report.Ecosystem(mc.Ecosystem)
		if c.Ecosystem == report.UnknownEcosystem {
			c.Ecosystem = report.FormatEcosystem(optionString(m, mc, "from"))
		}
		out = append(out, c)
	}
	return out, nil
}

// isJSON sniffs a diff result: its first byte after white space (and a
// byte-order mark) is "{", which cannot start a TOML manifest.
func isJSON(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false // the manifest reader names the error
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	head = bytes.TrimLeft(bytes.TrimPrefix(head[:n], []byte("\ufeff")), " \t\r\n")
	return len(head) > 0 && head[0] == '{'
}

func readResultComponent(name, path string) (report.Component, error) {
	f, err := os.Open(path)
	if err != nil {
		return report.Component{}, err
	}
	defer f.Close()
	res, err := report.ReadDiffJSON(f, path)
	if err != nil {
		return report.Component{}, err
	}
	return report.Component{Name: name, Result: res, Source: path}, nil
}

// runComponent compares a component's inputs as ctdiff diff compares
// them (compareSides), with the options the manifest gives it.
func runComponent(s *streams, m *manifest, mc manifestComponent, dir string) (report.Component, error) {
	// The source as the manifest writes it, relative to the manifest, so
	// the report reads the same wherever it is made.
	asWritten, err := m.diffArgs(mc, "")
	if err != nil {
		return report.Component{}, err
	}
	o, args, err := m.diffOptions(mc, dir)
	if err != nil {
		return report.Component{}, err
	}
	if err := checkDiffArgs(args[:]); err != nil {
		return report.Component{}, err
	}
	c, err := o.config(false)
	if err != nil {
		return report.Component{}, err
	}
	defer comparisonGC()()
	res, trees, err := compareSides(s, c, args[0], args[1], true)
	if err != nil {
		return report.Component{}, err
	}
	return report.Component{Name: mc.Name, Result: res, Lines: frameLines(res, trees), Source: "ctdiff diff " + strings.Join(asWritten, " ")}, nil
}

// frameLines finds the function lines of the frames a result names (a
// JavaScript function's line shows with its script), from the first tree
// that knows each.
func frameLines(res *diff.Result, trees []*cct.Tree) map[diff.Frame]int64 {
	want := map[diff.Frame]bool{}
	for _, c := range res.Causes {
		for _, f := range c.Path {
			want[diff.Frame{Function: f.Function, File: f.File}] = true
		}
	}
	lines := map[diff.Frame]int64{}
	for _, t := range trees {
		for i, f := range t.Frames {
			k := diff.Frame{Function: f.Function, File: f.File}
			if f.Kind != cct.KindFunction || !want[k] || lines[k] > 0 {
				continue
			}
			if ln := t.FrameInfo[i].Line; ln > 0 {
				lines[k] = ln
			}
		}
	}
	return lines
}

// optionString is a component's string option over the defaults, or "".
func optionString(m *manifest, mc manifestComponent, key string) string {
	for _, opts := range []map[string]any{mc.Options, m.Defaults} {
		if v, ok := opts[key].(string); ok {
			return v
		}
	}
	return ""
}
