package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
)

// A Format is an output format. Each kind of result has one entry that
// writes it in any of its formats: WriteTree (TreeFormats), WriteDiff
// (DiffFormats) and WriteRelease (ReleaseFormats).
type Format string

const (
	Text     Format = "text"
	JSON     Format = "json"
	DOT      Format = "dot"
	Pprof    Format = "pprof" // gzipped protocol buffers
	Markdown Format = "markdown"
	HTML     Format = "html"
	// Summary is one line per comparison, the verdict, for CI logs (as
	// benchstat prints a line per benchmark).
	Summary Format = "summary"
)

// The formats of each kind of result, in the order help text lists them.
var (
	TreeFormats    = []Format{Text, JSON, DOT, Pprof}
	DiffFormats    = []Format{Text, JSON, DOT, Pprof, Markdown, HTML, Summary}
	ReleaseFormats = []Format{Text, Markdown, HTML, JSON, Summary}
)

// formatExtensions are the file-name extensions of the formats, longer
// first, so ".pb.gz" wins over ".gz".
var formatExtensions = []struct {
	ext    string
	format Format
}{
	{".pb.gz", Pprof},
	{".pprof", Pprof},
	{".pb", Pprof},
	{".txt", Text},
	{".json", JSON},
	{".dot", DOT},
	{".gv", DOT},
	{".md", Markdown},
	{".markdown", Markdown},
	{".html", HTML},
	{".htm", HTML},
}

// FormatOfFile returns the format a file name's extension names (case
// insensitive), and the extension; ok is false for extensions of no format.
func FormatOfFile(name string) (f Format, ext string, ok bool) {
	name = strings.ToLower(filepath.Base(name))
	for _, e := range formatExtensions {
		if strings.HasSuffix(name, e.ext) {
			return e.format, e.ext, true
		}
	}
	return "", "", false
}

// Names returns the formats' names, for flags and messages.
func Names(formats []Format) []string {
	out := make([]string, len(formats))
	for i, f := range formats {
		out[i] = string(f)
	}
	return out
}

// NeedsTree reports whether a diff in this format draws the whole matched
// tree, so the comparison must keep it (diff.Options.Tree).
func (f Format) NeedsTree() bool { return f == Pprof || f == HTML }

// Binary reports whether the format is not text (not for a terminal).
func (f Format) Binary() bool { return f == Pprof }

// Buffered reports whether the format is built whole in memory before it
// is written, so a writer that fails has written nothing: callers writing
// to a stream that cannot be taken back (stdout) buffer it.
func (f Format) Buffered() bool { return f == Pprof || f == HTML }

// DiffOptions are the choices of WriteDiff.
type DiffOptions struct {
	// FullNames names functions in full (Go import paths, Java packages) in
	// text and Markdown; by default they have their short names, as in
	// pprof's graphs, so a path's frames are not mostly the same import
	// path.
	FullNames bool
	// AllPaths lists every ranked path in text; by default those that cost
	// less than the min delta, which is below what a cause must reach, are
	// only counted.
	AllPaths bool
	// Functions writes the per-function table (Result.Functions, pprof's
	// -top of a diff) instead of the report in text and Markdown; JSON
	// holds it whenever the Result does.
	Functions bool
}

// WriteDiff writes a comparison in a format of DiffFormats.
func WriteDiff(w io.Writer, res *diff.Result, f Format, o DiffOptions) error {
	if o.Functions && f != JSON {
		return writeDiffFunctions(w, res, f, o)
	}
	switch f {
	case Text:
		return writeDiffText(w, res, diffTextOptions{FullNames: o.FullNames, AllPaths: o.AllPaths})
	case JSON:
		return writeJSONSafe(w, func(w io.Writer) error { return writeDiffJSON(w, res) })
	case DOT:
		return writeDiffDOT(w, res, diffDOTOptions{})
	case Pprof:
		return writeDiffPprof(w, res)
	case Markdown:
		return writeDiffMarkdown(w, res, diffMarkdownOptions{FullNames: o.FullNames})
	case HTML:
		return writeDiffHTML(w, res, diffHTMLOptions{})
	case Summary:
		return writeDiffSummary(w, res, o.FullNames)
	}
	return noFormat("a comparison", f, DiffFormats)
}

// WriteRelease writes a release report in a format of ReleaseFormats.
func WriteRelease(w io.Writer, rel *Release, f Format, o ReleaseOptions) error {
	switch f {
	case Text:
		return writeReleaseText(w, rel, o)
	case Markdown:
		return writeReleaseMarkdown(w, rel, o)
	case HTML:
		return writeReleaseHTML(w, rel, o)
	case JSON:
		return writeJSONSafe(w, func(w io.Writer) error { return writeReleaseJSON(w, rel) })
	case Summary:
		return writeReleaseSummary(w, rel)
	}
	return noFormat("a release report", f, ReleaseFormats)
}

// WriteTree writes a calling-context tree in a format of TreeFormats, in
// o.View: text writes every view, JSON and DOT the top-down and bottom-up
// trees, pprof the top-down tree (pprof makes the other views itself).
func WriteTree(w io.Writer, t *cct.Tree, f Format, o TreeOptions) error {
	flat := o.View == "flat"
	switch {
	case f == Text && flat:
		return writeFlatText(w, t, o)
	case f == Text:
		return writeTreeText(w, t, o)
	case (f == JSON || f == DOT) && flat:
		return fmt.Errorf("the %s format writes the top-down and bottom-up views, not %s", f, o.View)
	case f == JSON:
		return writeJSONSafe(w, func(w io.Writer) error { return writeTreeJSON(w, t, o) })
	case f == DOT:
		return writeTreeDOT(w, t, o)
	case f == Pprof:
		return writeTreePprof(w, t, o)
	}
	return noFormat("a tree", f, TreeFormats)
}

func noFormat(what string, f Format, formats []Format) error {
	return fmt.Errorf("report: %s is not written as %q, only as %s", what, string(f), strings.Join(Names(formats), ", "))
}
