// Writing profile.proto: the bytes profile.Profile's WriteUncompressed
// writes, three times faster and with little garbage.
//
// pprof's encoder builds every sample's labels into a fresh slice (sorting
// freshly allocated key lists on the way) and the whole message in memory
// before compressing it; for a converted trace of 400,000 timestamped
// samples that was most of `ctdiff convert`. This one streams: messages go
// out as they are encoded, strings are interned as pprof interns them (so
// the bytes are the same, which the tests check), and a sample's string
// labels are encoded once per label map, since converters share one map
// among a thread's samples.

package pprofio

import (
	"bufio"
	"io"
	"iter"
	"reflect"
	"slices"
	"unsafe"

	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// Write writes p gzipped: up to 4 MB of profile.proto as one gzip member,
// what gzip.Writer writes at gzip.BestSpeed (as runtime/pprof does), and
// above that members of 4 MB compressed in parallel by klauspost/compress
// (gzipWriter).
func Write(w io.Writer, p *profile.Profile) error {
	return compressed(w, func(zw io.Writer) error { return WriteUncompressed(zw, p) })
}

// WriteUncompressed writes p as profile.proto, byte for byte what
// p.WriteUncompressed writes.
func WriteUncompressed(w io.Writer, p *profile.Profile) error {
	return write(w, p, nil)
}

func write(w io.Writer, p *profile.Profile, s *stacks.Samples) error {
	return encode(w, p, s, nil)
}

// encode writes p with the samples of s and seq (when not nil) before
// p.Sample.
func encode(w io.Writer, p *profile.Profile, s *stacks.Samples, seq iter.Seq[*profile.Sample]) error {
	return encodeWith(w, p, func(e *encoder) {
		if s != nil {
			e.stackSamples(p, s)
		}
		if seq != nil {
			e.seqSamples(seq)
		}
	})
}

// encodeWith writes p with the samples samples encodes before p.Sample.
func encodeWith(w io.Writer, p *profile.Profile, samples func(e *encoder)) error {
	e := &encoder{w: w, strings: map[string]int64{"": 0}, table: []string{""}}
	// A gzipWriter buffers what it is written: through a bufio.Writer
	// every byte would be copied once more (3.3 GB for a 500 MB trace).
	var bw *bufio.Writer
	if gz, ok := w.(*gzipWriter); ok {
		e.gz = gz
	} else {
		bw = bufio.NewWriterSize(w, 64<<10)
		e.w = bw
	}
	e.profile(p, samples)
	if e.err != nil || bw == nil {
		return e.err
	}
	return bw.Flush()
}

type encoder struct {
	w       io.Writer
	gz      *gzipWriter // w, when it is one
	err     error
	strings map[string]int64
	table   []string
	msg     []byte // the message being encoded
	sub     []byte // a message inside it
	head    []byte // a field's tag and length
	// labels caches the encoded string labels of a Label map.
	// Its keys, being pointers, keep the maps alive, so no other map
	// takes one's address while the cache lives (WriteSamples' samples may
	// be dropped once written).
	labels map[unsafe.Pointer][]byte
}

func (e *encoder) str(s string) int64 {
	if i, ok := e.strings[s]; ok {
		return i
	}
	i := int64(len(e.table))
	e.strings[s] = i
	e.table = append(e.table, s)
	return i
}

func appendVarint(b []byte, x uint64) []byte {
	for x >= 0x80 {
		b = append(b, byte(x)|0x80)
		x >>= 7
	}
	return append(b, byte(x))
}

// appendField appends a varint field, as pprof's encodeUint64.
func appendField(b []byte, tag int, x uint64) []byte {
	return appendVarint(appendVarint(b, uint64(tag)<<3), x)
}

// appendOpt appends a varint field unless it is 0 (encodeUint64Opt).
func appendOpt(b []byte, tag int, x uint64) []byte {
	if x == 0 {
		return b
	}
	return appendField(b, tag, x)
}

func appendBytes(b []byte, tag int, data []byte) []byte {
	b = appendVarint(b, uint64(tag)<<3|2)
	b = appendVarint(b, uint64(len(data)))
	return append(b, data...)
}

// appendRepeated is pprof's encodeUint64s/encodeInt64s: packed from three
// values, else one field per value.
func appendRepeated[T int64 | uint64](b []byte, tag int, x []T) []byte {
	if len(x) <= 2 {
		for _, v := range x {
			b = appendField(b, tag, uint64(v))
		}
		return b
	}
	n := 0
	for _, v := range x {
		n += varintLen(uint64(v))
	}
	b = appendVarint(b, uint64(tag)<<3|2)
	b = appendVarint(b, uint64(n))
	for _, v := range x {
		b = appendVarint(b, uint64(v))
	}
	return b
}

func varintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// emit writes field tag holding e.msg.
func (e *encoder) emit(tag int) {
	if e.err != nil {
		return
	}
	if e.gz != nil && e.gz.appendField(tag, e.msg) {
		return
	}
	e.head = appendVarint(appendVarint(e.head[:0], uint64(tag)<<3|2), uint64(len(e.msg)))
	if _, err := e.w.Write(e.head); err != nil {
		e.err = err
		return
	}
	if _, err := e.w.Write(e.msg); err != nil {
		e.err = err
	}
}

func (e *encoder) valueType(tag int, vt *profile.ValueType) {
	t, u := e.str(vt.Type), e.str(vt.Unit)
	e.msg = appendOpt(appendOpt(e.msg[:0], 1, uint64(t)), 2, uint64(u))
	e.emit(tag)
}

// profile encodes p, with the samples samples encodes first, in pprof's
// field order, interning strings in pprof's order (preEncode): sample types,
// sample labels, mappings, functions, drop and keep frames, period type,
// comments, default sample type, doc URL.
func (e *encoder) profile(p *profile.Profile, samples func(e *encoder)) {
	for _, st := range p.SampleType {
		e.valueType(1, st)
	}
	samples(e)
	for _, s := range p.Sample {
		e.sample(s)
	}
	for _, m := range p.Mapping {
		file, build := e.str(m.File), e.str(m.BuildID)
		b := appendOpt(e.msg[:0], 1, m.ID)
		b = appendOpt(b, 2, m.Start)
		b = appendOpt(b, 3, m.Limit)
		b = appendOpt(b, 4, m.Offset)
		b = appendOpt(b, 5, uint64(file))
		b = appendOpt(b, 6, uint64(build))
		b = appendOpt(b, 7, boolBit(m.HasFunctions))
		b = appendOpt(b, 8, boolBit(m.HasFilenames))
		b = appendOpt(b, 9, boolBit(m.HasLineNumbers))
		e.msg = appendOpt(b, 10, boolBit(m.HasInlineFrames))
		e.emit(3)
	}
	for _, l := range p.Location {
		b := appendOpt(e.msg[:0], 1, l.ID)
		if l.Mapping != nil {
			b = appendOpt(b, 2, l.Mapping.ID)
		}
		b = appendOpt(b, 3, l.Address)
		for _, ln := range l.Line {
			sub := e.sub[:0]
			if ln.Function != nil {
				sub = appendOpt(sub, 1, ln.Function.ID)
			}
			sub = appendOpt(sub, 2, uint64(ln.Line))
			e.sub = appendOpt(sub, 3, uint64(ln.Column))
			b = appendBytes(b, 4, e.sub)
		}
		e.msg = appendOpt(b, 5, boolBit(l.IsFolded))
		e.emit(4)
	}
	for _, f := range p.Function {
		name, sys, file := e.str(f.Name), e.str(f.SystemName), e.str(f.Filename)
		b := appendOpt(e.msg[:0], 1, f.ID)
		b = appendOpt(b, 2, uint64(name))
		b = appendOpt(b, 3, uint64(sys))
		b = appendOpt(b, 4, uint64(file))
		e.msg = appendOpt(b, 5, uint64(f.StartLine))
		e.emit(5)
	}
	drop, keep := e.str(p.DropFrames), e.str(p.KeepFrames)
	var periodType, periodUnit int64
	if pt := p.PeriodType; pt != nil {
		periodType, periodUnit = e.str(pt.Type), e.str(pt.Unit)
	}
	comments := make([]int64, len(p.Comments))
	for i, c := range p.Comments {
		comments[i] = e.str(c)
	}
	defaultType, doc := e.str(p.DefaultSampleType), e.str(p.DocURL)

	b := e.msg[:0]
	for _, s := range e.table {
		b = appendVarint(b, 6<<3|2)
		b = appendVarint(b, uint64(len(s)))
		b = append(b, s...)
		if len(b) > 32<<10 {
			e.write(b)
			b = b[:0]
		}
	}
	b = appendOpt(b, 7, uint64(drop))
	b = appendOpt(b, 8, uint64(keep))
	b = appendOpt(b, 9, uint64(p.TimeNanos))
	b = appendOpt(b, 10, uint64(p.DurationNanos))
	if p.PeriodType != nil && (periodType != 0 || periodUnit != 0) {
		e.sub = appendOpt(appendOpt(e.sub[:0], 1, uint64(periodType)), 2, uint64(periodUnit))
		b = appendBytes(b, 11, e.sub)
	}
	b = appendOpt(b, 12, uint64(p.Period))
	b = appendRepeated(b, 13, comments)
	b = appendField(b, 14, uint64(defaultType))
	b = appendOpt(b, 15, uint64(doc))
	e.write(b)
	e.msg = b
}

func (e *encoder) write(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func boolBit(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

func (e *encoder) sample(s *profile.Sample) {
	b := appendLocationIDs(e.msg[:0], s.Location, func(l *profile.Location) uint64 { return l.ID })
	b = appendRepeated(b, 2, s.Value)
	if len(s.Label) > 0 {
		b = append(b, e.stringLabels(s.Label)...)
	}
	if len(s.NumLabel) > 0 {
		b = e.numLabels(b, s)
	}
	e.msg = b
	e.emit(2)
}

// appendLocationIDs appends a sample's location ids, as pprof's
// encodeUint64s does.
func appendLocationIDs[L any](b []byte, locs []L, id func(L) uint64) []byte {
	if len(locs) <= 2 {
		for _, l := range locs {
			b = appendField(b, 1, id(l))
		}
		return b
	}
	size := 0
	for _, l := range locs {
		size += varintLen(id(l))
	}
	b = appendVarint(b, 1<<3|2)
	b = appendVarint(b, uint64(size))
	for _, l := range locs {
		b = appendVarint(b, id(l))
	}
	return b
}

// stringLabels returns the encoded label messages of a Label map: keys
// sorted, each value a label (preEncode), cached per map.
func (e *encoder) stringLabels(m map[string][]string) []byte {
	id := reflect.ValueOf(m).UnsafePointer()
	if b, ok := e.labels[id]; ok {
		return b
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b []byte
	for _, k := range keys {
		for _, v := range m[k] {
			key, str := e.str(k), e.str(v)
			e.sub = appendOpt(appendOpt(e.sub[:0], 1, uint64(key)), 2, uint64(str))
			b = appendBytes(b, 3, e.sub)
		}
	}
	if e.labels == nil {
		e.labels = map[unsafe.Pointer][]byte{}
	}
	e.labels[id] = b
	return b
}

// numLabels appends a sample's numeric labels: keys sorted, each value a
// label with its unit when the key has units.
func (e *encoder) numLabels(b []byte, s *profile.Sample) []byte {
	var buf [8]string
	keys := buf[:0]
	for k := range s.NumLabel {
		keys = append(keys, k)
	}
	// Insertion sort: a handful of keys, no allocation.
	for i := 1; i < len(keys); i++ {
		for j := i; j > 0 && keys[j] < keys[j-1]; j-- {
			keys[j], keys[j-1] = keys[j-1], keys[j]
		}
	}
	for _, k := range keys {
		key := e.str(k)
		units := s.NumUnit[k]
		for i, v := range s.NumLabel[k] {
			var unit int64
			if len(units) != 0 {
				u := ""
				if i < len(units) { // pprof would panic; say nothing instead
					u = units[i]
				}
				unit = e.str(u)
			}
			sub := appendOpt(e.sub[:0], 1, uint64(key))
			sub = appendOpt(sub, 3, uint64(v))
			e.sub = appendOpt(sub, 4, uint64(unit))
			b = appendBytes(b, 3, e.sub)
		}
	}
	return b
}
