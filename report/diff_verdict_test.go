package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/diff"
)

// spreadRuns are three runs of a program whose refresh is called from 11
// contexts; in the new runs each of its contexts calls isStaleState for
// 10 ms (a spread regression: under μ in each context, above it in all).
func spreadRuns(stale bool) string { return spreadPoolRuns(stale, 0) }

// spreadPoolRuns are spreadRuns on a pool of threads: handler i runs on
// "worker #(i mod threads)" (none: threads 0).
func spreadPoolRuns(stale bool, threads int) string {
	var runs []string
	for r := range 3 {
		var b strings.Builder
		for i := range 11 {
			th := ""
			if threads > 0 {
				th = fmt.Sprintf("thread=worker#%d ", i%threads)
			}
			fmt.Fprintf(&b, "%smain;handler%02d;work %d\n", th, i, 200+7*((i+r)%3))
			fmt.Fprintf(&b, "%smain;handler%02d;refresh %d\n", th, i, 20+(i+r)%2)
			if stale {
				fmt.Fprintf(&b, "%smain;handler%02d;refresh;isStaleState %d\n", th, i, 10)
			}
		}
		runs = append(runs, b.String())
	}
	return strings.Join(runs, "|")
}

// writeEveryFormat writes res as text, Markdown, HTML and JSON, with the
// default options.
func writeEveryFormat(t *testing.T, res *diff.Result) (text, md, html, js bytes.Buffer) {
	t.Helper()
	if err := writeDiffText(&text, res, diffTextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := writeDiffMarkdown(&md, res, diffMarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := writeDiffHTML(&html, res, diffHTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := writeDiffJSON(&js, res); err != nil {
		t.Fatal(err)
	}
	return text, md, html, js
}

// Every report names a spread cause by its function and says how many
// contexts it folds; JSON has them all.
func TestDiffSpreadCauseReports(t *testing.T) {
	res := compare(t, spreadRuns(false), spreadRuns(true), diff.Options{Tree: true})
	if len(res.Causes) != 1 || res.Causes[0].Spread == nil {
		t.Fatalf("causes %+v: want one spread cause", res.Causes)
	}
	text, md, html, js := writeEveryFormat(t, res)
	want := "isStaleState grew in 11 of its 11 calling contexts, none by the threshold alone; called from refresh"
	for name, out := range map[string]string{"text": strings.Join(strings.Fields(text.String()), " "), "markdown": md.String(), "html": html.String()} {
		if !strings.Contains(out, want) {
			t.Errorf("%s report lacks %q:\n%s", name, want, out)
		}
	}
	if !strings.Contains(text.String(), "on the function's total") {
		t.Errorf("text report does not say the function's total was tested:\n%s", text.String())
	}
	var doc struct {
		Causes []struct {
			Delta  int64
			Stats  struct{ Of string }
			Spread struct {
				Function struct{ Function string }
				Contexts []struct{ Delta int64 }
				Grew     int
			}
		}
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	c := doc.Causes[0]
	if c.Spread.Function.Function != "isStaleState" || c.Spread.Grew != 11 || len(c.Spread.Contexts) != 11 || c.Stats.Of != "function" || c.Delta != 110e6 {
		t.Errorf("JSON cause %+v", c)
	}
	back, err := ReadDiffJSON(&js, "r.json")
	if err != nil {
		t.Fatal(err)
	}
	if sp := back.Causes[0].Spread; sp == nil || sp.Grew != 11 || back.Causes[0].Stats.Of != diff.OfFunction {
		t.Errorf("read back: %+v", back.Causes[0])
	}
}

// A spread cause over a pool of threads says how many: its own thread
// label is only its largest context's, and a function slower on every
// worker is not one worker's regression.
func TestSpreadCauseSaysItsThreads(t *testing.T) {
	for _, tc := range []struct {
		threads int
		want    string
	}{
		{0, "isStaleState grew in 11 of its 11 calling contexts, none by the threshold alone"},
		{1, "isStaleState grew in 11 of its 11 calling contexts, none by the threshold alone"},
		{4, "isStaleState grew in 11 of its 11 calling contexts in 4 threads, none by the threshold alone"},
	} {
		t.Run(fmt.Sprint(tc.threads), func(t *testing.T) {
			res := compare(t, spreadPoolRuns(false, tc.threads), spreadPoolRuns(true, tc.threads), diff.Options{Tree: true})
			if len(res.Causes) != 1 || res.Causes[0].Spread == nil {
				t.Fatalf("causes %+v: want one spread cause", res.Causes)
			}
			text, md, html, js := writeEveryFormat(t, res)
			for name, out := range map[string]string{"text": strings.Join(strings.Fields(text.String()), " "), "markdown": md.String(), "html": html.String()} {
				if !strings.Contains(out, tc.want) {
					t.Errorf("%s report lacks %q:\n%s", name, tc.want, out)
				}
			}
			back, err := ReadDiffJSON(&js, "r.json")
			if err != nil {
				t.Fatal(err)
			}
			if got, want := back.Causes[0].Spread.Threads, max(tc.threads, 1); got != want {
				t.Errorf("JSON read back: %d threads, want %d", got, want)
			}
		})
	}
}

// deepSelfRuns are five runs of a task whose own time is 100 ms (200 with
// slow) beside a step that varies by far more between runs: the task's
// inclusive value cannot show the change, its self value can.
func deepSelfRuns(slow bool) string {
	var runs []string
	for r := range 5 {
		self := 100 + r
		if slow {
			self += 100
		}
		runs = append(runs, fmt.Sprintf("main;task %d\nmain;task;step %d\nmain;other;x %d\nmain;other;y %d", self, 1000+[]int{-400, 300, -100, 450, -250}[(r+boolInt(slow))%5], 300+r, 200-r))
	}
	return strings.Join(runs, "|")
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A cause tested on its self time says the self values tested beside the
// inclusive ones of its headline, in text, Markdown, HTML and JSON (read
// back too).
func TestSelfCauseSaysItsSelfValues(t *testing.T) {
	res := compare(t, deepSelfRuns(false), deepSelfRuns(true), diff.Options{Tree: true, Normalize: diff.Normalize{Mode: diff.NormalizeNone}})
	if len(res.Causes) != 1 || res.Causes[0].Stats == nil || res.Causes[0].Stats.Of != diff.OfSelf {
		t.Fatalf("causes %+v: want one cause tested on self time", res.Causes)
	}
	text, md, html, js := writeEveryFormat(t, res)
	const want = "on self time, 102ms → 202ms"
	for name, out := range map[string]string{"text": strings.Join(strings.Fields(text.String()), " "), "markdown": md.String(), "html": html.String()} {
		if !strings.Contains(out, want) {
			t.Errorf("%s report lacks %q:\n%s", name, want, out)
		}
	}
	back, err := ReadDiffJSON(&js, "r.json")
	if err != nil {
		t.Fatal(err)
	}
	if s := back.Causes[0].Stats; s.SelfBase != 102e6 || s.SelfNew != 202e6 {
		t.Errorf("read back self values %d → %d, want 102ms → 202ms", s.SelfBase, s.SelfNew)
	}
}
