package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// devtools reads Chrome trace event files, as the DevTools Performance panel
// saves them (and Lighthouse and other trace-event producers): either a
// bare array of events or {"traceEvents": [...], "metadata": {...}},
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
// streamed: events are cut out one at a time (devtools_json.go) and only
// profile and name metadata events are decoded (devtools_events.go), their
// samples packed (devtools_packed.go); the profiles are assembled at the
// end (devtools_profiles.go). Facts and
// sources: docs/formats-devtools.md (a).
func init() {
	register(inputFormat{
		Name:        "devtools",
		Description: "Chrome DevTools / Lighthouse trace events with V8 CPU profiles (.json, .json.gz)",
		Priority:    50,
		Sniff:       sniffDevtools,
		Parse:       parseDevtools,
		ParseStacks: func(in *parserInput) (*profile.Profile, *stacks.Samples, error) {
			return readDevtools(in, true)
		},
		CompleteStacks: true,
	})
}

// sniffDevtools accepts an array whose first element is an object and which
// has a "ph" (phase) key, or "pid" and "ts" keys, early on; or an object
// whose first key is "traceEvents" or "metadata" (DevTools >= 114 writes
// metadata first) or that names "traceEvents" in the sniff window.
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

// traceChunk is a ProfileChunk event's payload, its samples packed
// (devtools_packed.go): n node ids and their time deltas.
type traceChunk struct {
	ts     int64
	event  int
	nodes  []v8NewNode
	n      int
	ids    []byte // packIDs
	deltas []byte // packDeltas, ns
	stats  deltaStats
}

type threadID struct{ pid, tid int64 }

// traceReader collects what a trace says about profiles while streaming.
type traceReader struct {
	in       *parserInput
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

	lists chunkLists // the fast path's lists, reused
	arena packArena  // the packed samples
	pack  []byte     // scratch for packing
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

func parseDevtools(in *parserInput) (*profile.Profile, error) {
	p, _, err := readDevtools(in, false)
	return p, err
}

// readDevtools converts the trace, its samples as profile.Samples or, with
// collect, as stacks.Samples (inputFormat.ParseStacks): at millions of samples,
// a tenth of the memory.
func readDevtools(in *parserInput, collect bool) (*profile.Profile, *stacks.Samples, error) {
	tr := newTraceReader(in)
	if err := tr.read(); err != nil {
		return nil, nil, err
	}
	tr.s.warnCut(in)
	return tr.build(collect)
}

func newTraceReader(in *parserInput) *traceReader {
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
			return errAtOffset(0, "expected a \"traceEvents\" array in the trace object, found none")
		}
	default:
		return errAtOffset(s.off, "expected a trace: '[' or '{', found %s", quoteByte(c))
	}
	if err != nil {
		return err
	}
	if c, err := s.peek(); err != io.EOF {
		if err != nil {
			return err
		}
		return errAtOffset(s.off, "expected the end of the trace, found %s", quoteByte(c))
	}
	return nil
}

// eventArray reads the trace's events. Cutting them out of the JSON
// (jsonStream) and decoding them (event) take about the same time on a
// large trace (1.2 s and 2.2 s of a 515 MB one), so the events are cut
// here and decoded on another goroutine, in batches, in order: the first
// error is the one reading them one by one would meet, since a decoding
// error is at an event before any the cutting has yet to reach.
func (tr *traceReader) eventArray() error {
	s := tr.s
	it, err := s.array("the trace event array")
	if err != nil {
		return err
	}
	d := newEventDecoder(tr)
	err = tr.cutEvents(it, d)
	if derr := d.wait(); derr != nil {
		return derr
	}
	if err != nil {
		return err
	}
	if it.Unclosed {
		tr.unclosed = true
		tr.in.Warnf("the trace event array has no closing ']' (a recording cut short?); read its %d events", tr.events)
	}
	return nil
}

// cutEvents cuts the array's events out and sends them to d, returning
// the first error reading them, or nil when d stopped at one of its own.
func (tr *traceReader) cutEvents(it *arrayIter, d *eventDecoder) error {
	s := tr.s
	b := d.batch()
	for {
		more, err := it.Next()
		if err != nil || !more {
			d.send(b)
			return err
		}
		start := s.off
		raw, err := s.value(true)
		if err != nil {
			d.send(b)
			return err
		}
		b.add(raw, start)
		tr.events++
		if len(b.data) >= eventBatchBytes {
			if !d.send(b) {
				return nil
			}
			b = d.batch()
		}
	}
}

// eventBatchBytes is about how many bytes of events go to the decoder at
// once, and eventBatches how many batches exist (being filled, scanned,
// queued, decoded): a few MB.
const (
	eventBatchBytes = 1 << 20
	eventBatches    = 6
)

// An eventBatch is events cut from the array: event first+k is
// data[ends[k-1]:ends[k]], starting at byte offs[k] of the input.
type eventBatch struct {
	first int
	data  []byte
	ends  []int
	offs  []int64
	// chunks[k] is event first+k read as a ProfileChunk by the fast
	// path, its samples packed into packed, when it is one (scan).
	chunks []scannedChunk
	packed []byte
	lists  chunkLists
}

// A scannedChunk is a ProfileChunk event as scanChunkInto read it, its
// sample ids and deltas packed (their lists in fields are reused).
type scannedChunk struct {
	ok          bool
	fields      chunkFields
	ids, deltas [2]int // where in packed
	stats       deltaStats
}

func (b *eventBatch) add(raw []byte, off int64) {
	b.data = append(b.data, raw...)
	b.ends = append(b.ends, len(b.data))
	b.offs = append(b.offs, off)
}

// scan reads the batch's ProfileChunk events by the fast path and packs
// their samples, as traceReader.event and addChunk would: most of the
// decoding's time, done here beside the cutting and the rest of the
// decoding.
func (b *eventBatch) scan() {
	b.chunks, b.packed = b.chunks[:0], b.packed[:0]
	start := 0
	for _, end := range b.ends {
		raw := b.data[start:end]
		start = end
		var sc scannedChunk
		if len(raw) > 0 && raw[0] == '{' && mayMatter(raw) && bytes.Contains(raw, []byte(`"ProfileChunk"`)) {
			if f, ok := scanChunkInto(raw, &b.lists); ok && f.name == "ProfileChunk" {
				sc.ok, sc.fields = true, f
				if ids, deltas := chunkSamples(&f); len(ids) == len(deltas) && len(ids) > 0 {
					sc.ids[0] = len(b.packed)
					b.packed = packIDs(b.packed, ids)
					sc.ids[1] = len(b.packed)
					b.packed = packDeltas(b.packed, deltas)
					sc.deltas = [2]int{sc.ids[1], len(b.packed)}
					sc.stats = sumDeltas(deltas)
				}
			}
		}
		b.chunks = append(b.chunks, sc)
	}
}

// An eventDecoder decodes batches of events on two goroutines of its own,
// in order: one scans the ProfileChunk events (eventBatch.scan), the other
// runs traceReader.event on the rest and adds the chunks, stopping at the
// first error.
type eventDecoder struct {
	tr      *traceReader
	next    int // the index of the next batch's first event
	work    chan *eventBatch
	scanned chan *eventBatch
	free    chan *eventBatch
	stop    chan struct{} // closed at the first error
	done    chan struct{} // closed when the goroutines have ended
	err     error         // the first error, read after done
	spare   int           // batches not yet made
}

func newEventDecoder(tr *traceReader) *eventDecoder {
	d := &eventDecoder{tr: tr, next: tr.events, work: make(chan *eventBatch, eventBatches),
		scanned: make(chan *eventBatch, eventBatches), free: make(chan *eventBatch, eventBatches),
		stop: make(chan struct{}), done: make(chan struct{}), spare: eventBatches}
	go func() {
		defer close(d.scanned)
		for b := range d.work {
			select {
			case <-d.stop:
				b.chunks = b.chunks[:0] // not to be decoded
			default:
				b.scan()
			}
			d.scanned <- b
		}
	}()
	go d.run()
	return d
}

func (d *eventDecoder) run() {
	defer close(d.done)
	for b := range d.scanned {
		if d.err == nil {
			start := 0
			for k, end := range b.ends {
				i, off := b.first+k, b.offs[k]
				var err error
				if sc := &b.chunks[k]; sc.ok {
					err = d.tr.addChunk(i, off, &sc.fields, b.packed[sc.ids[0]:sc.ids[1]], b.packed[sc.deltas[0]:sc.deltas[1]], &sc.stats)
				} else {
					err = d.tr.event(i, off, b.data[start:end])
				}
				if err != nil {
					d.err = err
					close(d.stop)
					break
				}
				start = end
			}
		}
		d.free <- b
	}
}

// batch returns an empty batch, waiting for one the decoder is done with
// when all exist.
func (d *eventDecoder) batch() *eventBatch {
	var b *eventBatch
	if d.spare > 0 {
		d.spare--
		b = &eventBatch{data: make([]byte, 0, eventBatchBytes+eventBatchBytes/4)}
	} else {
		b = <-d.free
	}
	b.first = d.next
	b.data, b.ends, b.offs = b.data[:0], b.ends[:0], b.offs[:0]
	return b
}

// send queues b for decoding, reporting false when the decoder has met an
// error and decodes no more.
func (d *eventDecoder) send(b *eventBatch) bool {
	d.next = b.first + len(b.ends)
	select {
	case d.work <- b: // never blocks: there are no more batches than room
	case <-d.stop:
		return false
	}
	select {
	case <-d.stop:
		return false
	default:
		return true
	}
}

// wait waits for the decoder to finish what was sent, returning its error.
func (d *eventDecoder) wait() error {
	close(d.work)
	<-d.done
	return d.err
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
		return errAtOffset(start+jsonErrOffset(err), "bad trace metadata: %v", err)
	}
	if t, err := time.Parse(time.RFC3339Nano, md.StartTime); err == nil {
		tr.startTime = t
	}
	return nil
}
