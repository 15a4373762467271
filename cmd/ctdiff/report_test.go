package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	goldenfile "github.com/ctdiff/ctdiff/internal/golden"
	"github.com/ctdiff/ctdiff/report"
)

// The worked example: a release of four components in three formats
// (Node.js .cpuprofile, Go pprof, JFR), see testdata/release/manifest.toml.
const releaseManifest = "../../testdata/release/manifest.toml"

func TestReportReleaseGolden(t *testing.T) {
	out, stderr, code := ctdiff("report", releaseManifest, "--format", "markdown")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	goldenfile.CheckString(t, "../../testdata/release/report.md", out)
}

// The report's verdicts and causes are those of running ctdiff diff on
// each component alone.
func TestReportMatchesDiff(t *testing.T) {
	out, stderr, code := ctdiff("report", releaseManifest, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rel struct {
		Components []struct {
			Name, Verdict, Ecosystem string
			Causes                   json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(out), &rel); err != nil {
		t.Fatal(err)
	}
	md, _, _ := ctdiff("report", releaseManifest, "--format", "markdown")
	page, _, _ := ctdiff("report", releaseManifest, "--format", "html")
	inputs := map[string][2]string{
		"web": {"web/old", "web/new"}, "search": {"search/old", "search/new"},
		"api": {"../example/old", "../example/new"}, "billing": {"billing/old", "billing/new"},
	}
	ecosystems := map[string]bool{}
	if len(rel.Components) != len(inputs) {
		t.Fatalf("%d components, want %d", len(rel.Components), len(inputs))
	}
	for _, c := range rel.Components {
		in, ok := inputs[c.Name]
		if !ok {
			t.Fatalf("unexpected component %q", c.Name)
		}
		dir := filepath.Dir(releaseManifest)
		alone, stderr, code := ctdiff("diff", filepath.Join(dir, in[0]), filepath.Join(dir, in[1]), "--min-delta", "50ms", "--format", "json")
		if code != 0 {
			t.Fatalf("%s: ctdiff diff exit %d: %s", c.Name, code, stderr)
		}
		var want struct{ Causes json.RawMessage }
		if err := json.Unmarshal([]byte(alone), &want); err != nil {
			t.Fatal(err)
		}
		if compactJSON(t, c.Causes) != compactJSON(t, want.Causes) {
			t.Errorf("%s: the report's causes differ from ctdiff diff's:\n%s\n%s", c.Name, c.Causes, want.Causes)
		}
		res, err := report.ReadDiffJSON(strings.NewReader(alone), c.Name+".json")
		if err != nil {
			t.Fatal(err)
		}
		judged := report.NewRelease([]report.Component{{Name: c.Name, Result: res}}).Components[0]
		if string(judged.Verdict) != c.Verdict {
			t.Errorf("%s: verdict %s, ctdiff diff's result gives %s", c.Name, c.Verdict, judged.Verdict)
		}
		if (c.Verdict == "regressed") != (len(res.Causes) > 0) {
			t.Errorf("%s: verdict %s with %d causes", c.Name, c.Verdict, len(res.Causes))
		}
		// The Markdown and HTML reports say the same (html/template writes
		// "+" as "&#43;").
		if !strings.Contains(md, "`"+c.Name+"`: "+c.Verdict+"\n") {
			t.Errorf("%s: the Markdown report has no %q verdict heading", c.Name, c.Verdict)
		}
		if !strings.Contains(page, `data-verdict="`+c.Verdict+`"`) || !strings.Contains(page, ">"+c.Name+"</a>") {
			t.Errorf("%s: the HTML report has no %s section", c.Name, c.Verdict)
		}
		for _, cause := range judged.Causes {
			delta := report.FormatValue(cause.Delta, res.Unit)
			if !strings.Contains(md, " | +"+delta+" | ") || !strings.Contains(page, ">&#43;"+delta+"<") {
				t.Errorf("%s: cause #%d (%s +%s) is not in the Markdown and HTML reports", c.Name, cause.N, cause.Label, delta)
			}
		}
		ecosystems[c.Ecosystem] = true
	}
	for _, e := range []string{"js", "go", "java"} {
		if !ecosystems[e] {
			t.Errorf("no %s component detected: %v", e, ecosystems)
		}
	}
}

func compactJSON(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Diff results written by ctdiff diff make the same verdicts as the
// manifest that compares the inputs itself.
func TestReportFromDiffResults(t *testing.T) {
	dir := t.TempDir()
	rel := filepath.Dir(releaseManifest)
	var files []string
	for _, c := range []string{"web", "search", "billing"} {
		f := filepath.Join(dir, c+".json")
		if _, stderr, code := ctdiff("diff", filepath.Join(rel, c, "old"), filepath.Join(rel, c, "new"), "-o", f); code != 0 {
			t.Fatalf("%s: %s", c, stderr)
		}
		files = append(files, f)
	}
	fromJSON, stderr, code := ctdiff(append([]string{"report"}, files...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	fromManifest, _, _ := ctdiff("report", releaseManifest)
	for _, c := range []string{"web", "search", "billing"} {
		want := verdictLine(fromManifest, c)
		if want == "" || verdictLine(fromJSON, c) != want {
			t.Errorf("%s: from JSON %q, from the manifest %q", c, verdictLine(fromJSON, c), want)
		}
	}
}

// verdictLine is a component's "verdict name [language]  totals" line of
// the text report, without its rank.
func verdictLine(text, name string) string {
	for _, l := range strings.Split(text, "\n") {
		if f := strings.Fields(l); len(f) > 3 && f[2] == name {
			return strings.Join(f[1:], " ")
		}
	}
	return ""
}

func TestReportFailOnRegression(t *testing.T) {
	_, stderr, code := ctdiff("report", releaseManifest, "--fail-on-regression", "--format", "json")
	if code != 1 || !strings.Contains(stderr, "ctdiff: regression in 3 of 4 components: web, billing, api\n") {
		t.Errorf("exit %d, stderr %q; want 1 naming web, billing, api", code, stderr)
	}
	if _, stderr, code := ctdiff("report", releaseManifest, "--format", "json"); code != 0 {
		t.Errorf("without the flag: exit %d (%s)", code, stderr)
	}
	search, _ := filepath.Abs("../../testdata/release/search")
	m := writeFile(t, t.TempDir(), "m.toml", "[[component]]\nname = \"search\"\nold = \""+search+"/old\"\nnew = \""+search+"/new\"\n")
	if _, stderr, code := ctdiff("report", m, "--fail-on-regression"); code != 0 {
		t.Errorf("an improved component alone: exit %d (%s)", code, stderr)
	}
}

func TestReportErrors(t *testing.T) {
	dir := t.TempDir()
	web, _ := filepath.Abs("../../testdata/release/web")
	comp := "[[component]]\nname = \"web\"\nold = \"" + web + "/old\"\nnew = \"" + web + "/new\"\n"
	other := writeFile(t, dir, "other.json", `{"schema": "ctdiff.diff/v3"}`)
	for _, tt := range []struct{ name, manifest, want string }{
		{"syntax", "[[component]\nname = 1", "bad.toml:2:12: expected end of table array name delimiter"},
		{"unknown key", comp + "olld = \"x\"\n", `bad.toml: unknown key "component.olld"`},
		{"no components", "[defaults]\nmin-delta = \"1%\"\n", "bad.toml: no [[component]]"},
		{"no name", "[[component]]\nold = \"a\"\nnew = \"b\"\n", "bad.toml: component 1: no name"},
		{"duplicate", comp + comp, `bad.toml: component 2 ("web"): the name is taken`},
		{"both", "[[component]]\nname = \"x\"\nold = \"a\"\nnew = \"b\"\nresult = \"r.json\"\n", `bad.toml: component 1 ("x"): give either result or old and new`},
		{"half", "[[component]]\nname = \"x\"\nold = \"a\"\n", `bad.toml: component 1 ("x"): needs old and new`},
		{"ecosystem", comp + "ecosystem = \"cobol\"\n", `ecosystem "cobol", expected one of go, js, java, native`},
		{"output option", comp + "options = { format = \"html\" }\n", `bad.toml: component "web": option "format" is the report's to set`},
		{"unknown option", comp + "options = { frobnicate = true }\n", `bad.toml: component "web": unknown flag: --frobnicate`},
		{"bad option value", comp + "options = { aggregate = \"median\" }\n", `bad.toml: component "web": --aggregate "median"`},
		{"table option", comp + "options = { thread = { a = 1 } }\n", `option "thread": a map[string]interface {}, expected a string`},
		{"missing input", "[[component]]\nname = \"x\"\nold = \"nope/old\"\nnew = \"nope/new\"\n", `bad.toml: component "x": stat `},
		{"other schema", "[[component]]\nname = \"x\"\nresult = \"other.json\"\n", `schema "ctdiff.diff/v3", expected ctdiff.diff/v2`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := writeFile(t, dir, "bad.toml", tt.manifest)
			_, stderr, code := ctdiff("report", m)
			if code != 2 || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 2 and one line with %q", code, stderr, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"report"}, "report takes at least one manifest or diff result"},
		{[]string{"report", other}, `other.json: schema "ctdiff.diff/v3", expected ctdiff.diff/v2`},
		{[]string{"report", releaseManifest, releaseManifest}, `component "web" is also in`},
		{[]string{"report", releaseManifest, "-o", filepath.Join(dir, "r.pb.gz")}, "the .pb.gz extension means --format pprof"},
		{[]string{"report", writeFile(t, dir, "report.html", "<!DOCTYPE html>\n<html><body>a report</body></html>\n")},
			"report.html: neither a report manifest (TOML) nor a ctdiff.diff/v2 result (ctdiff diff --format json)\n"},
		{[]string{"report", exampleOld + "/run1.pb.gz"}, "run1.pb.gz: neither a report manifest (TOML) nor a ctdiff.diff/v2 result"},
		{[]string{"report", writeFile(t, dir, "notes.txt", "# notes\n\nhello world\n")}, "notes.txt: neither a report manifest"},
	} {
		_, stderr, code := ctdiff(tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 with %q", tt.args, code, stderr, tt.want)
		}
	}
}
