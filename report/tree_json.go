package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/cctjson"
)

// writeTreeJSON writes a tree as ctdiff.cct/v1 (see package cctjson): all
// nodes, in pre-order, children in execution order. Nodes are encoded one at
// a time, so memory stays flat however large the tree is.
func writeTreeJSON(w io.Writer, t *cct.Tree, o TreeOptions) error {
	bw := bufio.NewWriter(w)
	view := o.View
	if view == "" {
		view = "top-down"
	}
	head := cctjson.Tree{
		Schema:            cctjson.Schema,
		View:              view,
		DefaultSampleType: t.DefaultSampleType,
		Period:            t.Period,
		DurationNanos:     t.DurationNanos,
		Profiles:          t.Profiles,
	}
	for _, st := range t.SampleTypes {
		head.SampleTypes = append(head.SampleTypes, cctjson.ValueType{Type: st.Type, Unit: st.Unit})
	}
	if t.PeriodType != (cct.ValueType{}) {
		head.PeriodType = &cctjson.ValueType{Type: t.PeriodType.Type, Unit: t.PeriodType.Unit}
	}
	b, err := json.Marshal(head)
	if err != nil {
		return err
	}
	// Splice the nodes into the header object in place of its "nodes":null.
	const empty = `"nodes":null}`
	if len(b) < len(empty) || string(b[len(b)-len(empty):]) != empty {
		return fmt.Errorf("internal error: unexpected header encoding %s", b)
	}
	bw.Write(b[:len(b)-len(empty)])
	bw.WriteString("\"nodes\":[\n")
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for i, id := range t.PreOrder() {
		if i > 0 {
			bw.WriteString(",")
		}
		if err := enc.Encode(jsonNode(t, id)); err != nil {
			return err
		}
	}
	bw.WriteString("]}\n")
	return bw.Flush()
}

func jsonNode(t *cct.Tree, id cct.NodeID) cctjson.Node {
	n := t.Node(id)
	f := t.Frames[n.Frame]
	info := t.FrameInfo[n.Frame]
	out := cctjson.Node{
		ID:         int32(id),
		Function:   f.Function,
		File:       f.File,
		Line:       info.Line,
		Column:     info.Column,
		StartLine:  f.StartLine,
		CallSite:   f.CallSite,
		Ordinal:    f.Ordinal,
		SystemName: info.SystemName,
		Parent:     int32(n.Parent),
		Self:       t.Self(id),
		Total:      t.Total(id),
		Count:      t.Count(id),
	}
	if t.Latency != nil {
		nl := &t.Latency.Nodes[id]
		out.Latency = &cctjson.Latency{
			Conservative: cctjson.Estimate{Total: nl.Conservative.Total, Own: nl.Conservative.Own},
			Aggressive:   cctjson.Estimate{Total: nl.Aggressive.Total, Own: nl.Aggressive.Own},
		}
	}
	switch f.Kind {
	case cct.KindRoot:
		out.Kind = "root"
	case cct.KindThread:
		out.Kind = "thread"
		out.Function, out.File = f.Thread, f.Process // the schema's names for them
	}
	if kids := t.Children(id); len(kids) > 0 {
		out.Children = make([]int32, len(kids))
		for i, c := range kids {
			out.Children[i] = int32(c)
		}
	}
	return out
}
