package convert

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// A fast path for ProfileChunk events, which hold nearly all of a trace's
// profile bytes (288,000 chunks of 100 samples in a 500 MB trace, where
// encoding/json's reflection takes two thirds of the reader's time). chunkScanner decodes the usual shape of a chunk by hand: the
// sample ids and timeDeltas go straight from bytes to integers. It gives up
// (ok false) on anything it does not handle exactly as encoding/json would
// (escapes in keys or in the id, keys that match a field only
// case-insensitively, repeated fields, nulls, non-integers where integers
// go, invalid JSON); the event is then decoded by chunkEvent's
// encoding/json path, which also words the errors. So the fast path never
// accepts what the slow one refuses, nor reads anything differently.

// chunkFields is what chunkEvent keeps of a ProfileChunk event.
type chunkFields struct {
	name     string // only the fast path reads it
	pid, tid int64
	ts       float64
	id       eventID
	hasData  bool
	hasCPU   bool
	nodes    []v8Node
	samples  []int64 // node ids
	cpDeltas []int64 // cpuProfile.timeDeltas, ns
	deltas   []int64 // data.timeDeltas, ns
}

// chunkScanner reads one event's bytes. ok turns false at the first thing
// it does not handle; every method then returns at once.
type chunkScanner struct {
	b     []byte
	i     int
	ok    bool
	depth int
	lists *chunkLists
	kids  []int64 // a node's children, before they are copied
}

// chunkLists hold the numbers of a chunk's three lists, reused from one
// chunk to the next: the reader packs them (devtools_packed.go) before it
// scans the next chunk.
type chunkLists struct{ samples, cpDeltas, deltas []int64 }

// maxFastDepth bounds the nesting the fast path skips through
// (encoding/json allows 10,000; deeper goes the slow way).
const maxFastDepth = 512

func (c *chunkScanner) fail() bool { c.ok = false; return false }

func (c *chunkScanner) ws() {
	for c.i < len(c.b) {
		switch c.b[c.i] {
		case ' ', '\t', '\n', '\r':
			c.i++
		default:
			return
		}
	}
}

// byte consumes x after optional white space.
func (c *chunkScanner) byte(x byte) bool {
	c.ws()
	if !c.ok || c.i >= len(c.b) || c.b[c.i] != x {
		return c.fail()
	}
	c.i++
	return true
}

// peek returns the next byte after white space, 0 at the end.
func (c *chunkScanner) peek() byte {
	c.ws()
	if c.i >= len(c.b) {
		return 0
	}
	return c.b[c.i]
}

// plainString reads a string of printable ASCII without escapes, as keys
// and ids are; anything else fails.
func (c *chunkScanner) plainString() []byte {
	if !c.byte('"') {
		return nil
	}
	start := c.i
	for c.i < len(c.b) {
		x := c.b[c.i]
		switch {
		case x == '"':
			c.i++
			return c.b[start : c.i-1]
		case x < 0x20 || x >= 0x80 || x == '\\':
			c.fail()
			return nil
		}
		c.i++
	}
	c.fail()
	return nil
}

// object reads an object's keys, calling field for each with the key;
// field must consume the value. Known keys are matched exactly, and a key
// that equals one only case-insensitively fails, as does a repeated one
// (encoding/json would decode either).
func (c *chunkScanner) object(known []string, field func(k int)) bool {
	if !c.byte('{') {
		return false
	}
	var seen uint32
	if c.peek() == '}' {
		c.i++
		return true
	}
	for c.ok {
		key := c.plainString()
		if !c.byte(':') {
			return false
		}
		k := -1
		for j, name := range known {
			if string(key) == name {
				k = j
				break
			}
			if strings.EqualFold(string(key), name) {
				return c.fail()
			}
		}
		if k >= 0 {
			if seen&(1<<k) != 0 {
				return c.fail()
			}
			seen |= 1 << k
		}
		field(k)
		switch c.peek() {
		case ',':
			c.i++
		case '}':
			c.i++
			return c.ok
		default:
			return c.fail()
		}
	}
	return false
}

// number reads a JSON number and returns its bytes.
func (c *chunkScanner) number() []byte {
	c.ws()
	b, start := c.b, c.i
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	digits := func() bool {
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > s
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		c.fail()
		return nil
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			c.fail()
			return nil
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			c.fail()
			return nil
		}
	}
	c.i = i
	return b[start:i]
}

// smallInt parses an integer literal of at most 18 digits without
// allocating; ok is false for anything else.
func smallInt(v []byte) (int64, bool) {
	neg := len(v) > 0 && v[0] == '-'
	if neg {
		v = v[1:]
	}
	if len(v) == 0 || len(v) > 18 {
		return 0, false
	}
	var n int64
	for _, d := range v {
		if d < '0' || d > '9' {
			return 0, false
		}
		n = n*10 + int64(d-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// int64Field reads a number into an int64 as encoding/json does: an
// integer in range, else fail (a type error for the slow path to word).
func (c *chunkScanner) int64Field() int64 {
	v := c.number()
	if !c.ok {
		return 0
	}
	if n, ok := smallInt(v); ok {
		return n
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		c.fail()
	}
	return n
}

// list reads an array of numbers as idList (mul 0) or usList (mul 1000)
// would, never nil: the field is present. The numbers go to *dst's array,
// which the next chunk reuses.
func (c *chunkScanner) list(mul int64, dst *[]int64) []int64 {
	if !c.byte('[') {
		return nil
	}
	out := (*dst)[:0]
	if out == nil {
		out = make([]int64, 0, 128)
	}
	defer func() { *dst = out }()
	if c.peek() == ']' {
		c.i++
		return out
	}
	for c.ok {
		v := c.number()
		if !c.ok {
			return nil
		}
		n, small := smallInt(v)
		ok := true
		switch {
		case mul == 0 && !small:
			n, ok = parseID(v)
		case mul == 0:
		case small && n <= maxScaled/mul && n >= -maxScaled/mul:
			n *= mul
		default:
			n, ok = parseScaled(v, mul)
		}
		if !ok {
			c.fail()
			return nil
		}
		out = append(out, n)
		switch c.peek() {
		case ',':
			c.i++
		case ']':
			c.i++
			return out
		default:
			c.fail()
			return nil
		}
	}
	return nil
}

// skip consumes any valid JSON value, checking it as encoding/json does.
func (c *chunkScanner) skip() {
	switch c.peek() {
	case '{':
		if c.depth++; c.depth > maxFastDepth {
			c.fail()
			return
		}
		c.object(nil, func(int) { c.skip() })
		c.depth--
	case '[':
		if c.depth++; c.depth > maxFastDepth {
			c.fail()
			return
		}
		c.i++
		if c.peek() == ']' {
			c.i++
		} else {
			for c.ok {
				c.skip()
				if x := c.peek(); x == ',' {
					c.i++
				} else if x == ']' {
					c.i++
					break
				} else {
					c.fail()
				}
			}
		}
		c.depth--
	case '"':
		c.skipString()
	case 't':
		c.literal("true")
	case 'f':
		c.literal("false")
	case 'n':
		c.literal("null")
	default:
		c.number()
	}
}

func (c *chunkScanner) literal(s string) {
	if c.i+len(s) > len(c.b) || string(c.b[c.i:c.i+len(s)]) != s {
		c.fail()
		return
	}
	c.i += len(s)
}

// skipString consumes a string, checking its escapes; like encoding/json
// it lets invalid UTF-8 through (decoding would replace it).
func (c *chunkScanner) skipString() {
	c.i++ // the quote
	b := c.b
	for c.i < len(b) {
		x := b[c.i]
		switch {
		case x == '"':
			c.i++
			return
		case x < 0x20:
			c.fail()
			return
		case x == '\\':
			c.i++
			if c.i >= len(b) {
				c.fail()
				return
			}
			switch b[c.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				c.i++
			case 'u':
				if c.i+5 > len(b) {
					c.fail()
					return
				}
				for _, h := range b[c.i+1 : c.i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						c.fail()
						return
					}
				}
				c.i += 5
			default:
				c.fail()
				return
			}
		default:
			c.i++
		}
	}
	c.fail()
}

// span returns the bytes of the next value, skipped.
func (c *chunkScanner) span() []byte {
	c.ws()
	start := c.i
	c.skip()
	return c.b[start:c.i]
}

// scanChunk decodes a ProfileChunk event the fast way; ok false means
// decode it with encoding/json. Its fields are those of chunkEvent's
// struct.
func scanChunk(raw []byte) (f chunkFields, ok bool) { return scanChunkInto(raw, &chunkLists{}) }

// scanChunkInto is scanChunk with the sample lists in lists' arrays: they
// are valid until the next call with the same lists.
func scanChunkInto(raw []byte, lists *chunkLists) (f chunkFields, ok bool) {
	c := &chunkScanner{b: raw, ok: true, lists: lists}
	c.object([]string{"pid", "tid", "ts", "id", "args", "name"}, func(k int) {
		switch k {
		case 5:
			f.name = string(c.plainString())
		case 0:
			f.pid = c.int64Field()
		case 1:
			f.tid = c.int64Field()
		case 2:
			v := c.number()
			if !c.ok {
				return
			}
			if n, small := smallInt(v); small {
				f.ts = float64(n)
				if int64(f.ts) != n { // not exact: let strconv round
					c.fail()
				}
				return
			}
			var err error
			if f.ts, err = strconv.ParseFloat(string(v), 64); err != nil {
				c.fail()
			}
		case 3:
			switch c.peek() {
			case '"':
				f.id = eventID(c.plainString())
			case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
				f.id = eventID(c.number())
			default:
				c.fail()
			}
		case 4:
			c.args(&f)
		default:
			c.skip()
		}
	})
	if c.ws(); c.i != len(c.b) {
		c.fail()
	}
	return f, c.ok
}

// args reads {"data": {"cpuProfile": {...}, "timeDeltas": [...]}}.
func (c *chunkScanner) args(f *chunkFields) {
	c.object([]string{"data"}, func(k int) {
		if k < 0 {
			c.skip()
			return
		}
		f.hasData = true
		c.object([]string{"cpuProfile", "timeDeltas"}, func(k int) {
			switch k {
			case 0:
				f.hasCPU = true
				c.cpuProfile(f)
			case 1:
				f.deltas = c.list(1000, &c.lists.deltas)
			default:
				c.skip()
			}
		})
	})
}

func (c *chunkScanner) cpuProfile(f *chunkFields) {
	c.object([]string{"nodes", "samples", "timeDeltas"}, func(k int) {
		switch k {
		case 0:
			// Nodes of the usual shape are read by hand (nodes); others
			// by encoding/json, or the slow path words its error.
			start := c.i
			if f.nodes, c.ok = c.nodes(); c.ok {
				return
			}
			c.i, c.ok = start, true
			nodes := c.span()
			if c.ok && json.Unmarshal(nodes, &f.nodes) != nil {
				c.fail()
			}
		case 1:
			f.samples = c.list(0, &c.lists.samples)
		case 2:
			f.cpDeltas = c.list(1000, &c.lists.cpDeltas)
		default:
			c.skip()
		}
	})
}

// nodes reads an array of nodes of the usual shape: plain strings, numbers
// where numbers go, no nulls. ok false (the caller then rewinds and lets
// encoding/json decode the array) for anything else.
func (c *chunkScanner) nodes() ([]v8Node, bool) {
	if !c.byte('[') {
		return nil, false
	}
	out := []v8Node{}
	if c.peek() == ']' {
		c.i++
		return out, true
	}
	for c.ok {
		var n v8Node
		c.object([]string{"id", "callFrame", "parent", "children", "hitCount"}, func(k int) {
			switch k {
			case 0:
				v := c.int64Field()
				n.ID = &v
			case 1:
				n.CallFrame = c.callFrame()
			case 2:
				v := c.int64Field()
				n.Parent = &v
			case 3:
				// Kept until the tree is finished: a copy of its own.
				if n.Children = slices.Clone(c.list(0, &c.kids)); n.Children == nil {
					c.fail()
				}
			case 4:
				v := c.int64Field()
				n.HitCount = &v
			default:
				c.skip()
			}
		})
		out = append(out, n)
		switch c.peek() {
		case ',':
			c.i++
		case ']':
			c.i++
			return out, c.ok
		default:
			c.fail()
		}
	}
	return nil, false
}

func (c *chunkScanner) callFrame() *v8CallFrame {
	cf := &v8CallFrame{}
	float := func() *float64 {
		v := c.number()
		if !c.ok {
			return nil
		}
		if n, small := smallInt(v); small && n > -1<<53 && n < 1<<53 {
			f := float64(n) // exact
			return &f
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil {
			c.fail()
		}
		return &f
	}
	c.object([]string{"functionName", "url", "lineNumber", "columnNumber"}, func(k int) {
		switch k {
		case 0:
			cf.FunctionName = string(c.plainString())
		case 1:
			cf.URL = string(c.plainString())
		case 2:
			cf.LineNumber = float()
		case 3:
			cf.ColumnNumber = float()
		default:
			c.skip()
		}
	})
	return cf
}
