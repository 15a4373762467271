package convert

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"unicode/utf16"

	"github.com/grafana/jfr-parser/parser"
	"github.com/grafana/jfr-parser/parser/types"
	"github.com/grafana/jfr-parser/parser/types/def"
)

// This file walks a JFR recording before jfr-parser does, for two reasons.
// jfr-parser trusts the counts it reads (string tables, constant pools,
// arrays) and allocates what they say, so a corrupt count can take all
// memory, which no recover can catch; every count is checked here against
// the bytes that remain. And jfr-parser skips the frame type of stack
// frames, which jfrFrameTypes reads here. The layout follows the JFR chunk
// format as jfr-parser reads it (parser/parser.go, metadata.go, cpool.go).

const jfrChunkHeaderSize = 68

// A jfrChunk is one self-contained part of a recording, checked and
// pre-read: its metadata, the frame types of its stack traces and the
// stack-carrying events it has of kinds this reader does not convert.
type jfrChunk struct {
	start      int
	hdr        parser.ChunkHeader
	frameTypes map[types.StackTraceRef][]uint8
	skipped    map[string]int
	held       map[string]int // every event by kind
	converted  int            // events of the kinds jfr.go converts
}

// jfrConverted names the events jfr.go converts; other events that carry a
// stack trace are counted as skipped.
var jfrConverted = map[string]bool{
	"jdk.ExecutionSample":             true,
	"profiler.WallClockSample":        true,
	"jdk.ObjectAllocationInNewTLAB":   true,
	"jdk.ObjectAllocationOutsideTLAB": true,
	"jdk.ObjectAllocationSample":      true,
	"profiler.Malloc":                 true,
	"jdk.JavaMonitorEnter":            true,
	"jdk.ThreadPark":                  true,
}

// jfrChunks reads and checks every chunk of a recording.
func jfrChunks(data []byte) ([]jfrChunk, error) {
	var chunks []jfrChunk
	for pos := 0; pos < len(data); {
		c, err := jfrReadChunk(data, pos)
		if err != nil {
			return nil, err
		}
		chunks = append(chunks, c)
		pos += c.hdr.Size
	}
	if len(chunks) == 0 {
		return nil, errAtOffset(0, "empty JFR recording")
	}
	return chunks, nil
}

func jfrReadChunk(data []byte, pos int) (jfrChunk, error) {
	if len(data)-pos < jfrChunkHeaderSize {
		return jfrChunk{}, errAtOffset(int64(pos), "truncated JFR chunk header: %d bytes, expected %d", len(data)-pos, jfrChunkHeaderSize)
	}
	b := data[pos:]
	if !bytes.HasPrefix(b, jfrMagic) {
		return jfrChunk{}, errAtOffset(int64(pos), "expected a JFR chunk (magic \"FLR\\0\"), found %q", b[:4])
	}
	u64 := func(off int) int {
		v := binary.BigEndian.Uint64(b[off:])
		if v > uint64(len(b)) {
			return len(b) + 1 // out of range either way; keeps int conversion safe
		}
		return int(v)
	}
	h := parser.ChunkHeader{
		Magic:              binary.BigEndian.Uint32(b),
		Version:            binary.BigEndian.Uint32(b[4:]),
		Size:               u64(8),
		OffsetConstantPool: u64(16),
		OffsetMeta:         u64(24),
		StartNanos:         binary.BigEndian.Uint64(b[32:]),
		DurationNanos:      binary.BigEndian.Uint64(b[40:]),
		StartTicks:         binary.BigEndian.Uint64(b[48:]),
		TicksPerSecond:     binary.BigEndian.Uint64(b[56:]),
		Features:           binary.BigEndian.Uint32(b[64:]),
	}
	switch {
	case h.Version>>16 != 2:
		return jfrChunk{}, errAtOffset(int64(pos), "JFR format version %d.%d is not supported (only 2.x, written by JDK 11+ and async-profiler)", h.Version>>16, h.Version&0xffff)
	case h.Size < jfrChunkHeaderSize || h.Size > len(b):
		return jfrChunk{}, errAtOffset(int64(pos), "JFR chunk size %d does not fit the %d bytes left (truncated recording?)", binary.BigEndian.Uint64(b[8:]), len(b))
	case h.OffsetMeta < jfrChunkHeaderSize || h.OffsetMeta >= h.Size ||
		h.OffsetConstantPool < jfrChunkHeaderSize || h.OffsetConstantPool >= h.Size:
		return jfrChunk{}, errAtOffset(int64(pos), "JFR chunk offsets (metadata %d, constant pool %d) lie outside the chunk of %d bytes",
			binary.BigEndian.Uint64(b[24:]), binary.BigEndian.Uint64(b[16:]), h.Size)
	case h.TicksPerSecond == 0:
		return jfrChunk{}, errAtOffset(int64(pos), "JFR chunk has 0 ticks per second")
	case h.Features&1 == 0:
		return jfrChunk{}, errAtOffset(int64(pos), "JFR chunk with uncompressed integers is not supported")
	}
	c := jfrChunk{start: pos, hdr: h, skipped: map[string]int{}, held: map[string]int{}}
	chunk := b[:h.Size]
	d := &jfrDecoder{b: chunk, pos: h.OffsetMeta}
	fail := func(what string, err error) error {
		return errAtOffset(int64(pos+d.pos), "JFR chunk %s: %v", what, err)
	}
	tm, err := d.metadata()
	if err != nil {
		return c, fail("metadata", err)
	}
	d = &jfrDecoder{b: chunk, tm: tm}
	if c.frameTypes, err = d.constantPools(h.OffsetConstantPool); err != nil {
		return c, fail("constant pool", err)
	}
	d.pos = jfrChunkHeaderSize
	if c.converted, err = d.events(c.skipped, c.held); err != nil {
		return c, fail("event", err)
	}
	return c, nil
}

// A jfrDecoder reads JFR values (compressed integers) from one chunk.
type jfrDecoder struct {
	b   []byte
	pos int
	tm  *def.TypeMap
	// Primitive types jfr-parser's TypeMap has no field for.
	byteT, charT, doubleT def.TypeID
}

var errJFRShort = errors.New("unexpected end of chunk")

// varlong reads a JFR compressed integer: 7 bits a byte, the 9th byte whole.
func (d *jfrDecoder) varlong() (uint64, error) {
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if d.pos >= len(d.b) {
			return 0, errJFRShort
		}
		c := d.b[d.pos]
		d.pos++
		if shift == 56 {
			return v | uint64(c)<<56, nil
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
}

// count reads a count of items that take at least min bytes each and
// checks that they fit the rest of the chunk.
func (d *jfrDecoder) count(min int) (int, error) {
	n, err := d.varlong()
	if err != nil {
		return 0, err
	}
	if n > uint64((len(d.b)-d.pos)/min) {
		return 0, fmt.Errorf("count %d cannot fit the %d bytes left", n, len(d.b)-d.pos)
	}
	return int(n), nil
}

func (d *jfrDecoder) skip(n uint64) error {
	if n > uint64(len(d.b)-d.pos) {
		return errJFRShort
	}
	d.pos += int(n)
	return nil
}

// str reads a string: 0 null, 1 empty, 2 constant-pool reference, 3 UTF-8,
// 4 char array, 5 Latin-1. Only metadata strings are kept (keep).
func (d *jfrDecoder) str(keep bool) (string, error) {
	if d.pos >= len(d.b) {
		return "", errJFRShort
	}
	enc := d.b[d.pos]
	d.pos++
	switch enc {
	case 0, 1:
		return "", nil
	case 2:
		_, err := d.varlong()
		return "", err
	case 3, 5:
		n, err := d.count(1)
		if err != nil {
			return "", err
		}
		s := d.b[d.pos : d.pos+n]
		d.pos += n
		if !keep {
			return "", nil
		}
		if enc == 5 {
			r := make([]rune, len(s))
			for i, c := range s {
				r[i] = rune(c)
			}
			return string(r), nil
		}
		return string(s), nil
	case 4:
		n, err := d.count(1)
		if err != nil {
			return "", err
		}
		var u []uint16
		for range n {
			c, err := d.varlong()
			if err != nil {
				return "", err
			}
			if keep {
				u = append(u, uint16(c))
			}
		}
		return string(utf16.Decode(u)), nil
	}
	return "", fmt.Errorf("unknown string encoding %d", enc)
}

// metadata reads the metadata event into a type map, element by element in
// the order jfr-parser reads them (parser/metadata.go), with every count
// checked.
func (d *jfrDecoder) metadata() (*def.TypeMap, error) {
	start := d.pos
	size, err := d.varlong()
	if err != nil {
		return nil, err
	}
	if size > uint64(len(d.b)-start) {
		return nil, fmt.Errorf("size %d exceeds the chunk", size)
	}
	if typ, err := d.varlong(); err != nil {
		return nil, err
	} else if typ != 0 {
		return nil, fmt.Errorf("expected the metadata event (type 0), found type %d", typ)
	}
	for range 3 { // start time, duration, metadata id
		if _, err := d.varlong(); err != nil {
			return nil, err
		}
	}
	n, err := d.count(1)
	if err != nil {
		return nil, err
	}
	strs := make([]string, n)
	for i := range strs {
		if strs[i], err = d.str(true); err != nil {
			return nil, err
		}
	}
	tm := &def.TypeMap{IDMap: map[def.TypeID]*def.Class{}, NameMap: map[string]*def.Class{}}
	root, err := d.element(strs, false)
	if err != nil {
		return nil, err
	}
	if root.name != "root" {
		return nil, fmt.Errorf("expected the root element, found %q", root.name)
	}
	for range root.children {
		e, err := d.element(strs, false)
		if err != nil {
			return nil, err
		}
		switch e.name {
		case "region":
		case "metadata":
			for range e.children {
				ce, err := d.element(strs, true)
				if err != nil {
					return nil, err
				}
				cls, err := def.NewClass(ce.attrs, ce.children)
				if err != nil {
					return nil, fmt.Errorf("class: %v", err)
				}
				for range ce.children {
					fe, err := d.element(strs, true)
					if err != nil {
						return nil, err
					}
					if fe.name == "field" {
						f, err := def.NewField(fe.attrs)
						if err != nil {
							return nil, fmt.Errorf("field of %s: %v", cls.Name, err)
						}
						cls.Fields = append(cls.Fields, f)
					}
					for range fe.children {
						if _, err := d.element(strs, false); err != nil {
							return nil, err
						}
					}
				}
				tm.IDMap[cls.ID] = cls
				tm.NameMap[cls.Name] = cls
			}
		default:
			return nil, fmt.Errorf("unexpected element %q", e.name)
		}
	}
	id := func(name string) def.TypeID {
		if c := tm.NameMap[name]; c != nil {
			return c.ID
		}
		return -1
	}
	tm.T_INT, tm.T_LONG, tm.T_SHORT = id("int"), id("long"), id("short")
	tm.T_FLOAT, tm.T_BOOLEAN, tm.T_STRING = id("float"), id("boolean"), id("java.lang.String")
	tm.T_STACK_TRACE, tm.T_STACK_FRAME = id("jdk.types.StackTrace"), id("jdk.types.StackFrame")
	d.byteT, d.charT, d.doubleT = id("byte"), id("char"), id("double")
	d.tm = tm
	return tm, nil
}

type jfrElement struct {
	name     string
	attrs    map[string]string
	children int
}

func (d *jfrDecoder) element(strs []string, keepAttrs bool) (jfrElement, error) {
	str := func() (string, error) {
		i, err := d.varlong()
		if err != nil {
			return "", err
		}
		if i >= uint64(len(strs)) {
			return "", fmt.Errorf("string index %d out of %d", i, len(strs))
		}
		return strs[i], nil
	}
	var e jfrElement
	var err error
	if e.name, err = str(); err != nil {
		return e, err
	}
	n, err := d.count(2)
	if err != nil {
		return e, err
	}
	if keepAttrs {
		e.attrs = make(map[string]string, n)
	}
	for range n {
		k, err := str()
		if err != nil {
			return e, err
		}
		v, err := str()
		if err != nil {
			return e, err
		}
		if keepAttrs {
			e.attrs[k] = v
		}
	}
	e.children, err = d.count(3)
	return e, err
}

// constantPools walks the chain of constant-pool events that starts at
// offset cp, checking every value, and returns the frame types of the stack
// traces: stack-trace id → one jdk.types.FrameType id per frame, leaf first.
func (d *jfrDecoder) constantPools(cp int) (map[types.StackTraceRef][]uint8, error) {
	out := map[types.StackTraceRef][]uint8{}
	for pos, hops := cp, 0; ; hops++ {
		if pos < jfrChunkHeaderSize || pos >= len(d.b) || hops > len(d.b) {
			return nil, fmt.Errorf("the chain of constant pools leaves the chunk (offset %d)", pos)
		}
		d.pos = pos
		var hdr [5]uint64 // size, type, start time, duration, delta to the previous pool
		for i := range hdr {
			v, err := d.varlong()
			if err != nil {
				return nil, err
			}
			hdr[i] = v
		}
		if _, err := d.varlong(); err != nil { // flush flag
			return nil, err
		}
		pools, err := d.count(2)
		if err != nil {
			return nil, err
		}
		for range pools {
			id, err := d.varlong()
			if err != nil {
				return nil, err
			}
			c := d.tm.IDMap[def.TypeID(id)]
			if c == nil {
				return nil, fmt.Errorf("constant pool of undefined type %d", id)
			}
			if c.Name == "jdk.types.ChunkHeader" { // a raw header copy, skipped as jfr-parser does
				if err := d.skip(jfrChunkHeaderSize); err != nil {
					return nil, err
				}
				continue
			}
			if err := d.pool(c, out); err != nil {
				return nil, fmt.Errorf("%s: %w", c.Name, err)
			}
		}
		delta := int64(hdr[4])
		if delta == 0 {
			return out, nil
		}
		pos += int(delta)
	}
}

// pool reads one constant pool: a count, then (id, value) pairs.
func (d *jfrDecoder) pool(c *def.Class, out map[types.StackTraceRef][]uint8) error {
	n, err := d.count(1)
	if err != nil {
		return err
	}
	for range n {
		id, err := d.varlong()
		if err != nil {
			return err
		}
		if c.ID == d.tm.T_STACK_TRACE {
			kinds, err := d.stackTrace(c)
			if err != nil {
				return err
			}
			out[types.StackTraceRef(id)] = kinds
			continue
		}
		if len(c.Fields) == 0 {
			// A pool of a type without fields holds bare values: the
			// JDK writes java.lang.String pools as (id, string) pairs.
			if err := d.value(c.ID, 0); err != nil {
				return err
			}
			continue
		}
		if err := d.fields(c, 0); err != nil {
			return err
		}
	}
	return nil
}

func (d *jfrDecoder) stackTrace(c *def.Class) ([]uint8, error) {
	var kinds []uint8
	for i := range c.Fields {
		f := &c.Fields[i]
		frame := d.tm.IDMap[f.Type]
		if f.Name != "frames" || !f.Array || f.ConstantPool || frame == nil || f.Type != d.tm.T_STACK_FRAME {
			if err := d.field(f, 0); err != nil {
				return nil, err
			}
			continue
		}
		n, err := d.count(1)
		if err != nil {
			return nil, err
		}
		kinds = make([]uint8, n)
		for k := range kinds {
			kinds[k] = 255 // unknown
			for j := range frame.Fields {
				g := &frame.Fields[j]
				if g.Name == "type" && g.ConstantPool && !g.Array {
					v, err := d.varlong()
					if err != nil {
						return nil, err
					}
					kinds[k] = uint8(min(v, 255))
					continue
				}
				if err := d.field(g, 1); err != nil {
					return nil, err
				}
			}
		}
	}
	return kinds, nil
}

func (d *jfrDecoder) fields(c *def.Class, depth int) error {
	if depth > 32 {
		return fmt.Errorf("type %s nests deeper than 32 levels", c.Name)
	}
	for i := range c.Fields {
		if err := d.field(&c.Fields[i], depth); err != nil {
			return err
		}
	}
	return nil
}

func (d *jfrDecoder) field(f *def.Field, depth int) error {
	n := 1
	if f.Array {
		var err error
		if n, err = d.count(1); err != nil {
			return err
		}
	}
	for range n {
		if f.ConstantPool {
			if _, err := d.varlong(); err != nil {
				return err
			}
			continue
		}
		if err := d.value(f.Type, depth); err != nil {
			return err
		}
	}
	return nil
}

func (d *jfrDecoder) value(t def.TypeID, depth int) error {
	tm := d.tm
	switch t {
	case tm.T_INT, tm.T_LONG, tm.T_SHORT, d.charT:
		_, err := d.varlong()
		return err
	case tm.T_BOOLEAN, d.byteT:
		return d.skip(1)
	case tm.T_FLOAT:
		return d.skip(4)
	case d.doubleT:
		return d.skip(8)
	case tm.T_STRING:
		_, err := d.str(false)
		return err
	}
	c := tm.IDMap[t]
	if c == nil {
		return fmt.Errorf("field of undefined type %d", t)
	}
	if len(c.Fields) == 0 {
		// jfr-parser cannot skip a value of a type without fields either.
		return fmt.Errorf("field of type %s, which has no fields", c.Name)
	}
	return d.fields(c, depth+1)
}

// events walks the event stream from the current position to the end of
// the chunk, checking each event's size; it counts the events of every
// kind (held) and those that carry a stack trace but are of kinds this
// reader does not convert (skipped).
func (d *jfrDecoder) events(skipped, held map[string]int) (converted int, err error) {
	for d.pos < len(d.b) {
		start := d.pos
		size, err := d.varlong()
		if err != nil {
			return 0, err
		}
		typ, err := d.varlong()
		if err != nil {
			return 0, err
		}
		if size == 0 || size > uint64(len(d.b)-start) {
			d.pos = start
			return 0, fmt.Errorf("size %d does not fit the %d bytes left in the chunk", size, len(d.b)-start)
		}
		end := start + int(size)
		if c := d.tm.IDMap[def.TypeID(typ)]; typ > 1 && c != nil {
			held[c.Name]++
			if jfrConverted[c.Name] {
				converted++
			} else if c.Field("stackTrace") != nil && d.hasStack(c, end) {
				skipped[c.Name]++
			}
		}
		d.pos = end
	}
	return converted, nil
}

// hasStack reports whether the event whose fields start at d.pos has a
// non-null stack trace (or cannot be read, so it is counted anyway).
func (d *jfrDecoder) hasStack(c *def.Class, end int) bool {
	e := jfrDecoder{b: d.b[:end], pos: d.pos, tm: d.tm, byteT: d.byteT, charT: d.charT, doubleT: d.doubleT}
	for i := range c.Fields {
		f := &c.Fields[i]
		if f.Name == "stackTrace" && f.ConstantPool && !f.Array {
			ref, err := e.varlong()
			return err != nil || ref != 0
		}
		if err := e.field(f, 0); err != nil {
			return true
		}
	}
	return true
}
