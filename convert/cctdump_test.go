package convert_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/internal/cctjson"
	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/golden"
	"github.com/ctdiff/ctdiff/report"
)

// The trees in testdata/cct are written by hand from the schema documented
// in package cctjson (and, for the Java call tree, in cctdump.go).

func TestCCTDumpGolden(t *testing.T) {
	for _, name := range []string{"threads.json", "java-calltree.json"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join("testdata", "cct", name)
			res := jpRead(t, path)
			if res.Format != "cct" {
				t.Fatalf("format %q", res.Format)
			}
			golden.CheckString(t, path+".golden", jpDump(res))
		})
	}
}

// TestCCTDumpRoundTrip reads a saved tree, builds a tree from the profile
// and writes it with report.WriteTree: the same tree comes out, node for
// node (ids may be renumbered; positions in pre-order are compared).
func TestCCTDumpRoundTrip(t *testing.T) {
	tests := []struct {
		file string
		opts cct.Options
	}{
		{"threads.json", cct.Options{}},
		{"java-calltree.json", cct.Options{CallSites: true}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join("testdata", "cct", tc.file)
			orig := jpReadTree(t, path)
			p := jpRead(t, path).Profile
			tree, err := cct.FromProfile(p, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := report.WriteTree(&buf, tree, report.JSON, report.TreeOptions{}); err != nil {
				t.Fatal(err)
			}
			var back cctjson.Tree
			if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
				t.Fatal(err)
			}
			// count travels as the calls/count sample type: move it back.
			if i := slices.IndexFunc(back.SampleTypes, func(v cctjson.ValueType) bool { return v.Type == "calls" }); i >= 0 && len(back.SampleTypes) > len(orig.SampleTypes) {
				back.SampleTypes = slices.Delete(back.SampleTypes, i, i+1)
				for k := range back.Nodes {
					n := &back.Nodes[k]
					n.Count = n.Self[i]
					n.Self = slices.Delete(n.Self, i, i+1)
					n.Total = slices.Delete(n.Total, i, i+1)
				}
			}
			back.Profiles, orig.Profiles = 0, 0 // a pprof profile is one profile
			if got, want := jpCanonTree(back), jpCanonTree(orig); got != want {
				t.Errorf("round trip differs:\n--- got\n%s--- want\n%s", got, want)
			}
		})
	}
}

// TestCCTDumpCallSites: the two calls of parse (lines 17 and 21) stay two
// nodes in call-site mode and merge without it; counts become calls/count.
func TestCCTDumpCallSites(t *testing.T) {
	p := jpRead(t, "testdata/cct/java-calltree.json").Profile
	if len(p.SampleType) != 2 || p.SampleType[1].Type != "calls" || jpTotal(p, 1) != 16 {
		t.Fatalf("types %v, calls %d", p.SampleType, jpTotal(p, 1))
	}
	for _, opts := range []cct.Options{{}, {CallSites: true}} {
		tree, err := cct.FromProfile(p, opts)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for i := range tree.Nodes {
			if tree.Label(cct.NodeID(i)) == "com.example.Parser.parse" {
				n++
			}
		}
		if want := map[bool]int{false: 1, true: 2}[opts.CallSites]; n != want {
			t.Errorf("call sites %v: %d parse nodes, want %d", opts.CallSites, n, want)
		}
	}
}

// TestCCTDumpCorpusRoundTrip: a real profile's tree survives being saved
// and read back, same-named functions of one script (told apart by their
// start lines) included.
func TestCCTDumpCorpusRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		path     string
		minNodes int
	}{
		{"java/jfrparser-cortex-kafka-cpu0.jfr.gz", 1000},
		{"devtools/devtools-recursive-counting-js.json.gz", 30},
	} {
		t.Run(path.Base(tc.path), func(t *testing.T) { cctDumpRoundTrip(t, corpus.Path(t, tc.path), tc.minNodes) })
	}
}

func cctDumpRoundTrip(t *testing.T, file string, minNodes int) {
	p := jpRead(t, file).Profile
	tree, err := cct.FromProfile(p, cct.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var first bytes.Buffer
	if err := report.WriteTree(&first, tree, report.JSON, report.TreeOptions{}); err != nil {
		t.Fatal(err)
	}
	res, err := convert.Read(bytes.NewReader(first.Bytes()), "tree.json", convert.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tree2, err := cct.FromProfile(res.Profile, cct.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var second bytes.Buffer
	if err := report.WriteTree(&second, tree2, report.JSON, report.TreeOptions{}); err != nil {
		t.Fatal(err)
	}
	var a, b cctjson.Tree
	if err := json.Unmarshal(first.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(second.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	if len(a.Nodes) < minNodes {
		t.Fatalf("only %d nodes", len(a.Nodes))
	}
	if x, y := jpCanonTree(a), jpCanonTree(b); x != y {
		t.Errorf("the saved tree and the tree read back differ (%d and %d nodes)", len(a.Nodes), len(b.Nodes))
	}
}

func jpReadTree(t *testing.T, path string) cctjson.Tree {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var tree cctjson.Tree
	if err := json.Unmarshal(data, &tree); err != nil {
		t.Fatal(err)
	}
	return tree
}

// jpCanonTree renders a tree by pre-order position, so that trees whose
// node ids differ compare equal when their structure and values agree.
func jpCanonTree(tree cctjson.Tree) string {
	pos := map[int32]int{}
	for i, n := range tree.Nodes {
		pos[n.ID] = i
	}
	var b strings.Builder
	fmt.Fprintf(&b, "view=%s types=%v default=%s period=%v/%d duration=%d profiles=%d\n",
		tree.View, tree.SampleTypes, tree.DefaultSampleType, tree.PeriodType, tree.Period, tree.DurationNanos, tree.Profiles)
	for i, n := range tree.Nodes {
		var children []int
		for _, c := range n.Children {
			children = append(children, pos[c])
		}
		parent := -1
		if n.Parent >= 0 {
			parent = pos[n.Parent]
		}
		fmt.Fprintf(&b, "%d %s %q file=%q line=%d col=%d start=%d site=%d ord=%d sys=%q parent=%d self=%v total=%v count=%d children=%v\n",
			i, n.Kind, n.Function, n.File, n.Line, n.Column, n.StartLine, n.CallSite, n.Ordinal, n.SystemName, parent, n.Self, n.Total, n.Count, children)
	}
	return b.String()
}

func TestCCTDumpErrors(t *testing.T) {
	const types = `"sample_types":[{"type":"cpu","unit":"nanoseconds"}]`
	root := func(total int, children string) string {
		return fmt.Sprintf(`{"id":0,"kind":"root","function":"(root)","parent":-1,"self":[0],"total":[%d],"children":[%s]}`, total, children)
	}
	doc := func(nodes ...string) string {
		return `{"schema":"ctdiff.cct/v1","view":"top-down",` + types + `,"nodes":[` + strings.Join(nodes, ",") + `]}`
	}
	thread := `{"id":1,"kind":"thread","function":"main","parent":0,"self":[0],"total":[5],"children":[2]}`
	leaf := `{"id":2,"function":"f","parent":1,"self":[5],"total":[5]}`
	tests := []struct{ name, in, want string }{
		{"json", `{"schema":"ctdiff.cct/v1",`, `x.json: invalid JSON: unexpected EOF`},
		{"syntax", `{"schema":"ctdiff.cct/v1"]`, `x.json: byte 26: invalid JSON: invalid character ']' after object key:value pair`},
		{"type", `{"schema":"ctdiff.cct/v1","nodes":[{"id":"one"}]}`, `x.json: byte 46: expected an integer for nodes.id, found string`},
		{"schema", `{"schema":"ctdiff.cct/v9","view":"top-down",` + types + `,"nodes":[]}`, `x.json: byte 0: expected schema "ctdiff.cct/v1", found "ctdiff.cct/v9"`},
		{"view", `{"schema":"ctdiff.cct/v1","view":"bottom-up",` + types + `,"nodes":[]}`, `x.json: byte 0: the tree's view is "bottom-up": only top-down trees can be read back`},
		{"no types", `{"schema":"ctdiff.cct/v1","nodes":[]}`, `x.json: byte 0: the tree has no sample_types`},
		{"no root", doc(leaf), `x.json: byte 0: the tree has no root node (kind "root")`},
		{"two roots", doc(root(0, ""), strings.Replace(root(0, ""), `"id":0`, `"id":9`, 1)), `x.json: node 9: a second root (the first is node 0)`},
		{"dup id", doc(root(5, "1"), thread, strings.Replace(leaf, `"id":2`, `"id":1`, 1)), `x.json: node 1: id 1 is used twice`},
		{"values", doc(root(5, "1"), thread, strings.Replace(leaf, `"self":[5]`, `"self":[5,1]`, 1)), `x.json: node 2: expected 1 values in self and total (one per sample type), found 2 and 1`},
		{"missing child", doc(root(5, "1"), thread), `x.json: node 1: child 2 is not in the tree`},
		{"parent", doc(root(5, "1"), thread, strings.Replace(leaf, `"parent":1`, `"parent":0`, 1)), `x.json: node 2: its parent is 0, but it is a child of node 1`},
		{"total", doc(root(5, "1"), thread, strings.Replace(leaf, `"total":[5]`, `"total":[6]`, 1)), `x.json: node 1: total [5] is not self plus the children's totals, [6]`},
		{"unreachable", doc(root(5, "1"), thread, leaf, `{"id":3,"function":"g","parent":2,"self":[0],"total":[0]}`), `x.json: node 3: it is not reachable from the root by children lists`},
		{"thread deep", doc(root(5, "1"), thread, `{"id":2,"kind":"thread","function":"t","parent":1,"self":[5],"total":[5]}`), `x.json: node 2: a thread node under node 1; threads are children of the root`},
		{"kind", doc(root(5, "1"), thread, strings.Replace(leaf, `"id":2,`, `"id":2,"kind":"frame",`, 1)), `x.json: node 2: expected kind "root", "thread" or none, found "frame"`},
		{"cycle", doc(root(5, "1"), strings.Replace(thread, `"children":[2]`, `"children":[2,2]`, 1), leaf), `x.json: node 2: it is reached twice from the root`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := convert.Read(strings.NewReader(tc.in), "x.json", convert.Options{From: "cct"})
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v\nwant prefix %s", err, tc.want)
			}
		})
	}
}

func FuzzCCTDump(f *testing.F) {
	jpFuzzSeeds(f, "testdata/cct")
	f.Fuzz(func(t *testing.T, in string) {
		jpFuzzCheck(t, "cct", in)
		res, err := convert.Read(strings.NewReader(in), "fuzz.json", convert.Options{From: "cct"})
		if err != nil {
			return
		}
		// Conservation: the nodes' self values are the samples' values.
		var tree cctjson.Tree
		if err := json.Unmarshal([]byte(in), &tree); err != nil {
			return // the reader streams one document; trailing bytes are not its business
		}
		want := make([]int64, len(tree.SampleTypes))
		for _, n := range tree.Nodes {
			for i, v := range n.Self {
				want[i] += v
			}
		}
		if got := convert.SampleSums(res.Profile)[:len(want)]; !slices.Equal(got, want) {
			t.Fatalf("sample sums %v, the nodes' self values add up to %v", got, want)
		}
	})
}
