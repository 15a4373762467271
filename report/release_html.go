package report

import (
	"bufio"
	"embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
)

// The release page's template; it shares the diff report's style sheet.
//
//go:embed html/release.html.tmpl
var releaseFiles embed.FS

var releasePage = template.Must(template.New("release.html.tmpl").ParseFS(releaseFiles, "html/release.html.tmpl"))

// writeReleaseHTML writes a release report as one self-contained HTML page:
// the ranking, then a section per component with its verdict, totals,
// causes (paths with runtime frames folded, full names on hover) and the
// runtime and VM causes grouped. The page is produced by html/template,
// which escapes every name from a profile; its one script only links the
// ranking to the sections.
func writeReleaseHTML(w io.Writer, rel *Release, o ReleaseOptions) error {
	css, err := htmlFiles.ReadFile("html/report.css")
	if err != nil {
		return err
	}
	page := releaseHTML{Headline: releaseHeadline(rel), Failed: rel.Failed(), Definition: impactDefinition, CSS: template.CSS(css)}
	for i, c := range rel.Components {
		res := c.Result
		val := func(v int64) string { return FormatValue(v, res.Unit) }
		sval := func(v int64) string { return signed(val(v), v) }
		hc := releaseHTMLComponent{
			Rank: i + 1, Name: c.Name, Anchor: "component-" + strconv.Itoa(i+1), Language: c.Ecosystem.Title(),
			Verdict: string(c.Verdict), Why: c.Why, Metric: res.Metric, Source: c.Source,
			Totals:   val(res.Base.Total) + " → " + val(res.New.Total),
			Change:   sval(c.Change) + " (" + signedPercent(c.Change, res.Base.Total) + ")",
			Runs:     runs(res.Base.Runs, "base") + " vs " + runs(res.New.Runs, "new"),
			MinDelta: val(res.MinDelta), Normalization: normalizationSummary(res), Impact: signedPct(c.Impact),
			Warnings: res.Warnings,
		}
		if len(res.Causes) > 0 {
			top := res.Causes[0]
			hc.Largest, hc.LargestFull, hc.LargestDelta = c.style.Label(causeFrame(top)), c.style.Full(causeFrame(top)), sval(top.Delta)
		}
		shown := c.Causes[:min(len(c.Causes), o.maxCauses())]
		for _, cr := range shown {
			hc.Causes = append(hc.Causes, htmlCause(cr, c.style, val, sval))
		}
		if n := len(c.Causes) - len(shown); n > 0 {
			hc.More = plural(n, "more cause") + " in ctdiff diff's report."
		}
		for _, g := range c.runtime {
			rg := releaseHTMLRuntime{Group: g.Group, Delta: sval(g.Delta)}
			for _, cr := range g.Causes {
				rg.Causes = append(rg.Causes, htmlCause(cr, c.style, val, sval))
			}
			hc.Runtime = append(hc.Runtime, rg)
		}
		page.Components = append(page.Components, hc)
	}
	bw := bufio.NewWriter(w)
	if err := releasePage.Execute(bw, textNamesIn(&page)); err != nil {
		return err
	}
	return bw.Flush()
}

func htmlCause(cr CauseReport, style frameStyle, val, sval func(int64) string) releaseHTMLCause {
	out := releaseHTMLCause{N: cr.N, Label: cr.Label, Full: cr.Full, Thread: cr.Thread, Delta: sval(cr.Delta),
		Before: val(cr.Base), After: val(cr.New), Kind: string(cr.Kind), Charged: cr.Charged}
	if s := cr.Stats; s != nil {
		out.CI = sval(s.Low) + ".." + sval(s.High)
		out.P = fmt.Sprintf("%.2g", s.Q)
	}
	for _, p := range cr.parts {
		titles := make([]string, len(p.Frames))
		for i, f := range p.Frames {
			titles[i] = style.Full(f)
		}
		out.Parts = append(out.Parts, releaseHTMLPart{Label: p.Label, Folded: p.Folded, Title: tooltipOf(titles...)})
	}
	return out
}

type releaseHTML struct {
	Headline   string
	Failed     bool
	Definition string
	Components []releaseHTMLComponent
	CSS        template.CSS
}

type releaseHTMLComponent struct {
	Rank                                         int
	Name, Anchor, Language, Verdict, Why, Metric string
	Source, Totals, Change, Runs, MinDelta       string
	Normalization, Impact                        string
	Largest, LargestFull, LargestDelta           string
	Causes                                       []releaseHTMLCause
	More                                         string
	Runtime                                      []releaseHTMLRuntime
	Warnings                                     []string
}

type releaseHTMLCause struct {
	N                                         int
	Label, Full, Thread, Delta, Before, After string
	Kind, CI, P, Charged                      string
	Parts                                     []releaseHTMLPart
}

type releaseHTMLPart struct {
	Label  string
	Title  tooltip
	Folded bool
}

type releaseHTMLRuntime struct {
	Group, Delta string
	Causes       []releaseHTMLCause
}
