package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/ctdiff/ctdiff/diff"
)

// The summary format: one line per comparison, for CI logs. A line is the
// verdict (verdictLine) and what it rests on: the runs a side and the
// totals. Names are escaped as in text.

// writeDiffSummary writes a comparison's one line.
func writeDiffSummary(w io.Writer, res *diff.Result, full bool) error {
	_, err := fmt.Fprintf(w, "%s [%s]\n", capitalize(verdictLine(res, full, textName)), summaryBasis(res))
	return err
}

// writeReleaseSummary writes a line per component, ranked as the release
// report ranks them.
func writeReleaseSummary(w io.Writer, rel *Release) error {
	bw := bufio.NewWriter(w)
	for _, c := range rel.Components {
		fmt.Fprintf(bw, "%s: %s [%s]\n", textName(c.Name), verdictLine(c.Result, false, textName), summaryBasis(c.Result))
	}
	return bw.Flush()
}

// summaryBasis says what a verdict rests on: "3 vs 3 runs, total 1.59s →
// 1.75s (+9.85%)".
func summaryBasis(res *diff.Result) string {
	change := res.New.Total - res.Base.Total
	return fmt.Sprintf("%d vs %d runs, total %s → %s (%s)", res.Base.Runs, res.New.Runs,
		FormatValue(res.Base.Total, res.Unit), FormatValue(res.New.Total, res.Unit), signedPercent(change, res.Base.Total))
}
