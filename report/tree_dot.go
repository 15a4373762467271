package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/ctdiff/ctdiff/cct"
)

// WriteTreeDOT writes a tree as a Graphviz digraph: one box per node whose
// total reaches NodeFraction of the tree's total, labelled with the frame,
// self and total, and filled by its share of the total.
func WriteTreeDOT(w io.Writer, t *cct.Tree, o TreeOptions) error {
	bw := bufio.NewWriter(w)
	si := o.SampleIndex
	st := t.SampleTypes[si]
	total := t.Node(cct.RootID).Total[si]
	fmt.Fprintf(bw, "digraph cct {\n  graph [label=%s, labelloc=t, fontname=\"Helvetica\"];\n",
		dotQuote(fmt.Sprintf("%s, total %s", st, FormatValue(total, st.Unit))))
	bw.WriteString("  node [shape=box, style=filled, fontname=\"Helvetica\"];\n")
	// Iterative walk: deep trees must not overflow the stack.
	stack := []cct.NodeID{cct.RootID}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := t.Node(id)
		share := 0.0
		if total != 0 {
			share = float64(abs(n.Total[si])) / float64(abs(total))
		}
		fmt.Fprintf(bw, "  n%d [label=%s, fillcolor=%q];\n", id,
			dotLines(shorten(t.Label(id), 60),
				fmt.Sprintf("self %s, total %s (%s)", FormatValue(n.Self[si], st.Unit),
					FormatValue(n.Total[si], st.Unit), percent(n.Total[si], total))),
			heatColor(share))
		for _, c := range n.Children {
			ct := t.Node(c).Total[si]
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
