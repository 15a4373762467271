package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// Decoding the few trace events the devtools reader needs.

// eventError reports a problem with event i, which starts at byte off.
func eventError(i int, off int64, format string, args ...any) *SyntaxError {
	return &SyntaxError{Where: fmt.Sprintf("event %d (byte %d)", i, off), Msg: fmt.Sprintf(format, args...)}
}

// decodeEvent decodes a profile or metadata event, turning encoding/json's
// errors into positioned ones.
func decodeEvent(i int, off int64, raw []byte, what string, v any) error {
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return eventError(i, off, "%s: field %s: expected %s, found %s", what, te.Field, jsonType(te.Type), te.Value)
	}
	return eventError(i, off+jsonErrOffset(err), "%s: %v", what, err)
}

// jsonErrOffset is the offset of the byte encoding/json choked on (its
// Offset counts the bytes read, that one included).
func jsonErrOffset(err error) int64 {
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset > 0 {
		return se.Offset - 1
	}
	return 0
}

// jsonType names the JSON value a Go type decodes from, so that errors
// speak of the file rather than of ctdiff's types.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return t.String()
}

// mayMatter is a cheap filter run on every event: only events whose bytes
// contain "Profile" (Profile, ProfileChunk, CpuProfile), "_name"
// (thread_name, process_name) or a \u escape (which could spell either) are
// decoded. Most of a trace is other events; skipping their decoding is most
// of the reader's speed.
func mayMatter(raw []byte) bool {
	return bytes.Contains(raw, []byte("Profile")) || bytes.Contains(raw, []byte("_name")) ||
		bytes.Contains(raw, []byte(`\u`))
}

func (tr *traceReader) event(i int, off int64, raw []byte) error {
	if len(raw) == 0 || raw[0] != '{' {
		return eventError(i, off, "expected a trace event object, found %q", truncate(raw, 40))
	}
	if !mayMatter(raw) {
		return nil
	}
	if bytes.Contains(raw, []byte(`"ProfileChunk"`)) {
		if f, ok := scanChunkInto(raw, &tr.lists); ok && f.name == "ProfileChunk" {
			return tr.addChunk(i, off, &f, nil, nil, nil)
		}
	}
	var h struct {
		Name string `json:"name"`
		Ph   string `json:"ph"`
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		var te *json.UnmarshalTypeError
		if !errors.As(err, &te) { // a type error: an event we do not read
			return eventError(i, off+jsonErrOffset(err), "%v", err)
		}
	}
	switch {
	case h.Ph == "M" && (h.Name == "thread_name" || h.Name == "process_name"):
		return tr.nameEvent(i, off, raw, h.Name)
	case h.Name == "Profile":
		return tr.profileEvent(i, off, raw)
	case h.Name == "ProfileChunk":
		return tr.chunkEvent(i, off, raw)
	case h.Name == "CpuProfile":
		return tr.cpuProfileEvent(i, off, raw)
	}
	return nil
}

func (tr *traceReader) nameEvent(i int, off int64, raw []byte, name string) error {
	var ev struct {
		PID  int64 `json:"pid"`
		TID  int64 `json:"tid"`
		Args struct {
			Name string `json:"name"`
		} `json:"args"`
	}
	if err := decodeEvent(i, off, raw, name, &ev); err != nil {
		return err
	}
	if name == "thread_name" {
		tr.threadNames[threadID{ev.PID, ev.TID}] = ev.Args.Name
	} else {
		tr.processNames[ev.PID] = ev.Args.Name
	}
	return nil
}

// eventID is an event's "id": a hex string in Chrome ("0x1"), a number in
// other producers. Without one, the profile is keyed by its thread.
type eventID string

func (id *eventID) UnmarshalJSON(b []byte) error {
	var s string
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = eventID(s)
		return nil
	}
	*id = eventID(b)
	return nil
}

func (tr *traceReader) key(pid, tid int64, id eventID) profileKey {
	k := profileKey{pid: pid, id: string(id)}
	if id == "" {
		k.id = fmt.Sprintf("tid %d", tid)
	}
	if _, ok := tr.starts[k]; !ok {
		if _, ok := tr.chunks[k]; !ok {
			tr.keys = append(tr.keys, k)
		}
	}
	return k
}

// traceTS converts a trace timestamp (µs) to ns.
func traceTS(i int, off int64, ts float64) (int64, error) {
	ns, ok := scaleFloat(ts, 1000)
	if !ok {
		return 0, eventError(i, off, "ts %v is out of range", ts)
	}
	return ns, nil
}

func (tr *traceReader) profileEvent(i int, off int64, raw []byte) error {
	var ev struct {
		PID  int64    `json:"pid"`
		TID  int64    `json:"tid"`
		TS   *float64 `json:"ts"`
		ID   eventID  `json:"id"`
		Args struct {
			Data struct {
				StartTime *float64 `json:"startTime"`
			} `json:"data"`
		} `json:"args"`
	}
	if err := decodeEvent(i, off, raw, "Profile event", &ev); err != nil {
		return err
	}
	ts := ev.TS
	if ts == nil { // not Chrome; fall back to the profiler's own clock
		ts = ev.Args.Data.StartTime
	}
	if ts == nil {
		return eventError(i, off, "Profile event: expected \"ts\" or args.data.startTime, found neither")
	}
	ns, err := traceTS(i, off, *ts)
	if err != nil {
		return err
	}
	k := tr.key(ev.PID, ev.TID, ev.ID)
	tr.starts[k] = append(tr.starts[k], traceProfileStart{tid: ev.TID, ts: ns, event: i})
	return nil
}

func (tr *traceReader) chunkEvent(i int, off int64, raw []byte) error {
	f, err := decodeChunk(i, off, raw)
	if err != nil {
		return err
	}
	return tr.addChunk(i, off, f, nil, nil, nil)
}

// decodeChunk decodes a ProfileChunk event with encoding/json.
func decodeChunk(i int, off int64, raw []byte) (*chunkFields, error) {
	var ev struct {
		PID  int64   `json:"pid"`
		TID  int64   `json:"tid"`
		TS   float64 `json:"ts"`
		ID   eventID `json:"id"`
		Args struct {
			// Data is missing in some chunks (speedscope's Chrome_141
			// sample): an empty chunk, as DevTools reads it.
			Data *struct {
				CPUProfile *struct {
					Nodes   []v8Node `json:"nodes"`
					Samples idList   `json:"samples"`
					// A whole CDP profile inside one chunk (rspack's
					// producer) carries its deltas here too.
					TimeDeltas usList `json:"timeDeltas"`
				} `json:"cpuProfile"`
				TimeDeltas usList `json:"timeDeltas"`
				// lines and columns (the top frame's current position per
				// sample) are not read: a leaf frame keeps its function's
				// position, like every other frame, so frames match across
				// samples and runs.
			} `json:"data"`
		} `json:"args"`
	}
	if err := decodeEvent(i, off, raw, "ProfileChunk event", &ev); err != nil {
		return nil, err
	}
	f := &chunkFields{pid: ev.PID, tid: ev.TID, ts: ev.TS, id: ev.ID}
	if d := ev.Args.Data; d != nil {
		f.hasData, f.deltas = true, d.TimeDeltas
		if cp := d.CPUProfile; cp != nil {
			f.hasCPU, f.nodes, f.samples, f.cpDeltas = true, cp.Nodes, cp.Samples, cp.TimeDeltas
		}
	}
	return f, nil
}

// addChunk keeps a decoded ProfileChunk event.
// chunkSamples returns a chunk's sample ids and their time deltas.
func chunkSamples(f *chunkFields) (ids, deltas []int64) {
	if !f.hasData {
		return nil, nil
	}
	deltas = f.deltas
	if f.hasCPU {
		ids = f.samples
		if deltas == nil {
			deltas = f.cpDeltas
		}
	}
	return ids, deltas
}

// addChunk adds a ProfileChunk event. packedIDs and packedDeltas,
// when not nil, are its samples packed already (eventBatch.scan):
// then only the lengths of f's lists are read, and stats are the deltas'.
func (tr *traceReader) addChunk(i int, off int64, f *chunkFields, packedIDs, packedDeltas []byte, stats *deltaStats) error {
	ns, err := traceTS(i, off, f.ts)
	if err != nil {
		return err
	}
	ch := &traceChunk{ts: ns, event: i}
	if f.hasData {
		ids, deltas := chunkSamples(f)
		if f.hasCPU {
			if len(f.nodes) > 0 {
				ch.nodes = make([]v8NewNode, len(f.nodes))
			}
			for n := range f.nodes {
				if ch.nodes[n], err = newTreeNode(&f.nodes[n], int64(i), tr.intern); err != nil {
					return eventError(i, off, "ProfileChunk event: %v", err)
				}
			}
		}
		if len(ids) != len(deltas) {
			// DevTools gives up on the whole profile ("Failed to parse CPU profile.").
			return eventError(i, off, "ProfileChunk event: %d samples but %d timeDeltas; they must pair up", len(ids), len(deltas))
		}
		if ch.n = len(ids); ch.n > 0 && packedIDs != nil {
			ch.ids = tr.arena.store(packedIDs)
			ch.deltas = tr.arena.store(packedDeltas)
			ch.stats = *stats
		} else if ch.n > 0 {
			tr.pack = packIDs(tr.pack[:0], ids)
			ch.ids = tr.arena.store(tr.pack)
			tr.pack = packDeltas(tr.pack[:0], deltas)
			ch.deltas = tr.arena.store(tr.pack)
			ch.stats = sumDeltas(deltas)
		}
	}
	k := tr.key(f.pid, f.tid, f.id)
	tr.chunks[k] = append(tr.chunks[k], ch)
	return nil
}

// cdpProfile is CDP's Profiler.Profile, the .cpuprofile shape, as found in
// legacy CpuProfile events.
type cdpProfile struct {
	Nodes      []v8Node `json:"nodes"`
	StartTime  *float64 `json:"startTime"`
	Samples    idList   `json:"samples"`
	TimeDeltas usList   `json:"timeDeltas"`
}

func (tr *traceReader) cpuProfileEvent(i int, off int64, raw []byte) error {
	var ev struct {
		PID  int64 `json:"pid"`
		TID  int64 `json:"tid"`
		Args struct {
			Data *struct {
				CPUProfile *cdpProfile `json:"cpuProfile"`
			} `json:"data"`
		} `json:"args"`
	}
	if err := decodeEvent(i, off, raw, "CpuProfile event", &ev); err != nil {
		return err
	}
	if ev.Args.Data == nil || ev.Args.Data.CPUProfile == nil {
		return eventError(i, off, "CpuProfile event: expected args.data.cpuProfile, found none")
	}
	cp := ev.Args.Data.CPUProfile
	if cp.StartTime == nil {
		return eventError(i, off, "CpuProfile event: expected args.data.cpuProfile.startTime, found none")
	}
	if len(cp.Samples) != len(cp.TimeDeltas) {
		return eventError(i, off, "CpuProfile event: %d samples but %d timeDeltas; they must pair up", len(cp.Samples), len(cp.TimeDeltas))
	}
	tr.legacy = append(tr.legacy, &legacyProfile{th: threadID{ev.PID, ev.TID}, event: i, cpu: cp})
	return nil
}
