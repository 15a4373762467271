package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
)

// A comparison of filtered trees (pprof's focus, ignore, hide and show:
// diff.Result.Filters) means something else than one of whole profiles:
// its totals, causes and paths are of what the filters kept. Every format
// says so in its header.

// filtersNote is what the header says after the filters.
const filtersNote = "pprof's filters: totals, causes and paths are of the samples and frames they kept"

// filterList is the filters set, as "focus=RE" items in pprof's order.
func filterList(f cct.Filters) []string {
	var out []string
	for _, x := range []struct{ name, re string }{{"focus", f.Focus}, {"ignore", f.Ignore}, {"hide", f.Hide}, {"show", f.Show}} {
		if x.re != "" {
			out = append(out, x.name+"="+x.re)
		}
	}
	return out
}

// filtersText is the text and HTML header's line: the filters and what
// they mean, or "" for none.
func filtersText(f cct.Filters) string {
	l := filterList(f)
	if len(l) == 0 {
		return ""
	}
	return strings.Join(l, ", ") + " (" + filtersNote + ")"
}

// filtersMarkdown is filtersText with each filter in a code span.
func filtersMarkdown(f cct.Filters) string {
	l := filterList(f)
	if len(l) == 0 {
		return ""
	}
	for i, s := range l {
		l[i] = mdCode(s, false)
	}
	return strings.Join(l, ", ") + " (" + mdText(filtersNote) + ")"
}

// writeFiltersText writes the text header's line of the filters, if any.
func writeFiltersText(bw *bufio.Writer, res *diff.Result) {
	if f := filtersText(res.Filters); f != "" {
		writeWrapped(bw, "Filters: ", "  ", textName(f))
	}
}

// writeFiltersMarkdown writes the Markdown paragraph of the filters, if
// any, between before and after (blank lines).
func writeFiltersMarkdown(bw *bufio.Writer, res *diff.Result, before, after string) {
	if f := filtersMarkdown(res.Filters); f != "" {
		fmt.Fprintf(bw, "%sFilters: %s.\n%s", before, f, after)
	}
}

// filtersJSON is the "filters" object of ctdiff.diff/v1: the filters set,
// absent when there are none.
type filtersJSON struct {
	Focus  string `json:"focus,omitempty"`
	Ignore string `json:"ignore,omitempty"`
	Hide   string `json:"hide,omitempty"`
	Show   string `json:"show,omitempty"`
}

func filtersOf(f cct.Filters) *filtersJSON {
	if f.IsZero() {
		return nil
	}
	return &filtersJSON{Focus: f.Focus, Ignore: f.Ignore, Hide: f.Hide, Show: f.Show}
}

func filtersFrom(j *filtersJSON) cct.Filters {
	if j == nil {
		return cct.Filters{}
	}
	return cct.Filters{Focus: j.Focus, Ignore: j.Ignore, Hide: j.Hide, Show: j.Show}
}

// optionalJSONParts are the top-level fields of ctdiff.diff/v1 that are
// left out when empty, encoded with enc (which writes into buf) in the
// order diffJSON declares them.
func optionalJSONParts(res *diff.Result, enc *json.Encoder, buf *bytes.Buffer) ([]diffJSONPart, error) {
	var out []diffJSONPart
	add := func(key string, v any) error {
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			return err
		}
		out = append(out, diffJSONPart{key: key, value: bytes.Clone(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))})
		return nil
	}
	if f := filtersOf(res.Filters); f != nil {
		if err := add("filters", f); err != nil {
			return nil, err
		}
	}
	if f := functionsOf(res.Functions); f != nil {
		if err := add("functions", f); err != nil {
			return nil, err
		}
	}
	return out, nil
}
