package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/ctdiff/ctdiff/diff"
)

// diffMarkdownOptions control the Markdown summary.
type diffMarkdownOptions struct {
	// MaxCauses and MaxPaths cap the causes and ranked paths listed
	// (0 means 10 and 5).
	MaxCauses, MaxPaths int
	// PathFrames is how many frames a table row shows of a path, the
	// lowest ones (0 means 3); the full paths are in a collapsed section.
	PathFrames int
	// FullNames names functions in full in the tables and summary lines;
	// by default they have their short names (frameName). The collapsed
	// paths are always in full.
	FullNames bool
}

// writeDiffMarkdown writes a short summary for a pull-request comment
// (GitHub-flavoured Markdown): the verdict and totals, a table of the
// regression causes with the last frames of their paths, the full paths and
// IntroPerf's top paths in collapsed <details> sections, and the warnings.
// It has no links, and every name from a profile is in a code span, so no
// name can turn into markup, HTML or an autolink.
func writeDiffMarkdown(w io.Writer, res *diff.Result, o diffMarkdownOptions) error {
	if o.MaxCauses <= 0 {
		o.MaxCauses = 10
	}
	if o.MaxPaths <= 0 {
		o.MaxPaths = 5
	}
	if o.PathFrames <= 0 {
		o.PathFrames = 3
	}
	bw := bufio.NewWriter(w)
	u := res.Unit
	val := func(v int64) string { return FormatValue(v, u) }
	sval := func(v int64) string { return signed(FormatValue(v, u), v) }
	change := res.New.Total - res.Base.Total
	stats := tested(res)

	// The verdict, then the warnings that say what it is worth.
	fmt.Fprintf(bw, "### ctdiff: %s\n\n%s.\n\n", markdownTitle(res), capitalize(verdictLine(res, o.FullNames, func(s string) string { return mdCode(s, false) })))
	for _, w := range res.Warnings {
		fmt.Fprintf(bw, "> **Warning:** %s\n>\n", mdText(w))
	}
	if len(res.Warnings) > 0 {
		bw.WriteString("\n")
	}
	if equalTotals(res) {
		// The normalization line gives the absolute totals.
		fmt.Fprintf(bw, "%s, %s vs %s.\n\n", mdCode(res.Metric, false), runs(res.Base.Runs, "base"), runs(res.New.Runs, "new"))
	} else {
		fmt.Fprintf(bw, "Total %s: %s → %s (%s, %s)%s, %s vs %s.\n\n", mdCode(res.Metric, false),
			val(res.Base.Total), val(res.New.Total), sval(change), signedPercent(change, res.Base.Total), totalExcludes(res),
			runs(res.Base.Runs, "base"), runs(res.New.Runs, "new"))
	}
	bw.WriteString(untestedMarkdown(res, o.FullNames))
	method := string(res.Aggregate)
	if res.Aggregate == diff.Stats {
		method += fmt.Sprintf(" (per-node tests, Holm α=%g)", res.Alpha)
	}
	fmt.Fprintf(bw, "Method: %s, %s matching, min delta %s.", method, res.Match, val(res.MinDelta))
	if nf := res.Overlap.NoiseFloor; nf != nil {
		fmt.Fprintf(bw, " Overlap %.2f%% (noise floor %.2f%%).", res.Overlap.Percent, *nf)
	}
	bw.WriteString("\n")
	writeFiltersMarkdown(bw, res, "\n", "\n")
	// Normalization, benchmark verdict and Go runtime: diff_normalize.go.
	fmt.Fprintf(bw, "\nNormalization: %s.\n", mdText(normalizationSummary(res)))
	for _, l := range benchmarkSummary(res) {
		fmt.Fprintf(bw, "\n%s\n", mdText(strings.TrimSpace(l)))
	}
	if g := goRuntimeSummary(res, o.FullNames); g != "" {
		fmt.Fprintf(bw, "\nGC/runtime: %s.\n", mdText(g))
	}

	causes := res.Causes[:min(len(res.Causes), o.MaxCauses)]
	if len(causes) > 0 {
		bw.WriteString("\n| # | Function | In | Delta | Base → New | Kind |")
		if stats {
			bw.WriteString(" 95% CI | adj. p |")
		}
		bw.WriteString(" Path (lowest frames) |\n|--:|---|---|--:|---|---|")
		if stats {
			bw.WriteString("---|--:|")
		}
		bw.WriteString("---|\n")
		for i, c := range causes {
			fmt.Fprintf(bw, "| %d | %s | %s | %s | %s → %s | %s |", i+1, mdCode(blameName(c, o.FullNames), true), mdBelow(c, o.FullNames),
				sval(c.Delta), val(c.Base), val(c.New), c.Kind)
			if stats {
				if s := c.Stats; s != nil {
					// Which value the interval is of, when not the
					// row's (testLabel, as text says it).
					of := ""
					if l := testLabel(s, val); l != s.Name {
						of = " (" + mdText(strings.TrimPrefix(l, s.Name+" ")) + ")"
					}
					fmt.Fprintf(bw, " %s..%s%s | %.2g |", sval(s.Low), sval(s.High), of, s.Q)
				} else {
					bw.WriteString(" – | – |")
				}
			}
			fmt.Fprintf(bw, " %s |\n", mdCode(lastFrames(pathNames(c.Path, o.FullNames), o.PathFrames), true))
		}
		if n := len(res.Causes) - len(causes); n > 0 {
			what := "causes"
			if n == 1 {
				what = "cause"
			}
			fmt.Fprintf(bw, "\n%d more %s in the full report.\n", n, what)
		}
		for i, c := range causes {
			if c.Spread != nil {
				fmt.Fprintf(bw, "\nCause %d is spread: %s.\n", i+1, mdText(spreadSummary(c.Spread, o.FullNames)))
			}
		}
		writeCausePaths(bw, causes)
	}

	if paths := res.RankedPaths[:min(len(res.RankedPaths), o.MaxPaths)]; len(paths) > 0 {
		fmt.Fprintf(bw, "\n<details><summary>Top %d call paths by cost (IntroPerf ranking)</summary>\n\n", len(paths))
		bw.WriteString("| Rank | Cost | Costliest function | Own delta | Path (lowest frames) |\n|--:|--:|---|--:|---|\n")
		for _, p := range paths {
			frames := make([]diff.Frame, len(p.Path))
			hot := 0
			for i, n := range p.Path {
				frames[i] = n.Frame
				if n.Rank == 1 {
					hot = i
				}
			}
			fmt.Fprintf(bw, "| %d | %s | %s | %s | %s |\n", p.Rank, sval(p.Cost), mdCode(frameName(p.Path[hot].Frame, o.FullNames), true),
				sval(p.Path[hot].Cost), mdCode(lastFrames(pathNames(frames, o.FullNames), o.PathFrames), true))
		}
		bw.WriteString("\n</details>\n")
	}

	return bw.Flush()
}

// writeCausePaths lists the causes' full paths in a collapsed section; a
// prefix that all share is printed once, so long Go and Java paths read
// as what differs.
func writeCausePaths(bw *bufio.Writer, causes []diff.Cause) {
	bw.WriteString("\n<details><summary>Full call paths</summary>\n\n")
	paths := make([][]diff.Frame, len(causes))
	sameThread := true
	for i, c := range causes {
		paths[i] = c.Path
		sameThread = sameThread && c.Thread == causes[0].Thread
	}
	common := 0
	if len(causes) > 1 && sameThread {
		common = commonPrefix(paths)
		// Keep at least the cause itself on each line.
		for _, p := range paths {
			common = min(common, len(p)-1)
		}
	}
	if common > 0 {
		fmt.Fprintf(bw, "All in thread %s under %s:\n\n", mdCode(causes[0].Thread, false),
			mdCode(strings.Join(pathNames(paths[0][:common], true), " → "), false))
	}
	for i, c := range causes {
		names := pathNames(c.Path[common:], true)
		if common > 0 {
			names = append([]string{"…"}, names...)
		}
		line := strings.Join(names, " → ")
		if len(c.Path) == 0 {
			line = "(the thread itself)"
		}
		if common > 0 {
			fmt.Fprintf(bw, "%d. %s\n", i+1, mdCode(line, false))
		} else {
			fmt.Fprintf(bw, "%d. %s %s\n", i+1, mdCode("["+c.Thread+"]", false), mdCode(line, false))
		}
	}
	bw.WriteString("\n</details>\n")
}

// causeFunc is the function a cause names in full: its lowest frame, or the
// thread.
func causeFunc(c diff.Cause) string { return causeName(c, true) }

// mdBelow says where below its blame a cause grew: the cause's own
// function, "itself", or the runtime work charged to it.
func mdBelow(c diff.Cause, full bool) string {
	switch b := c.Blame; {
	case b == nil:
		return "–"
	case b.By != "":
		return mdText(b.Work)
	case len(b.Breakdown) == 0:
		return "itself"
	}
	return mdCode(causeName(c, full), true)
}

// markdownTitle is the heading's words: the verdict and its count.
func markdownTitle(res *diff.Result) string {
	switch statusOf(res) {
	case diff.StatusRegressed:
		return plural(len(res.Causes), "regression cause") + " found"
	case diff.StatusImproved:
		return "improved"
	case diff.StatusInconclusive:
		return "inconclusive, no tested regression"
	}
	return "no significant change"
}

// causeName is the name of causeFunc, short unless full (frameName).
func causeName(c diff.Cause, full bool) string {
	if n := len(c.Path); n > 0 {
		return frameName(c.Path[n-1], full)
	}
	return "thread " + c.Thread
}

// mdCode returns s as a Markdown code span: a fence longer than any run of
// backquotes in s, padded when s starts or ends with one, control, bidi
// and format characters as their escapes (textName), and in table cells
// "|" escaped (GFM splits cells at a bare "|" even inside code spans).
// Inside a code span nothing is markup, HTML or an autolink.
func mdCode(s string, table bool) string {
	s = textName(s)
	if s == "" {
		s = " "
	}
	if table {
		s = strings.ReplaceAll(s, "|", `\|`)
	}
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") ||
		(strings.HasPrefix(s, " ") && strings.HasSuffix(s, " ") && strings.TrimSpace(s) != "") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdText escapes text that may hold names (warnings quote thread names):
// control, bidi and format characters become their escapes (textName),
// <, > and & entities, and the characters that start emphasis,
// code, links, tables or strikethrough anywhere in a line are
// backslash-escaped. Characters that are markup only at the start of a
// line (#, +, -, digits and ".") stay, since callers never start a line
// with this text, and so do parentheses, which form a link only after an
// escaped "]".
func mdText(s string) string {
	var b strings.Builder
	for _, r := range textName(s) {
		switch {
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '&':
			b.WriteString("&amp;")
		case strings.ContainsRune("\\`*_[]|~", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
