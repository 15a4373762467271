package report

import (
	"bytes"
	"encoding/json"
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/diff"
)

// renderHTML writes a comparison's HTML report.
func renderHTML(t *testing.T, res *diff.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := writeDiffHTML(&b, res, diffHTMLOptions{}); err != nil {
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
	m := regexp.MustCompile(`(?s)id="ctdiff-data">(.*?)</script>`).FindStringSubmatch(renderHTML(t, res))
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

// When nothing could be tested there is no red "Regressed" banner: the
// verdict says the nodes above μ are untested and why, they are listed
// apart from the causes, and the warning that says so is at the top, above
// the causes. Tested causes get the red banner.
func TestDiffHTMLUntested(t *testing.T) {
	for _, tt := range []struct {
		name      string
		base, new string
		opts      diff.Options
		verdict   string
		warning   string // a warning above the causes, or ""
		untested  bool   // an untested table
	}{
		{"one run pair, intersect", "main;work 10\nmain;idle 100", "main;work 200\nmain;idle 100", diff.Options{Aggregate: diff.Intersect},
			`<p class="verdict warn">Inconclusive: 1 call path grew by 50ms or more where no test could judge them (one run pair: intersecting one critical graph filters no noise); the largest is work &#43;190ms`,
			"one run per side: nothing to intersect", true},
		{"one run per side, too few contexts", "main;work 10\nmain;idle 100", "main;work 200\nmain;idle 100", diff.Options{},
			`<p class="verdict warn">Inconclusive: 1 call path grew by 50ms or more where no test could judge them (one run on a side and too few calling contexts to model its noise)`,
			"too few calling contexts to model one run&#39;s noise", true},
		{"three runs per side", "main;work 10|main;work 11|main;work 12", "main;work 200|main;work 210|main;work 205", diff.Options{},
			`<p class="verdict bad">Regressed: work &#43;194ms (95% CI`, "", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			page := renderHTML(t, compareTree(t, tt.base, tt.new, tt.opts))
			if !strings.Contains(page, tt.verdict) {
				t.Errorf("no verdict %q in:\n%s", tt.verdict, regexp.MustCompile(`<p class="verdict[^<]*`).FindString(page))
			}
			if strings.Contains(page, `"verdict bad"`) != (tt.untested == false) {
				t.Error("a red banner for untested nodes, or none for tested causes")
			}
			w := strings.Index(page, `id="warnings"`)
			switch {
			case tt.warning == "" && w >= 0:
				t.Error("a warnings box without warnings")
			case tt.warning != "" && (w < 0 || w > strings.Index(page, `id="causes"`) || !strings.Contains(page[w:], tt.warning)):
				t.Errorf("the warning %q is not above the causes:\n%s", tt.warning, regexp.MustCompile(`(?s)<div id="warnings".*?</div>`).FindString(page))
			}
			if got := strings.Contains(page, `<table class="causes untested">`); got != tt.untested {
				t.Errorf("untested table %v, want %v", got, tt.untested)
			}
		})
	}
}

// Heat-map rows name their frames from the costliest function's caller
// down, in the cells' colours; causes' paths say "1 frame".
func TestDiffHTMLNames(t *testing.T) {
	page := renderHTML(t, compareTree(t, diffCases[0].base, diffCases[0].new, diff.Options{}))
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

	page = renderHTML(t, compareTree(t, "work 10|work 11|work 12", "work 200|work 210|work 205", diff.Options{}))
	if !strings.Contains(page, "[(all threads)] 1 frame</summary>") {
		t.Errorf("no \"1 frame\": %s", regexp.MustCompile(`<summary>[^<]*</summary>`).FindString(page))
	}
}
