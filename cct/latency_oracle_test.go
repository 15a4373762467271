package cct_test

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

// paperLatency is IntroPerf's Algorithm 2 as printed, frame by frame with
// the AllNew propagation and an end time updated in every register on every
// sample (O(depth) per sample), plus this project's two additions: the thread
// node is depth 0 and a silence longer than gap ends every register at the
// last sample. It is the oracle for InferLatency's node-based shortcut.
// Line 11 is fixed to isNew = (f != LastStack[d]).
func paperLatency(tr *cct.Tree, gap int64) []cct.NodeLatency {
	out := make([]cct.NodeLatency, len(tr.Nodes))
	type register struct {
		ts, te int64
		nid    cct.NodeID
	}
	var (
		lastStack []cct.FrameID
		regs      []register
		tLast     int64
	)
	closeRegister := func(tk int64, d int) { // lines 32-36
		r := regs[d]
		nl := &out[r.nid]
		nl.Count++
		nl.Aggressive.Total += tk - r.ts
		nl.Conservative.Total += r.te - r.ts
	}
	endTrace := func() { // lines 4-5
		for d := len(regs) - 1; d >= 0; d-- {
			closeRegister(tLast, d)
		}
		regs, lastStack = regs[:0], lastStack[:0]
	}
	// Events (TimedSample.Event) are not stack samples: the algorithm
	// runs over the stack samples alone.
	tl := slices.DeleteFunc(slices.Clone(tr.Timeline), func(s cct.TimedSample) bool { return s.Event })
	slices.SortStableFunc(tl, func(a, b cct.TimedSample) int {
		if c := cmp.Compare(a.Profile, b.Profile); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Thread, b.Thread); c != 0 {
			return c
		}
		return cmp.Compare(a.Time, b.Time)
	})
	for i, s := range tl {
		if i > 0 && (s.Thread != tl[i-1].Thread || s.Profile != tl[i-1].Profile) {
			endTrace() // each thread of each profile is its own trace
		} else if i > 0 && gap > 0 && s.Time-tLast > gap {
			endTrace()
		}
		path := tr.Path(s.Leaf) // s_k, thread first (PathToID is the tree's job)
		thisStack := make([]cct.FrameID, len(path))
		isNew := make([]bool, len(path))
		allNew := false
		for d, id := range path { // lines 10-16
			f := tr.Node(id).Frame
			isNew[d] = d >= len(lastStack) || f != lastStack[d] || allNew
			allNew = allNew || isNew[d]
			thisStack[d] = f
		}
		for d := len(lastStack) - 1; d >= len(thisStack); d-- { // lines 17-21
			closeRegister(s.Time, d)
		}
		regs = regs[:min(len(regs), len(thisStack))]
		held := len(regs)
		for len(regs) < len(thisStack) {
			regs = append(regs, register{})
		}
		for d := len(thisStack) - 1; d >= 0; d-- { // lines 22-30, reversed
			if !isNew[d] {
				regs[d].te = s.Time
				continue
			}
			if d < held {
				closeRegister(s.Time, d)
			}
			regs[d] = register{s.Time, s.Time, path[d]}
		}
		lastStack = thisStack
		tLast = s.Time
	}
	endTrace()
	// Section 3.4.1 on totals, the root summing its threads.
	for _, c := range tr.Children(cct.RootID) {
		out[cct.RootID].Conservative.Total += out[c].Conservative.Total
		out[cct.RootID].Aggressive.Total += out[c].Aggressive.Total
	}
	for i := range out {
		out[i].Conservative.Own, out[i].Aggressive.Own = out[i].Conservative.Total, out[i].Aggressive.Total
		for _, c := range tr.Children(cct.NodeID(i)) {
			out[i].Conservative.Own -= out[c].Conservative.Total
			out[i].Aggressive.Own -= out[c].Aggressive.Total
		}
	}
	return out
}

// checkLatency asserts the PA-CCT's invariants and agreement with the
// oracle: own latencies are never negative and add up to the root's total,
// totals nest, conservative never exceeds aggressive, Node.Count is C.
func checkLatency(t testing.TB, tr *cct.Tree) {
	t.Helper()
	lat := tr.Latency
	if lat == nil {
		t.Fatal("Tree.Latency is nil after InferLatency")
	}
	if len(lat.Nodes) != len(tr.Nodes) {
		t.Fatalf("%d latencies for %d nodes", len(lat.Nodes), len(tr.Nodes))
	}
	var sumC, sumA, instances int64
	for i := range lat.Nodes {
		id := cct.NodeID(i)
		nl := &lat.Nodes[i]
		if nl.Conservative.Own < 0 || nl.Aggressive.Own < 0 {
			t.Errorf("node %s: negative own latency %+v", pathName(tr, id), *nl)
		}
		if nl.Conservative.Total > nl.Aggressive.Total {
			t.Errorf("node %s: conservative %d > aggressive %d", pathName(tr, id), nl.Conservative.Total, nl.Aggressive.Total)
		}
		if tr.Count(id) != nl.Count {
			t.Errorf("node %s: Node.Count %d != C %d", pathName(tr, id), tr.Count(id), nl.Count)
		}
		sumC += nl.Conservative.Own
		sumA += nl.Aggressive.Own
		instances += nl.Count
	}
	root := lat.Nodes[cct.RootID]
	if sumC != root.Conservative.Total || sumA != root.Aggressive.Total {
		t.Errorf("own latencies sum to %d/%d, root totals are %d/%d", sumC, sumA, root.Conservative.Total, root.Aggressive.Total)
	}
	if instances != lat.InstanceCount {
		t.Errorf("Σ C = %d, InstanceCount = %d", instances, lat.InstanceCount)
	}
	want := paperLatency(tr, lat.Gap)
	bad := 0
	for i := range want {
		if want[i] != lat.Nodes[i] && bad < 5 {
			bad++
			t.Errorf("node %s: got %+v, Algorithm 2 says %+v", pathName(tr, cct.NodeID(i)), lat.Nodes[i], want[i])
		}
	}
}

// pathName is a node's path as "thread:A>B>D".
func pathName(tr *cct.Tree, id cct.NodeID) string {
	if id == cct.RootID {
		return "(root)"
	}
	var names []string
	for _, n := range tr.Path(id)[1:] {
		names = append(names, tr.Label(n))
	}
	return fmt.Sprintf("%s:%s", tr.Label(tr.ThreadOf(id)), strings.Join(names, ">"))
}
