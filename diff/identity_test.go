package diff

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

func TestScriptPath(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"http://172.30.3.176:7777/worker.js", "/worker.js"},
		{"http://127.0.0.1:8081/worker.js", "/worker.js"},
		{"https://cdn.example.com/js/app.js?v=2", "/js/app.js?v=2"},
		{"https://www.google.com/", "/"},
		{"https://www.google.com", "/"},
		{"file:///Users/x/app.js", "/Users/x/app.js"},
		{"chrome-extension://abcdef/lib/utils.js", "/lib/utils.js"},
		{"webpack://my-app/src/index.js", "/src/index.js"},
		{"node:internal/modules/cjs/loader", "node:internal/modules/cjs/loader"},
		{"extensions::SafeBuiltins", "extensions::SafeBuiltins"},
		{"/usr/lib/libc.so.6", "/usr/lib/libc.so.6"},
		{`C://weird/path.js`, `C://weird/path.js`}, // a one-letter "scheme" is a drive
		{"a b://x/y", "a b://x/y"},
		{"://x/y", "://x/y"},
		{"", ""},
	} {
		if got := scriptPath(tt.in); got != tt.want {
			t.Errorf("scriptPath(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// posTree builds a tree from lines "[thread=NAME] a;b;c VALUE" (VALUE in
// ms of self time for the leaf), where a frame is "name[@file][#line[:col]]"
// and #line:col is where the function is defined (cct.Frame.StartLine,
// StartColumn). File may be a URL: it runs to the last "#".
func posTree(tb testing.TB, lines ...string) *cct.Tree {
	tb.Helper()
	t := cct.New([]cct.ValueType{{Type: "wall", Unit: "nanoseconds"}})
	frame := func(fr string) (cct.Frame, cct.FrameInfo, error) {
		f := cct.Frame{}
		if i := strings.LastIndexByte(fr, '#'); i > 0 {
			l, c, _ := strings.Cut(fr[i+1:], ":")
			f.StartLine, _ = strconv.ParseInt(l, 10, 64)
			f.StartColumn, _ = strconv.ParseInt(c, 10, 64)
			fr = fr[:i]
		}
		f.Function, f.File, _ = strings.Cut(fr, "@")
		return f, cct.FrameInfo{Line: f.StartLine, Column: f.StartColumn}, nil
	}
	return foldedTree(tb, "posTree", t, frame, func(id cct.NodeID, ns int64) { t.Self(id)[0] += ns }, lines...)
}

// shifted returns lines with every "#N" position moved by d lines.
func shifted(lines []string, d int64) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		var b strings.Builder
		for {
			j := strings.IndexByte(l, '#')
			if j < 0 {
				b.WriteString(l)
				break
			}
			b.WriteString(l[:j+1])
			l = l[j+1:]
			k := 0
			for k < len(l) && '0' <= l[k] && l[k] <= '9' {
				k++
			}
			n, _ := strconv.ParseInt(l[:k], 10, 64)
			b.WriteString(strconv.FormatInt(n+d, 10))
			l = l[k:]
		}
		out[i] = b.String()
	}
	return out
}

// findings are a comparison's causes and its untested growths (with one
// run a side the engine may not test a growth; identity is what these
// tests are about).
func findings(res *Result) []Cause { return append(slices.Clone(res.Causes), res.Untested...) }

func findingLines(res *Result) []string {
	return causeLines(&Result{Causes: findings(res)})
}

// summary is what two comparisons must share to be "the same diff": the
// causes, the topology, the overlap and the totals.
func summary(res *Result) string {
	var b strings.Builder
	for _, c := range findings(res) {
		fmt.Fprintf(&b, "cause %s %d %s\n", c.Kind, c.Delta, pathPositions(c.Path))
	}
	for _, s := range res.Topology.Added {
		fmt.Fprintf(&b, "added %s %d\n", pathPositions(s.Path), s.Weight)
	}
	for _, s := range res.Topology.Removed {
		fmt.Fprintf(&b, "removed %s %d\n", pathPositions(s.Path), s.Weight)
	}
	fmt.Fprintf(&b, "overlap %.4f common %.4f score %.4f\n", res.Overlap.Percent, res.Overlap.CommonTree, res.Overlap.Score)
	fmt.Fprintf(&b, "base %d new %d\n", res.Base.Total, res.New.Total)
	return b.String()
}

func pathPositions(p []Frame) string {
	s := make([]string, len(p))
	for i, f := range p {
		s[i] = f.Function
		if f.Line != 0 {
			s[i] += "#" + strconv.Itoa(int(f.Line))
		}
	}
	return strings.Join(s, ";")
}

// A script served from another origin is the same script: the comparison
// is the one of the profile with itself, and reports show the file as the
// base has it.
func TestOriginsMatch(t *testing.T) {
	base := []string{
		"thread=worker onmessage@http://172.30.3.176:7777/worker.js#15;alpha@http://172.30.3.176:7777/worker.js#9;gamma@http://172.30.3.176:7777/worker.js#1 100",
		"thread=worker onmessage@http://172.30.3.176:7777/worker.js#15;alpha@http://172.30.3.176:7777/worker.js#9 30",
		"thread=main worker.onmessage@http://172.30.3.176:7777/worker.html#20;apple@http://172.30.3.176:7777/worker.html#10 40",
	}
	nw := make([]string, len(base))
	for i, l := range base {
		nw[i] = strings.ReplaceAll(l, "http://172.30.3.176:7777", "https://127.0.0.1:8081")
	}
	self := compare(t, []*cct.Tree{posTree(t, base...)}, []*cct.Tree{posTree(t, base...)}, Options{})
	moved := compare(t, []*cct.Tree{posTree(t, base...)}, []*cct.Tree{posTree(t, nw...)}, Options{})
	if got, want := summary(moved), summary(self); got != want {
		t.Errorf("the same profile from another origin:\n%s\nwant, as compared with itself:\n%s", got, want)
	}
	if moved.Topology.AddedCount != 0 || moved.Overlap.Percent != 100 {
		t.Errorf("%d added subtrees, overlap %.2f%%: the origins kept the scripts apart", moved.Topology.AddedCount, moved.Overlap.Percent)
	}

	// A regression in the moved script is found, under the base's URL.
	grown := slices.Clone(nw)
	grown[0] = strings.Replace(grown[0], " 100", " 200", 1)
	res := compare(t, []*cct.Tree{posTree(t, base...)}, []*cct.Tree{posTree(t, grown...)}, Options{})
	found := findings(res)
	if len(found) != 1 || pathString(found[0].Path) != "onmessage;alpha;gamma" || found[0].Kind != Regressed {
		t.Fatalf("causes %v, want gamma regressed", findingLines(res))
	}
	if f := found[0].Path[2]; f.File != "http://172.30.3.176:7777/worker.js" || f.Line != 1 {
		t.Errorf("the cause is shown in %s line %d, want the base's http://172.30.3.176:7777/worker.js line 1", f.File, f.Line)
	}
}

// Same-named functions of one script stay apart and match across versions
// by their order: a version whose lines all shifted by 3
// compares as the profile does with itself; a new same-named function
// inserted above them does not take their place.
func TestSameNamedFunctionsMatchByOrder(t *testing.T) {
	base := []string{
		"thread=main (anonymous)@http://x/app.js#8:13;foo@http://x/app.js#16;count@http://x/app.js#9 100",
		"thread=main (anonymous)@http://x/app.js#19:22;foo@http://x/app.js#16;count@http://x/app.js#9 200",
		"thread=main run@http://x/app.js#30;t@http://x/app.js#40:5 50",
		"thread=main run@http://x/app.js#30;t@http://x/app.js#44:7 70",
	}
	bt := posTree(t, base...)
	if n := len(bt.Children(bt.Children(cct.RootID)[0])); n != 3 {
		t.Fatalf("the base tree has %d top-level functions, want 3: the two (anonymous) apart", n)
	}
	self := compare(t, []*cct.Tree{bt}, []*cct.Tree{posTree(t, base...)}, Options{})
	for _, d := range []int64{3, -5, 400} {
		res := compare(t, []*cct.Tree{bt}, []*cct.Tree{posTree(t, shifted(base, d)...)}, Options{})
		if got, want := summary(res), summary(self); got != want {
			t.Errorf("lines shifted by %d:\n%s\nwant, as compared with itself:\n%s", d, got, want)
		}
	}

	// The second (anonymous) grew in a version where every line moved by 3:
	// the cause is it, shown at its base line.
	grown := shifted(base, 3)
	grown[1] = strings.Replace(grown[1], " 200", " 300", 1)
	res := compare(t, []*cct.Tree{bt}, []*cct.Tree{posTree(t, grown...)}, Options{})
	if found := findings(res); len(found) != 1 || pathPositions(found[0].Path) != "(anonymous)#19;foo#16;count#9" || found[0].Delta != 100*ms {
		t.Errorf("causes %v, want count under (anonymous)#19 +100", findingLines(res))
	}

	// A new (anonymous) above the two, and new code in between: the two
	// old ones still match theirs; the new one is added.
	added := shifted(base, 3)
	added = append([]string{"thread=main (anonymous)@http://x/app.js#2:1;bar@http://x/app.js#5 60"}, added...)
	added[2] = strings.Replace(added[2], "#22:22", "#27:22", 1) // 5 more lines above the second
	res = compare(t, []*cct.Tree{bt}, []*cct.Tree{posTree(t, added...)}, Options{})
	if got := findingLines(res); !slices.Equal(got, []string{"added 60 (anonymous)"}) || findings(res)[0].Path[0].Line != 2 {
		t.Errorf("causes %v, want only the new (anonymous) added", got)
	}
	if res.Topology.AddedCount != 1 || res.Topology.RemovedCount != 0 {
		t.Errorf("%d added and %d removed subtrees, want the new function alone", res.Topology.AddedCount, res.Topology.RemovedCount)
	}
}

func TestAlignPositions(t *testing.T) {
	p := func(lines ...int64) []position {
		out := make([]position, len(lines))
		for i, l := range lines {
			out[i] = position{l, 1}
		}
		return out
	}
	for _, tt := range []struct {
		name         string
		a, b         []position
		shift        int64
		wantA, wantB []int32
	}{
		{"same count, by order", p(8, 21), p(11, 24), 0, []int32{0, 1}, []int32{0, 1}},
		{"same count, any shift", p(8, 21, 30), p(500, 501, 900), 0, []int32{0, 1, 2}, []int32{0, 1, 2}},
		{"one inserted first", p(8, 21), p(2, 11, 24), 3, []int32{1, 2}, []int32{0, 1, 2}},
		{"one inserted between", p(8, 21), p(11, 15, 24), 3, []int32{0, 2}, []int32{0, 1, 2}},
		{"one inserted last", p(8, 21), p(11, 24, 90), 3, []int32{0, 1}, []int32{0, 1, 2}},
		{"one removed", p(8, 21, 40), p(8, 40), 0, []int32{0, 1, 2}, []int32{0, 2}},
		{"shift taken out", p(8, 21), p(108, 115, 121), 100, []int32{0, 2}, []int32{0, 1, 2}},
		{"columns on one line", []position{{1, 100}, {1, 900}}, []position{{1, 120}, {1, 500}, {1, 920}}, 0, []int32{0, 2}, []int32{0, 1, 2}},
	} {
		a, b := alignPositions(tt.a, tt.b, tt.shift)
		if !slices.Equal(a, tt.wantA) || !slices.Equal(b, tt.wantB) {
			t.Errorf("%s: slots %v %v, want %v %v", tt.name, a, b, tt.wantA, tt.wantB)
		}
	}
}

// A function whose position is unknown among several same-named ones
// matches only another such function, and never takes a slot.
func TestUnknownPositionAmongSeveral(t *testing.T) {
	lines := []string{
		"thread=main (anonymous)@app.js#8;a 100",
		"thread=main (anonymous)@app.js#21;b 100",
		"thread=main (anonymous)@app.js;c 100",
	}
	bt := posTree(t, lines...)
	kt := newKeyTable([]*cct.Tree{bt}, []*cct.Tree{posTree(t, shifted(lines, 2)...)})
	var slots []int32
	for _, f := range bt.Frames {
		if f.Function == "(anonymous)" {
			slots = append(slots, kt.frames[kt.intern(f, 0)].Slot)
		}
	}
	if !slices.Equal(slots, []int32{0, 1, -1}) {
		t.Errorf("slots %v, want [0 1 -1]", slots)
	}
}
