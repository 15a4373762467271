package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/internal/golden"
)

// The function table (--view functions) of diffCases' comparisons, as
// text, Markdown and JSON: tested with three runs a side (stats, sorted by
// cum, filtered), deltas only under intersect, untested with one pair.
func TestDiffFunctionsGolden(t *testing.T) {
	for _, tt := range []struct {
		name, of string
		fo       diff.FunctionOptions
		filters  cct.Filters
	}{
		{"stats", "stats", diff.FunctionOptions{NodeFraction: diff.DefaultNodeFraction}, cct.Filters{}},
		{"stats-cum", "stats", diff.FunctionOptions{Sort: diff.SortCum, NodeFraction: 0.05}, cct.Filters{Ignore: `^hover$`}},
		{"intersect", "intersect", diff.FunctionOptions{}, cct.Filters{}},
		{"one-pair", "one-pair", diff.FunctionOptions{}, cct.Filters{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var c = diffCases[0]
			for _, dc := range diffCases {
				if dc.name == tt.of {
					c = dc
				}
			}
			opts := c.opts
			fo := tt.fo
			opts.Functions = &fo
			res := compare(t, c.base, c.new, opts)
			res.Filters = tt.filters
			for _, f := range []struct {
				format Format
				ext    string
			}{{Text, "txt"}, {Markdown, "md"}, {JSON, "json"}} {
				var b bytes.Buffer
				if err := WriteDiff(&b, res, f.format, DiffOptions{Functions: true}); err != nil {
					t.Fatal(err)
				}
				golden.Check(t, "testdata/diff-functions-"+tt.name+"."+f.ext+".golden", b.Bytes())
			}
		})
	}
}

// The table's names are untrusted: text prints them on one line, and
// Markdown in code spans, a table's | escaped.
func TestDiffFunctionsHostileNames(t *testing.T) {
	res := compare(t, "main;a 10|main;a 10", "main;a 10\nmain;evil 200|main;a 10\nmain;evil 200", diff.Options{Functions: &diff.FunctionOptions{}})
	for i := range res.Functions.Rows {
		if r := &res.Functions.Rows[i]; r.Function == "evil" {
			r.Function = "evil|`name\u0007\n<b>"
		}
	}
	for _, f := range []Format{Text, Markdown} {
		var b bytes.Buffer
		if err := WriteDiff(&b, res, f, DiffOptions{Functions: true}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.ContainsAny(out, "\u0007") || f == Markdown && !strings.Contains(out, "``evil\\|`name\\a\\n<b>``") {
			t.Errorf("%s: the name was written raw:\n%s", f, out)
		}
		var row string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "evil") {
				row = l
			}
		}
		if row == "" {
			t.Fatalf("%s: no row names the function:\n%s", f, out)
		}
		if f == Markdown && strings.Count(row, " | ") != 6 {
			t.Errorf("markdown: the name broke the table's row: %q", row)
		}
	}
}

// Without a table in the result, the view is an error, not an empty page.
func TestDiffFunctionsNeedTable(t *testing.T) {
	res := compare(t, "main;a 10", "main;a 20", diff.Options{})
	err := WriteDiff(&bytes.Buffer{}, res, Text, DiffOptions{Functions: true})
	if err == nil || err.Error() != "no function table: compare with diff.Options.Functions" {
		t.Errorf("error %v", err)
	}
}
