package convert

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"github.com/google/pprof/profile"
)

// speedscope's file format (https://www.speedscope.app/file-format-schema.json),
// written by py-spy, rbspy, Austin and dotnet-trace: frames shared by
// every profile of the file, and profiles that are either sampled (stacks
// of frame indexes, root first, each with a weight) or evented (open and
// close events of frames at values). Every profile is converted, each as
// a thread named after it: a sampled profile's total is the sum of its
// weights, an evented one's endValue − startValue (time outside every
// frame is a sample with an empty stack).

func init() {
	register(inputFormat{
		Name:        "speedscope",
		Description: "speedscope JSON (py-spy -f speedscope, rbspy, Austin, dotnet-trace --format speedscope)",
		Priority:    55,
		Sniff:       sniffSpeedscope,
		Parse:       parseSpeedscope,
		// Its samples have no labels but thread, process, pid, tid and time.
		CompleteStacks: true,
		ParseStacks:    parseCollecting(parseSpeedscope),
	})
}

// speedscopeSchema is the $schema every speedscope file names.
const speedscopeSchema = "speedscope.app/file-format-schema.json"

func sniffSpeedscope(head []byte) bool {
	t := trimJSONSpace(head)
	return len(t) > 0 && t[0] == '{' && bytes.Contains(head, []byte(speedscopeSchema))
}

type ssFile struct {
	Schema   string      `json:"$schema"`
	Name     string      `json:"name"`
	Profiles []ssProfile `json:"profiles"`
	Shared   struct {
		Frames []ssFrame `json:"frames"`
	} `json:"shared"`
}

type ssFrame struct {
	Name *string  `json:"name"`
	File string   `json:"file"`
	Line *float64 `json:"line"`
	Col  *float64 `json:"col"`
}

type ssProfile struct {
	Type       string    `json:"type"`
	Name       string    `json:"name"`
	Unit       string    `json:"unit"`
	StartValue float64   `json:"startValue"`
	EndValue   float64   `json:"endValue"`
	Samples    [][]int64 `json:"samples"`
	Weights    []float64 `json:"weights"`
	Events     []ssEvent `json:"events"`
}

type ssEvent struct {
	Type  string  `json:"type"`
	At    float64 `json:"at"`
	Frame int64   `json:"frame"`
}

// speedscopeUnits maps the file's value units to sample types.
var speedscopeUnits = map[string]unitKind{
	"none":         kindSamples,
	"nanoseconds":  kindWallNS,
	"microseconds": {"wall", "nanoseconds", 1e3},
	"milliseconds": kindWallMS,
	"seconds":      {"wall", "nanoseconds", 1e9},
	"bytes":        kindBytes,
}

func parseSpeedscope(in *parserInput) (*profile.Profile, error) {
	var f ssFile
	if _, err := readJSONDoc(in, "speedscope", &f); err != nil {
		return nil, err
	}
	if len(f.Profiles) == 0 {
		return nil, errAtOffset(0, "speedscope: the file holds no profiles (expected a non-empty \"profiles\" array)")
	}
	r := &speedscopeReader{in: in, f: &f, b: newProfileBuilder(), locs: make([]*profile.Location, len(f.Shared.Frames))}
	var st sampleTypes
	cols := make([]int, len(f.Profiles))
	for i := range f.Profiles {
		k, ok := speedscopeUnits[f.Profiles[i].Unit]
		if !ok {
			return nil, r.errAt(i, "", "unit %q: expected none, nanoseconds, microseconds, milliseconds, seconds or bytes", f.Profiles[i].Unit)
		}
		cols[i] = st.index(k.Type, k.Unit)
	}
	r.b.p.SampleType = st.types
	in.collectStacks(r.b)
	r.sink = newSampleSink(in, r.b)
	names := map[string]int{}
	for i := range f.Profiles {
		pr := &f.Profiles[i]
		thread := pr.Name
		if names[thread]++; names[thread] > 1 || thread == "" {
			thread = fmt.Sprintf("%s #%d", pr.Name, names[pr.Name])
		}
		k := speedscopeUnits[pr.Unit]
		var err error
		switch pr.Type {
		case "sampled":
			err = r.sampled(i, cols[i], k, thread)
		case "evented":
			err = r.evented(i, cols[i], k, thread)
		default:
			err = r.errAt(i, "", "type %q: expected \"sampled\" or \"evented\"", pr.Type)
		}
		if err != nil {
			return nil, err
		}
	}
	r.sink.flush()
	r.cut.warn(in)
	p := r.b.Profile()
	p.DefaultSampleType = p.SampleType[0].Type
	return p, nil
}

type speedscopeReader struct {
	in   *parserInput
	f    *ssFile
	b    *profileBuilder
	sink *sampleSink
	locs []*profile.Location
	buf  []*profile.Location
	rev  []*profile.Location
	vals []int64
	cut  nameCutter
}

// errAt is an error about profile i (and, when where is set, a place in it).
func (r *speedscopeReader) errAt(i int, where, format string, args ...any) error {
	w := fmt.Sprintf("speedscope profile %d (%q)", i, r.f.Profiles[i].Name)
	if where != "" {
		w += ", " + where
	}
	return &SyntaxError{Where: w, Msg: fmt.Sprintf(format, args...)}
}

// values returns the values of a sample whose value v is of type col, in
// a buffer the next call reuses.
func (r *speedscopeReader) values(col int, v int64) []int64 {
	if r.vals == nil {
		r.vals = make([]int64, len(r.b.Profile().SampleType))
	}
	clear(r.vals)
	r.vals[col] = v
	return r.vals
}

// frameName names shared frame x in messages: its index and name.
func (r *speedscopeReader) frameName(x int64) string {
	if x >= 0 && x < int64(len(r.f.Shared.Frames)) && r.f.Shared.Frames[x].Name != nil {
		return fmt.Sprintf("%d (%q)", x, *r.f.Shared.Frames[x].Name)
	}
	return strconv.FormatInt(x, 10)
}

// location returns the location of shared frame x.
func (r *speedscopeReader) location(x int64) (*profile.Location, error) {
	if x < 0 || x >= int64(len(r.locs)) {
		return nil, fmt.Errorf("frame %d does not exist (shared.frames has %d)", x, len(r.locs))
	}
	if l := r.locs[x]; l != nil {
		return l, nil
	}
	fr := r.f.Shared.Frames[x]
	if fr.Name == nil {
		return nil, fmt.Errorf("frame %d has no name", x)
	}
	sf := stackFrame{Name: *fr.Name, File: fr.File}
	if fr.Line != nil && *fr.Line > 0 && *fr.Line < math.MaxInt32 {
		sf.Line = int64(*fr.Line)
	}
	if fr.Col != nil && *fr.Col > 0 && *fr.Col < math.MaxInt32 {
		sf.Column = int64(*fr.Col)
	}
	r.locs[x] = r.b.Location(r.cut.frame(sf))
	return r.locs[x], nil
}

// sampled converts profile i, a sampled one: each stack (root first) with
// its weight.
func (r *speedscopeReader) sampled(i, col int, k unitKind, thread string) error {
	pr := &r.f.Profiles[i]
	if len(pr.Weights) != len(pr.Samples) {
		return r.errAt(i, "", "%d samples but %d weights: expected one weight per sample", len(pr.Samples), len(pr.Weights))
	}
	sum := roundedSum{scale: k.Scale}
	for j, stack := range pr.Samples {
		r.buf = r.buf[:0]
		for d := len(stack) - 1; d >= 0; d-- {
			l, err := r.location(stack[d])
			if err != nil {
				return r.errAt(i, "sample "+strconv.Itoa(j), "%v", err)
			}
			r.buf = append(r.buf, l)
		}
		v, err := sum.add(pr.Weights[j])
		if err != nil {
			return r.errAt(i, "sample "+strconv.Itoa(j), "weight: %v", err)
		}
		if err := r.sink.add(r.buf, r.values(col, v), sampleMeta{Thread: thread}); err != nil {
			return r.errAt(i, "sample "+strconv.Itoa(j), "%v", err)
		}
	}
	return nil
}

// evented converts profile i, an evented one: between two events the
// frames open form the stack the time between them is spent in.
func (r *speedscopeReader) evented(i, col int, k unitKind, thread string) error {
	pr := &r.f.Profiles[i]
	if !(pr.EndValue >= pr.StartValue) {
		return r.errAt(i, "", "endValue %v is before startValue %v", pr.EndValue, pr.StartValue)
	}
	var open []int // indexes of the open events, outermost first
	r.buf = r.buf[:0]
	sum := roundedSum{scale: k.Scale}
	if _, err := sum.at(0); err != nil {
		return r.errAt(i, "", "%v", err)
	}
	prev := pr.StartValue
	timed := k.Unit == "nanoseconds"
	// emit spends [prev, at) in the open frames.
	emit := func(at float64) error {
		if at <= prev {
			return nil
		}
		v, err := sum.at(at - pr.StartValue)
		if err != nil {
			return err
		}
		r.rev = r.rev[:0]
		for d := len(r.buf) - 1; d >= 0; d-- { // r.buf is outermost first
			r.rev = append(r.rev, r.buf[d])
		}
		m := sampleMeta{Thread: thread}
		if timed {
			m.Time, m.HasTime = int64(math.Round(prev*k.Scale)), true
		}
		prev = at
		return r.sink.add(r.rev, r.values(col, v), m)
	}
	for j, ev := range pr.Events {
		where := "event " + strconv.Itoa(j)
		if ev.At < prev || ev.At > pr.EndValue {
			return r.errAt(i, where, "at %v: expected events in order, between startValue %v and endValue %v (the previous one is at %v)", ev.At, pr.StartValue, pr.EndValue, prev)
		}
		if err := emit(ev.At); err != nil {
			return r.errAt(i, where, "%v", err)
		}
		switch ev.Type {
		case "O":
			l, err := r.location(ev.Frame)
			if err != nil {
				return r.errAt(i, where, "%v", err)
			}
			open = append(open, j)
			r.buf = append(r.buf, l)
		case "C":
			if len(open) == 0 {
				return r.errAt(i, where, "closes frame %s at %v, but no frame is open", r.frameName(ev.Frame), ev.At)
			}
			top := pr.Events[open[len(open)-1]]
			if top.Frame != ev.Frame {
				return r.errAt(i, where, "closes frame %s at %v, but the innermost open frame is %s, opened at %v by event %d (expected frames to close in the reverse order they opened)",
					r.frameName(ev.Frame), ev.At, r.frameName(top.Frame), top.At, open[len(open)-1])
			}
			open, r.buf = open[:len(open)-1], r.buf[:len(r.buf)-1]
		default:
			return r.errAt(i, where, "type %q: expected \"O\" (open) or \"C\" (close)", ev.Type)
		}
	}
	if len(open) > 0 {
		o := pr.Events[open[len(open)-1]]
		return r.errAt(i, "event "+strconv.Itoa(open[len(open)-1]), "frame %s opened at %v is never closed (expected a \"C\" event for it by endValue %v)", r.frameName(o.Frame), o.At, pr.EndValue)
	}
	if err := emit(pr.EndValue); err != nil {
		return r.errAt(i, "", "%v", err)
	}
	return nil
}
