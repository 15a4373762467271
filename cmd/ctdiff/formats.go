package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/report"
)

// cctFormats are the formats of `ctdiff cct`.
var cctFormats = report.Names(report.TreeFormats)

// diffFormats are the formats of `ctdiff diff`, in the order --help lists them.
var diffFormats = report.Names(report.DiffFormats)

// outputFormat returns the format to write: --format when it was given
// (flagSet), else the one -o's extension names, else def. An extension that
// names a format the command cannot write is an error, not a silent switch
// to text. The --format flags default to "", so --help states the default
// once, in words.
func outputFormat(flagSet bool, format, output, def string, allowed []string) (string, error) {
	if !flagSet {
		format = def
	}
	if flagSet || output == "" || output == "-" {
		return format, oneOf("--format", format, allowed...)
	}
	f, ext, ok := report.FormatOfFile(output)
	switch {
	case !ok:
		return def, nil
	case !slices.Contains(allowed, string(f)):
		return "", fmt.Errorf("-o %s: the %s extension means --format %s, which this command does not write (it writes %s)",
			output, ext, f, strings.Join(allowed, ", "))
	}
	return string(f), nil
}

// diffNames are the naming flags of the text and Markdown reports.
type diffNames struct{ full, allPaths bool }

// writeDiff writes a comparison in a format of diffFormats.
func writeDiff(s *streams, res *diff.Result, format, output string, names diffNames, functions bool) error {
	f := report.Format(format)
	return writeFormat(s, output, f, func(w io.Writer) error {
		return report.WriteDiff(w, res, f, report.DiffOptions{FullNames: names.full, AllPaths: names.allPaths, Functions: functions})
	})
}

// writeFormat runs write against output (writeOutput), first into memory
// when f is built whole (report.Format.Buffered), so nothing partial
// reaches stdout.
func writeFormat(s *streams, output string, f report.Format, write func(io.Writer) error) error {
	if f.Buffered() {
		write = bufferOutput(write)
	}
	return writeOutput(s, output, f.Binary(), write)
}
