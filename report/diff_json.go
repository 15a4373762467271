package report

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/ctdiff/ctdiff/diff"
)

// DiffSchema names the JSON schema of writeDiffJSON.
const DiffSchema = "ctdiff.diff/v2"

// DiffSchemaV1 names the schema results had before the verdict, the
// causes' blame and the improvements: ReadDiffJSON reads it too.
const DiffSchemaV1 = "ctdiff.diff/v1"

// The ctdiff.diff/v1 schema. The fields every reader of v1 relies on come
// first, in a fixed order, and never change; the others are
// additions. Values are in "unit"; paths are root-first, without the
// synthetic root and the thread node; percentages have two decimals.
type diffJSON struct {
	Schema string `json:"schema"`
	// Verdict is the comparison's outcome (diff.Outcome); absent in v1.
	Verdict            *verdictJSON `json:"verdict,omitempty"`
	Unit               string       `json:"unit"`
	MinDelta           int64        `json:"min_delta"`
	Base               sideJSON     `json:"base"`
	New                sideJSON     `json:"new"`
	Causes             []causeJSON  `json:"causes"`
	RankedPaths        []rankedJSON `json:"ranked_paths"`
	Overlap            overlapJSON  `json:"overlap"`
	Topology           topologyJSON `json:"topology"`
	CriticalGraphNodes int          `json:"critical_graph_nodes"`
	TreeNodes          int          `json:"tree_nodes"`
	Metric             string       `json:"metric"`
	MinDeltaSpec       string       `json:"min_delta_spec"`
	Aggregate          string       `json:"aggregate"`
	Match              string       `json:"match"`
	Alpha              float64      `json:"alpha"`
	CriticalGraph      []graphJSON  `json:"critical_graph"`
	WeightMatching     weightsJSON  `json:"weight_matching"`
	// Untested: nodes above μ that no test could judge (diff.Result).
	Untested []causeJSON `json:"untested"`
	// Improvements: the causes of the time that fell (diff.Result);
	// absent in results written before they were looked for.
	Improvements []causeJSON  `json:"improvements"`
	Matchers     matchersJSON `json:"matchers"`
	Warnings     []string     `json:"warnings"`
	// Normalization, Benchmark and GoRuntime: diff_normalize.go.
	Normalization normalizationJSON `json:"normalization"`
	Benchmark     *benchmarkJSON    `json:"benchmark"`
	GoRuntime     *goRuntimeJSON    `json:"go_runtime"`
	// Filters (diff_filters.go) are absent when the trees were not
	// filtered.
	Filters *filtersJSON `json:"filters,omitempty"`
	// Functions (diff_functions.go) is the per-function table, present
	// when it was asked for (ctdiff diff --view functions).
	Functions *functionsJSON `json:"functions,omitempty"`
}

type sideJSON struct {
	Profiles []string `json:"profiles"`
	Total    int64    `json:"total"`
	Runs     int      `json:"runs"`
	Totals   []int64  `json:"totals"`
	// Idle is the mean "(idle)" time that total and totals leave out
	// (diff.Side.Idle); absent when there is none.
	Idle int64 `json:"idle,omitempty"`
}

// Line and column, in frames and graph nodes, are where the function is
// defined (diff.Frame), present when the profile says so: they tell apart
// same-named functions of one script.
type frameJSON struct {
	Function string `json:"function"`
	File     string `json:"file"`
	Line     int32  `json:"line,omitempty"`
	Column   int32  `json:"column,omitempty"`
}

type causeJSON struct {
	Thread string      `json:"thread"`
	Path   []frameJSON `json:"path"`
	Kind   string      `json:"kind"`
	Base   int64       `json:"base"`
	New    int64       `json:"new"`
	Delta  int64       `json:"delta"`
	Stats  *testJSON   `json:"stats,omitempty"`
	Spread *spreadJSON `json:"spread,omitempty"`
	// Blame is the function of the program's own code the cause is
	// charged to (diff.Blame), a frame like the path's; Breakdown its
	// values and what grew below it; Attribution, for the runtime's work
	// charged by evidence, how. Absent when the cause has no blame.
	Blame       *frameJSON       `json:"blame,omitempty"`
	Breakdown   *breakdownJSON   `json:"breakdown,omitempty"`
	Attribution *attributionJSON `json:"attribution,omitempty"`
}

// verdictJSON is the verdict (diff.Outcome): its status ("regressed",
// "improved", "unchanged", "inconclusive"), the report's first line, the
// cause it names (the first of causes, improvements or untested, as the
// status says; absent when there is none), the smallest change of the
// total the runs would have detected (0 when unknown), the runs a side
// that would test an inconclusive change (0 when unknown), and whether
// the sides look swapped.
type verdictJSON struct {
	Status       string     `json:"status"`
	Summary      string     `json:"summary"`
	TopCause     *causeJSON `json:"top_cause,omitempty"`
	Detectable   int64      `json:"detectable"`
	RunsNeeded   int        `json:"runs_needed"`
	SidesSwapped bool       `json:"sides_swapped"`
	// SharedPercent is diff.Result.Shared as a percentage: below 20 the
	// sides look like profiles of two programs.
	SharedPercent float64 `json:"shared_percent"`
}

// verdictOf is res's verdict for JSON.
func verdictOf(res *diff.Result) *verdictJSON {
	o := res.Outcome
	v := &verdictJSON{Status: string(o.Status), Summary: verdictLine(res, true, func(s string) string { return s }),
		Detectable: o.Detectable, RunsNeeded: o.Runs, SidesSwapped: o.Swapped, SharedPercent: pct2(100 * res.Shared)}
	var list []diff.Cause
	switch o.Status {
	case diff.StatusRegressed:
		list = res.Causes
	case diff.StatusImproved:
		list = res.Improvements
	case diff.StatusInconclusive:
		list = res.Untested
	}
	if len(list) > 0 {
		c := causeJSONOf(list[0])
		v.TopCause = &c
	}
	return v
}

// causeJSONOf is a cause as JSON holds it.
func causeJSONOf(c diff.Cause) causeJSON {
	j := causeJSON{
		Thread: c.Thread, Path: frames(c.Path), Kind: string(c.Kind),
		Base: c.Base, New: c.New, Delta: c.Delta, Stats: testOf(c.Stats),
	}
	if sp := c.Spread; sp != nil {
		j.Spread = &spreadJSON{
			Function: frameJSON{Function: sp.Function.Function, File: sp.Function.File},
			Callers:  frames(sp.Callers), Contexts: []spreadContextJSON{},
			ContextCount: sp.ContextCount, Grew: sp.Grew, Threads: sp.Threads,
		}
		for _, x := range sp.Contexts {
			j.Spread.Contexts = append(j.Spread.Contexts, spreadContextJSON{Thread: x.Thread, Path: frames(x.Path), Base: x.Base, New: x.New, Delta: x.Delta})
		}
	}
	if b := c.Blame; b != nil {
		j.Blame = &frames([]diff.Frame{b.Frame})[0]
		j.Breakdown = &breakdownJSON{Base: b.Base, New: b.New, Delta: b.Delta, Calls: []stepJSON{}}
		for _, s := range b.Breakdown {
			j.Breakdown.Calls = append(j.Breakdown.Calls, stepJSON{frames([]diff.Frame{s.Frame})[0], s.Base, s.New, s.Delta})
		}
		if b.By != "" {
			j.Attribution = &attributionJSON{By: b.By, Work: b.Work, Also: []stepJSON{}}
			for _, a := range b.Also {
				j.Attribution.Also = append(j.Attribution.Also, stepJSON{frames([]diff.Frame{a.Frame})[0], a.Base, a.New, a.Delta})
			}
		}
	}
	return j
}

// breakdownJSON is a blame's values and the calls below it down to the
// cause's node ("main.validEmail +93ms, of which regexp.Compile +93ms").
type breakdownJSON struct {
	Base  int64      `json:"base"`
	New   int64      `json:"new"`
	Delta int64      `json:"delta"`
	Calls []stepJSON `json:"calls"`
}

// stepJSON is a frame with its values: a call of a breakdown, or a
// function runtime work is charged to.
type stepJSON struct {
	frameJSON
	Base  int64 `json:"base"`
	New   int64 `json:"new"`
	Delta int64 `json:"delta"`
}

// attributionJSON says how the runtime's work was charged to the blame
// (diff.Blame.By, Work, Also).
type attributionJSON struct {
	By   string     `json:"by"`
	Work string     `json:"work"`
	Also []stepJSON `json:"also"`
}

// spreadJSON is a cause spread over a function's calling contexts
// (diff.Spread).
type spreadJSON struct {
	Function     frameJSON           `json:"function"`
	Callers      []frameJSON         `json:"callers"`
	Contexts     []spreadContextJSON `json:"contexts"`
	ContextCount int                 `json:"context_count"`
	Grew         int                 `json:"grew"`
	Threads      int                 `json:"threads"`
}

type spreadContextJSON struct {
	Thread string      `json:"thread"`
	Path   []frameJSON `json:"path"`
	Base   int64       `json:"base"`
	New    int64       `json:"new"`
	Delta  int64       `json:"delta"`
}

type testJSON struct {
	Test string `json:"test"`
	// Of is the value tested: omitted for the inclusive value, "self" or
	// "function" (diff.Test.Of).
	Of string `json:"of,omitempty"`
	// P is the one-sided p-value, PAdjusted the Holm-adjusted one; they and
	// the interval have three significant digits.
	P         float64 `json:"p"`
	PAdjusted float64 `json:"p_adjusted"`
	CILow     int64   `json:"ci_low"`
	CIHigh    int64   `json:"ci_high"`
	// SelfBase and SelfNew are the self values tested (of "self").
	SelfBase int64 `json:"self_base,omitempty"`
	SelfNew  int64 `json:"self_new,omitempty"`
}

type rankedJSON struct {
	Rank   int              `json:"rank"`
	Cost   int64            `json:"cost"`
	Path   []rankedNodeJSON `json:"path"`
	Thread string           `json:"thread"`
}

type rankedNodeJSON struct {
	Function string `json:"function"`
	File     string `json:"file"`
	Line     int32  `json:"line,omitempty"`
	Column   int32  `json:"column,omitempty"`
	Cost     int64  `json:"cost"`
	Rank     int    `json:"rank"`
}

type overlapJSON struct {
	Percent                 float64  `json:"percent"`
	NoiseFloorPercent       *float64 `json:"noise_floor_percent"`
	CommonTreePercent       float64  `json:"common_tree_percent"`
	Score                   float64  `json:"score"`
	StrictCommonTreePercent float64  `json:"strict_common_tree_percent"`
	Pairs                   int      `json:"pairs"`
}

type topologyJSON struct {
	Added        []subtreeJSON `json:"added"`
	Removed      []subtreeJSON `json:"removed"`
	AddedCount   int           `json:"added_count"`
	RemovedCount int           `json:"removed_count"`
}

type subtreeJSON struct {
	Thread string      `json:"thread"`
	Path   []frameJSON `json:"path"`
	Nodes  int         `json:"nodes"`
	Weight int64       `json:"weight"`
}

type graphJSON struct {
	Parent   int       `json:"parent"`
	Thread   string    `json:"thread"`
	Function string    `json:"function"`
	File     string    `json:"file"`
	Line     int32     `json:"line,omitempty"`
	Column   int32     `json:"column,omitempty"`
	IsThread bool      `json:"is_thread,omitempty"`
	Kind     string    `json:"kind"`
	Base     int64     `json:"base"`
	New      int64     `json:"new"`
	Delta    int64     `json:"delta"`
	Cause    bool      `json:"cause,omitempty"`
	Context  bool      `json:"context,omitempty"`
	Stats    *testJSON `json:"stats,omitempty"`
}

type weightsJSON struct {
	Nodes           []weightJSON `json:"nodes"`
	AdjustedPercent float64      `json:"adjusted_percent"`
	Reached         bool         `json:"reached_noise_floor"`
}

type weightJSON struct {
	Thread      string      `json:"thread"`
	Path        []frameJSON `json:"path"`
	BasePercent float64     `json:"base_percent"`
	NewPercent  float64     `json:"new_percent"`
	DiffPoints  float64     `json:"diff_points"`
}

type matchersJSON struct {
	LCS       int `json:"lcs"`
	Alternate int `json:"alternate"`
	Fallback  int `json:"fallback"`
	Residual  int `json:"residual"`
	Renamed   int `json:"renamed"`
	Relaxed   int `json:"relaxed"`
	Strict    int `json:"strict"`
}

// writeDiffJSON writes a comparison as ctdiff.diff/v1, indented, with
// arrays that are never null: the bytes encoding/json's Encoder writes for
// diffJSON with SetIndent("", "  ") and SetEscapeHTML(false), which the
// tests check. It streams: the Encoder marshals the whole value and then
// indents a copy, and a 200,000-stack comparison (250,000 critical-graph
// nodes, 40,000 causes with their paths) made 240 MB of JSON and 1.4 GB
// of peak memory. Here the small parts go through encoding/json, the lists
// are written as they are read, and memory stays at a buffer.
//
// A value JSON cannot hold (a NaN) fails before anything is written, as
// with the Encoder: the small parts are encoded first and the lists'
// floats checked.
func writeDiffJSON(w io.Writer, res *diff.Result) error {
	parts, err := encodeJSONParts(res)
	if err != nil {
		return err
	}
	if err := checkJSONFloats(res); err != nil {
		return err
	}
	e := &jsonWriter{w: w, buf: make([]byte, 0, jsonFlushSize+4<<10)}
	e.open('{')
	e.key("schema")
	e.string(DiffSchema)
	e.key("verdict")
	e.raw(parts.verdict)
	e.key("unit")
	e.string(res.Unit)
	e.key("min_delta")
	e.int(res.MinDelta)
	e.key("base")
	e.raw(parts.base)
	e.key("new")
	e.raw(parts.new)
	e.key("causes")
	e.open('[')
	for _, c := range res.Causes {
		e.elem()
		e.cause(c)
	}
	e.close(']')
	e.key("ranked_paths")
	e.open('[')
	for _, p := range res.RankedPaths {
		e.elem()
		e.rankedPath(p)
	}
	e.close(']')
	e.key("overlap")
	e.raw(parts.overlap)
	e.key("topology")
	e.open('{')
	e.key("added")
	e.subtrees(res.Topology.Added)
	e.key("removed")
	e.subtrees(res.Topology.Removed)
	e.key("added_count")
	e.int(int64(res.Topology.AddedCount))
	e.key("removed_count")
	e.int(int64(res.Topology.RemovedCount))
	e.close('}')
	e.key("critical_graph_nodes")
	e.int(int64(res.CriticalGraphNodes))
	e.key("tree_nodes")
	e.int(int64(res.TreeNodes))
	e.key("metric")
	e.string(res.Metric)
	e.key("min_delta_spec")
	e.string(res.MinDeltaSpec)
	e.key("aggregate")
	e.string(string(res.Aggregate))
	e.key("match")
	e.string(string(res.Match))
	e.key("alpha")
	e.float(res.Alpha)
	e.key("critical_graph")
	e.open('[')
	for _, g := range res.Graph {
		e.elem()
		e.graphNode(g)
	}
	e.close(']')
	e.key("weight_matching")
	e.open('{')
	e.key("nodes")
	e.open('[')
	for _, d := range res.WeightMatching.Nodes {
		e.elem()
		e.weight(d)
	}
	e.close(']')
	e.key("adjusted_percent")
	e.float(pct2(res.WeightMatching.Adjusted))
	e.key("reached_noise_floor")
	e.bool(res.WeightMatching.Reached)
	e.close('}')
	e.key("untested")
	e.open('[')
	for _, c := range res.Untested {
		e.elem()
		e.cause(c)
	}
	e.close(']')
	e.key("improvements")
	e.open('[')
	for _, c := range res.Improvements {
		e.elem()
		e.cause(c)
	}
	e.close(']')
	for _, p := range append(parts.tail, parts.optional...) {
		e.key(p.key)
		e.raw(p.value)
	}
	e.close('}')
	e.buf = append(e.buf, '\n')
	return e.flush()
}

// diffJSONPart is a top-level field encoded by encoding/json.
type diffJSONPart struct {
	key   string
	value []byte
}

// diffJSONParts holds the small, fixed-size parts of the document, encoded
// by encoding/json at the depth they are written at.
type diffJSONParts struct {
	verdict, base, new, overlap []byte
	// tail are the fields after weight_matching, and optional those of
	// them that are left out when empty (optionalJSONParts).
	tail, optional []diffJSONPart
}

func encodeJSONParts(res *diff.Result) (*diffJSONParts, error) {
	ov := res.Overlap
	overlap := overlapJSON{
		Percent: pct2(ov.Percent), CommonTreePercent: pct2(ov.CommonTree), Score: pct2(ov.Score),
		StrictCommonTreePercent: pct2(ov.StrictCommonTree), Pairs: ov.Pairs,
	}
	if ov.NoiseFloor != nil {
		nf := pct2(*ov.NoiseFloor)
		overlap.NoiseFloorPercent = &nf
	}
	m := res.Matchers
	tail := []diffJSONPart{
		{key: "matchers"}, {key: "warnings"}, {key: "normalization"}, {key: "benchmark"}, {key: "go_runtime"},
	}
	values := []any{
		verdictOf(res), side(res.Base), side(res.New), overlap,
		matchersJSON{LCS: m.LCS, Alternate: m.Alternate, Fallback: m.Fallback, Residual: m.Residual, Renamed: m.Renamed, Relaxed: m.Relaxed, Strict: m.Strict},
		append([]string{}, res.Warnings...),
		normalizationOf(res.Normalization), benchmarkOf(res.Benchmark), goRuntimeOf(res.GoRuntime),
	}
	encoded := make([][]byte, len(values))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ") // the depth of a top-level field's value
	for i, v := range values {
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		encoded[i] = bytes.Clone(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	}
	for i := range tail {
		tail[i].value = encoded[4+i]
	}
	optional, err := optionalJSONParts(res, enc, &buf)
	if err != nil {
		return nil, err
	}
	return &diffJSONParts{verdict: encoded[0], base: encoded[1], new: encoded[2], overlap: encoded[3], tail: tail, optional: optional}, nil
}

// checkJSONFloats returns encoding/json's error for the first float of
// the lists that JSON cannot hold.
func checkJSONFloats(res *diff.Result) error {
	check := func(fs ...float64) error {
		for _, f := range fs {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return &json.UnsupportedValueError{Value: reflect.ValueOf(f), Str: strconv.FormatFloat(f, 'g', -1, 64)}
			}
		}
		return nil
	}
	test := func(t *diff.Test) error {
		if t == nil {
			return nil
		}
		return check(sig3(t.P), sig3(t.Q))
	}
	// In the order the Encoder meets them.
	for _, c := range res.Causes {
		if err := test(c.Stats); err != nil {
			return err
		}
	}
	if err := check(res.Alpha); err != nil {
		return err
	}
	for _, g := range res.Graph {
		if err := test(g.Stats); err != nil {
			return err
		}
	}
	for _, d := range res.WeightMatching.Nodes {
		if err := check(pct2(d.Base), pct2(d.New), pct2(d.Diff)); err != nil {
			return err
		}
	}
	if err := check(pct2(res.WeightMatching.Adjusted)); err != nil {
		return err
	}
	for _, c := range slices.Concat(res.Untested, res.Improvements) {
		if err := test(c.Stats); err != nil {
			return err
		}
	}
	return nil
}

// jsonFlushSize is how much jsonWriter buffers before writing.
const jsonFlushSize = 64 << 10

// jsonWriter writes indented JSON as encoding/json's Encoder does with
// SetIndent("", "  ") and SetEscapeHTML(false): a container's elements
// each on a line of their own, indented two spaces per level, "key": value,
// and empty containers as [] and {}.
type jsonWriter struct {
	w     io.Writer
	buf   []byte
	err   error
	depth int
	// empty: nothing was written in the innermost open container yet.
	empty bool
}

// open starts an object or array.
func (e *jsonWriter) open(c byte) {
	e.buf = append(e.buf, c)
	e.depth++
	e.empty = true
}

// close ends the innermost container with c.
func (e *jsonWriter) close(c byte) {
	e.depth--
	if !e.empty {
		e.newline()
	}
	e.buf = append(e.buf, c)
	e.empty = false
}

// elem starts an element of an array, and writes out what is buffered
// once it is large: elements are where the lists repeat.
func (e *jsonWriter) elem() {
	if len(e.buf) >= jsonFlushSize {
		e.write()
	}
	if !e.empty {
		e.buf = append(e.buf, ',')
	}
	e.newline()
	e.empty = false
}

// key starts a field; keys are constants that need no escaping.
func (e *jsonWriter) key(k string) {
	e.elem()
	e.buf = append(e.buf, '"')
	e.buf = append(e.buf, k...)
	e.buf = append(e.buf, `": `...)
}

func (e *jsonWriter) newline() {
	e.buf = append(e.buf, '\n')
	for range e.depth {
		e.buf = append(e.buf, "  "...)
	}
}

func (e *jsonWriter) string(s string) { e.buf = appendJSONString(e.buf, s, false) }

func (e *jsonWriter) int(v int64) { e.buf = strconv.AppendInt(e.buf, v, 10) }

func (e *jsonWriter) bool(v bool) { e.buf = strconv.AppendBool(e.buf, v) }

// float writes v as encoding/json does (checkJSONFloats has refused NaN
// and infinities): like %g with ES6's exponent cut-offs, exponents not
// padded.
func (e *jsonWriter) float(v float64) {
	format := byte('f')
	if a := math.Abs(v); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b := strconv.AppendFloat(e.buf, v, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // e-09 to e-9
		b = b[:n-1]
	}
	e.buf = b
}

// raw writes a value encoded at the current depth.
func (e *jsonWriter) raw(b []byte) { e.buf = append(e.buf, b...) }

func (e *jsonWriter) write() {
	if e.err == nil {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

func (e *jsonWriter) flush() error {
	e.write()
	return e.err
}

// appendJSONString appends s quoted as encoding/json quotes it: ", \\ and
// control characters escaped (\b, \f, \n, \r, \t by name), invalid UTF-8 as
// \ufffd, U+2028 and U+2029 as \u2028 and \u2029, which JavaScript does not
// allow in strings, and with escapeHTML <, > and & as \u003c, \u003e and
// \u0026.
func appendJSONString(b []byte, s string, escapeHTML bool) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!escapeHTML || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// The lists' elements, as diffJSON's types encode them.

func (e *jsonWriter) cause(c diff.Cause) {
	e.open('{')
	e.key("thread")
	e.string(c.Thread)
	e.key("path")
	e.frames(c.Path)
	e.key("kind")
	e.string(string(c.Kind))
	e.key("base")
	e.int(c.Base)
	e.key("new")
	e.int(c.New)
	e.key("delta")
	e.int(c.Delta)
	e.test(c.Stats)
	if sp := c.Spread; sp != nil {
		e.key("spread")
		e.open('{')
		e.key("function")
		e.open('{')
		e.key("function")
		e.string(sp.Function.Function)
		e.key("file")
		e.string(sp.Function.File)
		e.close('}')
		e.key("callers")
		e.frames(sp.Callers)
		e.key("contexts")
		e.open('[')
		for _, x := range sp.Contexts {
			e.elem()
			e.open('{')
			e.key("thread")
			e.string(x.Thread)
			e.key("path")
			e.frames(x.Path)
			e.key("base")
			e.int(x.Base)
			e.key("new")
			e.int(x.New)
			e.key("delta")
			e.int(x.Delta)
			e.close('}')
		}
		e.close(']')
		e.key("context_count")
		e.int(int64(sp.ContextCount))
		e.key("grew")
		e.int(int64(sp.Grew))
		e.key("threads")
		e.int(int64(sp.Threads))
		e.close('}')
	}
	e.blame(c.Blame)
	e.close('}')
}

// blame writes a cause's "blame", "breakdown" and "attribution", which
// are left out when b is nil.
func (e *jsonWriter) blame(b *diff.Blame) {
	if b == nil {
		return
	}
	e.key("blame")
	e.frame(b.Frame)
	e.key("breakdown")
	e.open('{')
	e.values(b.Base, b.New, b.Delta)
	e.key("calls")
	e.open('[')
	for _, s := range b.Breakdown {
		e.elem()
		e.step(s.Frame, s.Base, s.New, s.Delta)
	}
	e.close(']')
	e.close('}')
	if b.By == "" {
		return
	}
	e.key("attribution")
	e.open('{')
	e.key("by")
	e.string(b.By)
	e.key("work")
	e.string(b.Work)
	e.key("also")
	e.open('[')
	for _, c := range b.Also {
		e.elem()
		e.step(c.Frame, c.Base, c.New, c.Delta)
	}
	e.close(']')
	e.close('}')
}

// frame writes one frame object, as a path's elements are written.
func (e *jsonWriter) frame(f diff.Frame) {
	e.open('{')
	e.key("function")
	e.string(f.Function)
	e.key("file")
	e.string(f.File)
	e.position(f)
	e.close('}')
}

// step writes a frame with its values (stepJSON).
func (e *jsonWriter) step(f diff.Frame, base, nw, delta int64) {
	e.open('{')
	e.key("function")
	e.string(f.Function)
	e.key("file")
	e.string(f.File)
	e.position(f)
	e.values(base, nw, delta)
	e.close('}')
}

// values writes "base", "new" and "delta".
func (e *jsonWriter) values(base, nw, delta int64) {
	e.key("base")
	e.int(base)
	e.key("new")
	e.int(nw)
	e.key("delta")
	e.int(delta)
}

// test writes the "stats" field, which is left out when t is nil.
func (e *jsonWriter) test(t *diff.Test) {
	if t == nil {
		return
	}
	j := testOf(t)
	e.key("stats")
	e.open('{')
	e.key("test")
	e.string(j.Test)
	if j.Of != "" {
		e.key("of")
		e.string(j.Of)
	}
	e.key("p")
	e.float(j.P)
	e.key("p_adjusted")
	e.float(j.PAdjusted)
	e.key("ci_low")
	e.int(j.CILow)
	e.key("ci_high")
	e.int(j.CIHigh)
	if j.SelfBase != 0 || j.SelfNew != 0 {
		e.key("self_base")
		e.int(j.SelfBase)
		e.key("self_new")
		e.int(j.SelfNew)
	}
	e.close('}')
}

func (e *jsonWriter) frames(p []diff.Frame) {
	e.open('[')
	for _, f := range p {
		e.elem()
		e.frame(f)
	}
	e.close(']')
}

// position writes a frame's line and column, when known.
func (e *jsonWriter) position(f diff.Frame) {
	if f.Line != 0 {
		e.key("line")
		e.int(int64(f.Line))
	}
	if f.Column != 0 {
		e.key("column")
		e.int(int64(f.Column))
	}
}

func (e *jsonWriter) rankedPath(p diff.RankedPath) {
	e.open('{')
	e.key("rank")
	e.int(int64(p.Rank))
	e.key("cost")
	e.int(p.Cost)
	e.key("path")
	e.open('[')
	for _, n := range p.Path {
		e.elem()
		e.open('{')
		e.key("function")
		e.string(n.Function)
		e.key("file")
		e.string(n.File)
		e.position(n.Frame)
		e.key("cost")
		e.int(n.Cost)
		e.key("rank")
		e.int(int64(n.Rank))
		e.close('}')
	}
	e.close(']')
	e.key("thread")
	e.string(p.Thread)
	e.close('}')
}

func (e *jsonWriter) subtrees(list []diff.Subtree) {
	e.open('[')
	for _, s := range list {
		e.elem()
		e.open('{')
		e.key("thread")
		e.string(s.Thread)
		e.key("path")
		e.frames(s.Path)
		e.key("nodes")
		e.int(int64(s.Nodes))
		e.key("weight")
		e.int(s.Weight)
		e.close('}')
	}
	e.close(']')
}

func (e *jsonWriter) graphNode(g diff.GraphNode) {
	e.open('{')
	e.key("parent")
	e.int(int64(g.Parent))
	e.key("thread")
	e.string(g.Thread)
	e.key("function")
	e.string(g.Frame.Function)
	e.key("file")
	e.string(g.Frame.File)
	e.position(g.Frame)
	if g.IsThread {
		e.key("is_thread")
		e.bool(true)
	}
	e.key("kind")
	e.string(string(g.Kind))
	e.key("base")
	e.int(g.Base)
	e.key("new")
	e.int(g.New)
	e.key("delta")
	e.int(g.Delta)
	if g.Cause {
		e.key("cause")
		e.bool(true)
	}
	if g.Context {
		e.key("context")
		e.bool(true)
	}
	e.test(g.Stats)
	e.close('}')
}

func (e *jsonWriter) weight(d diff.WeightDiff) {
	e.open('{')
	e.key("thread")
	e.string(d.Thread)
	e.key("path")
	e.frames(d.Path)
	e.key("base_percent")
	e.float(pct2(d.Base))
	e.key("new_percent")
	e.float(pct2(d.New))
	e.key("diff_points")
	e.float(pct2(d.Diff))
	e.close('}')
}

func side(s diff.Side) sideJSON {
	return sideJSON{Profiles: append([]string{}, s.Profiles...), Total: s.Total, Runs: s.Runs, Totals: append([]int64{}, s.Totals...), Idle: s.Idle}
}

func frames(p []diff.Frame) []frameJSON {
	out := make([]frameJSON, len(p))
	for i, f := range p {
		out[i] = frameJSON{Function: f.Function, File: f.File, Line: f.Line, Column: f.Column}
	}
	return out
}

func testOf(t *diff.Test) *testJSON {
	if t == nil {
		return nil
	}
	return &testJSON{Test: t.Name, Of: t.Of, P: sig3(t.P), PAdjusted: sig3(t.Q), CILow: int64(sig3(float64(t.Low))), CIHigh: int64(sig3(float64(t.High))), SelfBase: t.SelfBase, SelfNew: t.SelfNew}
}

// sig3 rounds to three significant digits, for the same reason as pct2.
func sig3(f float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 3, 64), 64)
	return r
}

// pct2 rounds a percentage to two decimals, so that JSON output is stable
// across platforms' last-bit float differences.
func pct2(f float64) float64 { return math.Round(f*100) / 100 }
