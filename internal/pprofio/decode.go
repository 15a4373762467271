package pprofio

import (
	"slices"
	"strings"
	"sync"
	"unsafe"

	"github.com/google/pprof/profile"
)

// Decode decodes an uncompressed profile.proto into the profile that
// profile.ParseUncompressed returns for it, about four times faster and with
// half the memory: samples, their location and value slices and their label
// values are carved from a few large slabs instead of being allocated one by
// one, the sample's location ids are not kept beside its locations, and
// samples with the same string labels (or the same numeric label keys and
// units) share one Label (NumUnit) map, as the profileBuilder's readers do.
//
// It returns ok=false for anything it does not accept exactly as
// ParseUncompressed would, and the caller then falls back to
// profile.ParseData, which gives the authoritative result or error; so the
// decoder checks what pprof checks and gives up instead of explaining.
// counts are data's fields counted (ReadFields, KnownFields), or nil.
func Decode(data []byte, counts *Counts) (p *profile.Profile, ok bool) {
	if len(data) == 0 {
		return nil, false
	}
	d := pprofDecoder{p: &profile.Profile{}, scratch: pprofScratches.Get().(*pprofScratch), counts: counts}
	defer d.release()
	if !d.top(data) || !d.resolve() || !d.samples() {
		return nil, false
	}
	return d.p, true
}

type pprofDecoder struct {
	p *profile.Profile
	// bufs lend stacks() its arrays and keep the tables of the profile
	// decoded before; known, when not nil, are those tables, which data's
	// are (byte for byte): resolve takes them and top skips their fields.
	bufs    *Buffers
	known   *pprofTables
	own     ownTables
	strings []string

	sampleTypes []valueTypeX
	periodType  *valueTypeX
	data        []byte
	sampleAt    []uint64 // each Sample message: offset in data << 24 | length
	mappings    []mappingX
	locations   []locationX
	lines       []lineX // all locations' lines; locationX holds a range
	functions   []functionX
	dropFrames  int64
	keepFrames  int64
	comments    []int64
	defaultType int64
	docURL      int64

	locByID []*profile.Location
	locByX  map[uint64]*profile.Location
	// The same by index in p.Location, for Samples; -1 for no location.
	idxByID []int32
	idxByX  map[uint64]int32
	dense   uint64 // ids 1 to dense have index id - 1 (stacks)

	scratch *pprofScratch
	counts  *Counts // from readPprofData; nil to count in size
}

// pprofScratch holds a decoder's tables that the profile it makes does
// not keep, pooled for the next profile a goroutine decodes: at 100 runs a
// side they were a sixth of the bytes reading allocated.
type pprofScratch struct {
	sampleAt  []uint64
	locations []locationX
	lines     []lineX
	functions []functionX
	strings   []string
	idxByID   []int32
	locByID   []*profile.Location
}

var pprofScratches = sync.Pool{New: func() any { return new(pprofScratch) }}

// maxPooledScratch bounds the bytes of the tables kept for reuse, as
// maxPooledPprofBuf does the profile's.
const maxPooledScratch = 8 << 20

// reuse returns s emptied, with room for n, or a new slice.
func reuse[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:0]
	}
	return make([]T, 0, n)
}

// release gives d's tables back to the pool, holding no strings or
// locations of the profile made.
func (d *pprofDecoder) release() {
	sc := d.scratch
	if sc == nil {
		return
	}
	d.scratch = nil
	if d.own.set { // the known tables are not the scratch's
		d.strings, d.locByID, d.idxByID = d.own.strings, sc.locByID, sc.idxByID
	}
	size := cap(d.sampleAt)*8 + cap(d.locations)*int(unsafe.Sizeof(locationX{})) + cap(d.lines)*int(unsafe.Sizeof(lineX{})) +
		cap(d.functions)*int(unsafe.Sizeof(functionX{})) + cap(d.strings)*16 + cap(d.idxByID)*4 + cap(d.locByID)*8
	if size > maxPooledScratch {
		return
	}
	clear(d.strings)
	clear(d.locByID)
	sc.sampleAt, sc.locations, sc.lines, sc.functions, sc.strings = d.sampleAt[:0], d.locations[:0], d.lines[:0], d.functions[:0], d.strings[:0]
	sc.idxByID, sc.locByID = d.idxByID[:0], d.locByID[:0]
	pprofScratches.Put(sc)
}

type valueTypeX struct{ typ, unit int64 }

type mappingX struct {
	m             profile.Mapping
	file, buildID int64
}

type locationX struct {
	l          profile.Location
	mapping    uint64
	start, end int // lines[start:end]
}

type lineX struct {
	function  uint64
	line, col int64
}

type functionX struct {
	f                  profile.Function
	name, system, file int64
}

// A field is one decoded protobuf field: its number, wire type, varint or
// fixed value, and for wire type 2 its bytes.
type field struct {
	num, typ int
	u        uint64
	data     []byte
}

// varint decodes a varint as pprof does: at most 10 bytes, excess high bits
// dropped. n is 0 when the varint is malformed.
func varint(b []byte) (u uint64, n int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	for i := 0; i < 10 && i < len(b); i++ {
		u |= uint64(b[i]&0x7f) << (7 * i)
		if b[i] < 0x80 {
			return u, i + 1
		}
	}
	return 0, 0
}

// next decodes the field at the start of b and returns the rest.
func next(b []byte) (f field, rest []byte, ok bool) {
	key, n := varint(b)
	if n == 0 {
		return f, nil, false
	}
	b = b[n:]
	f.num, f.typ = int(key>>3), int(key&7)
	switch f.typ {
	case 0:
		if f.u, n = varint(b); n == 0 {
			return f, nil, false
		}
		b = b[n:]
	case 1:
		if len(b) < 8 {
			return f, nil, false
		}
		for i := 7; i >= 0; i-- {
			f.u = f.u<<8 | uint64(b[i])
		}
		b = b[8:]
	case 2:
		l, n := varint(b)
		if n == 0 || l > uint64(len(b)-n) {
			return f, nil, false
		}
		f.data, b = b[n:n+int(l)], b[n+int(l):]
	case 5:
		if len(b) < 4 {
			return f, nil, false
		}
		f.u = uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24
		b = b[4:]
	default:
		return f, nil, false
	}
	return f, b, true
}

// int64Field is an optional int64/uint64/bool field: wire type 0 only.
func (f field) int64Field(x *int64) bool {
	*x = int64(f.u)
	return f.typ == 0
}

// each calls fn for every field of a message.
func each(b []byte, fn func(f field) bool) bool {
	for len(b) > 0 {
		f, rest, ok := next(b)
		if !ok || !fn(f) {
			return false
		}
		b = rest
	}
	return true
}

// repeated appends the values of a repeated varint field, packed (wire
// type 2) or not (wire type 0).
func repeated[T int64 | uint64](f field, out []T) ([]T, bool) {
	switch f.typ {
	case 0:
		return append(out, T(f.u)), true
	case 2:
		for b := f.data; len(b) > 0; {
			u, n := varint(b)
			if n == 0 {
				return out, false
			}
			out = append(out, T(u))
			b = b[n:]
		}
		return out, true
	}
	return out, false
}

// sample returns the i-th Sample message.
func (d *pprofDecoder) sample(i int) []byte {
	at, n := d.sampleAt[i]>>24, d.sampleAt[i]&(1<<24-1)
	return d.data[at : at+n]
}

func (d *pprofDecoder) top(data []byte) bool {
	d.data = data
	d.size(data)
	for b := data; len(b) > 0; {
		if b[0] == 2<<3|2 { // a sample, most of the fields: its place only
			l, n := varint(b[1:])
			if n == 0 || l > uint64(len(b)-1-n) {
				return false
			}
			at := len(data) - len(b) + 1 + n
			if l >= 1<<24 || uint64(at) >= 1<<40 {
				return false // pprof decides about giant samples
			}
			d.sampleAt = append(d.sampleAt, uint64(at)<<24|l)
			b = b[1+n+int(l):]
			continue
		}
		f, rest, ok := next(b)
		if !ok || !d.topField(f) {
			return false
		}
		b = rest
	}
	return true
}

// topField decodes a top-level field of a Profile message.
func (d *pprofDecoder) topField(f field) bool {
	if d.known != nil && isTable(f.num) {
		return true // decoded before (pprofDecoder.known)
	}
	switch f.num {
	case 1:
		var vt valueTypeX
		ok := f.typ == 2 && d.valueType(f.data, &vt)
		d.sampleTypes = append(d.sampleTypes, vt)
		return ok
	case 2:
		// The message's place in data: less to keep than a slice.
		at := cap(d.data) - cap(f.data)
		if f.typ != 2 || len(f.data) >= 1<<24 || uint64(at) >= 1<<40 {
			return false // pprof decides about giant samples
		}
		d.sampleAt = append(d.sampleAt, uint64(at)<<24|uint64(len(f.data)))
		return true
	case 3:
		return f.typ == 2 && d.mapping(f.data)
	case 4:
		return f.typ == 2 && d.location(f.data)
	case 5:
		return f.typ == 2 && d.function(f.data)
	case 6:
		// One allocation each, not carved from one string: a
		// profile's trees keep a few of its strings, and those would
		// keep the whole table alive (65 MB more at 100 + 100 runs).
		d.strings = append(d.strings, string(f.data))
		return f.typ == 2 && d.strings[0] == ""
	case 7:
		return f.int64Field(&d.dropFrames)
	case 8:
		return f.int64Field(&d.keepFrames)
	case 9:
		if d.p.TimeNanos != 0 {
			return false // concatenated profiles: pprof refuses them
		}
		return f.int64Field(&d.p.TimeNanos)
	case 10:
		return f.int64Field(&d.p.DurationNanos)
	case 11:
		d.periodType = &valueTypeX{}
		return f.typ == 2 && d.valueType(f.data, d.periodType)
	case 12:
		return f.int64Field(&d.p.Period)
	case 13:
		var ok bool
		d.comments, ok = repeated(f, d.comments)
		return ok
	case 14:
		return f.int64Field(&d.defaultType)
	case 15:
		return f.int64Field(&d.docURL)
	}
	return true // unknown fields are skipped, as pprof does
}

// Counts counts the top-level fields of a profile.proto whose tables
// the decoder allocates: counted while ReadFields copies them, so
// that decoding does not take a pass over the bytes for it.
type Counts struct{ samples, locations, functions, strings int }

// add counts a field with this number.
func (n *Counts) add(num int) {
	switch num {
	case 2:
		n.samples++
	case 4:
		n.locations++
	case 5:
		n.functions++
	case 6:
		n.strings++
	}
}

// size allocates the tables for the samples, locations, functions and
// strings data holds, which a pass over its top-level fields counts: less
// than growing them costs.
func (d *pprofDecoder) size(data []byte) {
	n := d.counts
	if n == nil {
		n = &Counts{}
		for b := data; len(b) > 0; {
			f, rest, ok := next(b)
			if !ok {
				break
			}
			n.add(f.num)
			b = rest
		}
	}
	samples, locations, functions, strs := n.samples, n.locations, n.functions, n.strings
	sc := d.scratch
	if sc == nil {
		sc = &pprofScratch{}
	}
	d.sampleAt = reuse(sc.sampleAt, samples)
	d.locations = reuse(sc.locations, locations)
	d.lines = reuse(sc.lines, locations)
	d.functions = reuse(sc.functions, functions)
	d.strings = reuse(sc.strings, strs)
}

func (d *pprofDecoder) valueType(b []byte, vt *valueTypeX) bool {
	return each(b, func(f field) bool {
		switch f.num {
		case 1:
			return f.int64Field(&vt.typ)
		case 2:
			return f.int64Field(&vt.unit)
		}
		return true
	})
}

func (d *pprofDecoder) mapping(b []byte) bool {
	var m mappingX
	var v int64
	ok := each(b, func(f field) bool {
		ok := f.int64Field(&v)
		switch f.num {
		case 1:
			m.m.ID = uint64(v)
		case 2:
			m.m.Start = uint64(v)
		case 3:
			m.m.Limit = uint64(v)
		case 4:
			m.m.Offset = uint64(v)
		case 5:
			m.file = v
		case 6:
			m.buildID = v
		case 7:
			m.m.HasFunctions = v != 0
		case 8:
			m.m.HasFilenames = v != 0
		case 9:
			m.m.HasLineNumbers = v != 0
		case 10:
			m.m.HasInlineFrames = v != 0
		default:
			return true
		}
		return ok
	})
	d.mappings = append(d.mappings, m)
	return ok
}

// location decodes a Location message. It and function loop over the
// fields themselves rather than through each: a profile has thousands of
// them, and the closure call per field was a fifth of decoding one of
// synth's 20,000-stack profiles (5,000 locations and functions).
func (d *pprofDecoder) location(b []byte) bool {
	l := locationX{start: len(d.lines)}
	ok := true
	for len(b) > 0 && ok {
		var f field
		if f, b, ok = next(b); !ok {
			break
		}
		switch f.num {
		case 1:
			l.l.ID, ok = f.u, f.typ == 0
		case 2:
			l.mapping, ok = f.u, f.typ == 0
		case 3:
			l.l.Address, ok = f.u, f.typ == 0
		case 5:
			l.l.IsFolded, ok = f.u != 0, f.typ == 0
		case 4:
			var ln lineX
			ok = f.typ == 2 && line(f.data, &ln)
			d.lines = append(d.lines, ln)
		}
	}
	l.end = len(d.lines)
	d.locations = append(d.locations, l)
	return ok
}

// line decodes a Line message into ln.
func line(b []byte, ln *lineX) bool {
	for len(b) > 0 {
		f, rest, ok := next(b)
		if !ok {
			return false
		}
		b = rest
		switch f.num {
		case 1:
			ln.function = f.u
		case 2:
			ln.line = int64(f.u)
		case 3:
			ln.col = int64(f.u)
		default:
			continue
		}
		if f.typ != 0 {
			return false
		}
	}
	return true
}

func (d *pprofDecoder) function(b []byte) bool {
	var fn functionX
	ok := true
	for len(b) > 0 && ok {
		var f field
		if f, b, ok = next(b); !ok {
			break
		}
		switch f.num {
		case 1:
			fn.f.ID = f.u
		case 2:
			fn.name = int64(f.u)
		case 3:
			fn.system = int64(f.u)
		case 4:
			fn.file = int64(f.u)
		case 5:
			fn.f.StartLine = int64(f.u)
		default:
			continue
		}
		ok = f.typ == 0
	}
	d.functions = append(d.functions, fn)
	return ok
}

// str resolves a string index; ok is false when it is out of range, which
// pprof rejects as a malformed profile.
func (d *pprofDecoder) str(x int64, ok *bool) string {
	if x < 0 || x >= int64(len(d.strings)) {
		*ok = false
		return ""
	}
	return d.strings[x]
}

// resolve links mappings, functions and locations as postDecode does: by
// id, the last of equal ids winning, unknown ids giving nil.
func (d *pprofDecoder) resolve() bool {
	if k := d.known; k != nil {
		d.own = ownTables{strings: d.strings, set: true}
		d.strings, d.locByID, d.locByX, d.idxByID, d.idxByX = k.strings, k.locByID, k.locByX, k.idxByID, k.idxByX
		p := d.p
		p.Mapping, p.Function, p.Location = slices.Clone(k.mapping), slices.Clone(k.function), slices.Clone(k.location)
		return d.resolveRest()
	}
	if !d.resolveTables() {
		return false
	}
	ok := d.resolveRest()
	if ok {
		d.bufs.keepTables(d, d.data)
	}
	return ok
}

// resolveTables links the tables.
func (d *pprofDecoder) resolveTables() bool {
	p, ok := d.p, true
	mappings := make([]profile.Mapping, len(d.mappings))
	mapByID := make([]*profile.Mapping, len(d.mappings)+1)
	mapByX := map[uint64]*profile.Mapping{}
	p.Mapping = make([]*profile.Mapping, len(d.mappings))
	for i := range d.mappings {
		mx := &d.mappings[i]
		m := &mappings[i]
		*m = mx.m
		m.File, m.BuildID = d.str(mx.file, &ok), d.str(mx.buildID, &ok)
		if s, found := strings.CutPrefix(m.File, "[kernel.kallsyms]"); found {
			m.KernelRelocationSymbol = s
		}
		if m.ID < uint64(len(mapByID)) {
			mapByID[m.ID] = m
		} else {
			mapByX[m.ID] = m
		}
		p.Mapping[i] = m
	}
	functions := make([]profile.Function, len(d.functions))
	funcByID := make([]*profile.Function, len(d.functions)+1)
	funcByX := map[uint64]*profile.Function{}
	p.Function = make([]*profile.Function, len(d.functions))
	for i := range d.functions {
		fx := &d.functions[i]
		f := &functions[i]
		*f = fx.f
		f.Name, f.SystemName, f.Filename = d.str(fx.name, &ok), d.str(fx.system, &ok), d.str(fx.file, &ok)
		if f.ID < uint64(len(funcByID)) {
			funcByID[f.ID] = f
		} else {
			funcByX[f.ID] = f
		}
		p.Function[i] = f
	}
	locations := make([]profile.Location, len(d.locations))
	lines := make([]profile.Line, len(d.lines))
	sc := d.scratch
	if sc == nil {
		sc = &pprofScratch{}
	}
	d.locByID = reuse(sc.locByID, len(d.locations)+1)[:len(d.locations)+1]
	clear(d.locByID)
	d.locByX = map[uint64]*profile.Location{}
	d.idxByID = reuse(sc.idxByID, len(d.locations)+1)[:len(d.locations)+1]
	for i := range d.idxByID {
		d.idxByID[i] = -1
	}
	d.idxByX = map[uint64]int32{}
	p.Location = make([]*profile.Location, len(d.locations))
	for i := range d.locations {
		lx := &d.locations[i]
		l := &locations[i]
		*l = lx.l
		if id := lx.mapping; id < uint64(len(mapByID)) {
			l.Mapping = mapByID[id]
		} else {
			l.Mapping = mapByX[id]
		}
		if lx.end > lx.start {
			l.Line = lines[lx.start:lx.end:lx.end]
		}
		for j, ln := range d.lines[lx.start:lx.end] {
			l.Line[j] = profile.Line{Line: ln.line, Column: ln.col}
			if id := ln.function; id != 0 {
				if id < uint64(len(funcByID)) {
					l.Line[j].Function = funcByID[id]
				} else {
					l.Line[j].Function = funcByX[id]
				}
			}
		}
		if l.ID < uint64(len(d.locByID)) {
			d.locByID[l.ID], d.idxByID[l.ID] = l, int32(i)
		} else {
			d.locByX[l.ID], d.idxByX[l.ID] = l, int32(i)
		}
		p.Location[i] = l
	}
	return ok
}

// resolveRest makes what the profile holds besides its tables and
// samples.
func (d *pprofDecoder) resolveRest() bool {
	p, ok := d.p, true
	p.SampleType = make([]*profile.ValueType, len(d.sampleTypes))
	types := make([]profile.ValueType, len(d.sampleTypes))
	for i, vt := range d.sampleTypes {
		types[i] = profile.ValueType{Type: d.str(vt.typ, &ok), Unit: d.str(vt.unit, &ok)}
		p.SampleType[i] = &types[i]
	}
	p.DropFrames, p.KeepFrames = d.str(d.dropFrames, &ok), d.str(d.keepFrames, &ok)
	p.PeriodType = &profile.ValueType{}
	if pt := d.periodType; pt != nil {
		p.PeriodType.Type, p.PeriodType.Unit = d.str(pt.typ, &ok), d.str(pt.unit, &ok)
	}
	for _, c := range d.comments {
		p.Comments = append(p.Comments, d.str(c, &ok))
	}
	p.DefaultSampleType, p.DocURL = d.str(d.defaultType, &ok), d.str(d.docURL, &ok)
	return ok
}

func (d *pprofDecoder) loc(id uint64) *profile.Location {
	if id < uint64(len(d.locByID)) {
		return d.locByID[id]
	}
	return d.locByX[id]
}

// slab hands out slices of a large backing array, refilled in chunks, so
// that a million small slices are a few allocations.
type slab[T any] struct{ buf []T }

func (s *slab[T]) take(n int) []T {
	if n > len(s.buf) {
		s.buf = make([]T, max(n, 1<<16))
	}
	out := s.buf[:n:n]
	s.buf = s.buf[n:]
	return out
}

// sampleLabel is one label of a sample as stored: string indexes.
type sampleLabel struct{ key, str, num, unit int64 }

func (d *pprofDecoder) samples() bool {
	p := d.p
	p.Sample = make([]*profile.Sample, len(d.sampleAt))
	structs := make([]profile.Sample, len(d.sampleAt))
	var locs slab[*profile.Location]
	var vals slab[int64]
	var ids []uint64
	var values []int64
	var lbls []sampleLabel
	var lc labelCache
	for i := range d.sampleAt {
		b := d.sample(i)
		var ok bool
		if ids, values, lbls, ok = parseSample(b, ids[:0], values[:0], lbls[:0]); !ok {
			return false
		}
		s := &structs[i]
		if len(ids) > 0 {
			s.Location = locs.take(len(ids))
			for j, id := range ids {
				s.Location[j] = d.loc(id)
			}
		}
		if len(values) > 0 {
			s.Value = vals.take(len(values))
			copy(s.Value, values)
		}
		if len(lbls) > 0 && !d.labels(s, lbls, &lc, &vals) {
			return false
		}
		p.Sample[i] = s
	}
	return true
}

// parseSample decodes one Sample message: location ids, values and labels.
func parseSample(b []byte, ids []uint64, values []int64, lbls []sampleLabel) ([]uint64, []int64, []sampleLabel, bool) {
	for len(b) > 0 {
		f, rest, ok := next(b)
		if !ok {
			return ids, values, lbls, false
		}
		b = rest
		switch f.num {
		case 1:
			ids, ok = locationIDs(f, ids)
		case 2:
			values, ok = repeated(f, values)
		case 3:
			var l sampleLabel
			l, ok = parseLabel(f)
			lbls = append(lbls, l)
		}
		if !ok {
			return ids, values, lbls, false
		}
	}
	return ids, values, lbls, true
}

// locationIDs is repeated for a sample's location ids, which are small:
// their one- and two-byte varints are decoded inline.
func locationIDs(f field, ids []uint64) ([]uint64, bool) {
	if f.typ != 2 {
		return repeated(f, ids)
	}
	for p := f.data; len(p) > 0; {
		u, n := idVarint(p)
		if n == 0 {
			return ids, false
		}
		ids, p = append(ids, u), p[n:]
	}
	return ids, true
}

// idVarint is varint for location ids, which are small: it decodes their
// one- and two-byte varints itself. (It is over the inlining budget now;
// appendIndexes, the stacks path's loop, decodes them inline instead.)
func idVarint(p []byte) (uint64, int) {
	if c := p[0]; c < 0x80 {
		return uint64(c), 1
	} else if len(p) > 1 && p[1] < 0x80 {
		return uint64(c&0x7f) | uint64(p[1])<<7, 2
	}
	return longVarint(p)
}

// longVarint is varint kept out of line: it keeps idVarint's body small
// (once within the inlining budget; now only its common one- and two-byte
// cases stay short).
//
//go:noinline
func longVarint(p []byte) (uint64, int) { return varint(p) }

// parseLabel decodes a Label message's key, string value, number and
// unit.
func parseLabel(f field) (l sampleLabel, ok bool) {
	ok = f.typ == 2 && each(f.data, func(f field) bool {
		switch f.num {
		case 1:
			return f.int64Field(&l.key)
		case 2:
			return f.int64Field(&l.str)
		case 3:
			return f.int64Field(&l.num)
		case 4:
			return f.int64Field(&l.unit)
		}
		return true
	})
	return l, ok
}

// labelCache remembers the label maps made for a label layout, so samples
// of one thread share them.
type labelCache struct {
	key    []byte
	str    map[string]map[string][]string
	units  map[string]map[string][]string
	counts map[string]int
}

// labels sets a sample's Label, NumLabel and NumUnit as postDecode does:
// a label with a string value is a string label, else one with a number or
// a unit is numeric (number 0 without a unit is dropped); units are padded
// with "" to one per value.
func (d *pprofDecoder) labels(s *profile.Sample, lbls []sampleLabel, lc *labelCache, vals *slab[int64]) bool {
	ok := true
	for _, l := range lbls {
		d.str(l.key, &ok)
		if l.str != 0 {
			d.str(l.str, &ok)
		} else if l.unit != 0 {
			d.str(l.unit, &ok)
		}
	}
	if !ok {
		return false
	}
	if lc.str == nil {
		lc.str, lc.units = map[string]map[string][]string{}, map[string]map[string][]string{}
	}
	if nums := d.strLabels(s, lbls, lc); nums > 0 {
		d.numLabels(s, lbls, lc, vals)
	}
	return true
}

// strLabels sets s.Label, shared by samples with the same string labels,
// and returns the number of numeric labels.
func (d *pprofDecoder) strLabels(s *profile.Sample, lbls []sampleLabel, lc *labelCache) (nums int) {
	lc.key = lc.key[:0]
	for _, l := range lbls {
		switch {
		case l.str != 0:
			lc.key = appendInt(appendInt(lc.key, l.key), l.str)
		case l.num != 0 || l.unit != 0:
			nums++
		}
	}
	if len(lc.key) == 0 {
		return nums
	}
	m, found := lc.str[string(lc.key)]
	if !found {
		m = map[string][]string{}
		for _, l := range lbls {
			if l.str != 0 {
				k := d.strings[l.key]
				m[k] = append(m[k], d.strings[l.str])
			}
		}
		lc.str[string(lc.key)] = m
	}
	s.Label = m
	return nums
}

// isNumLabel reports whether l is a numeric label as postDecode keeps it.
func isNumLabel(l sampleLabel) bool { return l.str == 0 && (l.num != 0 || l.unit != 0) }

// numLabels sets s.NumLabel, one map per sample with values from the slab,
// and s.NumUnit, which depends on the keys and units only: shared.
func (d *pprofDecoder) numLabels(s *profile.Sample, lbls []sampleLabel, lc *labelCache, vals *slab[int64]) {
	if lc.counts == nil {
		lc.counts = map[string]int{}
	}
	clear(lc.counts)
	lc.key = lc.key[:0]
	for _, l := range lbls {
		if isNumLabel(l) {
			lc.counts[d.strings[l.key]]++
			lc.key = appendInt(appendInt(lc.key, l.key), l.unit)
		}
	}
	num := make(map[string][]int64, len(lc.counts))
	for k, n := range lc.counts {
		num[k] = vals.take(n)[:0]
	}
	units, found := lc.units[string(lc.key)]
	if !found {
		units = map[string][]string{}
	}
	for _, l := range lbls {
		if !isNumLabel(l) {
			continue
		}
		k := d.strings[l.key]
		if !found && l.unit != 0 {
			units[k] = append(padUnits(units[k], len(num[k])), d.strings[l.unit])
		}
		num[k] = append(num[k], l.num)
	}
	if !found {
		for k, u := range units {
			units[k] = padUnits(u, len(num[k]))
		}
		lc.units[string(lc.key)] = units
	}
	s.NumLabel, s.NumUnit = num, units
}

// padUnits pads u with "" to n units.
func padUnits(u []string, n int) []string {
	for len(u) < n {
		u = append(u, "")
	}
	return u
}

func appendInt(b []byte, v int64) []byte {
	for u := uint64(v); ; u >>= 7 {
		if u < 0x80 {
			return append(b, byte(u))
		}
		b = append(b, byte(u)|0x80)
	}
}
