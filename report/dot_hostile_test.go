package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/google/pprof/profile"
)

// hostileNames are function, file, thread and process names a profile
// from an attacker can carry: every ASCII control and punctuation byte,
// Graphviz escapes (\N \G \l), record and HTML-label syntax, invalid UTF-8,
// a trailing backslash, bidirectional overrides and a very long name.
func hostileNames() []string {
	var all strings.Builder
	for b := 1; b < 0x80; b++ {
		all.WriteByte(byte(b))
	}
	return []string{
		all.String(),
		`say "hi"`, `trailing\`, `\N\G\E\T\H\L\l\r\n`,
		`{a|<port>b}`, `<<table><tr><td>html</td></tr></table>>`,
		`</text><script>alert(1)</script>`, `]]><!--`, `&amp;&#x41;&lt;`,
		"bad\xff\xfeutf8\xc3", "rtl\u202eevil\u2066", "nul\x00byte",
		strings.Repeat("VeryLongName.", 500),
		"digraph { x -> y }", "\"; n0 -> n0 [label=\"pwned",
	}
}

// hostileProfile has one sample per hostile name, on a stack through
// callers and files named likewise, in threads named likewise.
func hostileProfile(weight int64) *profile.Profile {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}}
	loc := func(name, file string) *profile.Location {
		fn := &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: file}
		l := &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn, Line: 7}}}
		p.Function = append(p.Function, fn)
		p.Location = append(p.Location, l)
		return l
	}
	names := hostileNames()
	root := loc("main", "main.go")
	for i, n := range names {
		caller := loc(names[(i+1)%len(names)], n)
		p.Sample = append(p.Sample, &profile.Sample{
			Location: []*profile.Location{loc(n, names[(i+2)%len(names)]), caller, root},
			Value:    []int64{weight * int64(i+1)},
			Label:    map[string][]string{labels.Thread: {n}, labels.Process: {names[(i+3)%len(names)]}},
		})
	}
	return p
}

func hostileTree(t *testing.T, weight int64) *cct.Tree {
	t.Helper()
	tr, err := cct.FromProfile(hostileProfile(weight), cct.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// renderSVG renders DOT with Graphviz, which must accept it without a
// warning, and checks that no profile-derived text escaped its label:
// Graphviz draws exactly the nodes and edges the writer declared (one per
// line, as n<id>), and the SVG is well-formed XML without a script element.
func renderSVG(t *testing.T, dot []byte) {
	t.Helper()
	renderDOT(t, dot) // parses with Graphviz, fails on any warning
	bin, _ := exec.LookPath("dot")
	cmd := exec.Command(bin, "-Tsvg")
	cmd.Stdin = bytes.NewReader(dot)
	svg, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	wantNodes := len(regexp.MustCompile(`(?m)^  n\d+ \[`).FindAll(dot, -1))
	wantEdges := len(regexp.MustCompile(`(?m)^  n\d+ -> n\d+ `).FindAll(dot, -1))
	var nodes, edges int
	d := xml.NewDecoder(bytes.NewReader(svg))
	d.Strict = true
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("Graphviz's SVG is not well-formed XML: %v", err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if strings.EqualFold(se.Name.Local, "script") {
			t.Fatal("a <script> element in the SVG")
		}
		for _, a := range se.Attr {
			switch {
			case se.Name.Local == "g" && a.Name.Local == "class" && a.Value == "node":
				nodes++
			case se.Name.Local == "g" && a.Name.Local == "class" && a.Value == "edge":
				edges++
			}
		}
	}
	if nodes != wantNodes || edges != wantEdges || wantNodes < 2 {
		t.Errorf("Graphviz drew %d nodes and %d edges; the DOT declares %d and %d", nodes, edges, wantNodes, wantEdges)
	}
}

func TestTreeDOTHostileNamesRender(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil && os.Getenv("CI") != "true" {
		t.Skip("graphviz not installed")
	}
	var b bytes.Buffer
	if err := writeTreeDOT(&b, hostileTree(t, 1000), TreeOptions{}); err != nil {
		t.Fatal(err)
	}
	renderSVG(t, b.Bytes())
}

func TestDiffDOTHostileNamesRender(t *testing.T) {
	if _, err := exec.LookPath("dot"); err != nil && os.Getenv("CI") != "true" {
		t.Skip("graphviz not installed")
	}
	base := []*cct.Tree{hostileTree(t, 100_000_000), hostileTree(t, 110_000_000)}
	nw := []*cct.Tree{hostileTree(t, 300_000_000), hostileTree(t, 310_000_000)}
	res, err := diff.Compare(base, nw, diff.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Causes) == 0 {
		t.Fatal("no causes: the graph would not show the hostile names")
	}
	var b bytes.Buffer
	if err := writeDiffDOT(&b, res, diffDOTOptions{}); err != nil {
		t.Fatal(err)
	}
	renderSVG(t, b.Bytes())
}

// graphvizMaxString is the longest quoted string Graphviz's scanner takes
// ("... longer than 16384?").
const graphvizMaxString = 16384

// A 200,000-character name (function, file, thread, sample type) gives
// DOT whose every quoted string Graphviz accepts.
func TestDOTLongNames(t *testing.T) {
	long := strings.Repeat("a/very/long/package.Name", 8334)[:200_000]
	tree := func(weight int64) *cct.Tree {
		p := hostileProfile(weight)
		p.SampleType[0].Type = long
		for _, f := range p.Function {
			if f.Name == "main" {
				continue
			}
			f.Name, f.SystemName, f.Filename = long+f.Name, long+f.Name, long
		}
		for _, s := range p.Sample {
			s.Label[labels.Thread] = []string{long + s.Label[labels.Thread][0]}
		}
		tr, err := cct.FromProfile(p, cct.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	quoted := regexp.MustCompile(`"(?:\\.|[^"\\])*"`)
	check := func(what string, dot []byte) {
		t.Helper()
		n := 0
		for _, q := range quoted.FindAll(dot, -1) {
			n++
			if len(q) > graphvizMaxString {
				t.Errorf("%s: a quoted string of %d bytes, Graphviz takes %d: %.80s…", what, len(q), graphvizMaxString, q)
				return
			}
		}
		if n < 10 {
			t.Errorf("%s: %d quoted strings", what, n)
		}
	}
	var b bytes.Buffer
	if err := writeTreeDOT(&b, tree(1000), TreeOptions{}); err != nil {
		t.Fatal(err)
	}
	check("tree", b.Bytes())
	res, err := diff.Compare([]*cct.Tree{tree(100_000_000), tree(110_000_000)}, []*cct.Tree{tree(300_000_000), tree(310_000_000)}, diff.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Causes) == 0 {
		t.Fatal("no causes: the graph would not show the long names")
	}
	b.Reset()
	if err := writeDiffDOT(&b, res, diffDOTOptions{}); err != nil {
		t.Fatal(err)
	}
	check("diff", b.Bytes())
	if _, err := exec.LookPath("dot"); err == nil {
		renderSVG(t, b.Bytes())
	}
}
