package report

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"slices"

	"github.com/ctdiff/ctdiff/diff"
)

// MaxDiffJSONSize bounds what ReadDiffJSON reads, which it holds in memory
// whole. A ctdiff.diff/v1 result lists the critical graph, causes and
// ranked paths, never whole trees, but the critical graph of two
// single-run profiles can hold a quarter of their nodes: the 200,000-stack
// pair of bench/run.sh (a million nodes a side) writes 240 MB.
const MaxDiffJSONSize = 1 << 30

// A DiffJSONSizeError says a diff result is larger than ReadDiffJSON reads
// (Limit bytes, MaxDiffJSONSize).
type DiffJSONSizeError struct {
	Name  string
	Limit int
}

func (e *DiffJSONSizeError) Error() string {
	return fmt.Sprintf("%s: larger than %d MiB, the most ctdiff reads of a diff result", e.Name, e.Limit>>20)
}

// ReadDiffJSON reads a comparison written by writeDiffJSON (ctdiff diff
// --format json). name labels errors. It accepts the schema ctdiff.diff/v1
// only, and fields it does not know (v1 may gain fields). The
// Result has what the JSON holds, which is all but the matched tree
// (Result.Tree) and the benchmark verdict; p-values and confidence bounds
// have the three significant digits the JSON keeps.
// A result larger than MaxDiffJSONSize is a *DiffJSONSizeError.
func ReadDiffJSON(r io.Reader, name string) (*diff.Result, error) {
	return readDiffJSON(r, name, MaxDiffJSONSize)
}

// readDiffJSON is ReadDiffJSON with a size limit of limit bytes, which
// tests lower.
func readDiffJSON(r io.Reader, name string, limit int) (*diff.Result, error) {
	data, err := readSized(r, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > limit {
		return nil, &DiffJSONSizeError{Name: name, Limit: limit}
	}
	// One pass over the data (diff_json_read_fast.go), and encoding/json
	// only for what that leaves: an error, which it names, or a rare
	// construct. The schema is checked after the data is decoded, and
	// again when decoding fails, so another schema's result is named as
	// such rather than by a field whose type differs; probing it first
	// cost a second decoding of the whole input (238 MB: 1.3 s of CPU).
	var in diffJSON
	if err := fastUnmarshal(data, &in); err != nil {
		in = diffJSON{}
		if err := json.Unmarshal(data, &in); err != nil {
			if serr := schemaError(data, name); serr != nil {
				return nil, serr
			}
			return nil, jsonError(name, data, err)
		}
	}
	if in.Schema != DiffSchema && in.Schema != DiffSchemaV1 {
		if err := schemaError(data, name); err != nil {
			return nil, err
		}
	}
	res, err := resultOf(&in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return res, nil
}

// schemaError says why data is not a ctdiff.diff/v1 result when its
// "schema" field is missing or another; it is nil when the schema is
// ctdiff.diff/v1 or data is not a JSON object with a string "schema" (the
// caller's error says what is wrong then). It decodes data again, so it
// runs only when reading has failed or found no v1 schema.
func schemaError(data []byte, name string) error {
	var probe struct {
		Schema *string `json:"schema"`
	}
	switch err := json.Unmarshal(data, &probe); {
	case err != nil:
		return nil
	case probe.Schema == nil:
		return fmt.Errorf(`%s: no "schema" field: not a ctdiff diff result (ctdiff diff --format json writes %s)`, name, DiffSchema)
	case *probe.Schema != DiffSchema && *probe.Schema != DiffSchemaV1:
		return fmt.Errorf("%s: schema %q, expected %s: this ctdiff reads %s and %s results (ctdiff diff --format json)", name, *probe.Schema, DiffSchema, DiffSchema, DiffSchemaV1)
	}
	return nil
}

// readSized reads r to its end, or to limit+1 bytes. A reader that knows
// how much it holds (a file, through Stat; a bytes or strings Reader,
// through Len) is read into one buffer of that size, plus the byte that
// sees the end: io.ReadAll grows its buffer from 512 bytes, copying a
// 238 MB result about 40 times and leaving a buffer of up to 1.25 times
// its size. A reader that holds more than it said is still read whole.
func readSized(r io.Reader, limit int) ([]byte, error) {
	size := int64(512)
	switch s := r.(type) {
	case interface{ Stat() (fs.FileInfo, error) }:
		if fi, err := s.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
			if sk, ok := r.(io.Seeker); ok {
				if off, err := sk.Seek(0, io.SeekCurrent); err == nil {
					size -= off
				}
			}
		}
	case interface{ Len() int }:
		size = int64(s.Len())
	}
	buf := make([]byte, 0, min(max(size, 0), int64(limit))+1)
	for len(buf) <= limit {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, min(cap(buf), limit+1-len(buf)))
		}
		n, err := r.Read(buf[len(buf):min(cap(buf), limit+1)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
	return buf, nil
}

// jsonError names the line and column of a syntax or type error.
func jsonError(name string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		// Offset counts the bytes read, the offending one included.
		off := syn.Offset
		if off < int64(len(data)) {
			off--
		}
		return fmt.Errorf("%s:%s: invalid JSON: %v", name, lineCol(data, off), syn)
	case errors.As(err, &typ):
		// Offset is where the value ends.
		return fmt.Errorf("%s:%s: field %q: expected %s, found %s", name, lineCol(data, typ.Offset), typ.Field, typ.Type, typ.Value)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// lineCol renders a byte offset as "line:column" (1-based, column in bytes).
func lineCol(data []byte, off int64) string {
	off = min(max(off, 0), int64(len(data)))
	head := data[:off]
	line := bytes.Count(head, []byte{'\n'}) + 1
	col := off - int64(bytes.LastIndexByte(head, '\n'))
	return fmt.Sprintf("%d:%d", line, col)
}

func resultOf(in *diffJSON) (*diff.Result, error) {
	if in.Unit == "" {
		return nil, errors.New(`"unit" is empty`)
	}
	res := &diff.Result{
		Metric: in.Metric, Unit: in.Unit, MinDelta: in.MinDelta, MinDeltaSpec: in.MinDeltaSpec,
		Aggregate: diff.Aggregate(in.Aggregate), Match: diff.Matching(in.Match), Alpha: in.Alpha,
		Base: sideOf(in.Base), New: sideOf(in.New),
		Causes: []diff.Cause{}, Graph: []diff.GraphNode{}, RankedPaths: []diff.RankedPath{},
		CriticalGraphNodes: in.CriticalGraphNodes, TreeNodes: in.TreeNodes,
		Topology: diff.Topology{
			Added: subtreesOf(in.Topology.Added), Removed: subtreesOf(in.Topology.Removed),
			AddedCount: in.Topology.AddedCount, RemovedCount: in.Topology.RemovedCount,
		},
		WeightMatching: diff.WeightMatching{Nodes: []diff.WeightDiff{}, Adjusted: in.WeightMatching.AdjustedPercent, Reached: in.WeightMatching.Reached},
		Matchers: diff.MatcherCounts{
			LCS: in.Matchers.LCS, Alternate: in.Matchers.Alternate, Fallback: in.Matchers.Fallback, Residual: in.Matchers.Residual,
			Renamed: in.Matchers.Renamed, Relaxed: in.Matchers.Relaxed, Strict: in.Matchers.Strict,
		},
		Warnings:      append([]string{}, in.Warnings...),
		Normalization: normalizationFrom(in.Normalization),
		GoRuntime:     goRuntimeFrom(in.GoRuntime),
		Filters:       filtersFrom(in.Filters),
		Functions:     functionsFrom(in.Functions),
	}
	ov := in.Overlap
	res.Overlap = diff.Overlap{Percent: ov.Percent, CommonTree: ov.CommonTreePercent, StrictCommonTree: ov.StrictCommonTreePercent, Score: ov.Score, Pairs: ov.Pairs}
	if ov.NoiseFloorPercent != nil {
		nf := *ov.NoiseFloorPercent
		res.Overlap.NoiseFloor = &nf
	}
	for i, g := range in.CriticalGraph {
		if g.Parent < -1 || g.Parent >= i {
			return nil, fmt.Errorf("critical_graph[%d]: parent %d, expected -1 or an earlier node's index", i, g.Parent)
		}
		kind, err := kindOf(g.Kind, g.IsThread)
		if err != nil {
			return nil, fmt.Errorf("critical_graph[%d]: %w", i, err)
		}
		res.Graph = append(res.Graph, diff.GraphNode{
			Parent: g.Parent, Thread: g.Thread, Frame: diff.Frame{Function: g.Function, File: g.File, Line: g.Line, Column: g.Column}, IsThread: g.IsThread,
			Kind: kind, Base: g.Base, New: g.New, Delta: g.Delta, Cause: g.Cause, Context: g.Context, Stats: testFrom(g.Stats),
		})
	}
	causes := graphCauses(res.Graph)
	for i, c := range in.Causes {
		kind, err := kindOf(c.Kind, false)
		if err != nil {
			return nil, fmt.Errorf("causes[%d]: %w", i, err)
		}
		if kind == "" {
			return nil, fmt.Errorf(`causes[%d]: "kind" is empty, expected regressed or added`, i)
		}
		cause := diff.Cause{Thread: c.Thread, Path: framesOf(c.Path), Kind: kind, Base: c.Base, New: c.New, Delta: c.Delta, Stats: testFrom(c.Stats), Spread: spreadFrom(c.Spread), Blame: blameFrom(c)}
		cause.Node = causeNode(res.Graph, causes, cause)
		res.Causes = append(res.Causes, cause)
	}
	res.Untested = []diff.Cause{}
	for i, c := range in.Untested {
		kind, err := kindOf(c.Kind, false)
		if err != nil || kind == "" {
			return nil, fmt.Errorf(`untested[%d]: "kind" %q, expected regressed or added`, i, c.Kind)
		}
		res.Untested = append(res.Untested, diff.Cause{Thread: c.Thread, Path: framesOf(c.Path), Kind: kind, Base: c.Base, New: c.New, Delta: c.Delta, Stats: testFrom(c.Stats), Node: -1, Blame: blameFrom(c)})
	}
	res.Improvements = []diff.Cause{}
	for i, c := range in.Improvements {
		kind := diff.Kind(c.Kind)
		if kind != diff.Improved && kind != diff.Removed {
			return nil, fmt.Errorf(`improvements[%d]: "kind" %q, expected improved or removed`, i, c.Kind)
		}
		res.Improvements = append(res.Improvements, diff.Cause{Thread: c.Thread, Path: framesOf(c.Path), Kind: kind, Base: c.Base, New: c.New, Delta: c.Delta,
			Stats: testFrom(c.Stats), Spread: spreadFrom(c.Spread), Node: -1, Blame: blameFrom(c)})
	}
	res.Outcome = diff.Outcome{Status: diff.StatusOf(res)}
	res.Shared = 1 // v1 results do not say
	if v := in.Verdict; v != nil {
		st := diff.Status(v.Status)
		switch st {
		case diff.StatusRegressed, diff.StatusImproved, diff.StatusUnchanged, diff.StatusInconclusive:
		default:
			return nil, fmt.Errorf(`verdict: "status" %q, expected regressed, improved, unchanged or inconclusive`, v.Status)
		}
		res.Outcome = diff.Outcome{Status: st, Detectable: v.Detectable, Runs: v.RunsNeeded, Swapped: v.SidesSwapped}
		res.Shared = v.SharedPercent / 100
	}
	for _, p := range in.RankedPaths {
		rp := diff.RankedPath{Rank: p.Rank, Thread: p.Thread, Cost: p.Cost, Path: make([]diff.PathNode, len(p.Path))}
		for i, n := range p.Path {
			rp.Path[i] = diff.PathNode{Frame: diff.Frame{Function: n.Function, File: n.File, Line: n.Line, Column: n.Column}, Cost: n.Cost, Rank: n.Rank}
		}
		res.RankedPaths = append(res.RankedPaths, rp)
	}
	for _, d := range in.WeightMatching.Nodes {
		res.WeightMatching.Nodes = append(res.WeightMatching.Nodes, diff.WeightDiff{
			Thread: d.Thread, Path: framesOf(d.Path), Base: d.BasePercent, New: d.NewPercent, Diff: d.DiffPoints,
		})
	}
	return res, nil
}

// blameFrom reads a cause's blame, nil when it has none (and in results
// written before causes had one).
func blameFrom(c causeJSON) *diff.Blame {
	if c.Blame == nil {
		return nil
	}
	b := &diff.Blame{Frame: frameOf(*c.Blame)}
	if bd := c.Breakdown; bd != nil {
		b.Base, b.New, b.Delta = bd.Base, bd.New, bd.Delta
		for _, s := range bd.Calls {
			b.Breakdown = append(b.Breakdown, diff.Step{Frame: frameOf(s.frameJSON), Base: s.Base, New: s.New, Delta: s.Delta})
		}
	}
	if a := c.Attribution; a != nil {
		b.By, b.Work = a.By, a.Work
		for _, s := range a.Also {
			b.Also = append(b.Also, diff.Charge{Frame: frameOf(s.frameJSON), Base: s.Base, New: s.New, Delta: s.Delta})
		}
	}
	return b
}

func frameOf(f frameJSON) diff.Frame {
	return diff.Frame{Function: f.Function, File: f.File, Line: f.Line, Column: f.Column}
}

// kindOf checks a cause or graph node kind; thread nodes may have none.
func kindOf(s string, thread bool) (diff.Kind, error) {
	switch k := diff.Kind(s); k {
	case diff.Regressed, diff.Added:
		return k, nil
	case "":
		if thread {
			return "", nil
		}
	}
	return "", fmt.Errorf(`"kind" %q, expected regressed or added`, s)
}

// graphCauses indexes the cause nodes of the critical graph by a hash of
// their thread and root-first path, computed from the parent's hash, so
// read causes can point into Graph again in time linear in the graph.
func graphCauses(g []diff.GraphNode) map[uint64][]int {
	h := make([]uint64, len(g))
	out := map[uint64][]int{}
	for i, n := range g {
		switch {
		case n.IsThread:
			h[i] = threadHash(n.Thread)
		case n.Parent < 0:
			h[i] = frameHash(threadHash(n.Thread), n.Frame)
		default:
			h[i] = frameHash(h[n.Parent], n.Frame)
		}
		if n.Cause {
			out[h[i]] = append(out[h[i]], i)
		}
	}
	return out
}

// causeNode finds the graph node of a cause: one with the cause's hash
// whose path and thread are the cause's.
func causeNode(g []diff.GraphNode, index map[uint64][]int, c diff.Cause) int {
	k := threadHash(c.Thread)
	for _, f := range c.Path {
		k = frameHash(k, f)
	}
next:
	for _, cand := range index[k] {
		x := cand
		for i := len(c.Path) - 1; i >= 0; i-- {
			if x < 0 || g[x].IsThread || g[x].Frame != c.Path[i] {
				continue next
			}
			x = g[x].Parent
		}
		// Above the path: the cause's thread node, or nothing.
		if x < 0 && g[cand].Thread == c.Thread || x >= 0 && g[x].IsThread && g[x].Thread == c.Thread {
			return cand
		}
	}
	return -1
}

func threadHash(thread string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(thread))
	return h.Sum64()
}

func frameHash(parent uint64, f diff.Frame) uint64 {
	h := fnv.New64a()
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], parent)
	h.Write(b[:])
	h.Write([]byte(f.Function))
	h.Write([]byte{0})
	h.Write([]byte(f.File))
	binary.LittleEndian.PutUint64(b[:], uint64(uint32(f.Line))<<32|uint64(uint32(f.Column)))
	h.Write(b[:])
	return h.Sum64()
}

func sideOf(s sideJSON) diff.Side {
	return diff.Side{Profiles: append([]string{}, s.Profiles...), Runs: s.Runs, Total: s.Total, Totals: append([]int64{}, s.Totals...), Idle: s.Idle}
}

func framesOf(p []frameJSON) []diff.Frame {
	out := make([]diff.Frame, len(p))
	for i, f := range p {
		out[i] = diff.Frame{Function: f.Function, File: f.File, Line: f.Line, Column: f.Column}
	}
	return out
}

func subtreesOf(list []subtreeJSON) []diff.Subtree {
	out := make([]diff.Subtree, len(list))
	for i, s := range list {
		out[i] = diff.Subtree{Thread: s.Thread, Path: framesOf(s.Path), Nodes: s.Nodes, Weight: s.Weight}
	}
	return out
}

func testFrom(t *testJSON) *diff.Test {
	if t == nil {
		return nil
	}
	return &diff.Test{Name: t.Test, Of: t.Of, P: t.P, Q: t.PAdjusted, Low: t.CILow, High: t.CIHigh, SelfBase: t.SelfBase, SelfNew: t.SelfNew}
}

func spreadFrom(s *spreadJSON) *diff.Spread {
	if s == nil {
		return nil
	}
	out := &diff.Spread{
		Function: diff.Frame{Function: s.Function.Function, File: s.Function.File},
		Callers:  framesOf(s.Callers), Contexts: []diff.SpreadContext{},
		ContextCount: s.ContextCount, Grew: s.Grew, Threads: s.Threads,
	}
	for _, c := range s.Contexts {
		out.Contexts = append(out.Contexts, diff.SpreadContext{Thread: c.Thread, Path: framesOf(c.Path), Base: c.Base, New: c.New, Delta: c.Delta})
	}
	return out
}

func normalizationFrom(n normalizationJSON) diff.Normalization {
	return diff.Normalization{
		Mode: diff.NormalizeMode(n.Mode), Func: n.Function, Matched: n.Matched, Auto: n.Auto, Reason: n.Reason,
		Per: n.Per, Scale: n.Scale, CountSource: n.CountSource, BaseCounts: n.BaseCounts, NewCounts: n.NewCounts,
		RawUnit: n.RawUnit, RawBase: n.RawBaseTotal, RawNew: n.RawNewTotal, FixedDuration: n.FixedDuration,
		BaseDurations: n.BaseDurations, NewDurations: n.NewDurations,
	}
}

func goRuntimeFrom(g *goRuntimeJSON) *diff.GoRuntime {
	if g == nil {
		return nil
	}
	c := func(c changeJSON) diff.Change { return diff.Change{Base: c.Base, New: c.New, Delta: c.Delta} }
	out := &diff.GoRuntime{BackgroundGC: c(g.BackgroundGC), Allocation: c(g.Allocation)}
	for _, a := range g.Allocators {
		out.Allocators = append(out.Allocators, diff.Allocator{Frame: diff.Frame{Function: a.Function, File: a.File}, Change: c(a.changeJSON)})
	}
	return out
}
