package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ctdiff/ctdiff/cct"
)

// TreeOptions control the reports of a single tree (`ctdiff cct`).
type TreeOptions struct {
	// SampleIndex picks the sample type shown in text.
	SampleIndex int
	// View names the view for headers: "top-down", "bottom-up" or "flat".
	View string
	// NodeFraction hides, in text, nodes whose total is below this share of
	// the tree's total (pprof's -nodefraction); the header says how many.
	NodeFraction float64
	// Inputs are the input names, for the header.
	Inputs []string
	// LatencyMode picks the estimate that text shows and that pprof makes
	// the default, when the tree has inferred latencies (cct.Tree.Latency).
	LatencyMode cct.LatencyMode
}

// maxIndent caps the indentation of text trees: past it, lines carry their
// depth as a number instead, so a 100,000-deep stack prints in linear size.
const maxIndent = 64

// writeTreeText writes a tree like a readable `pprof -tree`: one line per
// node with self, self%, total, total% and the indented frame. Siblings are
// listed hottest first (ties in execution order).
func writeTreeText(w io.Writer, t *cct.Tree, o TreeOptions) error {
	bw := bufio.NewWriter(w)
	si := o.SampleIndex
	st := t.SampleTypes[si]
	total := t.Total(cct.RootID)[si]

	// Subtree sizes, so hidden subtrees are counted without walking them.
	size := make([]int32, len(t.Nodes))
	for i := len(t.Nodes) - 1; i > 0; i-- {
		size[i]++
		size[t.Nodes[i].Parent] += size[i]
	}
	hidden := 0
	type item struct {
		id   cct.NodeID
		last []bool // for each ancestor level: was it the last sibling?
	}
	var lines []item
	stack := []item{}
	for _, c := range sortedChildren(t, cct.RootID, si) {
		stack = append(stack, item{id: c})
	}
	slices.Reverse(stack)
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		lines = append(lines, it)
		kids := sortedChildren(t, it.id, si)
		var shown []cct.NodeID
		for _, c := range kids {
			if belowFraction(t.Total(c)[si], total, o.NodeFraction) {
				hidden += int(size[c])
				continue
			}
			shown = append(shown, c)
		}
		for i := len(shown) - 1; i >= 0; i-- {
			last := it.last
			if len(last) < maxIndent {
				last = append(slices.Clip(it.last), i == len(shown)-1)
			}
			stack = append(stack, item{id: shown[i], last: last})
		}
	}

	writeTreeHeader(bw, st, o.Inputs)
	view := o.View
	if view == "" {
		view = "top-down"
	}
	fmt.Fprintf(bw, "View: %s; total %s; %d nodes", view, FormatValue(total, st.Unit), len(t.Nodes)-1)
	if hidden > 0 {
		fmt.Fprintf(bw, " (%d below %.2g%% of the total hidden)", hidden, 100*o.NodeFraction)
	}
	bw.WriteString("\n")
	writeLatencyHeader(bw, t, o)
	fmt.Fprintf(bw, "\n%10s %7s %10s %7s%s\n", "self", "self%", "total", "total%", latencyHeading(t))
	var prefix strings.Builder
	for _, it := range lines {
		n := t.Node(it.id)
		prefix.Reset()
		if len(it.last) > 0 {
			for _, l := range it.last[:len(it.last)-1] {
				if l {
					prefix.WriteString("   ")
				} else {
					prefix.WriteString("│  ")
				}
			}
			if it.last[len(it.last)-1] {
				prefix.WriteString("└─ ")
			} else {
				prefix.WriteString("├─ ")
			}
		}
		if int(n.Depth)-1 > len(it.last) {
			fmt.Fprintf(&prefix, "[depth %d] ", n.Depth-1)
		}
		fmt.Fprintf(bw, "%10s %7s %10s %7s%s  %s%s\n",
			FormatValue(t.Self(it.id)[si], st.Unit), percent(t.Self(it.id)[si], total),
			FormatValue(t.Total(it.id)[si], st.Unit), percent(t.Total(it.id)[si], total),
			latencyColumns(t, it.id, o), prefix.String(), nodeText(t, it.id))
	}
	return bw.Flush()
}

// writeTreeHeader writes the sample type and the inputs.
func writeTreeHeader(w io.Writer, st cct.ValueType, inputs []string) {
	fmt.Fprintf(w, "Type: %s\n", textName(st.String()))
	if len(inputs) > 0 {
		fmt.Fprintf(w, "Inputs: %s\n", textName(strings.Join(inputs, ", ")))
	}
}

// sortedChildren returns a node's children hottest first; the sort is
// stable, so equal totals keep execution order.
func sortedChildren(t *cct.Tree, id cct.NodeID, si int) []cct.NodeID {
	kids := slices.Clone(t.Children(id))
	slices.SortStableFunc(kids, func(a, b cct.NodeID) int {
		va, vb := abs(t.Total(a)[si]), abs(t.Total(b)[si])
		switch {
		case va > vb:
			return -1
		case va < vb:
			return 1
		}
		return 0
	})
	return kids
}

// nodeText is a node's label with its location, "name (file:line)",
// escaped (textName).
func nodeText(t *cct.Tree, id cct.NodeID) string {
	n := t.Node(id)
	f := t.Frames[n.Frame]
	label := textName(t.Label(id))
	if f.Kind != cct.KindFunction {
		return "[" + label + "]"
	}
	if f.File == "" {
		return label
	}
	loc := textName(f.File)
	if line := t.FrameInfo[n.Frame].Line; line > 0 {
		loc += fmt.Sprintf(":%d", line)
	}
	return label + " (" + loc + ")"
}

// writeFlatText writes the flat view: one line per function with self and
// total (a recursive function counted once per stack), sorted by self, then
// total, then name.
func writeFlatText(w io.Writer, t *cct.Tree, o TreeOptions) error {
	bw := bufio.NewWriter(w)
	si := o.SampleIndex
	st := t.SampleTypes[si]
	total := t.Total(cct.RootID)[si]
	flat := cct.Flat(t)
	slices.SortStableFunc(flat, func(a, b cct.FlatEntry) int {
		if c := cmpDesc(abs(a.Self[si]), abs(b.Self[si])); c != 0 {
			return c
		}
		if c := cmpDesc(abs(a.Total[si]), abs(b.Total[si])); c != 0 {
			return c
		}
		return strings.Compare(a.Function, b.Function)
	})
	writeTreeHeader(bw, st, o.Inputs)
	fmt.Fprintf(bw, "View: flat; total %s; %d functions\n\n", FormatValue(total, st.Unit), len(flat))
	fmt.Fprintf(bw, "%10s %7s %10s %7s\n", "self", "self%", "total", "total%")
	for _, e := range flat {
		name := textName(e.Function)
		if e.File != "" {
			name += " (" + textName(e.File) + ")"
		}
		fmt.Fprintf(bw, "%10s %7s %10s %7s  %s\n",
			FormatValue(e.Self[si], st.Unit), percent(e.Self[si], total),
			FormatValue(e.Total[si], st.Unit), percent(e.Total[si], total), name)
	}
	return bw.Flush()
}

// belowFraction reports whether v is hidden by a node fraction: smaller in
// magnitude than frac of total, or zero while any fraction is set.
func belowFraction(v, total int64, frac float64) bool {
	if frac <= 0 {
		return false
	}
	return v == 0 || float64(abs(v)) < frac*float64(abs(total))
}

func cmpDesc(a, b int64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

func abs(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
