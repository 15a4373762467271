package report

import (
	"fmt"
	"io"
	"math"

	"github.com/ctdiff/ctdiff/cct"
)

// The latency columns of the text tree, for a tree with inferred latencies
// (cct.Tree.Latency): per node IntroPerf's C, the mean instance latency μ,
// the total C × μ and the own (normalized) latency, in o.LatencyMode.

// writeLatencyHeader says how the latencies were inferred.
func writeLatencyHeader(w io.Writer, t *cct.Tree, o TreeOptions) {
	lat := t.Latency
	if lat == nil {
		return
	}
	fmt.Fprintf(w, "Latency: %s, inferred from stack continuity (IntroPerf): %d instances from %d timestamped samples; ",
		o.LatencyMode, lat.InstanceCount, lat.Samples)
	switch {
	case lat.Gap > 0:
		fmt.Fprintf(w, "instances end after %s without a sample (%d gaps", FormatValue(lat.Gap, "nanoseconds"), lat.Gaps)
		if lat.Interval > 0 {
			fmt.Fprintf(w, "; sampling interval %s", FormatValue(lat.Interval, "nanoseconds"))
		}
		fmt.Fprintln(w, ")")
	default:
		fmt.Fprintln(w, "gap detection off")
	}
	root := lat.Nodes[cct.RootID].Of(o.LatencyMode)
	fmt.Fprintf(w, "Latency total %s; own latencies add up to it\n", FormatValue(root.Total, "nanoseconds"))
}

// latencyHeading returns the headings of the latency columns, or "".
func latencyHeading(t *cct.Tree) string {
	if t.Latency == nil {
		return ""
	}
	return fmt.Sprintf(" %8s %10s %10s %10s", "calls", "mean", "latency", "own")
}

// latencyColumns returns a node's latency columns, or "".
func latencyColumns(t *cct.Tree, id cct.NodeID, o TreeOptions) string {
	if t.Latency == nil {
		return ""
	}
	nl := &t.Latency.Nodes[id]
	e := nl.Of(o.LatencyMode)
	mean := "-"
	if nl.Count > 0 {
		mean = FormatValue(int64(math.Round(nl.Mean(o.LatencyMode))), "nanoseconds")
	}
	return fmt.Sprintf(" %8d %10s %10s %10s", nl.Count, mean,
		FormatValue(e.Total, "nanoseconds"), FormatValue(e.Own, "nanoseconds"))
}
