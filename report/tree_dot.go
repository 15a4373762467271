package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/ctdiff/ctdiff/cct"
)

// writeTreeDOT writes a tree as a Graphviz digraph: one box per node whose
// total reaches NodeFraction of the tree's total, labelled with the frame,
// self and total, and filled by its share of the total. The title says how
// many nodes the fraction hid, as the text header does.
func writeTreeDOT(w io.Writer, t *cct.Tree, o TreeOptions) error {
	bw := bufio.NewWriter(w)
	si := o.SampleIndex
	st := t.SampleTypes[si]
	total := t.Total(cct.RootID)[si]
	title := []string{fmt.Sprintf("%s, total %s", st, FormatValue(total, st.Unit))}
	if n := hiddenNodes(t, si, total, o.NodeFraction); n > 0 {
		title = append(title, fmt.Sprintf("%d nodes below %.2g%% of the total hidden", n, 100*o.NodeFraction))
	}
	fmt.Fprintf(bw, "digraph cct {\n  graph [label=%s, labelloc=t, fontname=\"Helvetica\"];\n", dotLines(title...))
	bw.WriteString("  node [shape=box, style=filled, fontname=\"Helvetica\"];\n")
	// Iterative walk: deep trees must not overflow the stack.
	stack := []cct.NodeID{cct.RootID}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		share := 0.0
		if total != 0 {
			share = float64(abs(t.Total(id)[si])) / float64(abs(total))
		}
		fmt.Fprintf(bw, "  n%d [label=%s, fillcolor=%q];\n", id,
			dotLines(shorten(t.Label(id), 60),
				fmt.Sprintf("self %s, total %s (%s)", FormatValue(t.Self(id)[si], st.Unit),
					FormatValue(t.Total(id)[si], st.Unit), percent(t.Total(id)[si], total))),
			heatColor(share))
		for _, c := range t.Children(id) {
			ct := t.Total(c)[si]
			if belowFraction(ct, total, o.NodeFraction) {
				continue
			}
			fmt.Fprintf(bw, "  n%d -> n%d [label=%q];\n", id, c, FormatValue(ct, st.Unit))
			stack = append(stack, c)
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// hiddenNodes counts the nodes a node fraction hides: those below it and
// their descendants. Nodes follow their parents in t.Nodes.
func hiddenNodes(t *cct.Tree, si int, total int64, frac float64) int {
	if frac <= 0 {
		return 0
	}
	hidden := make([]bool, len(t.Nodes))
	n := 0
	for i := 1; i < len(t.Nodes); i++ {
		if hidden[t.Nodes[i].Parent] || belowFraction(t.Total(cct.NodeID(i))[si], total, frac) {
			hidden[i] = true
			n++
		}
	}
	return n
}
