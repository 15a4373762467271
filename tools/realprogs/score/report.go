package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
)

func writeJSON(path string, res results) error {
	b, err := json.MarshalIndent(struct {
		results
		Summary []string `json:"summary"`
	}{res, summaries(res)}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func writeMarkdown(w io.Writer, res results) {
	fmt.Fprintln(w, "## Cases")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| case | language | kind | changed function | cost (profile) | cost (CPU time) |")
	fmt.Fprintln(w, "|---|---|---|---|---:|---:|")
	for _, c := range res.Costs {
		fn := "`" + c.Function + "`"
		if c.Kind == "noise" {
			fn = "-"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", c.Case, c.Lang, c.Kind, fn, pct(c.Profile), pct(c.CPU))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "## Verdicts")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| case | K | blamed | hit | tested | #causes | #off-path | pprof flat rank | pprof cum rank |")
	fmt.Fprintln(w, "|---|---|---|---|---|---:|---:|---:|---:|")
	for _, r := range res.Rows {
		fmt.Fprintln(w, markdownRow(r))
	}
	fmt.Fprintln(w)
	for _, s := range summaries(res) {
		fmt.Fprintln(w, s)
		fmt.Fprintln(w)
	}
	writeErrors(w, res)
	writeStderr(w, res)
}

// profilePath matches a profile's path in ctdiff's messages.
var profilePath = regexp.MustCompile(`\S+\.(pb\.gz|cpuprofile|jfr)\b`)

// writeStderr lists the distinct lines ctdiff printed on stderr, with the
// profile paths replaced by FILE, and how many comparisons printed each.
func writeStderr(w io.Writer, res results) {
	count := map[string]int{}
	var order []string
	for _, r := range res.Rows {
		seen := map[string]bool{}
		for _, l := range r.Stderr {
			l = profilePath.ReplaceAllString(l, "FILE")
			if seen[l] {
				continue
			}
			seen[l] = true
			if count[l] == 0 {
				order = append(order, l)
			}
			count[l]++
		}
	}
	if len(order) == 0 {
		return
	}
	fmt.Fprintln(w, "## What ctdiff printed on stderr")
	fmt.Fprintln(w)
	for _, l := range order {
		fmt.Fprintf(w, "- %d comparisons: %s\n", count[l], l)
	}
}

func markdownRow(r row) string {
	k := fmt.Sprint(r.K)
	if r.Pair > 0 {
		k = fmt.Sprintf("1 (run %d)", r.Pair)
	}
	blamed := "-"
	switch {
	case r.Error != "" && r.Tested == "none" && r.Causes == 0:
		blamed = "ERROR"
	case r.Blamed != "":
		blamed = "`" + r.Blamed + "`"
	case r.UntestedBlamed != "":
		blamed = "(untested: `" + r.UntestedBlamed + "`)"
	}
	hit, flat, cum := "-", "-", "-"
	if r.Kind != "noise" {
		hit = map[bool]string{true: "yes", false: "no"}[r.Hit]
		flat, cum = rank(r.PprofFlat), rank(r.PprofCum)
	}
	offPath := fmt.Sprint(r.OffPath)
	if r.Kind == "noise" {
		offPath = "-"
	}
	return fmt.Sprintf("| %s | %s | %s | %s | %s | %d | %s | %s | %s |", r.Case, k, blamed, hit, r.Tested, r.Causes,
		offPath, flat, cum)
}

func rank(n int) string {
	if n == 0 {
		return "absent"
	}
	return fmt.Sprint(n)
}

func pct(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", *v)
}

// A tally counts one group of rows.
type tally struct {
	changes, hits, offPath    int
	noise, noisy, noiseCauses int
	errors                    int
	pprofFlatTop, pprofCumTop int
	byCase                    map[string]int
	changeCaseSeen            map[string]bool
}

func newTally() *tally {
	return &tally{byCase: map[string]int{}, changeCaseSeen: map[string]bool{}}
}

func (t *tally) add(r row) {
	if r.Error != "" {
		t.errors++
	}
	if r.Kind == "noise" {
		t.noise++
		t.noiseCauses += r.Causes
		if r.Causes > 0 {
			t.noisy++
		}
		return
	}
	t.changes++
	t.offPath += r.OffPath
	if r.Hit {
		t.hits++
		t.byCase[r.Case]++
	}
	if r.PprofFlat == 1 {
		t.pprofFlatTop++
	}
	if r.PprofCum == 1 {
		t.pprofCumTop++
	}
	t.changeCaseSeen[r.Case] = true
}

// summaries are one line per K and language group, e.g.
// "K=3 go: hit 2/13, off-path 5, noise causes 0/3".
func summaries(res results) []string {
	var out []string
	ks := []int{res.Runs, 1}
	if res.Runs == 1 {
		ks = ks[1:]
	}
	for _, k := range ks {
		for _, lang := range []string{"go", "js", "java", "all"} {
			t := newTally()
			for _, r := range res.Rows {
				if r.K == k && (lang == "all" || r.Lang == lang) {
					t.add(r)
				}
			}
			if t.changes+t.noise == 0 {
				continue
			}
			out = append(out, summaryLine(k, lang, t, res.Runs))
		}
	}
	return out
}

func summaryLine(k int, lang string, t *tally, runs int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "K=%d %s: hit %d/%d", k, lang, t.hits, t.changes)
	if k == 1 && runs > 1 {
		most := 0
		for _, n := range t.byCase {
			if 2*n > runs {
				most++
			}
		}
		fmt.Fprintf(&b, " pairings (cases hit in most of their %d pairings: %d/%d)", runs, most, len(t.changeCaseSeen))
	}
	fmt.Fprintf(&b, ", off-path %d, noise causes %d/%d", t.offPath, t.noisy, t.noise)
	if t.noiseCauses > 0 {
		fmt.Fprintf(&b, " (%d causes)", t.noiseCauses)
	}
	fmt.Fprintf(&b, "; pprof -diff_base ranks the changed function first by flat in %d/%d, by cum in %d/%d",
		t.pprofFlatTop, t.changes, t.pprofCumTop, t.changes)
	if t.errors > 0 {
		fmt.Fprintf(&b, "; %d comparisons failed", t.errors)
	}
	return b.String()
}

func writeErrors(w io.Writer, res results) {
	var lines []string
	for _, c := range res.Costs {
		if c.Error != "" {
			lines = append(lines, fmt.Sprintf("- %s: %s", c.Case, c.Error))
		}
	}
	for _, r := range res.Rows {
		if r.Error != "" {
			lines = append(lines, fmt.Sprintf("- %s K=%d pair %d: %s", r.Case, r.K, r.Pair, r.Error))
		}
	}
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w, "## Errors")
	fmt.Fprintln(w)
	for _, l := range lines {
		fmt.Fprintln(w, l)
	}
}
