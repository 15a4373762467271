package report

import (
	"bufio"
	"encoding/json"
	"io"
)

// releaseSchema names the JSON schema of writeReleaseJSON.
const releaseSchema = "ctdiff.report/v1"

// The ctdiff.report/v1 schema: the components in ranking order, each with
// its verdict and its causes exactly as ctdiff diff's ctdiff.diff/v2 writes
// them (same fields, same order), so a pipeline can check either.
type releaseJSON struct {
	Schema     string          `json:"schema"`
	Regressed  int             `json:"regressed"`
	Improved   int             `json:"improved"`
	Unchanged  int             `json:"unchanged"`
	Impact     string          `json:"impact_definition"`
	Components []componentJSON `json:"components"`
}

type componentJSON struct {
	Rank      int    `json:"rank"`
	Name      string `json:"name"`
	Ecosystem string `json:"ecosystem"`
	Verdict   string `json:"verdict"`
	Why       string `json:"why"`
	Source    string `json:"source"`
	Metric    string `json:"metric"`
	Unit      string `json:"unit"`
	MinDelta  int64  `json:"min_delta"`
	BaseTotal int64  `json:"base_total"`
	NewTotal  int64  `json:"new_total"`
	Change    int64  `json:"change"`
	// Percentages with two decimals (pct2).
	TotalChange float64       `json:"total_change_percent"`
	CauseChange float64       `json:"largest_cause_percent"`
	Impact      float64       `json:"impact_percent"`
	Causes      []causeJSON   `json:"causes"`
	Runtime     []runtimeJSON `json:"runtime_groups"`
	Warnings    []string      `json:"warnings"`
}

// runtimeJSON is a runtime group: its causes by their index in "causes".
type runtimeJSON struct {
	Group  string `json:"group"`
	Delta  int64  `json:"delta"`
	Causes []int  `json:"causes"`
}

// writeReleaseJSON writes a release report as ctdiff.report/v1, indented.
func writeReleaseJSON(w io.Writer, rel *Release) error {
	out := releaseJSON{Schema: releaseSchema, Regressed: rel.Regressed, Improved: rel.Improved, Unchanged: rel.Unchanged,
		Impact: impactDefinition, Components: []componentJSON{}}
	for i, c := range rel.Components {
		res := c.Result
		cj := componentJSON{
			Rank: i + 1, Name: c.Name, Ecosystem: string(c.Ecosystem), Verdict: string(c.Verdict), Why: c.Why, Source: c.Source,
			Metric: res.Metric, Unit: res.Unit, MinDelta: res.MinDelta, BaseTotal: res.Base.Total, NewTotal: res.New.Total,
			Change: c.Change, TotalChange: pct2(100 * c.TotalChange), CauseChange: pct2(100 * c.CauseChange), Impact: pct2(100 * c.Impact),
			Causes: []causeJSON{}, Runtime: []runtimeJSON{}, Warnings: append([]string{}, res.Warnings...),
		}
		for _, cause := range res.Causes {
			cj.Causes = append(cj.Causes, causeJSONOf(cause))
		}
		for _, g := range c.runtime {
			rj := runtimeJSON{Group: g.Group, Delta: g.Delta, Causes: []int{}}
			for _, cr := range g.Causes {
				rj.Causes = append(rj.Causes, cr.N-1)
			}
			cj.Runtime = append(cj.Runtime, rj)
		}
		out.Components = append(out.Components, cj)
	}
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	return bw.Flush()
}
