package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
)

// FuzzDiffReportNames feeds arbitrary function and file names through the
// DOT, Markdown, HTML and pprof writers and checks that no name changes a
// report's structure: the HTML page has as many '<' as with a plain name
// (every name-borne '<' is escaped), the Markdown and DOT reports as many
// lines, and the pprof diff is valid.
func FuzzDiffReportNames(f *testing.F) {
	for _, s := range []string{hostile, "a|b`c", "\n\r\u2028\u2029", "\"\\", "&lt;", "]]>-->", "\x00\xff", "github.com/x/y.(*T).m[go.shape.int]"} {
		f.Add(s, "file.go")
	}
	plain := renderAll(f, "plain", "file.go")
	f.Fuzz(func(t *testing.T, name, file string) {
		if name == "" || name == "a" || name == "b" || name == "main" || len(name) < 2 {
			// Pruning drops empty and one-letter frames; main and a
			// are the other frames of the trees.
			t.Skip()
		}
		got := renderAll(t, name, file)
		if got.ok != plain.ok {
			t.Skip() // the name changed what was found (never, but cheap to allow)
		}
		if a, b := strings.Count(got.html, "<"), strings.Count(plain.html, "<"); a != b {
			t.Errorf("the HTML page has %d '<', with a plain name %d", a, b)
		}
		if a, b := strings.Count(got.md, "\n"), strings.Count(plain.md, "\n"); a != b {
			t.Errorf("the Markdown has %d lines, with a plain name %d:\n%s", a, b, got.md)
		}
		if a, b := strings.Count(got.dot, "\n"), strings.Count(plain.dot, "\n"); a != b {
			t.Errorf("the DOT has %d lines, with a plain name %d:\n%s", a, b, got.dot)
		}
	})
}

type rendered struct {
	html, md, dot string
	ok            bool
}

func renderAll(tb testing.TB, name, file string) rendered {
	tb.Helper()
	mk := func(v int64) []*cct.Tree {
		t := cct.New([]cct.ValueType{{Type: "cpu", Unit: "nanoseconds"}})
		th := t.AddChild(cct.RootID, t.Intern(cct.Frame{Thread: "main", Kind: cct.KindThread}, cct.FrameInfo{}))
		m := t.AddChild(th, t.Intern(cct.Frame{Function: "main"}, cct.FrameInfo{}))
		t.Self(t.AddChild(m, t.Intern(cct.Frame{Function: "a"}, cct.FrameInfo{})))[0] = 100e6
		t.Self(t.AddChild(m, t.Intern(cct.Frame{Function: name, File: file}, cct.FrameInfo{})))[0] = v
		t.ComputeTotals()
		return []*cct.Tree{t}
	}
	res, err := diff.Compare(mk(10e6), mk(200e6), diff.Options{Tree: true})
	if err != nil {
		tb.Fatal(err)
	}
	var html, md, dot bytes.Buffer
	if err := writeDiffHTML(&html, res, diffHTMLOptions{}); err != nil {
		tb.Fatal(err)
	}
	if err := writeDiffMarkdown(&md, res, diffMarkdownOptions{}); err != nil {
		tb.Fatal(err)
	}
	if err := writeDiffDOT(&dot, res, diffDOTOptions{}); err != nil {
		tb.Fatal(err)
	}
	if _, err := diffProfile(res); err != nil {
		tb.Fatal(err)
	}
	return rendered{html: html.String(), md: md.String(), dot: dot.String(), ok: len(res.Causes) == 1}
}
