package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/ctdiff/ctdiff/internal/cctjson"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// cctdump reads a calling-context tree saved as ctdiff.cct/v1 (package
// cctjson; written by `ctdiff cct --format json`) back into a profile, so a
// tree saved by one release can be diffed by another, and so call trees
// from other tools can be compared once written in that schema.
//
// Every function node whose self value (or count, or latency) is not zero
// becomes one sample whose stack is the node's path below its thread; its
// values are the node's self values. Building a tree from the profile
// (cct.FromProfile) gives the same tree again: the same nodes in the same
// child order, with the same self and total values, lines, columns, start
// lines, system names and call sites. To that end:
//   - thread nodes become labels.Thread (function) and labels.Process (file);
//     threads that share a name and differ by ordinal get labels.TID = the
//     ordinal, as the dump holds no OS ids;
//   - a caller's location carries the call_site of its child on the path (or
//     its own line), so a call-site tree is rebuilt with its call sites;
//   - nodes that would otherwise get no sample of their own (leaves with
//     zero values, callers of call-site children) get a sample with zero
//     values, which keeps them and their line;
//   - count becomes the sample type calls/count ("instances" if the tree
//     already has a "calls" type), and the latency inferred by `ctdiff cct
//     --latency` the types latency_conservative/nanoseconds and
//     latency_aggressive/nanoseconds, whose per-node values are the own
//     latencies, so that a node's total is its latency total again.
//
// What a pprof profile cannot hold is the number of profiles merged into
// the tree ("profiles"); the reader records it in a comment. Only top-down
// trees can be read: the paths of a bottom-up tree run from callees to
// callers.
//
// # Call trees of instrumented Java profilers
//
// Instrumenting profilers (JProfiler's call tree export, YourKit in tracing
// mode, JP2 and other PARCS-style call-site profilers) record per calling
// context the method, the call site, the invocation count and the total and
// self time. Written in ctdiff.cct/v1 they read as any other profile:
//
//		{"schema": "ctdiff.cct/v1", "view": "top-down",
//		 "sample_types": [{"type": "cpu", "unit": "nanoseconds"}],
//		 "default_sample_type": "cpu",
//		 "nodes": [
//		  {"id": 0, "kind": "root", "function": "(root)", "parent": -1,
//		   "self": [0], "total": [900000000], "children": [1]},
//		  {"id": 1, "kind": "thread", "function": "main", "parent": 0,
//		   "self": [0], "total": [900000000], "children": [2]},
//		  {"id": 2, "function": "com.example.App.main", "file": "App.java", "line": 10,
//		   "system_name": "com.example.App.main([Ljava/lang/String;)V",
//		   "parent": 1, "self": [100000000], "total": [900000000], "count": 1, "children": [3]},
//		  {"id": 3, "function": "com.example.Parser.parse", "file": "Parser.java", "line": 40,
//		   "call_site": 17, "parent": 2, "self": [800000000], "total": [800000000], "count": 12}]}
//
//	  - one node per calling context, children in call order where the tool
//	    keeps it (else any fixed order);
//	  - function: the method as "pkg.Class.method", the form the JFR, jfr print
//	    and HPROF readers use, so trees from different tools match;
//	    system_name: the method with its signature or descriptor, if known;
//	    file and line: the method's source file and line, if known;
//	  - call_site: the line in the caller at which this context was entered
//	    (PARCS Section 2.1; YourKit's "File.java:85" prefix of call_tree,
//	    JProfiler's lineNumber), 0 if unknown;
//	  - count: the invocation count (becomes calls/count);
//	  - self and total: self and total time in the unit of the sample type,
//	    nanoseconds for cpu or wall (multiply milliseconds by 1e6); total must
//	    be self plus the children's totals, so where a tool's total time also
//	    holds time it attributes to no child (filtered or hidden calls), that
//	    time belongs in self;
//	  - more metrics (a tool's sample counts, allocations) are more entries in
//	    sample_types, self and total;
//	  - one thread node per thread (function: the thread name, file: the
//	    process), or a single thread node with an empty name for a tree that
//	    merges all threads; the root's children are threads.
func init() {
	register(inputFormat{
		Name:        "cct",
		Description: "calling-context tree saved as ctdiff.cct/v1 JSON (ctdiff cct --format json)",
		Priority:    55,
		Sniff:       sniffCCTDump,
		Parse:       parseCCTDump,
		ParseStacks: func(in *parserInput) (*profile.Profile, *stacks.Samples, error) {
			return readCCTDump(in, true)
		},
		CompleteStacks: true,
	})
}

func sniffCCTDump(head []byte) bool {
	t := bytes.TrimSpace(head)
	return len(t) > 0 && t[0] == '{' && bytes.Contains(t, []byte(`"`+cctjson.Schema+`"`))
}

// nodeError is a SyntaxError at a node of the tree.
func nodeError(id int32, format string, args ...any) *SyntaxError {
	return &SyntaxError{Where: fmt.Sprintf("node %d", id), Msg: fmt.Sprintf(format, args...)}
}

func parseCCTDump(in *parserInput) (*profile.Profile, error) {
	p, _, err := readCCTDump(in, false)
	return p, err
}

// readCCTDump reads the tree into a profile, its samples as
// profile.Samples or, with collect, as stacks.Samples.
func readCCTDump(in *parserInput, collect bool) (*profile.Profile, *stacks.Samples, error) {
	var tree cctjson.Tree
	dec := json.NewDecoder(in.R)
	if err := dec.Decode(&tree); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, nil, errAtOffset(se.Offset, "invalid JSON: %v", err)
		case errors.As(err, &te) && te.Field == "":
			return nil, nil, errAtOffset(te.Offset, "expected a JSON object (a ctdiff.cct/v1 tree), found %s", te.Value)
		case errors.As(err, &te):
			return nil, nil, errAtOffset(te.Offset, "expected %s for %s, found %s", jsonType(te.Type), te.Field, te.Value)
		}
		return nil, nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if tree.Schema != cctjson.Schema {
		return nil, nil, errAtOffset(0, "expected schema %q, found %q", cctjson.Schema, tree.Schema)
	}
	if tree.View != "" && tree.View != "top-down" {
		return nil, nil, errAtOffset(0, "the tree's view is %q: only top-down trees can be read back (the paths of other views do not run from callers to callees)", tree.View)
	}
	if len(tree.SampleTypes) == 0 {
		return nil, nil, errAtOffset(0, "the tree has no sample_types")
	}
	c := &cctReader{in: in, tree: &tree, byID: make(map[int32]int, len(tree.Nodes))}
	if err := c.check(); err != nil {
		return nil, nil, err
	}
	return c.profile(collect)
}

type cctReader struct {
	in    *parserInput
	tree  *cctjson.Tree
	byID  map[int32]int // id → index in tree.Nodes
	order []int         // pre-order, by the children lists
	root  int
}

// check validates the tree: unique ids, one root, parent and children links
// that agree, every node reachable once, thread nodes under the root only,
// value arrays of the right length and totals that add up.
func (c *cctReader) check() error {
	nodes := c.tree.Nodes
	nt := len(c.tree.SampleTypes)
	c.root = -1
	for i := range nodes {
		n := &nodes[i]
		if _, dup := c.byID[n.ID]; dup {
			return nodeError(n.ID, "id %d is used twice", n.ID)
		}
		c.byID[n.ID] = i
		if len(n.Self) != nt || len(n.Total) != nt {
			return nodeError(n.ID, "expected %d values in self and total (one per sample type), found %d and %d", nt, len(n.Self), len(n.Total))
		}
		switch n.Kind {
		case "root":
			if c.root >= 0 {
				return nodeError(n.ID, "a second root (the first is node %d)", nodes[c.root].ID)
			}
			if n.Parent != -1 {
				return nodeError(n.ID, "the root has parent %d, expected -1", n.Parent)
			}
			c.root = i
		case "", "thread":
		default:
			return nodeError(n.ID, "expected kind \"root\", \"thread\" or none, found %q", n.Kind)
		}
	}
	if c.root < 0 {
		return errAtOffset(0, "the tree has no root node (kind \"root\")")
	}
	visited := make([]bool, len(nodes))
	stack := []int{c.root}
	visited[c.root] = true
	sum := make([]int64, nt)
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		c.order = append(c.order, i)
		n := &nodes[i]
		copy(sum, n.Self)
		for k := len(n.Children) - 1; k >= 0; k-- {
			cid := n.Children[k]
			j, ok := c.byID[cid]
			if !ok {
				return nodeError(n.ID, "child %d is not in the tree", cid)
			}
			ch := &nodes[j]
			switch {
			case ch.Parent != n.ID:
				return nodeError(cid, "its parent is %d, but it is a child of node %d", ch.Parent, n.ID)
			case visited[j]:
				return nodeError(cid, "it is reached twice from the root")
			case ch.Kind == "thread" && i != c.root:
				return nodeError(cid, "a thread node under node %d; threads are children of the root", n.ID)
			}
			visited[j] = true
			stack = append(stack, j)
			for v := range sum {
				sum[v] += ch.Total[v]
			}
		}
		if !slices.Equal(sum, n.Total) {
			return nodeError(n.ID, "total %v is not self plus the children's totals, %v", n.Total, sum)
		}
	}
	for i, v := range visited {
		if !v {
			return nodeError(nodes[i].ID, "it is not reachable from the root by children lists")
		}
	}
	return nil
}

func (c *cctReader) profile(collect bool) (*profile.Profile, *stacks.Samples, error) {
	t := c.tree
	nodes := t.Nodes
	st := make([]*profile.ValueType, 0, len(t.SampleTypes)+3)
	for _, v := range t.SampleTypes {
		st = append(st, &profile.ValueType{Type: v.Type, Unit: v.Unit})
	}
	countIdx, latIdx := -1, -1
	hasCount, hasLatency := false, false
	for i := range nodes {
		hasCount = hasCount || nodes[i].Count != 0
		hasLatency = hasLatency || nodes[i].Latency != nil
	}
	if hasCount {
		name := "calls"
		if slices.ContainsFunc(st, func(v *profile.ValueType) bool { return v.Type == "calls" }) {
			name = "instances"
		}
		st = append(st, &profile.ValueType{Type: name, Unit: "count"})
		countIdx = len(st) - 1
	}
	if hasLatency {
		st = append(st, &profile.ValueType{Type: "latency_conservative", Unit: "nanoseconds"},
			&profile.ValueType{Type: "latency_aggressive", Unit: "nanoseconds"})
		latIdx = len(st) - 2
	}
	b := newProfileBuilder(st...)
	if collect {
		b.CollectStacks()
		c.in.useFrames(b)
	}
	p := b.Profile()
	p.DefaultSampleType, p.Period, p.DurationNanos = t.DefaultSampleType, t.Period, t.DurationNanos
	if t.PeriodType != nil {
		p.PeriodType = &profile.ValueType{Type: t.PeriodType.Type, Unit: t.PeriodType.Unit}
	}
	if t.Profiles > 1 {
		p.Comments = append(p.Comments, fmt.Sprintf("read from a ctdiff.cct/v1 tree of %d merged profiles", t.Profiles))
	}

	// Threads of the same name are kept apart by their ordinal, as tid.
	ordinals := map[[2]string]bool{}
	for _, i := range c.order {
		if n := &nodes[i]; n.Kind == "thread" && n.Ordinal > 0 {
			ordinals[[2]string{n.File, n.Function}] = true
		}
	}

	refs, err := c.layout(b)
	if err != nil {
		return nil, nil, err
	}
	var meta sampleMeta
	rootSelf := false
	for _, i := range c.order {
		n := &nodes[i]
		switch {
		case i == c.root:
			if c.nonzero(n) {
				rootSelf = true
				b.addIdx(nil, c.values(n, len(st), countIdx, latIdx), sampleMeta{})
			}
			continue
		case n.Kind == "thread":
			meta = sampleMeta{Thread: n.Function, Process: n.File}
			if ordinals[[2]string{n.File, n.Function}] {
				meta.TID, meta.HasTID = int64(n.Ordinal), true
			}
			if c.nonzero(n) || len(n.Children) == 0 {
				b.addIdx(nil, c.values(n, len(st), countIdx, latIdx), meta)
			}
			continue
		}
		if c.byID[n.Parent] == c.root {
			meta = sampleMeta{} // a function directly under the root: no thread
		}
		if c.needsSample(n) {
			b.addRef(refs[i], c.values(n, len(st), countIdx, latIdx), meta)
		}
	}
	if rootSelf {
		c.in.Warnf("the root node has self values; they are kept as a sample without thread or stack")
	}
	return p, b.Stacks(), nil
}

// layout charges the stack of every node that gets a sample to the
// input's budget, and lays the stacks out in one pool the samples share
// (stackpool.go): each holds the node's whole path, so a deep chain of
// small nodes would otherwise take memory quadratic in the file. It
// returns each node's stack, by index in the tree's nodes.
func (c *cctReader) layout(b *profileBuilder) ([]stackRef, error) {
	nodes := c.tree.Nodes
	budget := c.in.stackBudget()
	depth := make([]int, len(nodes)) // frames in the node's stack
	var sampled []int32
	for _, i := range c.order {
		n := &nodes[i]
		if i == c.root || n.Kind == "thread" {
			continue
		}
		depth[i] = 1
		if p := c.byID[n.Parent]; p != c.root && nodes[p].Kind != "thread" {
			depth[i] += depth[p]
		}
		if c.needsSample(n) {
			if err := budget.take(depth[i]); err != nil {
				return nil, fmt.Errorf("node %d: %w", n.ID, err)
			}
			sampled = append(sampled, int32(i))
		}
	}
	pool := c.in.newStackPool(len(nodes))
	b.usePool(pool)
	refs := make([]stackRef, len(nodes))
	err := pool.layout(sampled, func(n int32) int { return depth[n] }, refs, func(i int32, frames, owners []int32) ([]int32, []int32) {
		// A caller's location carries the call site of its child on the
		// path: its own stack (its own line) is not this one's tail then.
		child := int32(-1)
		for j := i; j >= 0; {
			f := &nodes[j]
			fr := stackFrame{Name: f.Function, SystemName: f.SystemName, File: f.File, Line: f.Line, Column: f.Column, StartLine: f.StartLine}
			owner := j
			if child >= 0 {
				if cs := nodes[child].CallSite; cs != 0 {
					fr.Line, fr.Column, owner = cs, 0, -1
				}
			}
			frames, owners = append(frames, b.loc(fr)), append(owners, owner)
			p := int32(c.byID[f.Parent])
			if int(p) == c.root || nodes[p].Kind == "thread" {
				break
			}
			child, j = j, p
		}
		return frames, owners
	})
	return refs, err
}

// needsSample says whether a function node gets a sample of its own: when
// it has values, when it is a leaf (else it would vanish), or when a child
// has a call site (else its first location would carry the child's call
// site instead of its own line).
func (c *cctReader) needsSample(n *cctjson.Node) bool {
	if c.nonzero(n) || len(n.Children) == 0 {
		return true
	}
	for _, id := range n.Children {
		if c.tree.Nodes[c.byID[id]].CallSite != 0 {
			return true
		}
	}
	return false
}

func (c *cctReader) nonzero(n *cctjson.Node) bool {
	if n.Count != 0 {
		return true
	}
	if l := n.Latency; l != nil && (l.Conservative.Own != 0 || l.Aggressive.Own != 0) {
		return true
	}
	return slices.ContainsFunc(n.Self, func(v int64) bool { return v != 0 })
}

func (c *cctReader) values(n *cctjson.Node, size, countIdx, latIdx int) []int64 {
	v := make([]int64, size)
	copy(v, n.Self)
	if countIdx >= 0 {
		v[countIdx] = n.Count
	}
	if latIdx >= 0 && n.Latency != nil {
		v[latIdx], v[latIdx+1] = n.Latency.Conservative.Own, n.Latency.Aggressive.Own
	}
	return v
}
