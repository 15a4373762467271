package convert

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"math/bits"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/google/pprof/profile"
	"github.com/grafana/jfr-parser/parser"
	"github.com/grafana/jfr-parser/parser/types"
)

// jfr reads JDK Flight Recorder recordings, as written by the JDK
// (-XX:StartFlightRecording, jcmd JFR.start) and by async-profiler (-o jfr),
// through github.com/grafana/jfr-parser.
//
// One profile holds every kind of stack sample the recording has, with one
// sample type per quantity and zero where an event does not measure it:
//
//	samples/count        execution and wall-clock samples (a wall-clock event's
//	                     "samples" batch weight counts as that many samples)
//	cpu/nanoseconds      jdk.ExecutionSample × the sampling period
//	wall/nanoseconds     profiler.WallClockSample: samples × the wall interval
//	alloc_samples/count  allocation events (jdk.ObjectAllocationInNewTLAB,
//	alloc_space/bytes    ...OutsideTLAB, ...Sample) and the bytes they stand for
//	malloc_samples/count async-profiler's native-memory profiler.Malloc events
//	malloc_space/bytes   and the bytes they allocated
//	contentions/count    lock events (jdk.JavaMonitorEnter, jdk.ThreadPark)
//	delay/nanoseconds    and the time they waited, as in Go's mutex profiles
//
// Only the types a recording has are written; the default is cpu, else wall,
// else alloc_space, else malloc_space, else delay. Every event is one pprof
// sample with its timestamp (labels.Timestamp, nanoseconds since the Unix
// epoch, as the recording states it), its thread (labels.Thread, labels.TID =
// the OS thread id) and, for wall-clock samples, labels.State; allocation
// samples carry the allocated class as "object_class", lock events the
// monitor's or the parked-on object's class as "monitor_class" or
// "parked_class". Events other than stack samples have 0 in samples/count,
// which keeps them out of latency inference. Samples are written in time
// order. A recording with none of these events is refused with a message
// naming the events it holds.
//
// async-profiler 2.x in cpu+wall mode writes both kinds as jdk.ExecutionSample;
// as jfr-parser does, samples of threads in STATE_SLEEPING count as wall-clock
// samples and the rest as CPU samples. In async-profiler's wall mode
// (event=wall) every jdk.ExecutionSample is a wall-clock sample.
//
// Frame names are "pkg.Class.method" (the class name with '.' as jfr print
// and JMC show it), with JVM-generated class names made stable across runs
// (stableJavaName); Line is the frame's line number. The recorded frame type
// (Interpreted, JIT compiled, Inlined, Native, C++, Kernel, C1 compiled) is
// kept as a suffix of SystemName ("_[j]" etc., async-profiler's annotations,
// see jfrFrameKind), after the raw internal name, so Name does not change with
// the JIT tier. jfr-parser does not expose the frame type, so jfrFrameTypes
// reads it from the recording's stack-trace constant pool itself.
func init() {
	register(inputFormat{
		Name:        "jfr",
		Description: "JDK Flight Recorder recording (.jfr) from the JDK or async-profiler",
		Priority:    60,
		Sniff:       sniffJFR,
		Parse:       parseJFR,
	})
}

// jfrMagic starts every JFR chunk.
var jfrMagic = []byte("FLR\x00")

func sniffJFR(head []byte) bool { return bytes.HasPrefix(head, jfrMagic) }

const (
	// Defaults async-profiler applies when an interval setting is 0
	// (src/arguments.h: DEFAULT_CPU_INTERVAL, DEFAULT_WALL_INTERVAL).
	asyncProfilerCPUInterval  = 10_000_000
	asyncProfilerWallInterval = 50_000_000
)

// Sample kinds.
const (
	jfrCPU = iota
	jfrWall
	jfrAlloc
	jfrMalloc
	jfrLock
	jfrKinds
)

// A jfrSample is one converted event, kept until the sampling periods are
// known and the samples can be sorted by time.
type jfrSample struct {
	stack  []*profile.Location
	thread *jfrThread
	time   int64
	weight int64 // wall: batch size; alloc, malloc: bytes; lock: nanoseconds
	kind   uint8
	park   bool   // a lock event from jdk.ThreadPark, not jdk.JavaMonitorEnter
	label  string // execution and wall: thread state; alloc, lock: a class
}

type jfrThread struct {
	name   string
	tid    int64
	hasTID bool
}

type jfrReader struct {
	in     *parserInput
	data   []byte
	chunks []jfrChunk
	p      *parser.Parser
	b      *profileBuilder
	events int // events returned by the parser so far, for error positions

	cur        int                             // index of the current chunk in chunks, -1 before the first
	frameTypes map[types.StackTraceRef][]uint8 // of the current chunk
	kindSuffix map[uint8]string
	stacks     map[types.StackTraceRef][]*profile.Location
	methods    map[types.MethodRef]jfrMethod
	threads    map[types.ThreadRef]*jfrThread
	threadSet  map[jfrThread]*jfrThread

	// Settings (jdk.ActiveSetting) as first seen; -1 when absent.
	event                            string
	jdkPeriod, interval, wallSetting int64
	allocEvery                       int64
	periodSource                     string

	samples                       []jfrSample
	has                           [jfrKinds]bool
	truncated, missingStacks      int
	nullStacks                    int
	unknownMethods, untypedStacks int
	skipped                       map[string]int
	held                          map[string]int // events by kind, for the error when none converts
}

type jfrMethod struct{ name, raw string }

func parseJFR(in *parserInput) (*profile.Profile, error) {
	data, err := in.ReadAll()
	if err != nil {
		return nil, err
	}
	chunks, err := jfrChunks(data)
	if err != nil {
		return nil, err
	}
	r := &jfrReader{
		in: in, data: data, chunks: chunks, cur: -1,
		p:         parser.NewParser(data, parser.Options{}),
		b:         newProfileBuilder(),
		threadSet: map[jfrThread]*jfrThread{},
		skipped:   map[string]int{},
		held:      map[string]int{},
		jdkPeriod: -1, interval: -1, wallSetting: -1, allocEvery: -1,
	}
	n := 0
	for _, c := range chunks {
		for name, k := range c.skipped {
			r.skipped[name] += k
		}
		for name, k := range c.held {
			r.held[name] += k
		}
		n += c.converted
	}
	r.samples = make([]jfrSample, 0, n)
	if err := r.read(); err != nil {
		return nil, err
	}
	return r.profile()
}

// read runs the parser over all events. jfr-parser indexes the recording
// without bounds checks in places, so a panic on malformed input becomes an
// error at the event where it happened.
func (r *jfrReader) read() (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = errAtEvent(r.events, "malformed JFR data (the parser failed: %v)", v)
		}
	}()
	p := r.p
	for {
		typ, err := p.ParseEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			return errAtEvent(r.events, "malformed JFR data: %v", err)
		}
		if r.cur < 0 || p.ChunkHeader() != r.chunks[r.cur].hdr {
			if err := r.enterChunk(); err != nil {
				return err
			}
		}
		tm := &p.TypeMap
		switch typ {
		case tm.T_EXECUTION_SAMPLE:
			// CPU or wall-clock: decided in profile(), once all settings are known.
			e := &p.ExecutionSample
			r.add(jfrSample{kind: jfrCPU, weight: 1, label: r.state(e.State)}, e.StartTime, e.SampledThread, e.StackTrace)
		case tm.T_WALL_CLOCK_SAMPLE:
			e := &p.WallClockSample
			r.add(jfrSample{kind: jfrWall, weight: int64(e.Samples), label: r.state(e.State)}, e.StartTime, e.SampledThread, e.StackTrace)
		case tm.T_ALLOC_IN_NEW_TLAB:
			// The TLAB size stands for all bytes allocated since the last
			// sample in this thread, as async-profiler and jfr-parser weigh it.
			e := &p.ObjectAllocationInNewTLAB
			r.add(jfrSample{kind: jfrAlloc, weight: int64(e.TlabSize), label: r.className(e.ObjectClass)}, e.StartTime, e.EventThread, e.StackTrace)
		case tm.T_ALLOC_OUTSIDE_TLAB:
			e := &p.ObjectAllocationOutsideTLAB
			r.add(jfrSample{kind: jfrAlloc, weight: int64(e.AllocationSize), label: r.className(e.ObjectClass)}, e.StartTime, e.EventThread, e.StackTrace)
		case tm.T_ALLOC_SAMPLE:
			e := &p.ObjectAllocationSample
			r.add(jfrSample{kind: jfrAlloc, weight: int64(e.Weight), label: r.className(e.ObjectClass)}, e.StartTime, e.EventThread, e.StackTrace)
		case tm.T_MALLOC:
			e := &p.Malloc
			r.add(jfrSample{kind: jfrMalloc, weight: int64(e.Size)}, e.StartTime, e.EventThread, e.StackTrace)
		case tm.T_MONITOR_ENTER:
			e := &p.JavaMonitorEnter
			r.add(jfrSample{kind: jfrLock, weight: r.ticksToNanos(e.Duration), label: r.className(e.MonitorClass)}, e.StartTime, e.EventThread, e.StackTrace)
		case tm.T_THREAD_PARK:
			e := &p.ThreadPark
			r.add(jfrSample{kind: jfrLock, weight: r.ticksToNanos(e.Duration), label: r.className(e.ParkedClass), park: true}, e.StartTime, e.EventThread, e.StackTrace)
		case tm.T_ACTIVE_SETTING:
			r.setting(&p.ActiveSetting)
		}
		r.events++
	}
	return nil
}

// enterChunk switches to the chunk the parser has entered: constant-pool
// ids are per chunk, so the caches start afresh.
func (r *jfrReader) enterChunk() error {
	h := r.p.ChunkHeader()
	k := r.cur + 1
	for k < len(r.chunks) && r.chunks[k].hdr != h {
		k++
	}
	if k == len(r.chunks) {
		return errAtEvent(r.events, "the JFR parser entered a chunk that is not in the file")
	}
	r.cur = k
	r.frameTypes = r.chunks[k].frameTypes
	r.kindSuffix = map[uint8]string{}
	for ref, i := range r.p.FrameTypes.IDMap {
		if ref < 255 && int(i) < len(r.p.FrameTypes.FrameType) {
			r.kindSuffix[uint8(ref)] = jfrFrameKind(r.p.FrameTypes.FrameType[i].Description)
		}
	}
	r.stacks = map[types.StackTraceRef][]*profile.Location{}
	r.methods = map[types.MethodRef]jfrMethod{}
	r.threads = map[types.ThreadRef]*jfrThread{}
	return nil
}

// setting records the settings that give samples their weight. The first
// value seen wins: recorders repeat their settings at every chunk.
func (r *jfrReader) setting(s *types.ActiveSetting) {
	exec := int64(s.Id) == int64(r.p.TypeMap.T_EXECUTION_SAMPLE)
	num := func(dst *int64) {
		if n, err := strconv.ParseInt(s.Value, 10, 64); err == nil && n >= 0 && *dst < 0 {
			*dst = n
		}
	}
	switch {
	case s.Name == "event" && s.Value != "" && r.event == "":
		r.event = s.Value // async-profiler: cpu, itimer, wall, or a perf event
	case exec && s.Name == "period" && r.jdkPeriod < 0: // the JDK: "20 ms"
		if ns, ok := parseJFRDuration(s.Value); ok {
			r.jdkPeriod = ns
			r.periodSource = "jdk.ExecutionSample period=" + s.Value
		}
	case exec && s.Name == "interval": // async-profiler: nanoseconds, 0 = default
		num(&r.interval)
	case exec && s.Name == "wall": // async-profiler 2.x: the wall-clock interval
		num(&r.wallSetting)
	case s.Name == "alloc":
		num(&r.allocEvery)
	}
}

// periods resolves the CPU period and the wall-clock interval from the
// settings, warning where it has to assume async-profiler's defaults.
func (r *jfrReader) periods() (cpu, wall int64) {
	cpu, wall = r.jdkPeriod, r.wallSetting
	if r.event == "wall" {
		if wall <= 0 && r.interval >= 0 {
			wall = r.interval
		}
	} else if cpu <= 0 && r.interval >= 0 {
		cpu, r.periodSource = r.interval, fmt.Sprintf("async-profiler interval=%d", r.interval)
		if cpu == 0 {
			cpu = asyncProfilerCPUInterval
		}
	}
	if r.has[jfrCPU] && cpu <= 0 {
		cpu = asyncProfilerCPUInterval
		r.in.Warnf("the recording states no sampling period for jdk.ExecutionSample; assuming 10 ms per sample")
	}
	if wall <= 0 {
		if r.has[jfrWall] && !(r.event == "wall" && r.interval == 0) {
			r.in.Warnf("the recording states no wall-clock interval; assuming async-profiler's default of 50 ms per sample")
		}
		wall = asyncProfilerWallInterval
	}
	return cpu, wall
}

// parseJFRDuration parses a JDK setting such as "20 ms" or "1 s".
func parseJFRDuration(s string) (int64, bool) {
	num, unit, ok := strings.Cut(strings.TrimSpace(s), " ")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	mult := map[string]int64{"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9, "d": 86400e9}[unit]
	if mult == 0 || n > (1<<62)/mult {
		return 0, false
	}
	return n * mult, true
}

func (r *jfrReader) state(ref types.ThreadStateRef) string {
	if s := r.p.GetThreadState(ref); s != nil {
		return s.Name
	}
	return ""
}

func (r *jfrReader) className(ref types.ClassRef) string {
	if c := r.p.GetClass(ref); c != nil {
		return strings.ReplaceAll(r.p.GetSymbolString(c.Name), "/", ".")
	}
	return ""
}

func (r *jfrReader) add(s jfrSample, ticks uint64, th types.ThreadRef, st types.StackTraceRef) {
	s.time = r.nanos(ticks)
	s.thread = r.thread(th)
	s.stack = r.stack(st)
	r.has[s.kind] = true
	r.samples = append(r.samples, s)
}

// ticksToNanos converts a duration in ticks to nanoseconds, at most
// MaxInt64 (a duration no valid recording has).
func (r *jfrReader) ticksToNanos(ticks uint64) int64 {
	tps := r.chunks[r.cur].hdr.TicksPerSecond
	hi, lo := bits.Mul64(ticks, 1e9)
	if hi >= tps {
		return math.MaxInt64
	}
	ns, _ := bits.Div64(hi, lo, tps)
	return int64(min(ns, math.MaxInt64))
}

// nanos converts ticks to nanoseconds since the epoch exactly (the JDK
// computes the same in floating point; see jfrprint.go for the comparison).
func (r *jfrReader) nanos(ticks uint64) int64 {
	h := r.chunks[r.cur].hdr
	neg := ticks < h.StartTicks
	d := ticks - h.StartTicks
	if neg {
		d = h.StartTicks - ticks
	}
	hi, lo := bits.Mul64(d, 1e9)
	if hi >= h.TicksPerSecond { // would overflow; cannot happen in a valid chunk
		hi %= h.TicksPerSecond
	}
	ns, _ := bits.Div64(hi, lo, h.TicksPerSecond)
	if neg {
		return int64(h.StartNanos) - int64(ns)
	}
	return int64(h.StartNanos) + int64(ns)
}

func (r *jfrReader) thread(ref types.ThreadRef) *jfrThread {
	if t, ok := r.threads[ref]; ok {
		return t
	}
	var k jfrThread
	if i, ok := r.p.Threads.IDMap[ref]; ok {
		t := &r.p.Threads.Thread[i]
		k.name = t.JavaName
		if k.name == "" {
			k.name = t.OsName
		}
		if t.OsThreadId > 0 {
			k.tid, k.hasTID = int64(t.OsThreadId), true
		}
	}
	t, ok := r.threadSet[k] // one *jfrThread per thread across chunks
	if !ok {
		t = &k
		r.threadSet[k] = t
	}
	r.threads[ref] = t
	return t
}

func (r *jfrReader) stack(ref types.StackTraceRef) []*profile.Location {
	if ref == 0 { // null: the recorder took no stack (allocations in compiler threads)
		r.nullStacks++
		return []*profile.Location{r.b.Location(stackFrame{Name: "(no stack trace)"})}
	}
	if s, ok := r.stacks[ref]; ok {
		return s
	}
	st := r.p.GetStacktrace(ref)
	if st == nil {
		r.missingStacks++
		return []*profile.Location{r.b.Location(stackFrame{Name: "(missing stack trace)"})}
	}
	if st.Truncated {
		r.truncated++
	}
	kinds := r.frameTypes[ref]
	if len(kinds) != len(st.Frames) {
		kinds = nil
		r.untypedStacks++
	}
	locs := make([]*profile.Location, len(st.Frames))
	for i, f := range st.Frames {
		m := r.method(f.Method)
		sys := m.raw
		if kinds != nil {
			sys += r.kindSuffix[kinds[i]]
		}
		locs[i] = r.b.Location(stackFrame{Name: m.name, SystemName: sys, Line: max(int64(int32(f.LineNumber)), 0)}) // -1: unknown
	}
	r.stacks[ref] = locs
	return locs
}

func (r *jfrReader) method(ref types.MethodRef) jfrMethod {
	if m, ok := r.methods[ref]; ok {
		return m
	}
	var m jfrMethod
	if pm := r.p.GetMethod(ref); pm == nil {
		r.unknownMethods++
		m.name = fmt.Sprintf("(unknown method %d)", ref)
	} else {
		var cls string
		if c := r.p.GetClass(pm.Type); c != nil {
			cls = r.p.GetSymbolString(c.Name)
		}
		name := r.p.GetSymbolString(pm.Name)
		m.raw = cls + "." + name
		m.name = stableJavaName(strings.ReplaceAll(cls, "/", "."), name)
	}
	r.methods[ref] = m
	return m
}

// profile resolves weights, sorts the samples by time and builds the profile.
func (r *jfrReader) profile() (*profile.Profile, error) {
	in := r.in
	if len(r.samples) == 0 {
		return nil, fmt.Errorf("%w: the recording has no execution, wall-clock, allocation, native-memory or lock events; it holds %s", errNoSamples, jfrHeldText(r.held))
	}
	// async-profiler 2.x writes wall-clock samples as jdk.ExecutionSample:
	// all of them in wall mode, and those of sleeping threads in cpu+wall mode.
	r.has[jfrCPU] = false
	for i := range r.samples {
		s := &r.samples[i]
		if s.kind == jfrCPU && (r.event == "wall" || (s.label == "STATE_SLEEPING" && r.wallSetting > 0)) {
			s.kind = jfrWall
		}
		r.has[s.kind] = true
	}
	cpuPeriod, wallInterval := r.periods()
	var st []*profile.ValueType
	// idx[kind] is the kind's (first) sample type; the kinds that have two
	// (a count and what was counted) have the second at idx[kind]+1.
	idx := [jfrKinds]int{-1, -1, -1, -1, -1}
	addType := func(t, unit string) int {
		st = append(st, &profile.ValueType{Type: t, Unit: unit})
		return len(st) - 1
	}
	samplesIdx := -1
	if r.has[jfrCPU] || r.has[jfrWall] {
		samplesIdx = addType("samples", "count")
	}
	// async-profiler can sample on a hardware or software event other than
	// time (cycles, cache-misses, a Java method): its interval then counts
	// events, and the type is named after the event.
	cpuType := &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}
	switch r.event {
	case "", "cpu", "itimer", "ctimer", "wall":
	default:
		cpuType = &profile.ValueType{Type: r.event, Unit: "count"}
		if r.interval <= 0 {
			cpuPeriod = 1
		}
		in.Warnf("the recording samples the event %q, not time: %s/count is samples × its interval of %d events", r.event, r.event, cpuPeriod)
	}
	if r.has[jfrCPU] {
		idx[jfrCPU] = addType(cpuType.Type, cpuType.Unit)
	}
	if r.has[jfrWall] {
		idx[jfrWall] = addType("wall", "nanoseconds")
	}
	if r.has[jfrAlloc] {
		idx[jfrAlloc] = addType("alloc_samples", "count")
		addType("alloc_space", "bytes")
	}
	if r.has[jfrMalloc] {
		idx[jfrMalloc] = addType("malloc_samples", "count")
		addType("malloc_space", "bytes")
	}
	if r.has[jfrLock] {
		idx[jfrLock] = addType("contentions", "count")
		addType("delay", "nanoseconds")
	}
	b := r.b
	p := b.Profile()
	p.SampleType = st
	switch {
	case r.has[jfrCPU]:
		p.DefaultSampleType, p.PeriodType, p.Period = cpuType.Type, cpuType, cpuPeriod
	case r.has[jfrWall]:
		p.DefaultSampleType, p.PeriodType, p.Period = "wall", &profile.ValueType{Type: "wall", Unit: "nanoseconds"}, wallInterval
	case r.has[jfrAlloc]:
		p.DefaultSampleType, p.PeriodType, p.Period = "alloc_space", &profile.ValueType{Type: "alloc_space", Unit: "bytes"}, max(r.allocEvery, 0)
	case r.has[jfrMalloc]:
		p.DefaultSampleType, p.PeriodType, p.Period = "malloc_space", &profile.ValueType{Type: "malloc_space", Unit: "bytes"}, 0
	default:
		p.DefaultSampleType, p.PeriodType, p.Period = "delay", &profile.ValueType{Type: "delay", Unit: "nanoseconds"}, 0
	}
	first, last := r.chunks[0].hdr, r.chunks[len(r.chunks)-1].hdr
	p.TimeNanos = int64(first.StartNanos)
	p.DurationNanos = int64(last.StartNanos+last.DurationNanos) - int64(first.StartNanos)
	if r.periodSource != "" {
		p.Comments = append(p.Comments, "sampling period from "+r.periodSource)
	}

	order := timeOrder(len(r.samples), func(i int) int64 { return r.samples[i].time })
	vals := make([]int64, len(r.samples)*len(st))  // one slab for all values
	labelSets := map[[2]string]map[string]string{} // shared, read-only label maps
	labelSet := func(k, v string) map[string]string {
		m, ok := labelSets[[2]string{k, v}]
		if !ok {
			m = map[string]string{k: v}
			labelSets[[2]string{k, v}] = m
		}
		return m
	}
	for i, k := range order {
		s := &r.samples[k]
		v := vals[i*len(st) : (i+1)*len(st) : (i+1)*len(st)]
		meta := sampleMeta{Thread: s.thread.name, TID: s.thread.tid, HasTID: s.thread.hasTID, Time: s.time, HasTime: true}
		switch s.kind {
		case jfrCPU:
			v[samplesIdx], v[idx[jfrCPU]] = 1, cpuPeriod
		case jfrWall:
			v[samplesIdx], v[idx[jfrWall]] = s.weight, s.weight*wallInterval
			if s.label != "" {
				meta.Labels = labelSet(labels.State, s.label)
			}
		case jfrAlloc, jfrMalloc, jfrLock:
			v[idx[s.kind]], v[idx[s.kind]+1] = 1, s.weight
			key := "object_class"
			if s.kind == jfrLock {
				key = "monitor_class"
				if s.park {
					key = "parked_class"
				}
			}
			if s.label != "" {
				meta.Labels = labelSet(key, s.label)
			}
		}
		b.Add(s.stack, v, meta)
	}
	r.warnings()
	return p, nil
}

func (r *jfrReader) warnings() {
	in := r.in
	if r.truncated > 0 {
		in.Warnf("%d stack traces were truncated by the recorder (raise async-profiler's jstackdepth or the JDK's stackdepth); their root frames are missing", r.truncated)
	}
	if r.missingStacks > 0 {
		in.Warnf("%d samples refer to a stack trace the recording does not define; they are kept with the frame \"(missing stack trace)\"", r.missingStacks)
	}
	if r.nullStacks > 0 {
		in.Warnf("%d events were recorded without a stack trace; they are kept with the frame \"(no stack trace)\"", r.nullStacks)
	}
	if r.unknownMethods > 0 {
		in.Warnf("%d methods are not defined in the recording's constant pool; their frames are named \"(unknown method N)\"", r.unknownMethods)
	}
	if r.untypedStacks > 0 {
		in.Warnf("the frame types of %d stack traces could not be read; their frames carry no type suffix", r.untypedStacks)
	}
	if s := jfrSkippedText(r.skipped); s != "" {
		in.Warnf("not converted%s", s)
	}
}

// timeOrder returns the indices 0..n-1 ordered by time, ties in index
// order: a stable sort that moves 4-byte indices instead of samples.
func timeOrder(n int, time func(i int) int64) []int32 {
	order := make([]int32, n)
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(time(int(a)), time(int(b))); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return order
}

// jfrFrameKind maps a jdk.types.FrameType description to the SystemName
// suffix. The first five are async-profiler's own annotations
// (src/frameName.cpp); it writes none for native and C++ frames, which get
// "_[n]" and "_[c]" here so that no type is lost.
func jfrFrameKind(desc string) string {
	switch desc {
	case "Interpreted":
		return "_[0]"
	case "JIT compiled":
		return "_[j]"
	case "Inlined":
		return "_[i]"
	case "C1 compiled":
		return "_[1]"
	case "Kernel":
		return "_[k]"
	case "Native":
		return "_[n]"
	case "C++":
		return "_[c]"
	case "":
		return ""
	}
	return "_[" + desc + "]"
}

// JVM-generated class names carry counters and addresses that differ between
// runs of the same code; matching needs them stable. These are the rules of
// jfr-parser's ProcessSymbols (parser/symbols.go), on dotted class names,
// plus JDK 21's "$$Lambda+0x...".
var (
	generatedAccessor = regexp.MustCompile(`^(.*\.Generated(?:Serialization)?(?:Method|Constructor)Accessor)\d+$`)
	lambdaClass       = regexp.MustCompile(`^(.+\$\$Lambda)(?:\$?\d*[./](?:0x)?[\da-f]+|\d+|\+0x[\da-f]+(?:[./]\d+)?)$`)
	cglibClass        = regexp.MustCompile(`^(.+\$\$EnhancerBySpringCGLIB\$\$).*$`)
	zstdJNILib        = regexp.MustCompile(`^(?:\.?/tmp/)?libzstd-jni-\d+\.\d+\.\d+-\d+\.so(?: \(deleted\))?$`)
	correttoLib       = regexp.MustCompile(`^(?:\.?/tmp/)?(?:lib)?amazonCorrettoCryptoProvider(?:NativeLibraries\.)?[0-9a-f]{16}(?:/libcrypto|/libamazonCorrettoCryptoProvider)?\.so(?: \(deleted\))?$`)
	asyncProfilerLib  = regexp.MustCompile(`^(?:\.?/tmp/)?libasyncProfiler-(?:linux-arm64|linux-musl-x64|linux-x64|macos)-[0-9a-f]+\.so(?: \(deleted\))?$`)
)

// stableJavaName is a frame's Name: the dotted class name and the method
// name with their run-specific parts (lambda and accessor counters,
// hidden-class addresses of lambdas, CGLIB hashes, temporary JNI library
// names) replaced by "_". Native frames of async-profiler name the library
// as the class, or leave the class empty and name the library as the method.
func stableJavaName(cls, method string) string {
	if strings.Contains(cls, "$$") || strings.Contains(cls, "Generated") {
		cls = generatedAccessor.ReplaceAllString(cls, "${1}_")
		cls = lambdaClass.ReplaceAllString(cls, "${1}_")
		cls = cglibClass.ReplaceAllString(cls, "${1}_")
	}
	return stableLibrary(cls) + "." + stableLibrary(method)
}

func stableLibrary(s string) string {
	if !strings.Contains(s, ".so") {
		return s
	}
	s = zstdJNILib.ReplaceAllString(s, "libzstd-jni-_.so")
	s = correttoLib.ReplaceAllString(s, "libamazonCorrettoCryptoProvider_.so")
	return asyncProfilerLib.ReplaceAllString(s, "libasyncProfiler-_.so")
}
