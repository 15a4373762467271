package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/cctjson"
	"github.com/ctdiff/ctdiff/internal/corpus"
)

func TestCCTGolden(t *testing.T) {
	sample1 := "collapsed/asyncprofiler-sample1.collapsed"
	tests := []struct {
		name   string
		corpus string // corpus file prepended to args, if any
		args   []string
	}{
		{"cct-sample1.txt", sample1, []string{"cct"}},
		{"cct-sample1-bottom-up.txt", sample1, []string{"cct", "--view", "bottom-up", "--node-fraction", "0.02"}},
		{"cct-sample1-flat.txt", sample1, []string{"cct", "--view", "flat"}},
		{"cct-sample1.json", sample1, []string{"cct", "--format", "json"}},
		{"cct-example-old.txt", "", []string{"cct", "--node-fraction", "0.02", "../../testdata/example/old"}},
		{"cct-example-flat.txt", "", []string{"cct", "--view", "flat", "../../testdata/example/new/run1.pb.gz"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := tt.args
			if tt.corpus != "" {
				args = append(args, corpus.Path(t, tt.corpus))
			}
			out, errOut, code := ctdiff(args...)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			golden(t, tt.name, out)
		})
	}
}

// The tree of sample1 totals 185 samples in text and JSON alike.
func TestCCTRootTotal(t *testing.T) {
	path := corpus.Path(t, "collapsed/asyncprofiler-sample1.collapsed")
	out, _, code := ctdiff("cct", path)
	if code != 0 || !strings.Contains(out, "View: top-down; total 185;") {
		t.Fatalf("exit %d; text header lacks the 185 total:\n%s", code, out)
	}
	out, _, code = ctdiff("cct", "--format", "json", path)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var doc cctjson.Tree
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Schema != cctjson.Schema || doc.Nodes[0].Kind != "root" || doc.Nodes[0].Total[0] != 185 {
		t.Fatalf("schema %q, root %+v", doc.Schema, doc.Nodes[0])
	}
	// Every node's total is its self plus its children's totals.
	byID := map[int32]cctjson.Node{}
	for _, n := range doc.Nodes {
		byID[n.ID] = n
	}
	for _, n := range doc.Nodes {
		sum := n.Self[0]
		for _, c := range n.Children {
			sum += byID[c].Total[0]
			if byID[c].Parent != n.ID {
				t.Errorf("node %d: child %d names parent %d", n.ID, c, byID[c].Parent)
			}
		}
		if sum != n.Total[0] {
			t.Errorf("node %d (%s): total %d != self + children %d", n.ID, n.Function, n.Total[0], sum)
		}
	}
}

func TestCCTRecursiveViews(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "rec.folded", "main;fib;fib;fib 4\nmain;fib;fib;add 2\nmain;fib 1\nmain;parse 3\n")
	out, _, code := ctdiff("cct", "--view", "flat", path)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"         5  50.00%          7  70.00%  fib\n", // recursion counted once per stack
		"         0   0.00%         10 100.00%  main\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("flat view lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = ctdiff("cct", "--view", "bottom-up", "--node-fraction", "0", path)
	want := `         0   0.00%          5  50.00%  ├─ fib
         0   0.00%          4  40.00%  │  ├─ fib
         0   0.00%          4  40.00%  │  │  └─ fib
         4  40.00%          4  40.00%  │  │     └─ main
         1  10.00%          1  10.00%  │  └─ main
`
	if !strings.Contains(out, want) {
		t.Errorf("bottom-up view lacks\n%s\ngot:\n%s", want, out)
	}
}
