package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// The verdict leads every report: the text's first line, the JSON's
// "verdict", the summary format's only line; swapped sides name the
// improvement and say the sides look swapped.
func TestVerdictExample(t *testing.T) {
	for _, tt := range []struct {
		name     string
		old, new string
		first    string // the text report's first line starts so
		status   string
		blame    string // the verdict's top cause's blame
		below    string // a function of its breakdown
		warning  string // a warning the JSON holds, or ""
	}{
		{"regressed", exampleOld, exampleNew, "Regressed: example.checkRules +213.3ms, of which strings.EqualFold +86.67ms",
			"regressed", "github.com/ctdiff/ctdiff/internal/example.checkRules", "strings.EqualFold", ""},
		{"swapped", exampleNew, exampleOld, "Improved: example.checkRules -213.3ms, of which strings.EqualFold -86.67ms",
			"improved", "github.com/ctdiff/ctdiff/internal/example.checkRules", "strings.EqualFold",
			"every new run was recorded before every base run"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			text, errOut, code := ctdiff("diff", tt.old, tt.new)
			// The verdict wraps at the report's width, as all prose.
			text = strings.ReplaceAll(text, "\n  ", " ")
			if code != exitOK || !strings.HasPrefix(text, tt.first) {
				t.Errorf("exit %d, stderr %q, text starts %.120q; want %q", code, errOut, text, tt.first)
			}
			js, _, _ := ctdiff("diff", tt.old, tt.new, "--format", "json")
			var doc struct {
				Verdict struct {
					Status, Summary string
					TopCause        struct {
						Blame     struct{ Function string }
						Breakdown struct {
							Calls []struct{ Function string }
						}
					} `json:"top_cause"`
				}
				Improvements []json.RawMessage
				Warnings     []string
			}
			if err := json.Unmarshal([]byte(js), &doc); err != nil {
				t.Fatal(err)
			}
			v := doc.Verdict
			var below []string
			for _, c := range v.TopCause.Breakdown.Calls {
				below = append(below, c.Function)
			}
			if v.Status != tt.status || v.TopCause.Blame.Function != tt.blame || !strings.Contains(strings.Join(below, ";"), tt.below) {
				t.Errorf("verdict %s, top cause blamed on %s below %v; want %s, %s, %s", v.Status, v.TopCause.Blame.Function, below, tt.status, tt.blame, tt.below)
			}
			if tt.status == "improved" && len(doc.Improvements) == 0 {
				t.Error("no improvements in the JSON")
			}
			if tt.warning != "" && !strings.Contains(strings.Join(doc.Warnings, "\n"), tt.warning) {
				t.Errorf("warnings %q lack %q", doc.Warnings, tt.warning)
			}
			line, _, _ := ctdiff("diff", tt.old, tt.new, "--format", "summary")
			if strings.Count(line, "\n") != 1 || !strings.HasPrefix(line, tt.first) || !strings.Contains(line, "[3 vs 3 runs, total ") {
				t.Errorf("summary %q: want one line starting %q", line, tt.first)
			}
		})
	}
}
