// Package cctjson defines ctdiff.cct/v1, the JSON form of a calling-context
// tree that `ctdiff cct --format json` writes and the "cct" input format
// reads back, so a tree saved by one release can be diffed by another.
//
// It is a leaf package of plain types shared by report (the writer) and
// convert (the reader), which must not import each other.
//
// Layout: the nodes of the tree in depth-first pre-order, children in
// execution order, each naming its parent and children by id. A flat list
// (rather than nested objects) keeps reading and writing depth-safe: real
// stacks are far deeper than JSON decoders' nesting limits.
//
//	{"schema": "ctdiff.cct/v1",
//	 "view": "top-down",                      // or "bottom-up"
//	 "sample_types": [{"type": "cpu", "unit": "nanoseconds"}],
//	 "default_sample_type": "cpu",            // optional
//	 "period_type": {"type": "cpu", "unit": "nanoseconds"}, "period": 10000000,
//	 "duration_ns": 0, "profiles": 1,
//	 "nodes": [
//	   {"id": 0, "kind": "root", "function": "(root)", "parent": -1,
//	    "self": [0], "total": [30], "children": [1]},
//	   {"id": 1, "kind": "thread", "function": "main", "file": "", "ordinal": 0,
//	    "parent": 0, "self": [0], "total": [30], "children": [2]},
//	   {"id": 2, "function": "main.run", "file": "/src/main.go", "line": 12,
//	    "parent": 1, "self": [10], "total": [30], "count": 3, "children": [3]},
//	   ...]}
//
// kind is "root", "thread" or omitted for a function frame. For thread
// nodes, function is the thread name, file the process name and ordinal the
// thread's number among same-named threads. line and column are 1-based (0
// or absent when unknown); start_line, when present, says that line and
// column are where the function is defined, which is part of its identity
// (same-named functions of one script are different nodes: cct.Frame's
// StartLine); call_site is the caller's line in call-site mode;
// system_name is the raw name when it differs from function; count is the
// number of instances (calls) when known. total = self + Σ children's total.
// latency, present after `ctdiff cct --latency`, is IntroPerf's inferred
// latency of the node in nanoseconds, per mode: total = count × mean and
// own = total − Σ children's total (so own values add up to the root's total).
//
// The "cct" input format (convert/cctdump.go) reads a top-down tree back
// into a profile. Call trees of other tools, such as those of instrumented
// Java profilers (method, call site, invocation count, total and self time
// per node, the metrics PARCS compares), can be written in this schema to
// be diffed; convert/cctdump.go documents how their fields map onto it.
package cctjson

// Schema is the value of Tree.Schema.
const Schema = "ctdiff.cct/v1"

// A Tree is the document.
type Tree struct {
	Schema            string      `json:"schema"`
	View              string      `json:"view"`
	SampleTypes       []ValueType `json:"sample_types"`
	DefaultSampleType string      `json:"default_sample_type,omitempty"`
	PeriodType        *ValueType  `json:"period_type,omitempty"`
	Period            int64       `json:"period,omitempty"`
	DurationNanos     int64       `json:"duration_ns,omitempty"`
	Profiles          int         `json:"profiles,omitempty"`
	Nodes             []Node      `json:"nodes"`
}

// A ValueType is a pprof sample type.
type ValueType struct {
	Type string `json:"type"`
	Unit string `json:"unit"`
}

// A Node is one calling context.
type Node struct {
	ID         int32    `json:"id"`
	Kind       string   `json:"kind,omitempty"`
	Function   string   `json:"function"`
	File       string   `json:"file,omitempty"`
	Line       int64    `json:"line,omitempty"`
	Column     int64    `json:"column,omitempty"`
	StartLine  int64    `json:"start_line,omitempty"`
	CallSite   int64    `json:"call_site,omitempty"`
	Ordinal    int32    `json:"ordinal,omitempty"`
	SystemName string   `json:"system_name,omitempty"`
	Parent     int32    `json:"parent"`
	Self       []int64  `json:"self"`
	Total      []int64  `json:"total"`
	Count      int64    `json:"count,omitempty"`
	Children   []int32  `json:"children,omitempty"`
	Latency    *Latency `json:"latency,omitempty"`
}

// Latency is a node's inferred latency (IntroPerf's PA-CCT), in nanoseconds.
type Latency struct {
	Conservative Estimate `json:"conservative"`
	Aggressive   Estimate `json:"aggressive"`
}

// An Estimate is a node's total and own latency in one mode.
type Estimate struct {
	Total int64 `json:"total"`
	Own   int64 `json:"own"`
}
