package convert

import (
	"encoding/json"
	"fmt"

	"github.com/google/pprof/profile"
)

// The processed format: what profiler.firefox.com saves and samply writes
// (see firefox.go). Its changes from version 24 that the reader follows:
// libraries moved from each thread to the profile (41), sample times may
// be deltas (50), strings moved to profile.shared.stringArray (56), and
// function files to profile.shared.sources (58).

type processedProfile struct {
	Meta    ffMeta            `json:"meta"`
	Libs    []*ffLib          `json:"libs"`
	Threads []processedThread `json:"threads"`
	Shared  struct {
		StringArray []string `json:"stringArray"`
		Sources     struct {
			Filename []int64 `json:"filename"`
		} `json:"sources"`
	} `json:"shared"`
}

type processedThread struct {
	Name        string          `json:"name"`
	ProcessName string          `json:"processName"`
	ProcessType json.RawMessage `json:"processType"`
	Pid         json.RawMessage `json:"pid"`
	Tid         json.RawMessage `json:"tid"`
	Libs        []*ffLib        `json:"libs"`
	StringArray []string        `json:"stringArray"`
	Samples     struct {
		Stack      []*int64  `json:"stack"`
		Time       []float64 `json:"time"`
		TimeDeltas []float64 `json:"timeDeltas"`
		Weight     []float64 `json:"weight"`
		WeightType string    `json:"weightType"`
	} `json:"samples"`
	StackTable struct {
		Prefix []*int64 `json:"prefix"`
		Frame  []int64  `json:"frame"`
	} `json:"stackTable"`
	FrameTable struct {
		Address     []*int64   `json:"address"`
		InlineDepth []int64    `json:"inlineDepth"`
		Func        []int64    `json:"func"`
		Line        []*float64 `json:"line"`
		Column      []*float64 `json:"column"`
	} `json:"frameTable"`
	FuncTable struct {
		Name       []int64    `json:"name"`
		Resource   []*int64   `json:"resource"`
		FileName   []*int64   `json:"fileName"`
		Source     []*int64   `json:"source"`
		LineNumber []*float64 `json:"lineNumber"`
	} `json:"funcTable"`
	ResourceTable struct {
		Lib  []*int64 `json:"lib"`
		Name []*int64 `json:"name"`
	} `json:"resourceTable"`
}

// processed gathers the threads of a processed profile.
func (c *ffConverter) processed(data []byte) error {
	var p processedProfile
	if err := json.Unmarshal(data, &p); err != nil {
		return jsonDocError("firefox (processed)", err)
	}
	c.period = p.Meta.Interval
	for i := range p.Threads {
		th := &p.Threads[i]
		t := &ffThread{index: i, name: th.Name, process: th.ProcessName, base: p.Meta.StartTime,
			intervalMS: p.Meta.Interval, weightType: th.Samples.WeightType, weight: th.Samples.Weight}
		if t.process == "" {
			_ = json.Unmarshal(th.ProcessType, &t.process)
		}
		t.pid, t.hasPID = ffID(th.Pid)
		t.tid, t.hasTID = ffID(th.Tid)
		if err := processedSamples(t, th, &p.Meta); err != nil {
			return err
		}
		for _, x := range th.StackTable.Prefix {
			t.prefix = append(t.prefix, index(x))
		}
		t.frame = th.StackTable.Frame
		t.frames = len(th.FrameTable.Func)
		pt := &processedTables{c: c, p: &p, th: th, strs: th.StringArray, libs: th.Libs}
		if pt.strs == nil {
			pt.strs = p.Shared.StringArray
		}
		if pt.libs == nil {
			pt.libs = p.Libs
		}
		t.loc = pt.location
		c.threads = append(c.threads, t)
	}
	return nil
}

// index reads a nullable index: -1 for null.
func index(x *int64) int64 {
	if x == nil {
		return -1
	}
	return *x
}

// processedSamples reads a thread's samples: stacks, times (absolute or
// deltas) and weights.
func processedSamples(t *ffThread, th *processedThread, meta *ffMeta) error {
	s := &th.Samples
	t.stack = make([]int64, len(s.Stack))
	for i, x := range s.Stack {
		t.stack[i] = index(x)
	}
	if meta.SampleUnits != nil && meta.SampleUnits.Time == "bytes" {
		return nil // offsets in a file, not times
	}
	switch {
	case s.Time != nil:
		t.time = s.Time
	case s.TimeDeltas != nil:
		t.time = make([]float64, len(s.TimeDeltas))
		sum := 0.0
		for i, d := range s.TimeDeltas {
			sum += d
			t.time[i] = sum
		}
	}
	return nil
}

// processedTables are the tables a processed thread's frames refer to.
type processedTables struct {
	c    *ffConverter
	p    *processedProfile
	th   *processedThread
	strs []string
	libs []*ffLib
}

// str returns string x of the thread's (or the shared) string array.
func (pt *processedTables) str(x int64, what string) (string, error) {
	if x < 0 || x >= int64(len(pt.strs)) {
		return "", fmt.Errorf("%s: string %d does not exist (the string array has %d)", what, x, len(pt.strs))
	}
	return pt.strs[x], nil
}

// at returns column[x], or the zero value when the column is shorter.
func at[T any](column []T, x int64) T {
	var zero T
	if x < 0 || x >= int64(len(column)) {
		return zero
	}
	return column[x]
}

// location makes frame x's location: its function's name and file (or
// its resource's name), and for a native frame its address in its
// library's mapping.
func (pt *processedTables) location(x int) (*profile.Location, error) {
	ft, fn := &pt.th.FrameTable, &pt.th.FuncTable
	fi := int64(x)
	if fi >= int64(len(ft.Func)) {
		return nil, fmt.Errorf("frame %d has no func", x)
	}
	f := ft.Func[fi]
	if f < 0 || f >= int64(len(fn.Name)) {
		return nil, fmt.Errorf("func %d does not exist (the func table has %d)", f, len(fn.Name))
	}
	name, err := pt.str(fn.Name[f], fmt.Sprintf("func %d name", f))
	if err != nil {
		return nil, err
	}
	sf := stackFrame{Name: name, Line: ffLine(at(ft.Line, fi)), Column: ffLine(at(ft.Column, fi)), StartLine: ffLine(at(fn.LineNumber, f))}
	if file := index(at(fn.FileName, f)); file >= 0 {
		sf.File, err = pt.str(file, fmt.Sprintf("func %d fileName", f))
	} else if src := index(at(fn.Source, f)); src >= 0 {
		sf.File, err = pt.str(at(pt.p.Shared.Sources.Filename, src), fmt.Sprintf("func %d source %d filename", f, src))
	}
	if err != nil {
		return nil, err
	}
	res := index(at(fn.Resource, f))
	var lib *ffLib
	if res >= 0 {
		if sf.File == "" {
			if rn := index(at(pt.th.ResourceTable.Name, res)); rn >= 0 {
				sf.File, _ = pt.str(rn, "")
			}
		}
		if l := index(at(pt.th.ResourceTable.Lib, res)); l >= 0 && l < int64(len(pt.libs)) {
			lib = pt.libs[l]
		}
	}
	addr := index(at(ft.Address, fi))
	if lib == nil || addr < 0 || at(ft.InlineDepth, fi) > 0 {
		return pt.c.b.Location(pt.c.cut.frame(sf)), nil
	}
	if sf.File == "" {
		sf.File = lib.Name
	}
	// Addresses are relative to the library; its start, where the file
	// still says it (before version 41), makes them absolute again.
	return pt.c.native.location(pt.c.cut.frame(sf), pt.c.ffMapping(lib), lib.start()+uint64(addr)), nil
}
