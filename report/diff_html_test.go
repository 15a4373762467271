package report_test

import (
	"bytes"
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/report"
)

// htmlPage writes a comparison's HTML report.
func htmlPage(t *testing.T, res *diff.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteDiffHTML(&b, res, report.DiffHTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The icicle graph marks as added what the text report counts as added:
// the subtrees unmatched in every run pair. hover ran in one of three new
// runs and in no base run; it is noise, not an added call.
func TestDiffHTMLAddedAsTopology(t *testing.T) {
	res := compareTree(t, diffCases[0].base, diffCases[0].new, diff.Options{})
	if res.Topology.AddedCount != 1 || res.Topology.Added[0].Path[len(res.Topology.Added[0].Path)-1].Function != "validate" {
		t.Fatalf("topology %+v: want validate added", res.Topology)
	}
	m := regexp.MustCompile(`(?s)id="ctdiff-data">(.*?)</script>`).FindStringSubmatch(htmlPage(t, res))
	if m == nil {
		t.Fatal("no data")
	}
	var d struct {
		Frames [][3]string
		Frame  []int
		Side   []int
	}
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatal(err)
	}
	side := map[string]int{}
	for i, f := range d.Frame {
		side[d.Frames[f][0]] = d.Side[i]
	}
	if side["validate"] != 1 || side["hover"] != 0 || side["layout"] != 0 {
		t.Errorf("sides %v: want validate added (1), hover and layout not (0)", side)
	}
}

// With one run on a side nothing was tested: no red "Regressed" banner,
// and the warning that says so is at the top, above the causes. With three
// runs per side the banner is red.
func TestDiffHTMLUntested(t *testing.T) {
	for _, tt := range []struct {
		name      string
		base, new string
		verdict   string
		warning   string // a warning above the causes, or ""
	}{
		{"one run per side", "main;work 10\nmain;idle 100", "main;work 200\nmain;idle 100", `<p class="verdict warn">Not tested: 1 function grew by 50ms or more, but with 1 base run vs 1 new run nothing tells a regression from noise.`,
			"stats needs at least 2 runs per side"},
		{"one base run", "main;work 10", "main;work 200|main;work 210", `<p class="verdict warn">Not tested:`, "stats needs at least 2 runs per side"},
		{"nothing grew", "main;work 10", "main;work 11", `<p class="verdict warn">No function grew by 50ms or more; with 1 base run vs 1 new run nothing was tested for noise.`, "stats needs"},
		{"three runs per side", "main;work 10|main;work 11|main;work 12", "main;work 200|main;work 210|main;work 205", `<p class="verdict bad">Regressed: the largest cause is work,`, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			page := htmlPage(t, compareTree(t, tt.base, tt.new, diff.Options{}))
			if !strings.Contains(page, tt.verdict) {
				t.Errorf("no verdict %q in:\n%s", tt.verdict, regexp.MustCompile(`<p class="verdict[^<]*`).FindString(page))
			}
			w := strings.Index(page, `id="warnings"`)
			switch {
			case tt.warning == "" && w >= 0:
				t.Error("a warnings box without warnings")
			case tt.warning != "" && (w < 0 || w > strings.Index(page, `id="causes"`) || !strings.Contains(page[w:], tt.warning)):
				t.Errorf("the warning %q is not above the causes", tt.warning)
			}
		})
	}
}

// Heat-map rows name their frames from the costliest function's caller
// down, in the cells' colours; causes' paths say "1 frame".
func TestDiffHTMLNames(t *testing.T) {
	page := htmlPage(t, compareTree(t, diffCases[0].base, diffCases[0].new, diff.Options{}))
	row := regexp.MustCompile(`(?s)<td class="fn names">(.*?)</td>`).FindStringSubmatch(page)
	if row == nil {
		t.Fatal("no names in the heat map")
	}
	names := html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(row[1], ""))
	names = strings.Join(strings.Fields(names), " ")
	if want := "render → layout +122.7ms"; names != want {
		t.Errorf("first row names %q, want %q", names, want)
	}
	if !strings.Contains(row[1], `<span class="name hot" style="background-color: #d73027"`) {
		t.Errorf("the costliest function is not marked in its cell's colour: %s", row[1])
	}

	page = htmlPage(t, compareTree(t, "work 10|work 11|work 12", "work 200|work 210|work 205", diff.Options{}))
	if !strings.Contains(page, "[(all threads)] 1 frame</summary>") {
		t.Errorf("no \"1 frame\": %s", regexp.MustCompile(`<summary>[^<]*</summary>`).FindString(page))
	}
}
