package convert_test

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
)

// A small JFR writer for tests: one chunk with a fixed set of types, the
// constant pools below and the events a test gives. It writes what the JDK
// and async-profiler write (chunk format 2.1, compressed integers), so that
// recordings of event kinds the corpus lacks can be generated.
//
// Pools: thread 1 "main" (tid 7); stack traces 1 = app.Main.run > work and
// 2 = app.Main.run > alloc (leaf first in the pool, as JFR stores them);
// class 1 app.Main; frame type 1 "JIT compiled"; thread state 1
// STATE_RUNNABLE.

type jfrTField struct {
	name, class string
	cp, array   bool
}

type jfrTClass struct {
	name   string
	fields []jfrTField
}

func jfrTF(name, class string) jfrTField   { return jfrTField{name: name, class: class} }
func jfrTCP(name, class string) jfrTField  { return jfrTField{name: name, class: class, cp: true} }
func jfrTArr(name, class string) jfrTField { return jfrTField{name: name, class: class, array: true} }

var jfrTClasses = []jfrTClass{
	{name: "long"}, {name: "int"}, {name: "short"}, {name: "float"}, {name: "boolean"}, {name: "byte"}, {name: "char"}, {name: "double"},
	{"java.lang.String", nil},
	{"java.lang.Thread", []jfrTField{jfrTF("osName", "java.lang.String"), jfrTF("osThreadId", "long"), jfrTF("javaName", "java.lang.String"), jfrTF("javaThreadId", "long")}},
	{"java.lang.Class", []jfrTField{jfrTCP("classLoader", "jdk.types.ClassLoader"), jfrTCP("name", "jdk.types.Symbol"), jfrTCP("package", "jdk.types.Package"), jfrTF("modifiers", "int")}},
	{"jdk.types.ClassLoader", []jfrTField{jfrTCP("type", "java.lang.Class"), jfrTCP("name", "jdk.types.Symbol")}},
	{"jdk.types.Package", []jfrTField{jfrTCP("name", "jdk.types.Symbol")}},
	{"jdk.types.Symbol", []jfrTField{jfrTF("string", "java.lang.String")}},
	{"jdk.types.Method", []jfrTField{jfrTCP("type", "java.lang.Class"), jfrTCP("name", "jdk.types.Symbol"), jfrTCP("descriptor", "jdk.types.Symbol"), jfrTF("modifiers", "int"), jfrTF("hidden", "boolean")}},
	{"jdk.types.FrameType", []jfrTField{jfrTF("description", "java.lang.String")}},
	{"jdk.types.ThreadState", []jfrTField{jfrTF("name", "java.lang.String")}},
	{"jdk.types.StackFrame", []jfrTField{jfrTCP("method", "jdk.types.Method"), jfrTF("lineNumber", "int"), jfrTF("bytecodeIndex", "int"), jfrTCP("type", "jdk.types.FrameType")}},
	{"jdk.types.StackTrace", []jfrTField{jfrTF("truncated", "boolean"), jfrTArr("frames", "jdk.types.StackFrame")}},
	// Events.
	{"jdk.ExecutionSample", []jfrTField{jfrTF("startTime", "long"), jfrTCP("sampledThread", "java.lang.Thread"), jfrTCP("stackTrace", "jdk.types.StackTrace"), jfrTCP("state", "jdk.types.ThreadState")}},
	{"profiler.Malloc", []jfrTField{jfrTF("startTime", "long"), jfrTCP("eventThread", "java.lang.Thread"), jfrTCP("stackTrace", "jdk.types.StackTrace"), jfrTF("address", "long"), jfrTF("size", "long")}},
	{"profiler.Free", []jfrTField{jfrTF("startTime", "long"), jfrTCP("eventThread", "java.lang.Thread"), jfrTCP("stackTrace", "jdk.types.StackTrace"), jfrTF("address", "long")}},
	{"jdk.JavaMonitorEnter", []jfrTField{jfrTF("startTime", "long"), jfrTF("duration", "long"), jfrTCP("eventThread", "java.lang.Thread"), jfrTCP("stackTrace", "jdk.types.StackTrace"), jfrTCP("monitorClass", "java.lang.Class"), jfrTCP("previousOwner", "java.lang.Thread"), jfrTF("address", "long")}},
	{"jdk.ThreadPark", []jfrTField{jfrTF("startTime", "long"), jfrTF("duration", "long"), jfrTCP("eventThread", "java.lang.Thread"), jfrTCP("stackTrace", "jdk.types.StackTrace"), jfrTCP("parkedClass", "java.lang.Class"), jfrTF("timeout", "long"), jfrTF("until", "long"), jfrTF("address", "long")}},
	{"jdk.CPULoad", []jfrTField{jfrTF("startTime", "long"), jfrTF("jvmUser", "float"), jfrTF("jvmSystem", "float"), jfrTF("machineTotal", "float")}},
}

// jfrTID is a class's type id: 20 + its index, clear of 0 (metadata) and
// 1 (constant pool).
func jfrTID(name string) int {
	i := slices.IndexFunc(jfrTClasses, func(c jfrTClass) bool { return c.name == name })
	if i < 0 {
		panic("jfr test writer: no class " + name)
	}
	return 20 + i
}

type jfrTBuf []byte

func (b *jfrTBuf) v(x uint64) *jfrTBuf { *b = binary.AppendUvarint(*b, x); return b }
func (b *jfrTBuf) s(x string) *jfrTBuf {
	*b = append(*b, 3)
	b.v(uint64(len(x)))
	*b = append(*b, x...)
	return b
}

// jfrTEvent is an event of the named class with its field values, in
// field order: uint64/int for integers and references, string, bool,
// float32.
type jfrTEvent struct {
	class  string
	values []any
}

// jfrTSized prefixes body with its size (counting the size itself),
// written as a padded 4-byte varint as the JDK does.
func jfrTSized(body []byte) []byte {
	n := uint32(len(body) + 4)
	return append([]byte{byte(n) | 0x80, byte(n>>7) | 0x80, byte(n>>14) | 0x80, byte(n >> 21)}, body...)
}

func jfrTEncode(e jfrTEvent) []byte {
	c := jfrTClasses[jfrTID(e.class)-20]
	if len(e.values) != len(c.fields) {
		panic(fmt.Sprintf("jfr test writer: %s has %d fields, got %d values", e.class, len(c.fields), len(e.values)))
	}
	var b jfrTBuf
	b.v(uint64(jfrTID(e.class)))
	for _, v := range e.values {
		switch v := v.(type) {
		case int:
			b.v(uint64(v))
		case uint64:
			b.v(v)
		case string:
			b.s(v)
		case bool:
			if v {
				b = append(b, 1)
			} else {
				b = append(b, 0)
			}
		case float32:
			b = binary.BigEndian.AppendUint32(b, 0)
		default:
			panic(fmt.Sprintf("jfr test writer: value %T", v))
		}
	}
	return jfrTSized(b)
}

// jfrTRecording returns a one-chunk recording of the events, whose
// startTime values are nanoseconds (1e9 ticks per second) since 0.
func jfrTRecording(events ...jfrTEvent) []byte {
	var body []byte
	for _, e := range events {
		body = append(body, jfrTEncode(e)...)
	}

	// Constant pools: type id, count, then (id, fields) entries.
	var cp jfrTBuf
	pool := func(class string, entries ...func(b *jfrTBuf)) {
		cp.v(uint64(jfrTID(class))).v(uint64(len(entries)))
		for i, e := range entries {
			cp.v(uint64(i + 1))
			e(&cp)
		}
	}
	sym := []string{"app/Main", "run", "work", "alloc", "()V"}
	symEntries := make([]func(*jfrTBuf), len(sym))
	for i, s := range sym {
		symEntries[i] = func(b *jfrTBuf) { b.s(s) }
	}
	frame := func(b *jfrTBuf, method, line int) { b.v(uint64(method)).v(uint64(line)).v(0).v(1) }
	pools := 7
	pool("java.lang.Thread", func(b *jfrTBuf) { b.s("main").v(7).s("main").v(1) })
	pool("jdk.types.Symbol", symEntries...)
	pool("java.lang.Class", func(b *jfrTBuf) { b.v(0).v(1).v(0).v(1) })
	pool("jdk.types.Method",
		func(b *jfrTBuf) { b.v(1).v(2).v(5).v(1); *b = append(*b, 0) },
		func(b *jfrTBuf) { b.v(1).v(3).v(5).v(1); *b = append(*b, 0) },
		func(b *jfrTBuf) { b.v(1).v(4).v(5).v(1); *b = append(*b, 0) })
	pool("jdk.types.StackTrace",
		func(b *jfrTBuf) { *b = append(*b, 0); b.v(2); frame(b, 2, 20); frame(b, 1, 10) },
		func(b *jfrTBuf) { *b = append(*b, 0); b.v(2); frame(b, 3, 30); frame(b, 1, 11) })
	pool("jdk.types.FrameType", func(b *jfrTBuf) { b.s("JIT compiled") })
	pool("jdk.types.ThreadState", func(b *jfrTBuf) { b.s("STATE_RUNNABLE") })
	var cpEvent jfrTBuf
	cpEvent.v(1).v(0).v(0).v(0).v(1).v(uint64(pools)) // type, start, duration, delta 0 (last), flush, pools
	cpEvent = append(cpEvent, cp...)

	// Metadata: a string table and the element tree root > metadata >
	// class > field, and root > region.
	var strs []string
	str := func(s string) uint64 {
		i := slices.Index(strs, s)
		if i < 0 {
			strs = append(strs, s)
			i = len(strs) - 1
		}
		return uint64(i)
	}
	var tree jfrTBuf
	elem := func(name string, attrs [][2]string, children int) {
		tree.v(str(name)).v(uint64(len(attrs)))
		for _, a := range attrs {
			tree.v(str(a[0])).v(str(a[1]))
		}
		tree.v(uint64(children))
	}
	elem("root", nil, 2)
	elem("metadata", nil, len(jfrTClasses))
	for _, c := range jfrTClasses {
		elem("class", [][2]string{{"name", c.name}, {"id", strconv.Itoa(jfrTID(c.name))}}, len(c.fields))
		for _, f := range c.fields {
			attrs := [][2]string{{"name", f.name}, {"class", strconv.Itoa(jfrTID(f.class))}}
			if f.cp {
				attrs = append(attrs, [2]string{"constantPool", "true"})
			}
			if f.array {
				attrs = append(attrs, [2]string{"dimension", "1"})
			}
			elem("field", attrs, 0)
		}
	}
	elem("region", nil, 0)
	var meta jfrTBuf
	meta.v(0).v(0).v(0).v(1).v(uint64(len(strs))) // type, start, duration, id, strings
	for _, s := range strs {
		meta.s(s)
	}
	meta = append(meta, tree...)

	const header = 68
	cpOff := header + len(body)
	cpBytes := jfrTSized(cpEvent)
	metaOff := cpOff + len(cpBytes)
	metaBytes := jfrTSized(meta)
	size := metaOff + len(metaBytes)
	h := make([]byte, header)
	copy(h, "FLR\x00")
	binary.BigEndian.PutUint32(h[4:], 2<<16|1)
	binary.BigEndian.PutUint64(h[8:], uint64(size))
	binary.BigEndian.PutUint64(h[16:], uint64(cpOff))
	binary.BigEndian.PutUint64(h[24:], uint64(metaOff))
	binary.BigEndian.PutUint64(h[32:], 0)   // start, ns since the epoch
	binary.BigEndian.PutUint64(h[40:], 1e9) // duration
	binary.BigEndian.PutUint64(h[48:], 0)   // start ticks
	binary.BigEndian.PutUint64(h[56:], 1e9) // ticks per second
	binary.BigEndian.PutUint32(h[64:], 1)   // compressed integers
	out := append(h, body...)
	out = append(out, cpBytes...)
	return append(out, metaBytes...)
}
