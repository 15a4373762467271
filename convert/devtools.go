package convert

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/google/pprof/profile"
)

// devtools reads Chrome trace event files, as the DevTools Performance panel
// saves them (and Lighthouse, Perfetto's JSON export, chrome://tracing):
// either a bare array of events or {"traceEvents": [...], "metadata": {...}},
// gzipped or not, with the trailing comma and missing final ']' of a
// recording cut short tolerated. It keeps the V8 CPU profiles in the trace:
//
//   - Profile + ProfileChunk events (Chrome >= 66), grouped by (pid, id),
//     never by id alone (processes reuse "0x1") nor by the chunk's tid (the
//     profiler's thread); the Profile event's pid/tid is the sampled thread
//     and its ts the profile's start (V8 profile-generator.cc: startTime is
//     on another clock);
//   - legacy CpuProfile events (Chrome <= 65), one whole profile each.
//
// Every sampled thread of every process becomes its own set of samples,
// labelled with the thread_name/process_name metadata. Timestamps are the
// trace clock (ts, µs) in ns, so threads of one trace line up. The file is
// streamed: events are decoded one at a time and only profile and metadata
// events are decoded at all. Facts and sources: docs/formats-devtools.md (a).
func init() {
	Register(Format{
		Name:        "devtools",
		Description: "Chrome DevTools / Lighthouse trace events with V8 CPU profiles (.json, .json.gz)",
		Priority:    50,
		Sniff:       sniffDevtools,
		Parse:       parseDevtools,
	})
}

// sniffDevtools accepts an array whose first element is an object and which
// has a "ph" (phase) key, or "pid" and "ts" keys, early on, or an object whose first key is
// "traceEvents" or "metadata" (DevTools >= 114 writes metadata first) or
// that names "traceEvents" in the sniff window.
func sniffDevtools(head []byte) bool {
	t := trimJSONSpace(head)
	if len(t) == 0 {
		return false
	}
	switch t[0] {
	case '[':
		rest := trimJSONSpace(t[1:])
		has := func(k string) bool { return bytes.Contains(head, []byte(k)) }
		return len(rest) > 0 && rest[0] == '{' && (has(`"ph"`) || has(`"pid"`) && has(`"ts"`))
	case '{':
		k := firstJSONKey(t)
		return k == "traceEvents" || k == "metadata" || bytes.Contains(head, []byte(`"traceEvents"`))
	}
	return false
}

func trimJSONSpace(b []byte) []byte {
	b = bytes.TrimPrefix(b, []byte{0xEF, 0xBB, 0xBF})
	return bytes.TrimLeft(b, " \t\r\n")
}

// firstJSONKey returns the first key of the object b starts with, if it is
// a plain (escape-free) string.
func firstJSONKey(b []byte) string {
	b = trimJSONSpace(b[1:])
	if len(b) == 0 || b[0] != '"' {
		return ""
	}
	end := bytes.IndexAny(b[1:], "\"\\")
	if end < 0 || b[1+end] != '"' {
		return ""
	}
	return string(b[1 : 1+end])
}

// profileKey identifies one V8 profile in a trace: ids are per process.
type profileKey struct {
	pid int64
	id  string
}

// traceProfileStart is a Profile event.
type traceProfileStart struct {
	tid   int64
	ts    int64 // ns
	event int
}

// traceChunk is a ProfileChunk event's payload.
type traceChunk struct {
	ts     int64
	event  int
	nodes  []v8TreeNode
	ids    []int64
	deltas []int64 // ns
}

type threadID struct{ pid, tid int64 }

// traceReader collects what a trace says about profiles while streaming.
type traceReader struct {
	in       *Input
	s        *jsonStream
	events   int
	unclosed bool

	threadNames  map[threadID]string
	processNames map[int64]string
	keys         []profileKey // in order of first appearance
	starts       map[profileKey][]traceProfileStart
	chunks       map[profileKey][]*traceChunk
	legacy       []*legacyProfile
	startTime    time.Time // metadata.startTime, when given
	strings      map[string]string
}

// intern returns one copy of each distinct string.
func (tr *traceReader) intern(s string) string {
	if v, ok := tr.strings[s]; ok {
		return v
	}
	tr.strings[s] = s
	return s
}

type legacyProfile struct {
	th    threadID
	event int
	cpu   *cdpProfile
}

func parseDevtools(in *Input) (*profile.Profile, error) {
	tr := newTraceReader(in)
	if err := tr.read(); err != nil {
		return nil, err
	}
	return tr.build()
}

func newTraceReader(in *Input) *traceReader {
	return &traceReader{
		in:           in,
		s:            newJSONStream(in.R),
		threadNames:  map[threadID]string{},
		processNames: map[int64]string{},
		starts:       map[profileKey][]traceProfileStart{},
		chunks:       map[profileKey][]*traceChunk{},
		strings:      map[string]string{},
	}
}

func (tr *traceReader) read() error {
	s := tr.s
	c, err := s.peek()
	if err != nil {
		return s.eofError(err, "expected a trace")
	}
	switch c {
	case '[':
		err = tr.eventArray()
	case '{':
		seen := false
		err = s.object("the trace object", func(key string) error {
			switch key {
			case "traceEvents":
				seen = true
				return tr.eventArray()
			case "metadata":
				return tr.metadata()
			}
			_, err := s.value(false)
			return err
		})
		if err != nil && tr.unclosed {
			if _, perr := s.peek(); perr == io.EOF {
				err = nil // the '}' went with the missing ']'
			}
		}
		if err == nil && !seen {
			return OffsetError(0, "expected a \"traceEvents\" array in the trace object, found none")
		}
	default:
		return OffsetError(s.off, "expected a trace: '[' or '{', found %s", quoteByte(c))
	}
	if err != nil {
		return err
	}
	if c, err := s.peek(); err != io.EOF {
		if err != nil {
			return err
		}
		return OffsetError(s.off, "expected the end of the trace, found %s", quoteByte(c))
	}
	return nil
}

func (tr *traceReader) eventArray() error {
	s := tr.s
	it, err := s.array("the trace event array")
	if err != nil {
		return err
	}
	for {
		more, err := it.Next()
		if err != nil {
			return err
		}
		if !more {
			break
		}
		start := s.off
		raw, err := s.value(true)
		if err != nil {
			return err
		}
		if err := tr.event(tr.events, start, raw); err != nil {
			return err
		}
		tr.events++
	}
	if it.Unclosed {
		tr.unclosed = true
		tr.in.Warnf("the trace event array has no closing ']' (a recording cut short?); read its %d events", tr.events)
	}
	return nil
}

func (tr *traceReader) metadata() error {
	start := tr.s.off
	raw, err := tr.s.value(true)
	if err != nil {
		return err
	}
	var md struct {
		StartTime string `json:"startTime"`
	}
	if err := json.Unmarshal(raw, &md); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil // someone else's metadata; nothing we need
		}
		return OffsetError(start+jsonErrOffset(err), "bad trace metadata: %v", err)
	}
	if t, err := time.Parse(time.RFC3339Nano, md.StartTime); err == nil {
		tr.startTime = t
	}
	return nil
}

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
		return eventError(i, off, "%s: field %s: expected %s, found %s", what, te.Field, jsonType(te.Type.String()), te.Value)
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

func jsonType(goType string) string {
	switch goType {
	case "int64", "float64", "*int64", "*float64":
		return "a number"
	case "string":
		return "a string"
	}
	return goType
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

// idList is a JSON array of node ids.
type idList []int64

func (l *idList) UnmarshalJSON(b []byte) error {
	v, err := parseNumberList(b, 1)
	*l = v
	return err
}

// usList is a JSON array of microseconds, kept in nanoseconds.
type usList []int64

func (l *usList) UnmarshalJSON(b []byte) error {
	v, err := parseNumberList(b, 1000)
	*l = v
	return err
}

// parseNumberList parses a JSON array of numbers (already validated by
// encoding/json) faster than reflection does, scaling each by mul.
func parseNumberList(b []byte, mul int64) ([]int64, error) {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return nil, nil
	}
	if len(b) < 2 || b[0] != '[' {
		return nil, fmt.Errorf("expected an array of numbers, found %q", truncate(b, 20))
	}
	out := make([]int64, 0, bytes.Count(b, []byte{','})+1)
	for _, f := range bytes.Split(b[1:len(b)-1], []byte{','}) {
		f = bytes.TrimSpace(f)
		if len(f) == 0 {
			continue // the empty array
		}
		n, ok := parseScaled(f, mul)
		if !ok {
			return nil, fmt.Errorf("expected a number within ±2^60, found %q", truncate(f, 20))
		}
		out = append(out, n)
	}
	return out, nil
}

func (tr *traceReader) chunkEvent(i int, off int64, raw []byte) error {
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
			} `json:"data"`
		} `json:"args"`
	}
	if err := decodeEvent(i, off, raw, "ProfileChunk event", &ev); err != nil {
		return err
	}
	ns, err := traceTS(i, off, ev.TS)
	if err != nil {
		return err
	}
	ch := &traceChunk{ts: ns, event: i}
	if d := ev.Args.Data; d != nil {
		deltas := d.TimeDeltas
		if cp := d.CPUProfile; cp != nil {
			ch.ids = cp.Samples
			ch.nodes = make([]v8TreeNode, len(cp.Nodes))
			for n := range cp.Nodes {
				if ch.nodes[n], err = newTreeNode(&cp.Nodes[n], int64(i), tr.intern); err != nil {
					return eventError(i, off, "ProfileChunk event: %v", err)
				}
			}
			if deltas == nil {
				deltas = cp.TimeDeltas
			}
		}
		ch.deltas = deltas
		if len(ch.ids) != len(ch.deltas) {
			// DevTools gives up on the whole profile ("Failed to parse CPU profile.").
			return eventError(i, off, "ProfileChunk event: %d samples but %d timeDeltas; they must pair up", len(ch.ids), len(ch.deltas))
		}
	}
	k := tr.key(ev.PID, ev.TID, ev.ID)
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

// build converts the collected profiles.
func (tr *traceReader) build() (*profile.Profile, error) {
	threads, err := tr.threads()
	if err != nil {
		return nil, err
	}
	if len(threads) == 0 {
		return nil, fmt.Errorf("%w: the trace (%d events) has no V8 CPU profile: no Profile/ProfileChunk or CpuProfile events; record it with JavaScript samples enabled (category disabled-by-default-v8.cpu_profiler)",
			ErrNoSamples, tr.events)
	}
	em := newV8Emitter(tr.in)
	em.threads = threads
	p := em.profile()
	if !tr.startTime.IsZero() {
		p.TimeNanos = tr.startTime.UnixNano()
	}
	return p, nil
}

// threads assembles the sampled threads and their profiles. Chunks go to
// the latest Profile event of their key at or before them, in time order.
func (tr *traceReader) threads() ([]*v8Thread, error) {
	var out []*v8Thread
	byID := map[threadID]*v8Thread{}
	thread := func(id threadID) *v8Thread {
		th := byID[id]
		if th == nil {
			th = &v8Thread{name: tr.threadNames[id], process: tr.processNames[id.pid],
				pid: id.pid, tid: id.tid, hasPID: true, hasTID: true}
			byID[id] = th
			out = append(out, th)
		}
		return th
	}
	var orphanChunks, orphanSamples int
	var orphanKeys []string
	for _, k := range tr.keys {
		starts := tr.starts[k]
		slices.SortStableFunc(starts, func(a, b traceProfileStart) int { return cmp.Compare(a.ts, b.ts) })
		chunks := tr.chunks[k]
		slices.SortStableFunc(chunks, func(a, b *traceChunk) int { return cmp.Compare(a.ts, b.ts) })
		groups := make([][]*traceChunk, len(starts))
		orphans := orphanChunks
		for _, ch := range chunks {
			j := sort.Search(len(starts), func(j int) bool { return starts[j].ts > ch.ts }) - 1
			if j < 0 {
				orphanChunks++
				orphanSamples += len(ch.ids)
				continue
			}
			groups[j] = append(groups[j], ch)
		}
		if orphanChunks > orphans {
			orphanKeys = append(orphanKeys, fmt.Sprintf("%s of pid %d", k.id, k.pid))
		}
		for j, st := range starts {
			p, err := chunkProfile(k, st, groups[j])
			if err != nil {
				return nil, err
			}
			th := thread(threadID{k.pid, st.tid})
			th.profiles = append(th.profiles, p)
		}
	}
	if orphanChunks > 0 {
		tr.in.Warnf("skipped %d samples in %d ProfileChunk events that no Profile event precedes (profiles %s began before tracing did; DevTools skips them too)",
			orphanSamples, orphanChunks, strings.Join(orphanKeys, ", "))
	}
	for _, lp := range tr.legacy {
		p, err := legacyEventProfile(lp)
		if err != nil {
			return nil, err
		}
		th := thread(lp.th)
		th.profiles = append(th.profiles, p)
	}
	for _, th := range out {
		slices.SortStableFunc(th.profiles, func(a, b *v8Profile) int { return cmp.Compare(a.start, b.start) })
	}
	return out, nil
}

// chunkProfile assembles one Profile's chunks: nodes accumulate across
// chunks, and the first delta is relative to the Profile event's ts, every
// later one to the previous sample (V8 CpuProfile::StreamPendingTraceEvents).
func chunkProfile(k profileKey, st traceProfileStart, chunks []*traceChunk) (*v8Profile, error) {
	tree := newV8Tree(func(pos int64, format string, args ...any) error {
		return EventError(int(pos), format, args...)
	})
	p := &v8Profile{tree: tree, start: st.ts, name: fmt.Sprintf("profile %s of pid %d (Profile event %d)", k.id, k.pid, st.event)}
	n := 0
	for _, ch := range chunks {
		n += len(ch.ids)
	}
	p.ids, p.times = make([]int64, 0, n), make([]int64, 0, n)
	t := st.ts
	for _, ch := range chunks {
		for _, nd := range ch.nodes {
			if err := tree.insert(nd); err != nil {
				return nil, err
			}
		}
		p.ids = append(p.ids, ch.ids...)
		for _, d := range ch.deltas {
			t += d // |t|, |d| <= 2^60: no overflow
			if t > maxScaled || t < -maxScaled {
				return nil, EventError(ch.event, "ProfileChunk event: the sample times run out of range (%d ns)", t)
			}
			p.times = append(p.times, t)
		}
		ch.nodes, ch.ids, ch.deltas = nil, nil, nil // the profile has them now
	}
	if err := tree.finish(); err != nil {
		return nil, err
	}
	return p, nil
}

// legacyEventProfile reads a CpuProfile event: a whole CDP profile whose
// startTime is on the trace clock (µs).
func legacyEventProfile(lp *legacyProfile) (*v8Profile, error) {
	at := func(pos int64, format string, args ...any) error {
		return EventError(lp.event, "CpuProfile event: "+format, args...)
	}
	tree := newV8Tree(at)
	for n := range lp.cpu.Nodes {
		if err := tree.add(&lp.cpu.Nodes[n], 0); err != nil {
			return nil, err
		}
	}
	if err := tree.finish(); err != nil {
		return nil, err
	}
	start, ok := scaleFloat(*lp.cpu.StartTime, 1000)
	if !ok {
		return nil, at(0, "startTime %v is out of range", *lp.cpu.StartTime)
	}
	times, err := cumulative(start, lp.cpu.TimeDeltas)
	if err != nil {
		return nil, at(0, "%v", err)
	}
	return &v8Profile{tree: tree, ids: lp.cpu.Samples, times: times, start: start,
		name: fmt.Sprintf("CpuProfile event %d", lp.event)}, nil
}

// cumulative returns start plus the running sums of deltas (ns).
func cumulative(start int64, deltas []int64) ([]int64, error) {
	times := make([]int64, len(deltas))
	t := start
	for i, d := range deltas {
		t += d
		if t > maxScaled || t < -maxScaled {
			return nil, fmt.Errorf("the time of sample %d is out of range (%d ns)", i, t)
		}
		times[i] = t
	}
	return times, nil
}
