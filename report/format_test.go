package report

import (
	"bytes"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
)

func TestFormatOfFile(t *testing.T) {
	for _, tt := range []struct {
		name, ext string
		want      Format
		ok        bool
	}{
		{"out/r.pb.gz", ".pb.gz", Pprof, true},
		{"R.HTML", ".html", HTML, true},
		{"notes.md", ".md", Markdown, true},
		{"graph.gv", ".gv", DOT, true},
		{"data.gz", "", "", false},
		{"-", "", "", false},
	} {
		f, ext, ok := FormatOfFile(tt.name)
		if f != tt.want || ext != tt.ext || ok != tt.ok {
			t.Errorf("FormatOfFile(%q) = %q, %q, %v, want %q, %q, %v", tt.name, f, ext, ok, tt.want, tt.ext, tt.ok)
		}
	}
}

// What each format needs follows from its writer: the diff formats that
// draw the matched tree need it, and only pprof is binary.
func TestFormatNeeds(t *testing.T) {
	for _, f := range DiffFormats {
		if got, want := f.NeedsTree(), f == Pprof || f == HTML; got != want {
			t.Errorf("%s.NeedsTree() = %v, want %v", f, got, want)
		}
		if got, want := f.Binary(), f == Pprof; got != want {
			t.Errorf("%s.Binary() = %v, want %v", f, got, want)
		}
	}
}

// Each entry writes its kind's formats and names the others in its error.
func TestWriteUnknownFormat(t *testing.T) {
	res := compareTree(t, diffCases[0].base, diffCases[0].new, diff.Options{})
	tree := cct.NewBuilder(cct.Options{}).Finish()
	for _, tt := range []struct {
		name  string
		write func() error
		want  string
	}{
		{"diff", func() error { return WriteDiff(&bytes.Buffer{}, res, "csv", DiffOptions{}) },
			`report: a comparison is not written as "csv", only as text, json, dot, pprof, markdown, html, summary`},
		{"release", func() error { return WriteRelease(&bytes.Buffer{}, NewRelease(nil), DOT, ReleaseOptions{}) },
			`report: a release report is not written as "dot", only as text, markdown, html, json, summary`},
		{"tree", func() error { return WriteTree(&bytes.Buffer{}, tree, HTML, TreeOptions{}) },
			`report: a tree is not written as "html", only as text, json, dot, pprof`},
		{"flat tree", func() error { return WriteTree(&bytes.Buffer{}, tree, DOT, TreeOptions{View: "flat"}) },
			"the dot format writes the top-down and bottom-up views, not flat"},
	} {
		if err := tt.write(); err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	var b bytes.Buffer
	if err := WriteDiff(&b, res, Text, DiffOptions{}); err != nil || b.Len() == 0 {
		t.Errorf("WriteDiff text: %d bytes, %v", b.Len(), err)
	}
}
