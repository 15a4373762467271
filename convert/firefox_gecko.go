package convert

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// The gecko format: what Firefox's profiler writes (see firefox.go).

// geckoMaxNesting bounds how deep processes nest in a gecko profile.
const geckoMaxNesting = 8

type geckoProfile struct {
	Meta      ffMeta            `json:"meta"`
	Libs      json.RawMessage   `json:"libs"` // an array, or a JSON string of one in old versions
	Threads   []json.RawMessage `json:"threads"`
	Processes []json.RawMessage `json:"processes"`
}

// A geckoTable is a table of rows whose columns a schema names.
type geckoTable struct {
	Schema     map[string]int      `json:"schema"`
	Data       [][]json.RawMessage `json:"data"`
	WeightType string              `json:"weightType"`
}

type geckoThread struct {
	Name        string          `json:"name"`
	ProcessName string          `json:"processName"`
	ProcessType json.RawMessage `json:"processType"`
	Pid         json.RawMessage `json:"pid"`
	Tid         json.RawMessage `json:"tid"`
	Samples     geckoTable      `json:"samples"`
	StackTable  geckoTable      `json:"stackTable"`
	FrameTable  geckoTable      `json:"frameTable"`
	StringTable []string        `json:"stringTable"`
}

// geckoProcess is one process's profile: its libraries sorted by start
// address, to find a native address's.
type geckoProcess struct {
	meta ffMeta
	libs []*ffLib
}

// gecko gathers the threads of a gecko profile and of the profiles of
// the processes nested in it.
func (c *ffConverter) gecko(data []byte) error {
	var g geckoProfile
	if err := json.Unmarshal(data, &g); err != nil {
		return jsonDocError("firefox (gecko)", err)
	}
	c.period = g.Meta.Interval
	return c.geckoProcess(&g, 0, "")
}

// decodeString decodes raw when it is a JSON string holding JSON (as old
// gecko profiles nest libraries and processes), else returns it.
func decodeString(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 || raw[0] != '"' {
		return raw, nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	return json.RawMessage(s), nil
}

func (c *ffConverter) geckoProcess(g *geckoProfile, depth int, where string) error {
	proc := &geckoProcess{meta: g.Meta}
	if libs, err := decodeString(g.Libs); err != nil {
		return fmt.Errorf("firefox (gecko)%s: libs: %w", where, err)
	} else if len(libs) > 0 && string(libs) != "null" {
		if err := json.Unmarshal(libs, &proc.libs); err != nil {
			return jsonDocError("firefox (gecko)"+where+": libs", err)
		}
	}
	proc.libs = sortLibs(proc.libs)
	var nested []json.RawMessage
	for i, raw := range g.Threads {
		if len(raw) > 0 && raw[0] == '"' { // a process's profile, as a string
			nested = append(nested, raw)
			continue
		}
		var th geckoThread
		if err := json.Unmarshal(raw, &th); err != nil {
			return jsonDocError(fmt.Sprintf("firefox (gecko)%s: threads[%d]", where, i), err)
		}
		if err := c.geckoThread(proc, &th); err != nil {
			return err
		}
	}
	nested = append(nested, g.Processes...)
	if len(nested) > 0 && depth >= geckoMaxNesting {
		return errAtOffset(0, "firefox (gecko): processes nest more than %d deep", geckoMaxNesting)
	}
	for i, raw := range nested {
		sub := fmt.Sprintf("%s: process %d", where, i)
		raw, err := decodeString(raw)
		if err != nil {
			return fmt.Errorf("firefox (gecko)%s: %w", sub, err)
		}
		var p geckoProfile
		if err := json.Unmarshal(raw, &p); err != nil {
			return jsonDocError("firefox (gecko)"+sub, err)
		}
		if err := c.geckoProcess(&p, depth+1, sub); err != nil {
			return err
		}
	}
	return nil
}

// sortLibs returns the libraries with an extent, by start address.
func sortLibs(libs []*ffLib) []*ffLib {
	out := libs[:0]
	for _, l := range libs {
		if l != nil && l.end() > l.start() {
			out = append(out, l)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].start() < out[j].start() })
	return out
}

// lib returns the library holding address a, or nil.
func (p *geckoProcess) lib(a uint64) *ffLib {
	i := sort.Search(len(p.libs), func(i int) bool { return p.libs[i].end() > a })
	if i < len(p.libs) && p.libs[i].start() <= a {
		return p.libs[i]
	}
	return nil
}

// column returns the index of a column of t, -1 when it has none.
func (t *geckoTable) column(name string) int {
	if i, ok := t.Schema[name]; ok && i >= 0 {
		return i
	}
	return -1
}

// cell returns row's cell in column col, nil when absent or null.
func cell(row []json.RawMessage, col int) json.RawMessage {
	if col < 0 || col >= len(row) || string(row[col]) == "null" {
		return nil
	}
	return row[col]
}

// cellFloat reads a number cell; ok is false for an absent or null one.
func cellFloat(row []json.RawMessage, col int) (v float64, ok bool, err error) {
	c := cell(row, col)
	if c == nil {
		return 0, false, nil
	}
	v, err = strconv.ParseFloat(string(c), 64)
	if err != nil {
		return 0, false, fmt.Errorf("expected a number in column %d, found %.40s", col, c)
	}
	return v, true, nil
}

// cellIndex reads an index cell: -1 for an absent or null one.
func cellIndex(row []json.RawMessage, col int) (int64, error) {
	v, ok, err := cellFloat(row, col)
	switch {
	case err != nil:
		return 0, err
	case !ok:
		return -1, nil
	case v < 0 || v != float64(int64(v)):
		return 0, fmt.Errorf("expected an index in column %d, found %v", col, v)
	}
	return int64(v), nil
}

func (c *ffConverter) geckoThread(proc *geckoProcess, th *geckoThread) error {
	t := &ffThread{index: len(c.threads), name: th.Name, process: th.ProcessName, base: proc.meta.StartTime,
		intervalMS: proc.meta.Interval, weightType: th.Samples.WeightType}
	if t.process == "" {
		_ = json.Unmarshal(th.ProcessType, &t.process) // a string, or an old number
	}
	t.pid, t.hasPID = ffID(th.Pid)
	t.tid, t.hasTID = ffID(th.Tid)
	if err := geckoSamples(t, &th.Samples, proc); err != nil {
		return err
	}
	st := &th.StackTable
	prefixCol, frameCol := st.column("prefix"), st.column("frame")
	if frameCol < 0 {
		return t.errAt("stackTable", "the schema has no frame column")
	}
	for i, row := range st.Data {
		p, err := cellIndex(row, prefixCol)
		if err == nil && p >= int64(len(st.Data)) {
			err = fmt.Errorf("prefix %d does not exist (the stack table has %d)", p, len(st.Data))
		}
		f, err2 := cellIndex(row, frameCol)
		if err == nil {
			err = err2
		}
		if err != nil {
			return t.errAt("stackTable row "+strconv.Itoa(i), "%v", err)
		}
		t.prefix, t.frame = append(t.prefix, p), append(t.frame, f)
	}
	ft := &th.FrameTable
	t.frames = len(ft.Data)
	locCol, lineCol, colCol := ft.column("location"), ft.column("line"), ft.column("column")
	t.loc = func(x int) (*profile.Location, error) {
		row := ft.Data[x]
		s, err := cellIndex(row, locCol)
		if err == nil && (s < 0 || s >= int64(len(th.StringTable))) {
			err = fmt.Errorf("location %d is not in the string table (of %d)", s, len(th.StringTable))
		}
		if err != nil {
			return nil, err
		}
		line, _, _ := cellFloat(row, lineCol)
		column, _, _ := cellFloat(row, colCol)
		return c.geckoLocation(proc, th.StringTable[s], ffLine(&line), ffLine(&column)), nil
	}
	c.threads = append(c.threads, t)
	return nil
}

// geckoSamples reads a thread's samples table.
func geckoSamples(t *ffThread, s *geckoTable, proc *geckoProcess) error {
	stackCol, timeCol, weightCol := s.column("stack"), s.column("time"), s.column("weight")
	if stackCol < 0 {
		return t.errAt("samples", "the schema has no stack column")
	}
	if proc.meta.SampleUnits == nil || proc.meta.SampleUnits.Time != "bytes" {
		if timeCol >= 0 {
			t.time = make([]float64, 0, len(s.Data))
		}
	}
	if weightCol >= 0 {
		t.weight = make([]float64, 0, len(s.Data))
	}
	t.stack = make([]int64, 0, len(s.Data))
	for i, row := range s.Data {
		st, err := cellIndex(row, stackCol)
		if err != nil {
			return t.errAt("sample "+strconv.Itoa(i), "%v", err)
		}
		t.stack = append(t.stack, st)
		if t.time != nil {
			v, _, err := cellFloat(row, timeCol)
			if err != nil {
				return t.errAt("sample "+strconv.Itoa(i), "%v", err)
			}
			t.time = append(t.time, v)
		}
		if t.weight != nil {
			v, ok, err := cellFloat(row, weightCol)
			if err != nil {
				return t.errAt("sample "+strconv.Itoa(i), "%v", err)
			}
			if !ok {
				v = 1
			}
			t.weight = append(t.weight, v)
		}
	}
	return nil
}

// geckoLocation makes the location of a gecko frame: a native address in
// one of the process's libraries, a JavaScript function, or a label.
func (c *ffConverter) geckoLocation(proc *geckoProcess, s string, line, column int64) *profile.Location {
	if hex, ok := strings.CutPrefix(s, "0x"); ok {
		if a, err := strconv.ParseUint(hex, 16, 64); err == nil {
			if lib := proc.lib(a); lib != nil {
				f := stackFrame{Name: s, File: lib.Name}
				return c.native.location(c.cut.frame(f), c.ffMapping(lib), a)
			}
		}
	}
	f := ffParseLocation(s)
	f.Line, f.Column = line, column
	return c.b.Location(c.cut.frame(f))
}
