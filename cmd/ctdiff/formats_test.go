package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/browser"
	"github.com/google/pprof/profile"
)

var screenshot = flag.Bool("screenshot", false, "rewrite docs/report.png, the picture of the HTML report in docs/usage.md")

// Without --format, -o's extension picks the format; --format wins over
// it, unknown extensions write text, and an extension naming a format the
// command cannot write is an error.
func TestOutputFormatFromExtension(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		args   []string
		file   string
		prefix string
	}{
		{[]string{"diff", exampleOld, exampleNew}, "r.txt", "Regressed: example.checkRules"},
		{[]string{"diff", exampleOld, exampleNew}, "r.json", "{\n  \"schema\": \"ctdiff.diff/v2\""},
		{[]string{"diff", exampleOld, exampleNew}, "r.dot", "digraph critical {"},
		{[]string{"diff", exampleOld, exampleNew}, "r.pb.gz", "\x1f\x8b"},
		{[]string{"diff", exampleOld, exampleNew}, "r.pprof", "\x1f\x8b"},
		{[]string{"diff", exampleOld, exampleNew}, "r.md", "### ctdiff: 2 regression causes found"},
		{[]string{"diff", exampleOld, exampleNew}, "R.HTML", "<!DOCTYPE html>"},
		{[]string{"diff", exampleOld, exampleNew}, "r.out", "Regressed: example.checkRules"},
		{[]string{"diff", exampleOld, exampleNew, "--format", "json"}, "r2.md", "{"},
		{[]string{"cct", exampleNew}, "t.dot", "digraph cct {"},
		{[]string{"cct", exampleNew}, "t.pb.gz", "\x1f\x8b"},
		{[]string{"cct", exampleNew}, "t.json", "{"},
	} {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			out, errOut, code := ctdiff(append(tt.args, "-o", path)...)
			if code != 0 || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(b, []byte(tt.prefix)) {
				t.Errorf("%s starts %q, want %q", tt.file, b[:min(len(b), 60)], tt.prefix)
			}
			if strings.HasSuffix(tt.file, ".dot") {
				renderDOT(t, string(b))
			}
		})
	}
	_, errOut, code := ctdiff("cct", exampleNew, "-o", filepath.Join(dir, "t.md"))
	if want := "ctdiff: -o " + filepath.Join(dir, "t.md") + ": the .md extension means --format markdown, which this command does not write (it writes text, json, dot, pprof)\n"; code != exitError || errOut != want {
		t.Errorf("cct -o t.md: exit %d, stderr %q, want %q", code, errOut, want)
	}
}

// Golden files for the formats of `ctdiff diff` and `ctdiff cct` on the
// example, and every DOT output through Graphviz.
func TestExampleFormatsGolden(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		golden string
	}{
		{[]string{"diff", exampleOld, exampleNew, "--format", "dot"}, "diff-example.dot"},
		{[]string{"diff", exampleOld, exampleNew, "--format", "markdown"}, "diff-example.md"},
		{[]string{"diff", exampleOld, exampleNew, "--format", "dot", "--aggregate", "intersect"}, "diff-example-intersect.dot"},
		{[]string{"cct", exampleNew, "--format", "dot"}, "cct-example.dot"},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			out, errOut, code := ctdiff(tt.args...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, tt.golden, out)
			if strings.HasSuffix(tt.golden, ".dot") {
				renderDOT(t, out)
			}
		})
	}
	// The HTML page without its style sheet and script (report/html has
	// them), and the pprof diff as pprof's own text dump.
	out, errOut, code := ctdiff("diff", exampleOld, exampleNew, "--format", "html")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, f := range []string{"report.css", "report.js"} {
		b, err := os.ReadFile(filepath.Join("../../report/html", f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, string(b)) {
			t.Fatalf("the page does not embed %s", f)
		}
		out = strings.Replace(out, string(b), "/* report/html/"+f+" */", 1)
	}
	golden(t, "diff-example.html", out)
	pb := filepath.Join(t.TempDir(), "diff.pb.gz")
	if _, errOut, code := ctdiff("diff", exampleOld, exampleNew, "-o", pb); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	f, err := os.Open(pb)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "diff-example.pprof.txt", p.String())
}

// renderDOT runs Graphviz (installed by .ci/run) on DOT output.
func renderDOT(t *testing.T, dot string) {
	t.Helper()
	bin, err := exec.LookPath("dot")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("graphviz (dot) is not installed; .ci/run installs it")
		}
		t.Skip("graphviz not installed")
	}
	cmd := exec.Command(bin, "-Tsvg")
	cmd.Stdin = strings.NewReader(dot)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("dot -Tsvg: %v %s", err, stderr.String())
	}
}

// The pprof diff of the example opens in go tool pprof, whose -top puts the
// injected slowdown first with the delta the text report prints; its
// samples add up to the new total minus the base total; and -tagfocus on
// the cause's label shows the cause alone.
func TestDiffPprofInGoToolPprof(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go not on PATH")
	}
	text, errOut, code := ctdiff("diff", exampleOld, exampleNew)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// Paths wrap before an arrow: join them again.
	unwrapped := regexp.MustCompile(`\n +→ `).ReplaceAllString(text, " → ")
	m := regexp.MustCompile(`(?m)^     of which (\S+) \+(\S+)$`).FindStringSubmatch(unwrapped)
	if m == nil {
		t.Fatalf("no first cause in the text report:\n%s", text)
	}
	function, delta := m[1], m[2]
	if function != "strings.EqualFold" {
		t.Errorf("the text report's first cause is %s, want the injected slowdown's strings.EqualFold", function)
	}
	dir := t.TempDir()
	pb := filepath.Join(dir, "diff.pb.gz")
	if _, errOut, code := ctdiff("diff", exampleOld, exampleNew, "--format", "pprof", "-o", pb); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}

	top := pprofTop(t, goBin, pb)
	if len(top) == 0 {
		t.Fatal("go tool pprof -top shows no function")
	}
	if top[0].name != function || top[0].flat != delta {
		t.Errorf("go tool pprof -top shows %s %s first; the text report %s +%s", top[0].name, top[0].flat, function, delta)
	}

	var doc struct{ Base, New struct{ Total int64 } }
	js, _, _ := ctdiff("diff", exampleOld, exampleNew, "--format", "json")
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(pb)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	var sum int64
	for _, s := range p.Sample {
		sum += s.Value[0]
	}
	if want := doc.New.Total - doc.Base.Total; sum != want {
		t.Errorf("the samples add up to %d ns, want new − base = %d − %d = %d", sum, doc.New.Total, doc.Base.Total, want)
	}

	cause := pprofTop(t, goBin, pb, "-tagfocus", "ctdiff_cause=1")
	if len(cause) == 0 || cause[0].name != function || cause[0].flat != delta {
		t.Errorf("-tagfocus ctdiff_cause=1 shows %+v, want %s +%s first", cause, function, delta)
	}
}

type topRow struct{ flat, name string }

// pprofTop runs go tool pprof -top as a user would and returns its rows.
func pprofTop(t *testing.T, goBin, file string, args ...string) []topRow {
	t.Helper()
	cmd := exec.Command(goBin, append(append([]string{"tool", "pprof", "-top"}, args...), file)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go tool pprof -top: %v\n%s", err, stderr.String())
	}
	var rows []topRow
	inTable := false
	for _, line := range strings.Split(stdout.String(), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 2 && f[0] == "flat" && f[1] == "flat%":
			inTable = true
		case inTable && len(f) >= 6:
			rows = append(rows, topRow{flat: f[0], name: strings.Join(f[5:], " ")})
		}
	}
	return rows
}

// The HTML report of the example opens in headless Chromium without script
// errors and draws the cause's frame; with -screenshot it refreshes the
// README's picture.
func TestDiffHTMLExampleInBrowser(t *testing.T) {
	browser.Find(t)
	path := filepath.Join(t.TempDir(), "report.html")
	if _, errOut, code := ctdiff("diff", exampleOld, exampleNew, "-o", path); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	dom := browser.DumpDOM(t, path)
	if !strings.Contains(dom, `data-ctdiff-rendered="1"`) {
		t.Errorf("the script did not render the icicle graph")
	}
	if strings.Contains(dom, `data-ctdiff-errors="1"`) {
		t.Errorf("script errors: %s", regexp.MustCompile(`(?s)<pre id="ctdiff-errors"[^>]*>.*?</pre>`).FindString(dom))
	}
	if !regexp.MustCompile(`<div class="fg-node cause[^"]*"[^>]*>#1 strings\.EqualFold</div>`).MatchString(dom) {
		t.Errorf("the icicle graph has no frame for cause 1, strings.EqualFold:\n%s",
			strings.Join(regexp.MustCompile(`<div class="fg-node cause[^>]*>[^<]*`).FindAllString(dom, 10), "\n"))
	}
	if !strings.Contains(dom, `<td class="fn" title="strings.EqualFold (/usr/local/go/src/strings/strings.go)">example.checkRules › strings.EqualFold</td>`) {
		t.Error("the causes table lacks checkRules › strings.EqualFold")
	}
	// The causes' frames are narrower than their labels: each label is
	// also drawn whole beside its frame, not cut to "#1 stri…".
	for _, label := range []string{"#1 strings.EqualFold", "#2 stringslite.Index"} {
		if !regexp.MustCompile(`<div class="fg-callout" data-i="\d+" style="[^"]*">` + regexp.QuoteMeta(label) + `</div>`).MatchString(dom) {
			t.Errorf("no whole label %q beside its frame:\n%s", label,
				strings.Join(regexp.MustCompile(`<div class="fg-(callout|node cause)[^>]*>[^<]*`).FindAllString(dom, 10), "\n"))
		}
	}
	// The text report says "0 added" on the example: no frame is drawn as
	// added.
	if n := len(regexp.MustCompile(`class="fg-node[^"]* added`).FindAllString(dom, -1)); n != 0 {
		t.Errorf("%d frames drawn as added, where the text report counts none", n)
	}
	// Zooming on cause 1 (its row's data-node) through the URL draws it
	// full width below its ancestors.
	row := regexp.MustCompile(`<tr class="cause-row" data-node="(\d+)"`).FindStringSubmatch(dom)
	if row == nil {
		t.Fatal("no cause row with a node")
	}
	dom = browser.DumpDOM(t, path+"#zoom="+row[1])
	if !regexp.MustCompile(`<div class="fg-node cause" data-i="` + row[1] + `" style="left: 0%; width: 100%;[^"]*">#1 strings\.EqualFold</div>`).MatchString(dom) {
		t.Errorf("zoomed on node %s, the cause is not drawn full width:\n%s", row[1],
			strings.Join(regexp.MustCompile(`<div class="fg-node[^>]*>[^<]*`).FindAllString(dom, 12), "\n"))
	}
	if n := strings.Count(dom, "fg-node ancestor"); n != 9 {
		t.Errorf("%d ancestors above the zoomed cause, want 9 (root, thread and its 7 callers)", n)
	}
	if strings.Contains(dom, `">#1 strings.EqualFold</div>`) && regexp.MustCompile(`class="fg-callout"[^>]*>#1 `).MatchString(dom) {
		t.Error("the full-width cause still has its label drawn beside it")
	}
	if *screenshot {
		browser.Screenshot(t, path, "../../docs/report.png", 1400, 1300)
	}
}
