package diff

import (
	"fmt"

	"github.com/ctdiff/ctdiff/cct"
)

// A Metric says which value of a node is compared. It is pluggable so that
// inferred latency (IntroPerf Section 3.3) can be compared like a sample
// type: the caller supplies functions over the tree.
type Metric struct {
	// Name is shown in reports ("cpu/nanoseconds", "latency").
	Name string
	// Unit is the unit of the values ("nanoseconds", "count", "bytes").
	Unit string
	// Total is a node's inclusive value: its own plus its descendants'.
	Total func(t *cct.Tree, id cct.NodeID) int64
	// Self is a node's own (exclusive) value. For inferred latencies this
	// is the top-down normalized own latency (IntroPerf Section 3.4.1),
	// computed on totals.
	Self func(t *cct.Tree, id cct.NodeID) int64
	// col, when not 0, says Total and Self read sample type col-1 of
	// every tree times scale (SampleMetric): foldTree reads it without
	// two calls per node. Fold.fold clears it in a caller's metric,
	// whose functions may have been replaced.
	col   int
	scale int64
}

func (m Metric) isZero() bool { return m.Total == nil && m.Self == nil }

// SampleMetric compares the sample type named name ("cpu", "cpu/nanoseconds",
// or "" for each tree's default, as cct.Tree.SampleIndex resolves it) in
// every given tree. Time types are converted to nanoseconds, so reports and
// thresholds always speak nanoseconds. The sample type must have the same
// name and unit in every tree; its position may differ. A tree without the
// type is a *SampleTypeError, a tree whose type differs from the first
// tree's a *MixedSampleTypesError.
func SampleMetric(name string, trees ...*cct.Tree) (Metric, error) {
	if len(trees) == 0 {
		return Metric{}, fmt.Errorf("no trees to resolve sample type %q in", name)
	}
	idx := make(map[*cct.Tree]int, len(trees))
	var first cct.ValueType
	firstIdx, same := 0, true
	for i, t := range trees {
		k, err := t.SampleIndex(name)
		if err != nil {
			return Metric{}, &SampleTypeError{Tree: i, Err: err}
		}
		vt := t.SampleTypes[k]
		if i == 0 {
			first, firstIdx = vt, k
		} else if vt != first {
			return Metric{}, &MixedSampleTypesError{Tree: i, Type: vt, First: first}
		}
		same = same && k == firstIdx
		idx[t] = k
	}
	scale := int64(1)
	unit := first.Unit
	if ns, ok := timeUnits[unit]; ok {
		scale, unit = ns, "nanoseconds"
	}
	m := Metric{Name: first.String(), Unit: unit}
	if same {
		k := firstIdx
		m.Total = func(t *cct.Tree, id cct.NodeID) int64 { return t.Total(id)[k] * scale }
		m.Self = func(t *cct.Tree, id cct.NodeID) int64 { return t.Self(id)[k] * scale }
		m.col, m.scale = k+1, scale
		return m, nil
	}
	// Positions differ between trees: look the index up per tree. Compare
	// calls these once per node, so the map lookup is not in any inner loop.
	m.Total = func(t *cct.Tree, id cct.NodeID) int64 { return t.Total(id)[idx[t]] * scale }
	m.Self = func(t *cct.Tree, id cct.NodeID) int64 { return t.Self(id)[idx[t]] * scale }
	return m, nil
}

// LatencyMetric compares IntroPerf's inferred function latencies (Section
// 3.3) instead of a sample type: inclusive latency totals (calls × mean
// latency) and their top-down normalized own parts (Section 3.4.1). Every
// tree must have been annotated with cct.Tree.InferLatency; nodes of a tree
// without latencies count 0. aggressive picks the aggressive estimate (an
// instance lasts until the next sample of another context) over the
// conservative one (until its last sample).
func LatencyMetric(aggressive bool) Metric {
	name := "latency/conservative"
	if aggressive {
		name = "latency/aggressive"
	}
	return Metric{
		Name:  name,
		Unit:  "nanoseconds",
		Total: func(t *cct.Tree, id cct.NodeID) int64 { return t.LatencyTotal(id, aggressive) },
		Self:  func(t *cct.Tree, id cct.NodeID) int64 { return t.LatencyOwn(id, aggressive) },
	}
}
