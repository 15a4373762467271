package report

import (
	"bytes"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/internal/golden"
	"github.com/google/pprof/profile"
)

// compareTree is compare with the matched tree, which pprof and HTML need.
func compareTree(t *testing.T, base, nw string, opts diff.Options) *diff.Result {
	t.Helper()
	opts.Tree = true
	return compare(t, base, nw, opts)
}

// The DOT, Markdown, HTML and pprof forms of the hand-built cases, against
// golden files; every DOT output goes through Graphviz.
func TestDiffFormatsGolden(t *testing.T) {
	for _, tt := range diffCases {
		t.Run(tt.name, func(t *testing.T) {
			res := compareTree(t, tt.base, tt.new, tt.opts)
			var dot, md, html bytes.Buffer
			if err := writeDiffDOT(&dot, res, diffDOTOptions{}); err != nil {
				t.Fatal(err)
			}
			renderDOT(t, dot.Bytes())
			if err := writeDiffMarkdown(&md, res, diffMarkdownOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := writeDiffHTML(&html, res, diffHTMLOptions{}); err != nil {
				t.Fatal(err)
			}
			p, err := diffProfile(res)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, "testdata/diff-"+tt.name+".dot.golden", dot.Bytes())
			golden.Check(t, "testdata/diff-"+tt.name+".md.golden", md.Bytes())
			golden.Check(t, "testdata/diff-"+tt.name+".html.golden", withoutAssets(t, html.Bytes()))
			golden.Check(t, "testdata/diff-"+tt.name+".pprof.golden", []byte(p.String()))
		})
	}
}

// withoutAssets replaces the embedded style sheet and script, which have
// their own files, by their names, so the HTML goldens show the page.
func withoutAssets(t *testing.T, page []byte) []byte {
	t.Helper()
	for _, f := range []string{"html/report.css", "html/report.js"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(page, b) {
			t.Fatalf("the page does not embed %s verbatim", f)
		}
		page = bytes.Replace(page, b, []byte("/* "+f+" */"), 1)
	}
	return page
}

// The pprof diff: new samples plus negated base samples labelled
// pprof::base=true, under the new names where the matching paired a renamed
// function, with the causes' samples labelled, and totals that are exactly
// new − base.
func TestDiffProfile(t *testing.T) {
	res := compareTree(t, diffCases[0].base, diffCases[0].new, diff.Options{})
	p, err := diffProfile(res)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if p, err = profile.Parse(&buf); err != nil {
		t.Fatalf("the written profile does not parse: %v", err)
	}
	if st := p.SampleType; len(st) != 1 || st[0].Type != "cpu" || st[0].Unit != "nanoseconds" || p.DefaultSampleType != "cpu" {
		t.Errorf("sample types %v, default %q", st, p.DefaultSampleType)
	}
	var sum, baseSum int64
	flat := map[string]int64{}
	causeSum := map[int64]int64{}
	for _, s := range p.Sample {
		v := s.Value[0]
		sum += v
		isBase := s.DiffBaseSample()
		if isBase {
			baseSum += v
			if v >= 0 {
				t.Errorf("base sample %v is not negative", s.Value)
			}
		} else if v <= 0 {
			t.Errorf("new sample %v is not positive", s.Value)
		}
		if len(s.Location) > 0 {
			flat[s.Location[0].Line[0].Function.Name] += v
		}
		if c := s.NumLabel[causeLabelKey]; len(c) == 1 {
			causeSum[c[0]] += v
		}
	}
	if want := res.New.Total - res.Base.Total; sum != want {
		t.Errorf("the samples add up to %d, want new − base = %d", sum, want)
	}
	if baseSum != -res.Base.Total {
		t.Errorf("base samples add up to %d, want %d", baseSum, -res.Base.Total)
	}
	for _, f := range p.Function {
		if f.Name == "parse" {
			t.Error("the renamed function keeps its base name: base frames must map onto their matched new frames")
		}
	}
	// parse@app.js was renamed parseAll: its base and new samples cancel
	// instead of showing −300ms/+300ms.
	if v := flat["tokenize"]; v < -10e6 || v > 10e6 {
		t.Errorf("tokenize (under the renamed parse) changed by %d ns; want noise only", v)
	}
	if len(res.Causes) == 0 {
		t.Fatal("no causes")
	}
	for i, c := range res.Causes {
		if got := causeSum[int64(i+1)]; got != c.Delta {
			t.Errorf("cause %d (%s): its labelled samples add up to %d, want its delta %d", i+1, c.Path[len(c.Path)-1].Function, got, c.Delta)
		}
	}
	if _, err := diffProfile(compare(t, diffCases[0].base, diffCases[0].new, diff.Options{})); err == nil ||
		err.Error() != "the pprof diff needs the matched tree: compare with diff.Options{Tree: true}" {
		t.Errorf("without the tree: %v", err)
	}
}

// hostile is a function name that tries to break out of every format.
const hostile = "<img src=x onerror=alert(1)>\"`|*_[x](y)\\l\n</script><!--\u2028"

// hostileTrees builds runs by hand, since folded lines cannot hold every
// character of hostile: main calls a and the hostile function, which grew.
func hostileTrees(ms ...int64) []*cct.Tree {
	var out []*cct.Tree
	for _, v := range ms {
		t := cct.New([]cct.ValueType{{Type: "cpu", Unit: "nanoseconds"}})
		th := t.AddChild(cct.RootID, t.Intern(cct.Frame{Thread: "main", Kind: cct.KindThread}, cct.FrameInfo{}))
		main := t.AddChild(th, t.Intern(cct.Frame{Function: "main"}, cct.FrameInfo{}))
		a := t.AddChild(main, t.Intern(cct.Frame{Function: "a"}, cct.FrameInfo{}))
		t.Self(a)[0] = 100e6
		h := t.AddChild(main, t.Intern(cct.Frame{Function: hostile, File: "x.js\"<blink>"}, cct.FrameInfo{}))
		t.Self(h)[0] = v * 1e6
		t.ComputeTotals()
		out = append(out, t)
	}
	return out
}

func hostileResult(t *testing.T) *diff.Result {
	t.Helper()
	res, err := diff.Compare(hostileTrees(10, 11), hostileTrees(200, 210), diff.Options{Tree: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Causes) != 1 || res.Causes[0].Path[1].Function != hostile {
		t.Fatalf("causes %+v: want the hostile function", res.Causes)
	}
	res.Base.Profiles = []string{"<b>old</b>.pb.gz"}
	res.New.Profiles = []string{"new.pb.gz"}
	return res
}

func TestDiffDOTHostileNames(t *testing.T) {
	var b bytes.Buffer
	if err := writeDiffDOT(&b, hostileResult(t), diffDOTOptions{}); err != nil {
		t.Fatal(err)
	}
	// The newline is shown as its escape, the escape's backslash quoted.
	if !strings.Contains(b.String(), `\"`+"`|*_[x](y)"+`\\l\\n</script><!--\\u2028`) {
		t.Errorf("the name is not escaped as expected:\n%s", b.String())
	}
	renderDOT(t, b.Bytes())
}

func TestDiffMarkdownHostileNames(t *testing.T) {
	var b bytes.Buffer
	if err := writeDiffMarkdown(&b, hostileResult(t), diffMarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	// Table rows have as many cell separators as their header: the name's
	// "|" is escaped, and its newline did not end the row.
	seps := func(line string) int { return strings.Count(line, "|") - strings.Count(line, `\|`) }
	header, rows := 0, 0
	for _, line := range strings.Split(md, "\n") {
		switch {
		case !strings.HasPrefix(line, "|"):
			header = 0
		case header == 0:
			header = seps(line)
		default:
			rows++
			if n := seps(line); n != header {
				t.Errorf("row has %d cell separators, its header %d: %s", n, header, line)
			}
		}
	}
	if rows != 4 { // cause table: rule and row; ranked paths: rule and row
		t.Errorf("%d table rows, want 4:\n%s", rows, md)
	}
	// Outside code spans there is no raw markup from the name.
	outside := regexp.MustCompile("``[^`]*(`[^`]+)*``|`[^`]*`").ReplaceAllString(md, "")
	if strings.Contains(outside, "<img") || strings.Contains(outside, "</script") {
		t.Errorf("markup outside code spans:\n%s", outside)
	}
}

func TestMdCode(t *testing.T) {
	for _, tt := range []struct {
		in    string
		table bool
		want  string
	}{
		{"a.b", false, "`a.b`"},
		{"a`b", false, "``a`b``"},
		{"`a", false, "`` `a ``"},
		{"a|b", true, "`a\\|b`"},
		{"a|b", false, "`a|b`"},
		{"a\nb\u202e", false, "`a\\nb\\u202e`"},
		{" a ", false, "`  a  `"},
		{"", false, "` `"},
	} {
		if got := mdCode(tt.in, tt.table); got != tt.want {
			t.Errorf("mdCode(%q, %v) = %q, want %q", tt.in, tt.table, got, tt.want)
		}
	}
}

func TestShortFunc(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"github.com/ctdiff/ctdiff/internal/example.checkRules", "example.checkRules"},
		{"encoding/json.(*decodeState).array", "json.(*decodeState).array"},
		{"runtime.gcBgMarkWorker.func2", "runtime.gcBgMarkWorker.func2"},
		{"time.Time.Add", "time.Time.Add"},
		{"org.apache.kafka.clients.Producer.send", "Producer.send"},
		{"java.util.HashMap.get(Ljava/lang/Object;)", "HashMap.get(Ljava/lang/Object;)"},
		{"slices.Sort[go.shape.[]float64,go.shape.float64]", "slices.Sort[go.shape.[]float64,go.shape.float64]"},
		{"https://example.com/app.js", "app.js"},
		{"(program)", "(program)"},
		{"trailing/", "trailing/"},
		{"", ""},
	} {
		if got := shortFunc(tt.in); got != tt.want {
			t.Errorf("shortFunc(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDiffHTMLHostileNames(t *testing.T) {
	var b bytes.Buffer
	if err := writeDiffHTML(&b, hostileResult(t), diffHTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, bad := range []string{"<img", "<blink>", "</script><!--"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q unescaped", bad)
		}
	}
	data := regexp.MustCompile(`(?s)<script type="application/json" id="ctdiff-data">(.*?)</script>`).FindStringSubmatch(page)
	if data == nil || strings.ContainsAny(data[1], "<>\u2028\u2029") {
		t.Errorf("the data holds raw <, >, U+2028 or U+2029, which could end the script or a line of it")
	}
	// One closing script tag per script element: the onerror guard, the
	// data and the main script.
	if n := strings.Count(strings.ToLower(page), "</script"); n != 3 {
		t.Errorf("%d </script> tags, want 3", n)
	}
	if !strings.Contains(page, "&lt;img src=x onerror=alert(1)&gt;") {
		t.Error("the name is missing from the causes table")
	}
}

// Large trees are cut to MaxNodes for the page, keeping the causes and
// their ancestors.
func TestDiffHTMLPrunes(t *testing.T) {
	var base, nw strings.Builder
	for i := range 300 {
		base.WriteString("main;f" + strings.Repeat("x", i%7) + ";g" + strconv.Itoa(i) + " 1\n")
		nw.WriteString("main;f" + strings.Repeat("x", i%7) + ";g" + strconv.Itoa(i) + " 1\n")
	}
	base.WriteString("main;slow;leaf 10\n")
	nw.WriteString("main;slow;leaf 900\n")
	res := compareTree(t, base.String(), nw.String(), diff.Options{})
	var b bytes.Buffer
	if err := writeDiffHTML(&b, res, diffHTMLOptions{MaxNodes: 20}); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"parent":\[([^\]]*)\]`).FindStringSubmatch(b.String())
	if m == nil {
		t.Fatal("no tree data")
	}
	if n := strings.Count(m[1], ",") + 1; n > 30 || n < 5 {
		t.Errorf("%d nodes kept of %d, want about 20", n, len(res.Tree))
	}
	if !strings.Contains(b.String(), `"leaf"`) || !strings.Contains(b.String(), `"pruned":`) {
		t.Error("the cause was pruned, or the count of pruned nodes is missing")
	}
}

func TestMdText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"thread \"main\" occurs only in the new runs", "thread \"main\" occurs only in the new runs"},
		{"<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"},
		{"a*b_c `d` [e](f) |g| ~h~ \\", "a\\*b\\_c \\`d\\` \\[e\\](f) \\|g\\| \\~h\\~ \\\\"},
		{"R&D\nnext\u2028line\x1b", "R&amp;D\\\\nnext\\\\u2028line\\\\x1b"},
		{"1.5s (base 1.543s): fixed work", "1.5s (base 1.543s): fixed work"},
	} {
		if got := mdText(tt.in); got != tt.want {
			t.Errorf("mdText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Only the largest causes are drawn or listed when there are many, and the
// reports say how many more there are.
func TestDiffCauseCaps(t *testing.T) {
	res := compareTree(t, diffCases[1].base, diffCases[1].new, diffCases[1].opts)
	if len(res.Causes) != 2 {
		t.Fatalf("%d causes, want the intersect case's 2", len(res.Causes))
	}
	var dot, html bytes.Buffer
	if err := writeDiffDOT(&dot, res, diffDOTOptions{MaxCauses: 1}); err != nil {
		t.Fatal(err)
	}
	renderDOT(t, dot.Bytes())
	if n := strings.Count(dot.String(), "label=\"cause "); n != 1 {
		t.Errorf("%d causes drawn, want 1:\n%s", n, dot.String())
	}
	if !strings.Contains(dot.String(), "showing the 1 largest of 2 causes (6 of 8 nodes)") {
		t.Errorf("the title does not say what was left out:\n%s", dot.String())
	}
	if err := writeDiffHTML(&html, res, diffHTMLOptions{MaxCauses: 1}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(html.String(), `<tr class="cause-row"`); n != 1 || !strings.Contains(html.String(), "1 more cause, a smaller one, is in the text and JSON reports.") {
		t.Errorf("%d cause rows, or no note of the one left out", n)
	}
}

// The page loads nothing: no links, images, imports or URLs of any kind,
// so it opens offline and leaks nothing when opened.
func TestDiffHTMLSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := writeDiffHTML(&b, compareTree(t, diffCases[0].base, diffCases[0].new, diff.Options{}), diffHTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	page := strings.ToLower(b.String())
	for _, bad := range []string{"<link", "<img", "<iframe", " src=", "url(", "@import", "http:", "https:", "fetch(", "xmlhttprequest"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
}
