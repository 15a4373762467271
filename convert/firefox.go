package convert

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// The Firefox profiler's two formats, read by one reader (--from firefox):
// the gecko format Firefox writes (meta.version; per thread, tables of a
// schema and rows, and a stringTable; other processes' profiles nested in
// processes, or as JSON strings in threads in old versions), also wrapped
// in the DevTools performance panel's export ({"profile": …}); and the
// processed format profiler.firefox.com saves and samply writes
// (meta.preprocessedProfileVersion; column tables, strings per thread or
// shared). Gecko is read from version 3 and processed from version 24 to
// the current ones (firefoxProcessedMax).
//
// Every thread is converted. A sample counts once, or by its weight where
// the samples have a weight column; with weight type "samples" (the
// default) the samples are also a wall time of weight × meta.interval.

func init() {
	register(inputFormat{
		Name:        "firefox",
		Description: "Firefox profiler: gecko (Firefox, DevTools export) and processed (profiler.firefox.com, samply) JSON",
		Priority:    55,
		Sniff:       sniffFirefox,
		Parse:       parseFirefox,
		// Its samples have no labels but thread, process, pid, tid and time.
		CompleteStacks: true,
		ParseStacks:    parseCollecting(parseFirefox),
	})
}

// The versions read: gecko meta.version and processed
// meta.preprocessedProfileVersion, up to the latest the profiler's format
// changelog describes. Later ones are refused, as the profiler refuses
// versions newer than its own.
const (
	firefoxGeckoMin     = 3
	firefoxGeckoMax     = 31
	firefoxProcessedMin = 24
	firefoxProcessedMax = 58
)

func sniffFirefox(head []byte) bool {
	t := trimJSONSpace(head)
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	has := func(k string) bool { return bytes.Contains(head, []byte(k)) }
	switch firstJSONKey(t) {
	case "meta":
		return has(`"interval"`) && has(`"startTime"`)
	case "label": // the DevTools performance panel's export
		return has(`"duration"`) && has(`"markers"`)
	}
	return has(`"preprocessedProfileVersion"`)
}

// ffMeta is what the reader uses of a profile's meta.
type ffMeta struct {
	Interval                   float64  `json:"interval"`
	StartTime                  float64  `json:"startTime"`
	Version                    *float64 `json:"version"`
	PreprocessedProfileVersion *float64 `json:"preprocessedProfileVersion"`
	SampleUnits                *struct {
		Time string `json:"time"`
	} `json:"sampleUnits"`
}

// ffLib is a shared library of the profile.
type ffLib struct {
	Name       string      `json:"name"`
	Path       string      `json:"path"`
	DebugName  string      `json:"debugName"`
	BreakpadID string      `json:"breakpadId"`
	CodeID     string      `json:"codeId"`
	Start      json.Number `json:"start"`
	End        json.Number `json:"end"`
	Offset     json.Number `json:"offset"`
}

func (l *ffLib) start() uint64 {
	v, _ := strconv.ParseUint(string(l.Start), 10, 64)
	return v
}

func (l *ffLib) end() uint64 {
	v, _ := strconv.ParseUint(string(l.End), 10, 64)
	return v
}

// ffDoc is the top level of either format, or the DevTools export.
type ffDoc struct {
	Meta    *ffMeta         `json:"meta"`
	Profile json.RawMessage `json:"profile"`
}

func parseFirefox(in *parserInput) (*profile.Profile, error) {
	data, err := in.ReadAll()
	if err != nil {
		return nil, err
	}
	var doc ffDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, jsonDocError("firefox", err)
	}
	if doc.Meta == nil && len(doc.Profile) > 0 && doc.Profile[0] == '{' {
		// The DevTools export: a gecko profile under "profile".
		data = doc.Profile
		if err := json.Unmarshal(data, &doc); err != nil {
			return nil, jsonDocError("firefox (DevTools export, profile)", err)
		}
	}
	if doc.Meta == nil {
		return nil, errAtOffset(0, "firefox: no \"meta\" object: expected a gecko or processed Firefox profile")
	}
	c := &ffConverter{in: in, b: newProfileBuilder(), maps: map[ffLib]*profile.Mapping{}}
	c.native.b = c.b
	if v := doc.Meta.PreprocessedProfileVersion; v != nil {
		if *v < firefoxProcessedMin || *v > firefoxProcessedMax {
			return nil, errAtOffset(0, "firefox: processed format version %v: expected %d to %d", *v, firefoxProcessedMin, firefoxProcessedMax)
		}
		err = c.processed(data)
	} else {
		if v := doc.Meta.Version; v == nil || *v < firefoxGeckoMin || *v > firefoxGeckoMax {
			return nil, errAtOffset(0, "firefox: gecko format meta.version %s: expected %d to %d", ffVersion(doc.Meta.Version), firefoxGeckoMin, firefoxGeckoMax)
		}
		err = c.gecko(data)
	}
	if err != nil {
		return nil, err
	}
	return c.finish()
}

func ffVersion(v *float64) string {
	if v == nil {
		return "(none)"
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

// An ffThread is one thread of either format, as the converter needs it.
type ffThread struct {
	index          int // in the file, for messages
	name, process  string
	pid, tid       int64
	hasPID, hasTID bool
	stack          []int64   // per sample, -1 for none
	time           []float64 // per sample, ms after base; nil when untimed
	base           float64   // the ms since the epoch the times count from
	weight         []float64 // per sample; nil: 1 each
	weightType     string
	intervalMS     float64
	prefix         []int64 // per stack, -1 for a root
	frame          []int64 // per stack
	frames         int     // the number of frames
	// loc makes frame x's location.
	loc func(x int) (*profile.Location, error)
}

// ffConverter gathers the threads of a file, then converts them.
type ffConverter struct {
	in      *parserInput
	b       *profileBuilder
	native  nativeLocations
	threads []*ffThread
	period  float64                    // ms, the top level's meta.interval
	maps    map[ffLib]*profile.Mapping // one per library, though each thread list them
	cut     nameCutter
}

// errAt is an error about thread t at a place in it.
func (t *ffThread) errAt(where, format string, args ...any) error {
	w := fmt.Sprintf("firefox thread %d (%q)", t.index, t.name)
	if where != "" {
		w += ", " + where
	}
	return &SyntaxError{Where: w, Msg: fmt.Sprintf(format, args...)}
}

// ffKinds are a weight type's sample types: the first gets the weight, the
// second (if any) the weight × interval.
func ffKinds(weightType string) ([]unitKind, error) {
	switch weightType {
	case "", "samples":
		return []unitKind{kindSamples, kindWallMS}, nil
	case "tracing-ms":
		return []unitKind{kindWallMS}, nil
	case "bytes":
		return []unitKind{kindBytes}, nil
	}
	return nil, fmt.Errorf("weightType %q: expected samples, tracing-ms or bytes", weightType)
}

// finish converts the threads gathered.
func (c *ffConverter) finish() (*profile.Profile, error) {
	if len(c.threads) == 0 {
		return nil, errAtOffset(0, "firefox: the profile has no threads")
	}
	var st sampleTypes
	cols := make([][]int, len(c.threads))
	for i, t := range c.threads {
		kinds, err := ffKinds(t.weightType)
		if err != nil {
			return nil, t.errAt("samples", "%v", err)
		}
		for _, k := range kinds {
			cols[i] = append(cols[i], st.index(k.Type, k.Unit))
		}
	}
	c.b.p.SampleType = st.types
	c.in.collectStacks(c.b)
	sink := newSampleSink(c.in, c.b)
	for i, t := range c.threads {
		if err := c.convert(t, cols[i], sink); err != nil {
			return nil, err
		}
	}
	sink.flush()
	c.cut.warn(c.in)
	p := c.b.Profile()
	p.DefaultSampleType = p.SampleType[0].Type
	if ns := math.Round(c.period * 1e6); ns > 0 && ns < math.MaxInt64 {
		p.PeriodType, p.Period = &profile.ValueType{Type: "wall", Unit: "nanoseconds"}, int64(ns)
	}
	return p, nil
}

// convert adds thread t's samples to the sink; cols are the columns of
// its sample types (ffKinds).
func (c *ffConverter) convert(t *ffThread, cols []int, sink *sampleSink) error {
	if len(t.prefix) != len(t.frame) {
		return t.errAt("stackTable", "%d prefixes for %d frames: expected one each per stack", len(t.prefix), len(t.frame))
	}
	if t.time != nil && len(t.time) != len(t.stack) {
		return t.errAt("samples", "%d times for %d stacks: expected one each per sample", len(t.time), len(t.stack))
	}
	if t.weight != nil && len(t.weight) != len(t.stack) {
		return t.errAt("samples", "%d weights for %d stacks: expected one each per sample", len(t.weight), len(t.stack))
	}
	kinds, _ := ffKinds(t.weightType)
	sums := make([]roundedSum, len(kinds))
	for k := range kinds {
		sums[k].scale = kinds[k].Scale
	}
	if len(sums) == 2 {
		if !(t.intervalMS > 0 && t.intervalMS*1e6 < maxExactValue) {
			return t.errAt("", "meta.interval %v: expected a positive number of milliseconds", t.intervalMS)
		}
		sums[1].scale = t.intervalMS * 1e6
	}
	locs := make([]*profile.Location, t.frames)
	exp := stackExpander{prefix: t.prefix, loc: func(x int) (*profile.Location, error) {
		f := t.frame[x]
		if f < 0 || f >= int64(len(locs)) {
			return nil, fmt.Errorf("stack %d: frame %d does not exist (the frame table has %d)", x, f, len(locs))
		}
		if locs[f] == nil {
			l, err := t.loc(int(f))
			if err != nil {
				return nil, fmt.Errorf("frame %d: %w", f, err)
			}
			locs[f] = l
		}
		return locs[f], nil
	}}
	values := make([]int64, len(c.b.p.SampleType))
	if !(math.Abs(t.base*1e6) < 1<<62) {
		return t.errAt("", "meta.startTime %v: expected milliseconds since 1970", t.base)
	}
	base := int64(math.Round(t.base * 1e6))
	m := sampleMeta{Thread: t.name, Process: t.process, PID: t.pid, TID: t.tid, HasPID: t.hasPID, HasTID: t.hasTID}
	for i, s := range t.stack {
		var stack []*profile.Location
		if s >= 0 {
			var err error
			if stack, err = exp.expand(s); err != nil {
				return t.errAt("sample "+strconv.Itoa(i), "%v", err)
			}
		}
		w := 1.0
		if t.weight != nil {
			w = t.weight[i]
		}
		clear(values)
		for k := range sums {
			v, err := sums[k].add(w)
			if err != nil {
				return t.errAt("sample "+strconv.Itoa(i), "weight: %v", err)
			}
			values[cols[k]] = v
		}
		if t.time != nil {
			// Times beyond ±2^61 ns (73 years) from the start are kept
			// out, as is the sum that would overflow.
			ts := t.time[i] * 1e6
			m.HasTime = math.Abs(ts) < 1<<61 && math.Abs(float64(base)) < 1<<61
			if m.HasTime {
				m.Time = base + int64(math.Round(ts))
			}
		}
		if err := sink.add(stack, values, m); err != nil {
			return t.errAt("sample "+strconv.Itoa(i), "%v", err)
		}
	}
	return nil
}

// ffJSLocation is a JavaScript frame's location in the gecko format:
// "name (url:line)" or "name (url:line:column)", where url may be
// "loader -> script".
var ffJSLocation = regexp.MustCompile(`^(.*) \((\S.*?):(\d+)(?::(\d+))?\)$`)

// ffScriptLocation is a script's top level in the gecko format:
// "url:line" or "url:line:column".
var ffScriptLocation = regexp.MustCompile(`^([a-z][a-z0-9+.-]*:\S*?):(\d+)(?::(\d+))?$`)

// ffParseLocation makes a frame of a gecko location string that is not
// a native address: a JavaScript function with its script, or a label.
func ffParseLocation(s string) stackFrame {
	m := ffJSLocation.FindStringSubmatch(s)
	if m == nil {
		if m = ffScriptLocation.FindStringSubmatch(s); m == nil {
			return stackFrame{Name: s}
		}
		m = append([]string{s, ""}, m[1:]...)
	}
	url := m[2]
	if i := strings.LastIndex(url, " -> "); i >= 0 {
		url = url[i+len(" -> "):]
	}
	f := stackFrame{Name: m[1], File: url}
	if f.Name == "" {
		f.Name = s
	}
	f.StartLine, _ = strconv.ParseInt(m[3], 10, 32)
	return f
}

// ffMapping returns lib's mapping, made once per lib.
func (c *ffConverter) ffMapping(lib *ffLib) *profile.Mapping {
	k := *lib
	if m, ok := c.maps[k]; ok {
		return m
	}
	id := lib.CodeID
	if id == "" {
		id = lib.BreakpadID
	}
	file := lib.Path
	if file == "" {
		file = lib.Name
	}
	off, _ := strconv.ParseUint(string(lib.Offset), 10, 64)
	limit := lib.end()
	if limit == 0 {
		limit = math.MaxUint64 // the processed format no longer says
	}
	m := c.native.mapping(profile.Mapping{Start: lib.start(), Limit: limit, Offset: off, File: c.cut.name(file), BuildID: c.cut.name(id)})
	c.maps[k] = m
	return m
}

// ffLine returns a line or column number of a table, 0 when null or out of
// range.
func ffLine(v *float64) int64 {
	if v == nil || !(*v > 0 && *v < math.MaxInt32) {
		return 0
	}
	return int64(*v)
}

// ffID reads a pid or tid, a number or a string of one.
func ffID(raw json.RawMessage) (int64, bool) {
	s := strings.Trim(string(raw), `"`)
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}
