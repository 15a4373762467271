package diff

import (
	"math"
	"testing"
)

// Result.Tree is the matched union tree: a renamed function is one node
// under its new name with values on both sides, the critical graph's nodes
// are marked, and the means add up.
func TestResultTree(t *testing.T) {
	base := trees(t,
		"thread=main main;parse@app.js;tokenize@app.js 300\nthread=main main;render@app.js;layout@app.js 200",
		"thread=main main;parse@app.js;tokenize@app.js 310\nthread=main main;render@app.js;layout@app.js 210",
	)
	nw := trees(t,
		"thread=main main;parseAll@app.js;tokenize@app.js 305\nthread=main main;render@app.js;layout@app.js 400",
		"thread=main main;parseAll@app.js;tokenize@app.js 301\nthread=main main;render@app.js;layout@app.js 390\nthread=main main;hover@app.js 30",
	)
	if res := compare(t, base, nw, Options{}); res.Tree != nil {
		t.Fatalf("Tree is set without Options.Tree: %d nodes", len(res.Tree))
	}
	res := compare(t, base, nw, Options{Tree: true})
	tr := res.Tree
	if len(tr) == 0 || tr[0].Parent != -1 || tr[0].Frame != (Frame{}) {
		t.Fatalf("root %+v", tr[:min(len(tr), 1)])
	}
	if round(tr[0].Base) != res.Base.Total || round(tr[0].New) != res.New.Total {
		t.Errorf("root %g → %g, totals %d → %d", tr[0].Base, tr[0].New, res.Base.Total, res.New.Total)
	}
	byName := treeByName(t, tr)
	if _, ok := byName["parse"]; ok {
		t.Error("the renamed node keeps its old name")
	}
	p := byName["parseAll"]
	if p.BaseRuns != 2 || p.NewRuns != 2 || round(p.Base) != 305*ms || round(p.New) != 303*ms {
		t.Errorf("parseAll %+v: want matched in 2+2 runs, 305ms → 303ms", p)
	}
	if h := byName["hover"]; h.BaseRuns != 0 || h.NewRuns != 1 || round(h.NewSelf) != 15*ms {
		t.Errorf("hover %+v: want new in one run, mean self 15ms", h)
	}
	if th := tr[1]; !th.IsThread || th.Parent != 0 || th.Frame != (Frame{Function: "main"}) {
		t.Errorf("thread node %+v", th)
	}
	// Every graph node is marked once, at its own context.
	if marked := markedGraphNodes(t, res); marked != len(res.Graph) || len(res.Causes) == 0 {
		t.Fatalf("%d nodes marked, %d graph nodes, %d causes", marked, len(res.Graph), len(res.Causes))
	}
	if c := res.Causes[0]; c.Path[len(c.Path)-1].Function != "layout" {
		t.Errorf("cause %+v, want layout", c)
	}
}

// treeByName indexes Result.Tree by function, checking that parents come
// first and that the self values add up to the root's totals.
func treeByName(t *testing.T, tr []TreeNode) map[string]TreeNode {
	t.Helper()
	byName := map[string]TreeNode{}
	var selfBase, selfNew float64
	for i, n := range tr {
		if i > 0 && (n.Parent < 0 || int(n.Parent) >= i) {
			t.Fatalf("node %d has parent %d: parents must come first", i, n.Parent)
		}
		byName[n.Frame.Function] = n
		selfBase += n.BaseSelf
		selfNew += n.NewSelf
	}
	if math.Abs(selfBase-tr[0].Base) > 1e-3 || math.Abs(selfNew-tr[0].New) > 1e-3 {
		t.Errorf("self values add up to %g → %g, root totals %g → %g", selfBase, selfNew, tr[0].Base, tr[0].New)
	}
	return byName
}

// markedGraphNodes counts the tree nodes marked as graph nodes, checking
// that each is marked at its own frame.
func markedGraphNodes(t *testing.T, res *Result) int {
	t.Helper()
	marked := 0
	for _, n := range res.Tree {
		if n.Graph < 0 {
			continue
		}
		marked++
		g := res.Graph[n.Graph]
		if g.Frame != n.Frame && !g.IsThread {
			t.Errorf("graph node %+v marked at %+v", g, n.Frame)
		}
	}
	return marked
}
