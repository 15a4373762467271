package main

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/report"
)

// Output formats by -o extension, used when --format is not given. Longer
// extensions first, so ".pb.gz" wins over ".gz".
var formatExtensions = []struct{ ext, format string }{
	{".pb.gz", "pprof"},
	{".pprof", "pprof"},
	{".pb", "pprof"},
	{".txt", "text"},
	{".json", "json"},
	{".dot", "dot"},
	{".gv", "dot"},
	{".md", "markdown"},
	{".markdown", "markdown"},
	{".html", "html"},
	{".htm", "html"},
}

// cctFormats are the formats of `ctdiff cct`.
var cctFormats = []string{"text", "json", "dot", "pprof"}

// diffFormats are the formats of `ctdiff diff`, in the order --help lists them.
var diffFormats = []string{"text", "json", "dot", "pprof", "markdown", "html"}

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
	name := strings.ToLower(filepath.Base(output))
	for _, e := range formatExtensions {
		if !strings.HasSuffix(name, e.ext) {
			continue
		}
		if !slices.Contains(allowed, e.format) {
			return "", fmt.Errorf("-o %s: the %s extension means --format %s, which this command does not write (it writes %s)",
				output, e.ext, e.format, strings.Join(allowed, ", "))
		}
		return e.format, nil
	}
	return def, nil
}

// needsTree reports whether a diff format draws the whole matched tree.
func needsTree(format string) bool { return format == "pprof" || format == "html" }

// diffNames are the naming flags of the text and Markdown reports.
type diffNames struct{ full, allPaths bool }

// writeDiff writes a comparison in a format of diffFormats.
func writeDiff(s *streams, res *diff.Result, format, output string, names diffNames) error {
	write := func(w io.Writer) error {
		switch format {
		case "json":
			return report.WriteDiffJSON(w, res)
		case "dot":
			return report.WriteDiffDOT(w, res)
		case "pprof":
			return report.WriteDiffPprof(w, res)
		case "markdown":
			return report.WriteDiffMarkdown(w, res, report.DiffMarkdownOptions{FullNames: names.full})
		case "html":
			return report.WriteDiffHTML(w, res, report.DiffHTMLOptions{})
		}
		return report.WriteDiffText(w, res, report.DiffTextOptions{FullNames: names.full, AllPaths: names.allPaths})
	}
	if format == "pprof" || format == "html" {
		// Built in memory first: nothing partial reaches stdout.
		write = bufferOutput(write)
	}
	return writeOutput(s, output, format == "pprof", write)
}
