package report

import (
	"bufio"
	"bytes"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/internal/selectk"
)

// The page's template, style and script, embedded so the report is one
// self-contained file that needs no network.
//
//go:embed html/report.html.tmpl html/report.css html/report.js
var htmlFiles embed.FS

var htmlPage = template.Must(template.New("report.html.tmpl").ParseFS(htmlFiles, "html/report.html.tmpl"))

// diffHTMLOptions control the HTML report.
type diffHTMLOptions struct {
	// MinShare leaves out of the flame graph the calling contexts whose
	// base and new values are both below this share of the larger side's
	// total (0 means 1/5000, a tenth of a pixel at 2,000 pixels); causes
	// and their ancestors always stay.
	MinShare float64
	// MaxNodes caps the flame graph's nodes (0 means 50,000), so the page
	// of a 1.5-million-node comparison stays quick: the largest are kept.
	MaxNodes int
	// MaxCauses caps the causes listed, the largest first (0 means 100).
	MaxCauses int
}

// writeDiffHTML writes a comparison as one self-contained HTML page: the
// summary and causes, IntroPerf's ranked-path heat map (Figure 7: one row
// per path, one cell per function, coloured by the function's own delta,
// numbered by the distance from the path's costliest function), and a
// differential icicle graph of the matched tree (Result.Tree, from
// Options.Tree) sized by the new runs and coloured by delta, which zooms on
// click and searches by name.
//
// Names from profiles are untrusted: the page's HTML is produced by
// html/template, which escapes them, the graph's data is JSON with <, >, &
// and U+2028/9 escaped inside a non-executable script element, and the
// script sets names only as text, never as markup.
func writeDiffHTML(w io.Writer, res *diff.Result, o diffHTMLOptions) error {
	if len(res.Tree) == 0 {
		return errors.New("the HTML report needs the matched tree: compare with diff.Options{Tree: true}")
	}
	if o.MinShare <= 0 {
		o.MinShare = 1.0 / 5000
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = 50000
	}
	if o.MaxCauses <= 0 {
		o.MaxCauses = 100
	}
	page, data, err := htmlModel(res, o)
	if err != nil {
		return err
	}
	page, data = textNamesIn(page), textNamesIn(data)
	// The graph's data is most of the page (12 MB for 300,000 contexts):
	// the template writes a placeholder for it, and the data is written
	// in its place as it is encoded, rather than encoded into a string that
	// the template copies.
	var head bytes.Buffer
	if err := htmlPage.Execute(&head, page); err != nil {
		return err
	}
	before, after, ok := bytes.Cut(head.Bytes(), []byte(htmlDataMarker))
	if !ok || bytes.Contains(after, []byte(htmlDataMarker)) {
		return errors.New("internal error: the HTML report's data placeholder is not in the page once")
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	if _, err := bw.Write(before); err != nil {
		return err
	}
	if err := writeHTMLData(bw, data); err != nil {
		return err
	}
	if _, err := bw.Write(after); err != nil {
		return err
	}
	return bw.Flush()
}

// htmlDataMarker stands for the graph's data in the executed template. No
// name from a profile can make it: html/template escapes '<' in every
// context (as &lt;, \u003c or %3c).
const htmlDataMarker = "<ctdiff-data-placeholder>"

// htmlReport is what the template shows.
type htmlReport struct {
	Title   string
	Verdict string
	// VerdictClass is "bad" for a regression, "good" for none, "warn" when
	// a side has one run and nothing was tested (untested).
	VerdictClass      string
	Metric            string
	BaseRuns, NewRuns string
	Base, New         []string // input paths
	// BaseTotal, NewTotal and Change are empty when the normalization
	// makes the totals equal (equalTotals).
	BaseTotal     string
	NewTotal      string
	Change        string
	Method        string
	Filters       string // filtersText
	Normalization string
	MinDelta      string
	Similarity    string
	Graph         string
	Causes        []htmlCauseRow
	MoreCauses    string
	// Untested are Result.Untested, and UntestedWhy says why no test
	// could judge them.
	Untested    []htmlCauseRow
	UntestedWhy string
	HeatMap     []htmlHeatRow
	HeatDepth   []int
	// Warnings are shown at the top, under the verdict.
	Warnings []string
	// AddedNote says which added and removed subtrees the icicle graph
	// marks when Topology lists fewer than it counts.
	AddedNote string
	CSS       template.CSS
	JS        template.JS
	// Data is htmlDataMarker, which writeDiffHTML replaces by the graph's
	// data (writeHTMLData).
	Data template.JS
}

type htmlCauseRow struct {
	N int
	// Name is the short name (frameName), Function the full one.
	Name, Function, File, Thread string
	Delta, Base, New             string
	Kind                         string
	CI, P                        string
	Path                         []string
	Frames                       string // "3 frames"
	Node                         int
	// Tested says what the test judged when not the inclusive value
	// ("self time", "the function's total"); Spread summarizes a spread
	// cause's contexts (spreadSummary).
	Tested, Spread string
}

type htmlHeatRow struct {
	Rank         int
	Cost, Thread string
	// HotCost is the costliest function's own delta.
	HotCost string
	Cells   []htmlHeatCell
	// Names are the short names of the cells from the costliest
	// function's caller down, with the cells' colours, so a row reads
	// without hovering.
	Names []htmlHeatName
	// Pad is the number of empty columns after the cells.
	Pad  int
	Node int
}

type htmlHeatCell struct {
	Distance int
	Color    string
	Title    tooltip
	Hot      bool
}

// htmlHeatName is one name of a heat-map row's path, or with Gap set the
// "…" that stands for the frames left out.
type htmlHeatName struct {
	Name, Color string
	Title       tooltip
	Hot, Gap    bool
}

// htmlData is the JSON the script draws the icicle graph from: the kept
// nodes in columns (parents before children), frames interned.
type htmlData struct {
	Unit string `json:"unit"`
	// Frames are [function, file, short name (frameName)].
	Frames [][3]string `json:"frames"`
	Parent []int32     `json:"parent"`
	Frame  []int32     `json:"frame"`
	// Kind is 0 for the root, 1 for threads, 2 for functions.
	Kind     []int8  `json:"kind"` // not []uint8, which JSON writes as base64
	Base     []int64 `json:"base"`
	New      []int64 `json:"new"`
	BaseSelf []int64 `json:"baseSelf"`
	NewSelf  []int64 `json:"newSelf"`
	// Side is 1 in the subtrees added in every run pair, -1 in those
	// removed in every run pair (Topology, as the text report counts
	// them), else 0.
	Side  []int8  `json:"side"`
	Cause []int32 `json:"cause"`
	// Leaf is 1 for the leaves of the critical graph: the causes and the
	// contexts a spread cause folds (Cause numbers its first only), which
	// the script paints as causes.
	Leaf []int8 `json:"leaf"`
	// Runs are the runs per side, for "in 2 of 3 runs".
	BaseRuns  []int32 `json:"baseRuns"`
	NewRuns   []int32 `json:"newRuns"`
	RunsTotal [2]int  `json:"runsTotal"`
	// Pruned counts the contexts left out.
	Pruned int `json:"pruned"`
	// MinDelta is μ, in Unit: the script paints a change below it faintly
	// (report.js, color).
	MinDelta int64 `json:"minDelta"`
}

// writeHTMLData writes d as json.Marshal does (with <, > and & escaped, so
// no name can close the script element or open a comment), without the
// whole encoding in memory.
func writeHTMLData(w io.Writer, d *htmlData) error {
	e := &htmlDataWriter{w: w, buf: make([]byte, 0, jsonFlushSize+4<<10)}
	e.buf = append(e.buf, `{"unit":`...)
	e.buf = appendJSONString(e.buf, d.Unit, true)
	e.buf = append(e.buf, `,"frames":`...)
	if d.Frames == nil {
		e.buf = append(e.buf, "null"...)
	} else {
		e.buf = append(e.buf, '[')
		for i, f := range d.Frames {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.buf = append(e.buf, '[')
			for j, s := range f {
				if j > 0 {
					e.buf = append(e.buf, ',')
				}
				e.buf = appendJSONString(e.buf, s, true)
			}
			e.buf = append(e.buf, ']')
			e.check()
		}
		e.buf = append(e.buf, ']')
	}
	htmlInts(e, "parent", d.Parent)
	htmlInts(e, "frame", d.Frame)
	htmlInts(e, "kind", d.Kind)
	htmlInts(e, "base", d.Base)
	htmlInts(e, "new", d.New)
	htmlInts(e, "baseSelf", d.BaseSelf)
	htmlInts(e, "newSelf", d.NewSelf)
	htmlInts(e, "side", d.Side)
	htmlInts(e, "cause", d.Cause)
	htmlInts(e, "leaf", d.Leaf)
	htmlInts(e, "baseRuns", d.BaseRuns)
	htmlInts(e, "newRuns", d.NewRuns)
	htmlInts(e, "runsTotal", []int64{int64(d.RunsTotal[0]), int64(d.RunsTotal[1])})
	e.buf = append(e.buf, `,"pruned":`...)
	e.buf = strconv.AppendInt(e.buf, int64(d.Pruned), 10)
	e.buf = append(e.buf, `,"minDelta":`...)
	e.buf = strconv.AppendInt(e.buf, d.MinDelta, 10)
	e.buf = append(e.buf, '}')
	e.write()
	return e.err
}

// htmlDataWriter buffers writeHTMLData's output.
type htmlDataWriter struct {
	w   io.Writer
	buf []byte
	err error
}

// check writes out what is buffered once it is large.
func (e *htmlDataWriter) check() {
	if len(e.buf) >= jsonFlushSize {
		e.write()
	}
}

// write writes out the buffer, refusing markup: the strings' <, > and &
// are escaped, so none may be left; checked all the same, since a slip
// here is an XSS.
func (e *htmlDataWriter) write() {
	if e.err == nil && bytes.IndexByte(e.buf, '<') >= 0 {
		e.err = errors.New("internal error: unescaped markup in the HTML report's data")
	}
	if e.err == nil {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

// htmlInts writes the field ,"name":[x,...] (null for nil, as encoding/json).
func htmlInts[T int8 | int32 | int64](e *htmlDataWriter, name string, x []T) {
	e.buf = append(e.buf, ',', '"')
	e.buf = append(e.buf, name...)
	e.buf = append(e.buf, '"', ':')
	if x == nil {
		e.buf = append(e.buf, "null"...)
		return
	}
	e.buf = append(e.buf, '[')
	for i, v := range x {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = strconv.AppendInt(e.buf, int64(v), 10)
		if len(e.buf) >= jsonFlushSize {
			e.write()
		}
	}
	e.buf = append(e.buf, ']')
}

func htmlModel(res *diff.Result, o diffHTMLOptions) (*htmlReport, *htmlData, error) {
	u := res.Unit
	val := func(v int64) string { return FormatValue(v, u) }
	sval := func(v int64) string { return signed(FormatValue(v, u), v) }
	change := res.New.Total - res.Base.Total
	page := &htmlReport{
		Metric:   res.Metric,
		BaseRuns: runs(res.Base.Runs, "base"),
		NewRuns:  runs(res.New.Runs, "new"),
		Base:     res.Base.Profiles,
		New:      res.New.Profiles,
		MinDelta: val(res.MinDelta),
		// diff_normalize.go: how the values were scaled, and why.
		Normalization: normalizationSummary(res),
		Filters:       filtersText(res.Filters),
		Graph:         fmt.Sprintf("%d of %d nodes", res.CriticalGraphNodes, res.TreeNodes),
		Warnings:      res.Warnings,
	}
	if !equalTotals(res) {
		page.BaseTotal, page.NewTotal = val(res.Base.Total), val(res.New.Total)
		page.Change = sval(change) + " (" + signedPercent(change, res.Base.Total) + ")"
	}
	page.Method = string(res.Aggregate) + ", " + string(res.Match) + " matching"
	if res.Aggregate == diff.Stats {
		page.Method = fmt.Sprintf("stats (per-node tests, Holm α=%g), %s matching", res.Alpha, res.Match)
	}
	ov := res.Overlap
	page.Similarity = fmt.Sprintf("overlap %.2f%%", ov.Percent)
	if ov.NoiseFloor != nil {
		page.Similarity += fmt.Sprintf(" (noise floor %.2f%%)", *ov.NoiseFloor)
	}
	page.Similarity += fmt.Sprintf(", common tree %.2f%%, matching score %.2f%%", ov.CommonTree, ov.Score)
	// Causes passed the comparison's test (or ZAM's intersection of run
	// pairs); Untested grew by μ where nothing could test them (one run
	// pair under intersect, or too few contexts to model one pair's noise):
	// they are not called a regression, and the verdict says why.
	page.Verdict = capitalize(verdictLine(res, false, func(s string) string { return s })) + "."
	switch statusOf(res) {
	case diff.StatusRegressed:
		page.VerdictClass = "bad"
		page.Title = "ctdiff: " + plural(len(res.Causes), "regression cause")
	case diff.StatusInconclusive:
		page.VerdictClass = "warn"
		page.Title = "ctdiff: inconclusive"
	case diff.StatusImproved:
		page.VerdictClass = "good"
		page.Title = "ctdiff: improved"
	default:
		page.VerdictClass = "good"
		page.Title = "ctdiff: no significant change"
	}
	topo := res.Topology
	if len(topo.Added) < topo.AddedCount || len(topo.Removed) < topo.RemovedCount {
		page.AddedNote = fmt.Sprintf("(the %d largest of %d added and %d largest of %d removed subtrees)",
			len(topo.Added), topo.AddedCount, len(topo.Removed), topo.RemovedCount)
	}

	data, treeOf := htmlTree(res, o)
	graphNode := make([]int32, len(res.Graph))
	for i := range graphNode {
		graphNode[i] = -1
	}
	for x, n := range res.Tree {
		if n.Graph >= 0 {
			graphNode[n.Graph] = treeOf[x]
		}
	}
	if n := len(res.Causes) - o.MaxCauses; n > 0 {
		page.MoreCauses = fmt.Sprintf("%d more causes, each smaller, are in the text and JSON reports.", n)
		if n == 1 {
			page.MoreCauses = "1 more cause, a smaller one, is in the text and JSON reports."
		}
	}
	children := childLists(data.Parent)
	row := func(i int, c diff.Cause) htmlCauseRow {
		r := htmlCauseRow{
			N: i + 1, Name: blameLabel(c), Function: causeFunc(c), Thread: c.Thread,
			Delta: sval(c.Delta), Base: val(c.Base), New: val(c.New), Kind: string(c.Kind),
			Path: pathNames(c.Path, true), Frames: plural(len(c.Path), "frame"),
		}
		if c.Node >= 0 && graphNode[c.Node] >= 0 {
			r.Node = int(graphNode[c.Node])
		} else {
			r.Node = findPath(data, children, c.Thread, c.Path)
		}
		if n := len(c.Path); n > 0 {
			r.File = c.Path[n-1].File
		}
		if s := c.Stats; s != nil {
			r.CI = sval(s.Low) + ".." + sval(s.High)
			r.P = fmt.Sprintf("%.2g", s.Q)
			if l := testLabel(s, val); l != s.Name {
				r.Tested = strings.TrimPrefix(l, s.Name+" ")
			}
		}
		if c.Spread != nil {
			r.Spread = spreadSummary(c.Spread, false)
		}
		return r
	}
	for i, c := range res.Causes[:min(len(res.Causes), o.MaxCauses)] {
		page.Causes = append(page.Causes, row(i, c))
	}
	for i, c := range res.Untested[:min(len(res.Untested), o.MaxCauses)] {
		page.Untested = append(page.Untested, row(i, c))
	}
	if len(res.Untested) > 0 {
		page.UntestedWhy = untestedReason(res)
	}
	page.HeatMap, page.HeatDepth = heatMap(res, data, children, u)

	page.Data = htmlDataMarker
	css, err := htmlFiles.ReadFile("html/report.css")
	if err != nil {
		return nil, nil, err
	}
	script, err := htmlFiles.ReadFile("html/report.js")
	if err != nil {
		return nil, nil, err
	}
	page.CSS, page.JS = template.CSS(css), template.JS(script)
	return page, data, nil
}

// htmlTree keeps the contexts worth drawing: those reaching MinShare of the
// larger total on either side, at most MaxNodes of them (the largest), the
// causes, and the ancestors of all these. treeOf maps Result.Tree indexes to
// the kept nodes' indexes, or -1.
func htmlTree(res *diff.Result, o diffHTMLOptions) (*htmlData, []int32) {
	tr := res.Tree
	size := func(n *diff.TreeNode) float64 { return max(math.Abs(n.Base), math.Abs(n.New)) }
	limit := o.MinShare * float64(max(abs(res.Base.Total), abs(res.New.Total)))
	cut := math.Inf(-1)
	if len(tr) > o.MaxNodes {
		sizes := make([]float64, len(tr))
		for i := range tr {
			sizes[i] = size(&tr[i])
		}
		// Nodes larger than the (MaxNodes+1)th largest: at most MaxNodes,
		// and ancestors are at least as large as their descendants, so
		// few more join as ancestors.
		cut = selectk.Kth(sizes, len(sizes)-o.MaxNodes-1)
	}
	// treeOf is first 1 for the nodes kept, then their index.
	treeOf := make([]int32, len(tr))
	for i := range tr {
		n := &tr[i]
		if i == 0 || n.Graph >= 0 || size(n) >= limit && size(n) > cut {
			treeOf[i] = 1
		}
	}
	kept := 0
	for i := len(tr) - 1; i >= 0; i-- {
		if treeOf[i] == 1 {
			kept++
			if i > 0 {
				treeOf[tr[i].Parent] = 1
			}
		}
	}
	causeOf := causeNumbers(res)
	sides := topologySides(res)
	d := &htmlData{
		Unit: res.Unit, Frames: [][3]string{}, RunsTotal: [2]int{res.Base.Runs, res.New.Runs}, MinDelta: res.MinDelta,
		Parent: make([]int32, 0, kept), Frame: make([]int32, 0, kept), Kind: make([]int8, 0, kept),
		Base: make([]int64, 0, kept), New: make([]int64, 0, kept), BaseSelf: make([]int64, 0, kept), NewSelf: make([]int64, 0, kept),
		Side: make([]int8, 0, kept), Cause: make([]int32, 0, kept), Leaf: make([]int8, 0, kept), BaseRuns: make([]int32, 0, kept), NewRuns: make([]int32, 0, kept),
	}
	frames := map[diff.Frame]int32{}
	for i := range tr {
		n := &tr[i]
		if treeOf[i] == 0 {
			treeOf[i] = -1
			d.Pruned++
			continue
		}
		treeOf[i] = int32(len(d.Parent))
		par := int32(-1)
		if i > 0 {
			par = treeOf[n.Parent]
		}
		kind := int8(2)
		switch {
		case i == 0:
			kind = 0
		case n.IsThread:
			kind = 1
		}
		f, ok := frames[n.Frame]
		if !ok {
			f = int32(len(d.Frames))
			frames[n.Frame] = f
			short := n.Frame.Function // the root's and threads' labels stay as they are
			if kind == 2 {
				short = frameName(n.Frame, false)
			}
			d.Frames = append(d.Frames, [3]string{n.Frame.Function, n.Frame.File, short})
		}
		side := sides[i]
		cause, leaf := int32(0), int8(0)
		if n.Graph >= 0 {
			cause = int32(causeOf[n.Graph])
			if res.Graph[n.Graph].Cause {
				leaf = 1
			}
		}
		d.Parent = append(d.Parent, par)
		d.Frame = append(d.Frame, f)
		d.Kind = append(d.Kind, kind)
		d.Base = append(d.Base, round(n.Base))
		d.New = append(d.New, round(n.New))
		d.BaseSelf = append(d.BaseSelf, round(n.BaseSelf))
		d.NewSelf = append(d.NewSelf, round(n.NewSelf))
		d.Side = append(d.Side, side)
		d.Cause = append(d.Cause, cause)
		d.Leaf = append(d.Leaf, leaf)
		d.BaseRuns = append(d.BaseRuns, n.BaseRuns)
		d.NewRuns = append(d.NewRuns, n.NewRuns)
	}
	return d, treeOf
}

// heatMap lays out IntroPerf's Figure 7 for the ranked paths: a row per
// path (rank 1 on top), a cell per function root first, coloured by its own
// delta on a log scale over three decades (the paper colours latencies by
// log10) and numbered by its distance from the path's costliest function,
// which is 0. Each row links to the path's lowest drawn node.
func heatMap(res *diff.Result, d *htmlData, children *childIndex, unit string) ([]htmlHeatRow, []int) {
	var maxAbs int64
	depth := 0
	for _, p := range res.RankedPaths {
		depth = max(depth, len(p.Path))
		for _, n := range p.Path {
			maxAbs = max(maxAbs, abs(n.Cost))
		}
	}
	var rows []htmlHeatRow
	for _, p := range res.RankedPaths {
		row := htmlHeatRow{Rank: p.Rank, Cost: signed(FormatValue(p.Cost, unit), p.Cost), Thread: p.Thread}
		hot := 0
		for i, n := range p.Path {
			if n.Rank == 1 {
				hot = i
			}
		}
		for i, n := range p.Path {
			dist := i - hot
			row.Cells = append(row.Cells, htmlHeatCell{
				Distance: max(dist, -dist),
				Color:    logDeltaColor(n.Cost, maxAbs),
				Title:    tooltipOf(n.Function, "own "+signed(FormatValue(n.Cost, unit), n.Cost)),
				Hot:      i == hot,
			})
		}
		if len(p.Path) > 0 {
			row.HotCost = signed(FormatValue(p.Path[hot].Cost, unit), p.Path[hot].Cost)
			row.Names = heatNames(p.Path, hot, row.Cells)
		}
		frames := make([]diff.Frame, len(p.Path))
		for i, n := range p.Path {
			frames[i] = n.Frame
		}
		row.Node = findPath(d, children, p.Thread, frames)
		rows = append(rows, row)
	}
	for i := range rows {
		rows[i].Pad = depth - len(rows[i].Cells)
	}
	cols := make([]int, depth)
	for i := range cols {
		cols[i] = i + 1
	}
	return rows, cols
}

// heatMaxNames is how many names a heat-map row lists before eliding.
const heatMaxNames = 6

// heatNames names a ranked path's frames from the costliest one's caller to
// the lowest, coloured as their cells; a long tail keeps its first frames
// below the costliest and its last two, with a gap for the rest.
func heatNames(path []diff.PathNode, hot int, cells []htmlHeatCell) []htmlHeatName {
	idx := make([]int, 0, len(path))
	for i := max(hot-1, 0); i < len(path); i++ {
		idx = append(idx, i)
	}
	if len(idx) > heatMaxNames {
		idx = append(idx[:heatMaxNames-3:heatMaxNames-3], -1, idx[len(idx)-2], idx[len(idx)-1])
	}
	out := make([]htmlHeatName, 0, len(idx))
	for _, i := range idx {
		if i < 0 {
			out = append(out, htmlHeatName{Name: "…", Gap: true})
			continue
		}
		out = append(out, htmlHeatName{Name: frameName(path[i].Frame, false), Title: cells[i].Title, Color: cells[i].Color, Hot: i == hot})
	}
	return out
}

// topologySides marks the Result.Tree nodes in the subtrees that Topology
// lists: 1 under an added one, -1 under a removed one. These are what the
// text report counts as added and removed, the subtrees unmatched in every
// run pair; a context that no base run has but only some new runs do (a
// sample or two of noise) is neither. Topology names subtrees by path: the
// paths go into a trie, and one pass over the tree (parents first) follows
// it, holding only the few nodes on those paths.
func topologySides(res *diff.Result) []int8 {
	tr := res.Tree
	sides := make([]int8, len(tr))
	topo := res.Topology
	if len(topo.Added)+len(topo.Removed) == 0 || len(tr) == 0 {
		return sides
	}
	type edge struct {
		parent int32 // a trie node; 0 is the root
		frame  diff.Frame
		thread bool
	}
	trie := map[edge]int32{}
	ends := map[int32]int8{}
	step := func(from int32, e edge) int32 {
		e.parent = from
		t, ok := trie[e]
		if !ok {
			t = int32(len(trie) + 1)
			trie[e] = t
		}
		return t
	}
	for _, l := range []struct {
		list []diff.Subtree
		side int8
	}{{topo.Added, 1}, {topo.Removed, -1}} {
		for _, st := range l.list {
			t := step(0, edge{frame: diff.Frame{Function: st.Thread}, thread: true})
			for _, f := range st.Path {
				t = step(t, edge{frame: f})
			}
			ends[t] = l.side
		}
	}
	// The nodes on the paths: a bit each, and their trie nodes in a map,
	// which only they are looked up in.
	onBits := make([]uint64, (len(tr)+63)/64)
	on := map[int32]int32{0: 0}
	onBits[0] = 1
	for i := 1; i < len(tr); i++ {
		n := &tr[i]
		if p := n.Parent; onBits[p/64]&(1<<(p%64)) != 0 {
			if t, ok := trie[edge{on[p], n.Frame, n.IsThread}]; ok {
				on[int32(i)] = t
				onBits[i/64] |= 1 << (i % 64)
				sides[i] = ends[t]
			}
		}
		if sides[i] == 0 {
			sides[i] = sides[n.Parent] // a subtree's nodes inherit its mark
		}
	}
	return sides
}

// findPath returns the kept node deepest along a thread's path, following
// the first child of each name (the path came from the same tree, so only
// same-named siblings make this ambiguous, and either is a fair target).
func findPath(d *htmlData, children *childIndex, thread string, path []diff.Frame) int {
	x := int32(-1)
	for _, c := range children.of(0) {
		if d.Kind[c] == 1 && d.Frames[d.Frame[c]][0] == thread {
			x = c
			break
		}
	}
	if x < 0 {
		return 0
	}
next:
	for _, n := range path {
		for _, c := range children.of(x) {
			if f := d.Frames[d.Frame[c]]; f[0] == n.Function && f[1] == n.File {
				x = c
				continue next
			}
		}
		break
	}
	return int(x)
}

// childIndex lists each kept node's children, in order, in one array.
type childIndex struct {
	start []int32 // node x's children are child[start[x]:start[x+1]]
	child []int32
}

func childLists(parent []int32) *childIndex {
	c := &childIndex{start: make([]int32, len(parent)+1), child: make([]int32, max(len(parent)-1, 0))}
	for _, p := range parent[min(1, len(parent)):] {
		c.start[p+1]++
	}
	for x := range parent {
		c.start[x+1] += c.start[x]
	}
	next := slices.Clone(c.start[:len(parent)])
	for i := 1; i < len(parent); i++ {
		p := parent[i]
		c.child[next[p]] = int32(i)
		next[p]++
	}
	return c
}

func (c *childIndex) of(x int32) []int32 { return c.child[c.start[x]:c.start[x+1]] }

// logDeltaColor colours a delta by its magnitude on a log scale spanning
// three decades below maxAbs: red for growth, blue for shrinking, white for
// nothing.
func logDeltaColor(v, maxAbs int64) string {
	if v == 0 || maxAbs == 0 {
		return "#ffffff"
	}
	share := max(0, 1+math.Log10(float64(abs(v))/float64(maxAbs))/3)
	return blendColor(v > 0, share)
}

// blendColor mixes white with red (grew) or blue (shrank) by share in
// [0, 1], as hex RGB.
func blendColor(grew bool, share float64) string {
	share = max(0, min(1, share))
	to := [3]float64{0xd7, 0x30, 0x27} // red
	if !grew {
		to = [3]float64{0x45, 0x75, 0xb4} // blue
	}
	var b strings.Builder
	b.WriteByte('#')
	for _, c := range to {
		fmt.Fprintf(&b, "%02x", int(math.Round(0xff+(c-0xff)*share)))
	}
	return b.String()
}

func round(f float64) int64 { return int64(math.Round(f)) }
