package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ctdiff/ctdiff/diff"
)

// The per-function view of a comparison (diff.Result.Functions): pprof's
// -top of a diff, one row per function with its flat and cum deltas, mean
// per run, new − base, their 95% confidence intervals and a mark on the
// significant ones. Text and Markdown write it instead of the report; JSON
// holds it beside the report as "functions".

// writeDiffFunctions writes the function table in text or Markdown.
func writeDiffFunctions(w io.Writer, res *diff.Result, f Format, o DiffOptions) error {
	ft := res.Functions
	if ft == nil {
		return errors.New("no function table: compare with diff.Options.Functions")
	}
	switch f {
	case Text:
		return writeFunctionsText(w, res, ft, o.FullNames)
	case Markdown:
		return writeFunctionsMarkdown(w, res, ft, o.FullNames)
	}
	return fmt.Errorf("the function table is written as text, markdown or json, not %s", f)
}

// functionsMethod says how the table's values were tested, and what the
// mark means.
func functionsMethod(res *diff.Result, ft *diff.FunctionTable, mark string) string {
	val := func(v int64) string { return FormatValue(v, res.Unit) }
	switch {
	case res.Aggregate != diff.Stats:
		return fmt.Sprintf("%s keeps no per-run values: deltas are not tested (--aggregate stats tests them)", res.Aggregate)
	case ft.Tested == 0:
		return "nothing could be tested (a side has one run and no noise model)"
	}
	return fmt.Sprintf("flat and cum tested run by run as the causes are, two-sided, Holm α=%g over %s; %s marks a change of %s or more that is significant",
		res.Alpha, plural(ft.Tested, "value"), mark, val(res.MinDelta))
}

// functionsShown says how many functions the table shows and drops.
func functionsShown(res *diff.Result, ft *diff.FunctionTable) string {
	s := plural(len(ft.Rows), "function")
	switch {
	case ft.Dropped > 0 && ft.Cutoff == 0:
		s += fmt.Sprintf("; %d unchanged left out", ft.Dropped)
	case ft.Dropped > 0:
		s += fmt.Sprintf("; %d dropped (flat and cum |Δ| ≤ %s, %s of the base total)", ft.Dropped,
			FormatValue(ft.Cutoff, res.Unit), trim(100*ft.NodeFraction)+"%")
	}
	by := "flat Δ"
	if ft.Sort == diff.SortCum {
		by = "cum Δ"
	}
	return s + "; by |" + by + "|, mean per run, new − base"
}

// ciText is a test's interval as "+51.3ms..+122ms", or what stands for
// none.
func ciText(t *diff.FunctionTest, sval func(int64) string) string {
	switch {
	case t == nil:
		return "–"
	case t.Name == "untested":
		return "untested"
	case t.Low == t.High: // no variance: every run the same
		return sval(t.Low)
	}
	return sval(t.Low) + ".." + sval(t.High)
}

// functionNames are the rows' names: short (frameName) unless full, and
// full for the short names two rows share (internal/strconv.ParseFloat
// and strconv.ParseFloat are both strconv.ParseFloat), each followed by
// the causes of the report it is the lowest function of ("cause #1").
func functionNames(res *diff.Result, rows []diff.FunctionRow, full bool) []string {
	names := make([]string, len(rows))
	count := map[string]int{}
	for i, r := range rows {
		names[i] = frameName(r.Frame, full)
		count[names[i]]++
	}
	causes := map[diff.Frame][]string{}
	for i, c := range res.Causes {
		var f diff.Frame
		switch {
		case c.Spread != nil:
			f = c.Spread.Function
		case len(c.Path) > 0:
			f = c.Path[len(c.Path)-1]
		default:
			continue // a thread's growth: no function
		}
		k := diff.Frame{Function: f.Function, File: f.File}
		causes[k] = append(causes[k], fmt.Sprintf("#%d", i+1))
	}
	for i, r := range rows {
		if count[names[i]] > 1 {
			names[i] = frameName(r.Frame, true)
		}
		if c := causes[diff.Frame{Function: r.Function, File: r.File}]; len(c) > 0 {
			names[i] += " (cause " + strings.Join(c, ", ") + ")"
		}
	}
	return names
}

func writeFunctionsText(w io.Writer, res *diff.Result, ft *diff.FunctionTable, full bool) error {
	bw := bufio.NewWriter(w)
	u := res.Unit
	val := func(v int64) string { return FormatValue(v, u) }
	sval := func(v int64) string { return signed(FormatValue(v, u), v) }
	writeWrapped(bw, "", "  ", capitalize(verdictLine(res, full, textName)))
	for _, w := range res.Warnings {
		writeWrapped(bw, "warning: ", "  ", textName(w))
	}
	bw.WriteString("\n")
	fmt.Fprintf(bw, "ctdiff diff --view functions: %s, %s vs %s\n", textName(res.Metric), runs(res.Base.Runs, "base"), runs(res.New.Runs, "new"))
	if !equalTotals(res) {
		change := res.New.Total - res.Base.Total
		fmt.Fprintf(bw, "Total: %s → %s (%s, %s)%s\n", val(res.Base.Total), val(res.New.Total), sval(change), signedPercent(change, res.Base.Total), totalExcludes(res))
	} else {
		writeWrapped(bw, "Normalization: ", "  ", textName(normalizationSummary(res)))
	}
	writeFiltersText(bw, res)
	writeWrapped(bw, "Method: ", "  ", functionsMethod(res, ft, "*"))
	writeWrapped(bw, "Showing ", "  ", functionsShown(res, ft))
	bw.WriteString("\n")

	head := []string{"flat Δ", "95% CI", "cum Δ", "95% CI"}
	cells := make([][4]string, len(ft.Rows))
	width := [4]int{}
	for i, h := range head {
		width[i] = utf8.RuneCountInString(h)
	}
	for r, row := range ft.Rows {
		c := &cells[r]
		c[0], c[1] = sval(row.Flat)+mark(row.FlatTest), ciText(row.FlatTest, sval)
		c[2], c[3] = sval(row.Cum)+mark(row.CumTest), ciText(row.CumTest, sval)
		for i, s := range c {
			width[i] = max(width[i], utf8.RuneCountInString(s))
		}
	}
	line := func(c [4]string, name string) {
		for i, s := range c {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(s))
			if i%2 == 0 {
				bw.WriteString(pad + s + "  ") // deltas right-aligned
			} else {
				bw.WriteString(s + pad + "  ")
			}
		}
		bw.WriteString(name + "\n")
	}
	line([4]string(head), "function")
	for r, name := range functionNames(res, ft.Rows, full) {
		line(cells[r], textName(name))
	}
	if len(ft.Rows) == 0 {
		fmt.Fprintf(bw, "  none: no function's time changed by more than %s\n", val(ft.Cutoff))
	}
	bw.WriteString("\n")
	writeInputs(bw, "Base", res.Base.Runs, res.Base.Profiles)
	writeInputs(bw, "New", res.New.Runs, res.New.Profiles)
	return bw.Flush()
}

// mark is "*" after a significant delta, " " after the others, so the
// deltas' digits stay aligned.
func mark(t *diff.FunctionTest) string {
	if t != nil && t.Significant {
		return "*"
	}
	return " "
}

func writeFunctionsMarkdown(w io.Writer, res *diff.Result, ft *diff.FunctionTable, full bool) error {
	bw := bufio.NewWriter(w)
	u := res.Unit
	val := func(v int64) string { return FormatValue(v, u) }
	sval := func(v int64) string { return signed(FormatValue(v, u), v) }
	fmt.Fprintf(bw, "### ctdiff: functions, new − base\n\n%s, %s vs %s", mdCode(res.Metric, false), runs(res.Base.Runs, "base"), runs(res.New.Runs, "new"))
	if !equalTotals(res) {
		change := res.New.Total - res.Base.Total
		fmt.Fprintf(bw, ", total %s → %s (%s, %s)", val(res.Base.Total), val(res.New.Total), sval(change), signedPercent(change, res.Base.Total))
	}
	bw.WriteString(".\n\n")
	writeFiltersMarkdown(bw, res, "", "\n")
	fmt.Fprintf(bw, "Method: %s.\n\nShowing %s.\n\n", mdText(functionsMethod(res, ft, "bold")), mdText(functionsShown(res, ft)))
	if len(ft.Rows) == 0 {
		fmt.Fprintf(bw, "No function's time changed by more than %s.\n", val(ft.Cutoff))
		return bw.Flush()
	}
	bw.WriteString("| Flat Δ | 95% CI | adj. p | Cum Δ | 95% CI | adj. p | Function |\n|--:|--:|--:|--:|--:|--:|---|\n")
	names := functionNames(res, ft.Rows, full)
	for i, row := range ft.Rows {
		bw.WriteString("|")
		for _, v := range []struct {
			d int64
			t *diff.FunctionTest
		}{{row.Flat, row.FlatTest}, {row.Cum, row.CumTest}} {
			d := sval(v.d)
			if v.t != nil && v.t.Significant {
				d = "**" + d + "**"
			}
			p := "–"
			if v.t != nil && v.t.InFamily {
				p = fmt.Sprintf("%.2g", v.t.Q)
			}
			fmt.Fprintf(bw, " %s | %s | %s |", d, ciText(v.t, sval), p)
		}
		name, cause, _ := strings.Cut(names[i], " (cause ")
		if cause != "" {
			cause = " (cause " + mdText(cause)
		}
		fmt.Fprintf(bw, " %s%s |\n", mdCode(name, true), cause)
	}
	if len(res.Warnings) > 0 {
		bw.WriteString("\n**Warnings**\n\n")
		for _, w := range res.Warnings {
			fmt.Fprintf(bw, "- %s\n", mdText(w))
		}
	}
	return bw.Flush()
}

// functionsJSON is the "functions" object of ctdiff.diff/v1
// (diff.FunctionTable), present when the table was asked for.
type functionsJSON struct {
	Sort         string            `json:"sort"`
	NodeFraction float64           `json:"node_fraction"`
	Cutoff       int64             `json:"cutoff"`
	Dropped      int               `json:"dropped"`
	Tested       int               `json:"tested"`
	Rows         []functionRowJSON `json:"rows"`
}

type functionRowJSON struct {
	Function string            `json:"function"`
	File     string            `json:"file"`
	Line     int32             `json:"line,omitempty"`
	Column   int32             `json:"column,omitempty"`
	Flat     functionValueJSON `json:"flat"`
	Cum      functionValueJSON `json:"cum"`
}

// functionValueJSON is a flat or cum value: means per side, delta, and
// its test (absent under --aggregate intersect). P-values and bounds
// have three significant digits, as the causes'.
type functionValueJSON struct {
	Base  int64             `json:"base"`
	New   int64             `json:"new"`
	Delta int64             `json:"delta"`
	Test  *functionTestJSON `json:"test,omitempty"`
}

type functionTestJSON struct {
	Test string  `json:"test"`
	P    float64 `json:"p"`
	// PAdjusted is absent for a value not in the corrected family
	// (diff.FunctionTest.InFamily).
	PAdjusted   *float64 `json:"p_adjusted,omitempty"`
	CILow       int64    `json:"ci_low"`
	CIHigh      int64    `json:"ci_high"`
	Significant bool     `json:"significant"`
}

func functionsOf(ft *diff.FunctionTable) *functionsJSON {
	if ft == nil {
		return nil
	}
	out := &functionsJSON{Sort: ft.Sort, NodeFraction: ft.NodeFraction, Cutoff: ft.Cutoff, Dropped: ft.Dropped, Tested: ft.Tested, Rows: make([]functionRowJSON, len(ft.Rows))}
	test := func(t *diff.FunctionTest) *functionTestJSON {
		if t == nil {
			return nil
		}
		j := &functionTestJSON{Test: t.Name, P: sig3(t.P), CILow: int64(sig3(float64(t.Low))), CIHigh: int64(sig3(float64(t.High))), Significant: t.Significant}
		if t.InFamily {
			q := sig3(t.Q)
			j.PAdjusted = &q
		}
		return j
	}
	for i, r := range ft.Rows {
		out.Rows[i] = functionRowJSON{
			Function: r.Function, File: r.File, Line: r.Line, Column: r.Column,
			Flat: functionValueJSON{Base: r.FlatBase, New: r.FlatNew, Delta: r.Flat, Test: test(r.FlatTest)},
			Cum:  functionValueJSON{Base: r.CumBase, New: r.CumNew, Delta: r.Cum, Test: test(r.CumTest)},
		}
	}
	return out
}

func functionsFrom(j *functionsJSON) *diff.FunctionTable {
	if j == nil {
		return nil
	}
	out := &diff.FunctionTable{Sort: j.Sort, NodeFraction: j.NodeFraction, Cutoff: j.Cutoff, Dropped: j.Dropped, Tested: j.Tested, Rows: make([]diff.FunctionRow, len(j.Rows))}
	test := func(t *functionTestJSON) *diff.FunctionTest {
		if t == nil {
			return nil
		}
		out := &diff.FunctionTest{Name: t.Test, P: t.P, Q: 1, Low: t.CILow, High: t.CIHigh, Significant: t.Significant}
		if t.PAdjusted != nil {
			out.Q, out.InFamily = *t.PAdjusted, true
		}
		return out
	}
	for i, r := range j.Rows {
		out.Rows[i] = diff.FunctionRow{
			Frame:    diff.Frame{Function: r.Function, File: r.File, Line: r.Line, Column: r.Column},
			FlatBase: r.Flat.Base, FlatNew: r.Flat.New, Flat: r.Flat.Delta, FlatTest: test(r.Flat.Test),
			CumBase: r.Cum.Base, CumNew: r.Cum.New, Cum: r.Cum.Delta, CumTest: test(r.Cum.Test),
		}
	}
	return out
}
