package pprofio

import (
	"encoding/binary"
	"io"
	"math"
	"slices"

	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// WriteSource writes the profile of src with src's samples, gzipped. The
// samples of a profile (stacks.FromProfile) are written as Write writes
// them. Compact samples (*stacks.Samples; the profile's Sample is written
// after them, and readers that return them leave it nil) are written as
// profile.Samples labelled the way convert.Builder labels them — thread
// and process as string labels when not empty, pid and tid when known,
// timestamp_ns (unit nanoseconds) when timed — without making those
// samples: for a trace of millions of samples that is gigabytes less.
func WriteSource(w io.Writer, src stacks.Source) error {
	return compressed(w, func(zw io.Writer) error { return WriteSourceUncompressed(zw, src) })
}

// WriteSourceUncompressed is WriteSource without gzip.
func WriteSourceUncompressed(w io.Writer, src stacks.Source) error {
	if st, ok := src.(Stream); ok {
		p := src.Profile()
		return encodeWith(w, p, func(e *encoder) { e.streamSamples(p, st) })
	}
	s, _ := src.(*stacks.Samples)
	if s != nil {
		return write(w, s.FrameProfile(), s)
	}
	return write(w, src.Profile(), s)
}

// A Stream is compact samples some of which are made only as they are
// written: convert's DevTools reader keeps a thread's samples packed as
// the trace held them rather than make stacks.Samples' arrays (1 GB for
// the 28.8 M samples of a 525 MB trace) only to write them. WriteSource
// writes a Source that is a Stream through EachSample.
type Stream interface {
	stacks.Source
	// Pool returns the samples whose Locations the stacks EachSample
	// gives index and whose ThreadList its threads index, and the frames
	// every sample's stack holds in all.
	Pool() (s *stacks.Samples, frames int64)
	// EachSample calls f with every sample in order: its stack is
	// Locations[start:end] of Pool's samples, thread its index in their
	// ThreadList, time its timestamp when timed. values must not be
	// kept.
	EachSample(f func(start, end int32, values []int64, thread int32, time int64, timed bool))
}

// stackSamples encodes s's samples.
func (e *encoder) stackSamples(p *profile.Profile, s *stacks.Samples) {
	frames := int64(0)
	if s.Starts != nil {
		frames = sharedFrames(s)
	}
	se := e.stackEncoder(p, s, frames)
	for i := range s.Len() {
		ts, ok := s.Time(i)
		se.sample(s.Start(i), int(s.Ends[i]), s.Value(i), s.SampleThreads[i], ts, ok)
	}
}

// streamSamples encodes the samples of st, as stackSamples does those
// of a stacks.Samples.
func (e *encoder) streamSamples(p *profile.Profile, st Stream) {
	s, frames := st.Pool()
	se := e.stackEncoder(p, s, frames)
	st.EachSample(func(start, end int32, values []int64, thread int32, time int64, timed bool) {
		se.sample(int(start), int(end), values, thread, time, timed)
	})
}

// A stackEncoder encodes compact samples one by one. A sample's labels
// are its thread's string labels and pid and tid, encoded once per
// thread (their strings interned then, as pprof interns them at the
// thread's first sample), then its timestamp: pprof sorts keys, and
// "pid" < "tid" < "timestamp_ns" as "process" < "thread".
type stackEncoder struct {
	e       *encoder
	p       *profile.Profile
	s       *stacks.Samples // Locations and ThreadList
	threads [][]byte
	ids     []uint64
	// The timestamp label's key and unit, interned at the first timed
	// sample (where pprof interns them): the string table's order is
	// pprof's.
	tsKey, tsUnit []byte // their fields, encoded
	pool          *pooledIDs
}

// stackEncoder returns the encoder of samples of s (Locations and
// ThreadList) whose stacks hold frames frames in all (0 when they are
// not shared: no Starts).
func (e *encoder) stackEncoder(p *profile.Profile, s *stacks.Samples, frames int64) *stackEncoder {
	se := &stackEncoder{e: e, p: p, s: s, threads: make([][]byte, len(s.ThreadList))}
	// Location ids by index, built once (8 bytes a location), each as its
	// varint bytes with their count: reading p.Location[x].ID per frame
	// was a cache miss a frame, and encoding it a loop a byte.
	se.ids = varintTable(p.Location)
	// Stacks laid out once and shared (Starts: call tree readers lay out
	// each sampled node's stack once) are encoded once, in their layout:
	// a sample's packed ids are then one copy (28.8 M samples 60-100
	// frames deep share 2.7 M laid-out frames in a 525 MB trace). Only
	// when the samples name each laid-out frame twice or more on average:
	// the pool's encoding takes up to 7 bytes a frame.
	if se.ids != nil && frames >= 2*int64(len(s.Locations)) && frames > 0 {
		se.pool = encodePool(s.Locations, se.ids)
	}
	return se
}

// sample encodes one sample: its stack is Locations[start:end].
func (se *stackEncoder) sample(start, end int, values []int64, x int32, ts int64, timed bool) {
	e := se.e
	var stack []byte // the sample's packed ids, when pooled
	b := e.msg[:0]
	if pool := se.pool; pool != nil && end-start > 2 && pool.off[end]-pool.off[start] < 1<<21 {
		stack = pool.enc[pool.off[start]:pool.off[end]]
	} else {
		b = appendStackIDs(b, se.s.Locations[start:end], se.ids, se.p)
	}
	b = appendRepeated(b, 2, values)
	if se.threads[x] == nil {
		se.threads[x] = e.threadLabels(se.s.ThreadList[x])
	}
	b = append(b, se.threads[x]...)
	if timed {
		if se.tsKey == nil {
			se.tsKey = appendOpt(nil, 1, uint64(e.str(labels.Timestamp)))
			se.tsUnit = appendOpt(nil, 4, uint64(e.str(labels.TimestampUnit)))
		}
		b = appendTimestamp(b, se.tsKey, ts, se.tsUnit)
	}
	e.msg = b
	if stack != nil {
		e.emitStack(stack)
	} else {
		e.emit(2)
	}
}

// emitStack writes a Sample field of the packed location ids stack (at
// least 3, under 2 MB) followed by e.msg, the rest of the message, into
// the gzip chunk directly when it fits: the ids are copied once.
func (e *encoder) emitStack(stack []byte) {
	var head [4]byte
	h := appendVarint(append(head[:0], 1<<3|2), uint64(len(stack)))
	if e.err == nil && e.gz != nil && e.gz.appendParts(2, h, stack, e.msg) {
		return
	}
	rest := e.msg
	e.sub = append(append(append(e.sub[:0], h...), stack...), rest...)
	e.msg, e.sub = e.sub, rest // both buffers kept for reuse
	e.emit(2)
}

// sharedFrames returns the frames s's samples name, counted up to twice
// those s.Locations holds: enough for stackEncoder's choice.
func sharedFrames(s *stacks.Samples) int64 {
	need, frames := 2*int64(len(s.Locations)), int64(0)
	for i := range s.Len() {
		if frames += int64(int(s.Ends[i]) - s.Start(i)); frames >= need {
			break
		}
	}
	return frames
}

// pooledIDs holds a stack pool's location ids encoded once, as packed
// varints: frame k's id is enc[off[k]:off[k+1]], so the ids of frames
// start to end are enc[off[start]:off[end]].
type pooledIDs struct {
	enc []byte
	off []int32
}

// encodePool encodes locs (location indexes) with their ids from
// varintTable; nil when they would take 2 GB or more.
func encodePool(locs []int32, ids []uint64) *pooledIDs {
	total := 0
	for _, x := range locs {
		if uint(x) >= uint(len(ids)) {
			return nil // a frame no sample names may hold anything
		}
		total += int(ids[x] >> 56)
	}
	if total >= math.MaxInt32 {
		return nil
	}
	enc := make([]byte, total+8) // room for the last id's 8-byte store
	off := make([]int32, len(locs)+1)
	pos := 0
	for k, x := range locs {
		off[k] = int32(pos)
		v := ids[x]
		binary.LittleEndian.PutUint64(enc[pos:pos+8], v)
		pos += int(v >> 56)
	}
	off[len(locs)] = int32(pos)
	return &pooledIDs{enc: enc[:total], off: off}
}

// threadLabels returns the encoded labels of a thread (never nil).
func (e *encoder) threadLabels(th stacks.Thread) []byte {
	b := []byte{}
	for _, l := range [...]struct{ key, value string }{{labels.Process, th.Process}, {labels.Thread, th.Thread}} {
		if l.value != "" {
			key, str := e.str(l.key), e.str(l.value)
			e.sub = appendOpt(appendOpt(e.sub[:0], 1, uint64(key)), 2, uint64(str))
			b = appendBytes(b, 3, e.sub)
		}
	}
	if th.HasPID {
		b = e.numLabel(b, labels.PID, th.PID, "")
	}
	if th.HasTID {
		b = e.numLabel(b, labels.TID, th.TID, "")
	}
	return b
}

// numLabel appends a numeric label; unit "" means none.
func (e *encoder) numLabel(b []byte, key string, v int64, unit string) []byte {
	k := e.str(key)
	var u int64
	if unit != "" {
		u = e.str(unit)
	}
	return e.numLabelIDs(b, k, v, u)
}

// numLabelIDs is numLabel with key and unit interned (unit 0 for none).
func (e *encoder) numLabelIDs(b []byte, k, v, u int64) []byte {
	sub := appendOpt(e.sub[:0], 1, uint64(k))
	sub = appendOpt(sub, 3, uint64(v))
	e.sub = appendOpt(sub, 4, uint64(u))
	return appendBytes(b, 3, e.sub)
}

// appendTimestamp appends a timestamp label, what numLabelIDs appends,
// with its key's and unit's fields given: the label is at most 33 bytes,
// so its length is one.
func appendTimestamp(b, key []byte, ts int64, unit []byte) []byte {
	n := len(key) + len(unit)
	if ts != 0 {
		n += 1 + varintLen(uint64(ts))
	}
	b = append(b, 3<<3|2, byte(n))
	b = append(b, key...)
	b = appendOpt(b, 3, uint64(ts))
	return append(b, unit...)
}

// varintTable returns each location's id as a varint (protobuf's base
// 128), little-endian in the low 7 bytes with its length in the top
// one, for appendStackIDs.
func varintTable(locs []*profile.Location) []uint64 {
	t := make([]uint64, len(locs))
	for x, l := range locs {
		var buf [10]byte
		v := appendVarint(buf[:0], l.ID)
		if len(v) > 7 {
			return nil // an id of 49 bits or more: appendStackIDs looks ids up
		}
		var w uint64
		for i, c := range v {
			w |= uint64(c) << (8 * i)
		}
		t[x] = w | uint64(len(v))<<56
	}
	return t
}

// appendStackIDs is appendLocationIDs for a stack of location indexes
// into p.Location, with their ids from varintTable (nil: looked up).
//
// The ids are written in one pass, 8 bytes at a time, after room for the
// field's tag and a length of up to 3 bytes, and then moved up to the
// tag and length written in front of them: cheaper than summing their
// lengths first (28.8 M stacks of 30-60 frames in a 500 MB trace).
func appendStackIDs(b []byte, stack []int32, ids []uint64, p *profile.Profile) []byte {
	if ids == nil || len(stack) <= 2 {
		return appendLocationIDs(b, stack, func(x int32) uint64 { return p.Location[x].ID })
	}
	const room = 4 // the tag and a length below 2^21
	n := len(b)
	b = slices.Grow(b, room+7*len(stack)+8)
	buf := b[n : n+room+7*len(stack)+8]
	pos := room
	for _, x := range stack {
		v := ids[x]
		// The top byte (the length) lands past the id, where the next
		// id or nothing goes.
		binary.LittleEndian.PutUint64(buf[pos:pos+8], v)
		pos += int(v >> 56)
	}
	size := pos - room
	if size >= 1<<21 {
		return appendLocationIDs(b[:n], stack, func(x int32) uint64 { return p.Location[x].ID })
	}
	start := room - 1 - varintLen(uint64(size))
	buf[start] = 1<<3 | 2
	appendVarint(buf[start+1:start+1], uint64(size))
	copy(buf, buf[start:pos])
	return b[:n+pos-start]
}
