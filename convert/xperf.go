package convert

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// xperf reads the text of `xperf -i trace.etl -o out.txt [-symbols] -a dumper
// [-stacktimeshifting]`: ETW SampledProfile events joined with their Stack
// lines into timestamped per-thread CPU samples (formats-etw-java-perf.md
// §1.1). The layout, in short:
//
//	BeginHeader
//	        SampledProfile,  TimeStamp,     Process Name ( PID),   ThreadID, ..., Image!Function, Count, ...
//	                 Stack,  TimeStamp,   ThreadID, No.,            Address,            Image!Function
//	EndHeader
//	OS Version: ..., Trace Start: <FILETIME>, ..., PointerSize: 8, ...
//	SampledProfile,      36765,      svchost.exe (1100),       1668, ...
//	         Stack,      36765,       1668,   1, 0x81c3617b,     halmacpi.dll!0x81c3617b
//
// The header block names every event's columns; they change between WPT
// versions, so columns are found by name. A stack belongs to the sample with
// the same (TimeStamp, ThreadID); without -stacktimeshifting its lines (a
// kernel and a user fragment, each numbered from 1) can arrive long after the
// sample, so samples are held until the end of the input. A second layout
// (`-target machine`) lists several frames per Stack line and no No./Address
// columns. Timestamps are microseconds from the start of the trace.
func init() {
	register(inputFormat{
		Name:        "xperf",
		Description: "xperf -a dumper text: ETW SampledProfile events with their Stack lines",
		Priority:    50,
		Sniff:       sniffXperf,
		Parse:       parseXperf,
		ParseStacks: parseCollecting(parseXperf),
		// Its samples have no labels but the thread's and the time.
		CompleteStacks: true,
	})
}

func sniffXperf(head []byte) bool {
	line, _ := firstLine(bytes.TrimPrefix(head, etwBOM))
	if string(line) == "BeginHeader" {
		return true
	}
	ev, _, ok := bytes.Cut(line, []byte{','})
	if !ok {
		return false
	}
	switch string(bytes.TrimSpace(ev)) {
	case "SampledProfile", "Stack", "P-Start", "P-DCStart", "T-Start", "T-DCStart":
		return true
	}
	return false
}

// xperfDefaults are the column layouts used when the header block does not
// declare an event, copied from real dumper headers (rustc-perf's
// etw_parser.rs test data and UIforETW's xperf_to_collapsedstacks.py).
var xperfDefaults = map[string]string{
	"SampledProfile":          "SampledProfile, TimeStamp, Process Name ( PID), ThreadID, PrgrmCtr, CPU, ThreadStartImage!Function, Image!Function, Count, SampledProfile type",
	"T-Start":                 "T-Start, TimeStamp, Process Name ( PID), ThreadID, StackBase, StackLimit, UsrStkBase, UsrStkLmt, TebBase, SubProcessTag, BasePri, PagePri, IoPri, Flags, Image!Function",
	"P-Start":                 "P-Start, TimeStamp, Process Name ( PID)",
	"ProfileFreq-SetInterval": "ProfileFreq-SetInterval, TimeStamp, Process Name ( PID), ThreadID, Source, New Interval, Old Interval",
}

// xperfDefaultInterval is the sampling interval Windows uses unless told
// otherwise: 1 ms ("Notes on WPA Sampling": SetProfInt default 10000 in
// 100 ns units).
const xperfDefaultInterval = 1_000_000

// Bounds on numbers, so that Count × interval and the timestamps in
// nanoseconds cannot overflow: about 35 years of µs, a million samples per
// event and 100 s between samples.
const (
	xperfMaxTimestamp = 1 << 50
	xperfMaxCount     = 1 << 20
	xperfMaxInterval  = 1 << 30
)

// xperfUnixEpoch is 1970-01-01 as a FILETIME (100 ns units since 1601-01-01),
// for the header's Trace Start.
const xperfUnixEpoch = 116444736000000000

// An xperfEvent is one event type's column layout.
type xperfEvent struct {
	name     string
	cols     map[string]int // normalized column name → field index (0 is the event name)
	absorb   []bool
	fallback int
	line     int  // header line, 0 for a built-in default
	classic  bool // a Stack layout with numbered frames (No.)
}

func newXperfEvent(fields []string, line int) *xperfEvent {
	e := &xperfEvent{name: strings.TrimSpace(fields[0]), cols: map[string]int{}, absorb: make([]bool, len(fields)), line: line}
	e.fallback = len(fields) - 1
	lastFrame := -1
	for i, f := range fields {
		k := xperfKeyOf(f)
		if _, dup := e.cols[k]; !dup && i > 0 {
			e.cols[k] = i
		}
		switch {
		case strings.Contains(k, "!"):
			e.absorb[i], lastFrame = true, i
		case strings.Contains(k, "name") || strings.Contains(k, "commandline"):
			e.absorb[i] = true
		}
	}
	if lastFrame > 0 {
		e.fallback = lastFrame
	}
	_, e.classic = e.cols["no."]
	return e
}

// xperfKeyOf normalizes a column name: "Process Name ( PID)" → "processname(pid)".
func xperfKeyOf(col string) string {
	return strings.ToLower(strings.Join(strings.Fields(col), ""))
}

func (e *xperfEvent) where() string {
	if e.line == 0 {
		return "the usual " + e.name + " layout (the header block does not declare it)"
	}
	return fmt.Sprintf("its header at line %d", e.line)
}

type xperfKey struct{ ts, tid int64 }

type xperfFragment struct {
	kernel bool
	locs   []*profile.Location // leaf first
}

type xperfSample struct {
	ts, tid, pid, cpu int64
	hasPID, hasCPU    bool
	count             int64
	process           string
	threadStart       string
	leaf              string
	line              int
	frags             []xperfFragment
	// next is the next sample of the same (TimeStamp, ThreadID), -1 for
	// none (xperfPending).
	next int32
}

// xperfPending tracks the samples of one (TimeStamp, ThreadID) key, the
// first and last of a chain through xperfSample.next, and the fragment
// that numbered Stack lines are currently extending. It is a value in a
// slab (xperfReader.pend), not an allocation per sample.
type xperfPending struct {
	first, last int32
	cur         int32 // sample whose last fragment is open, -1 for none
}

type xperfName struct {
	ts   int64
	name string
}

type xperfInterval struct{ ts, ns int64 }

type xperfReader struct {
	in          *parserInput
	locs        *etwLocations
	events      map[string]*xperfEvent
	samples     xperfSamples
	pending     map[xperfKey]int32 // index in pend
	pend        []xperfPending
	strs        map[string]string // process and frame names, interned
	threads     map[int64][]xperfName
	procs       map[int64]string
	intervals   []xperfInterval
	pointerSize int
	traceStart  int64 // FILETIME, 100 ns units since 1601
	unmatched   int   // Stack lines that belong to no SampledProfile
	fields      []string
	bfields     [][]byte
}

func parseXperf(in *parserInput) (*profile.Profile, error) {
	b := newProfileBuilder(
		&profile.ValueType{Type: "samples", Unit: "count"},
		&profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
	)
	r := &xperfReader{
		in:      in,
		locs:    newETWLocations(b),
		events:  map[string]*xperfEvent{},
		pending: map[xperfKey]int32{},
		strs:    map[string]string{},
		threads: map[int64][]xperfName{},
		procs:   map[int64]string{},
	}
	if err := r.read(); err != nil {
		return nil, err
	}
	if r.samples.len() == 0 {
		return nil, fmt.Errorf("%w: the xperf dump holds no SampledProfile events "+
			"(record with the PROFILE kernel flag and -stackwalk Profile)", errNoSamples)
	}
	return r.build(b)
}

func (r *xperfReader) read() error {
	lr := newLineReader(r.in.R)
	headerAt := 0
	for lr.Scan() {
		t := bytes.TrimSpace(lr.Bytes())
		if lr.Line() == 1 {
			t = bytes.TrimPrefix(t, etwBOM)
		}
		if len(t) == 0 {
			continue
		}
		line := lr.Line()
		if headerAt > 0 {
			if string(t) == "EndHeader" {
				headerAt = 0
			} else if bytes.IndexByte(t, ',') > 0 {
				e := newXperfEvent(strings.Split(string(t), ","), line)
				r.events[e.name] = e
			}
			continue
		}
		comma := bytes.IndexByte(t, ',')
		if comma < 0 {
			if string(t) == "BeginHeader" {
				headerAt = line
			}
			continue
		}
		var err error
		switch ev := string(bytes.TrimSpace(t[:comma])); {
		case ev == "SampledProfile":
			err = r.sample(t, line)
		case ev == "Stack":
			err = r.stack(t, line)
		case ev == "T-Start" || ev == "T-DCStart":
			err = r.thread(ev, t, line)
		case ev == "P-Start" || ev == "P-DCStart" || ev == "P-DCEnd" || ev == "P-End":
			r.process(ev, t)
		case strings.HasPrefix(ev, "ProfileFreq"):
			err = r.interval(ev, t, line)
		case strings.HasPrefix(ev, "OS Version"):
			r.traceInfo(string(t))
		}
		if err != nil {
			return err
		}
	}
	if err := lr.Err(); err != nil {
		return err
	}
	if headerAt > 0 {
		return errAtLine(lr.Line(), "expected EndHeader to close the BeginHeader at line %d, found the end of the input", headerAt)
	}
	return nil
}

// event returns the layout of an event: from the header block, else the
// built-in default, else nil.
func (r *xperfReader) event(name string) *xperfEvent {
	if e, ok := r.events[name]; ok {
		return e
	}
	def, ok := xperfDefaults[name]
	if !ok {
		return nil
	}
	e := newXperfEvent(strings.Split(def, ","), 0)
	r.events[name] = e
	return e
}

// split splits an event line into its columns.
func (r *xperfReader) split(e *xperfEvent, t []byte, line int) ([]string, error) {
	r.fields = append(r.fields[:0], strings.Split(string(t), ",")...)
	vals, ok := etwAlign(r.fields, ",", e.absorb, e.fallback)
	if !ok {
		return nil, errAtLine(line, "%s: expected %d comma-separated fields as declared by %s, found %d",
			e.name, len(e.absorb), e.where(), len(r.fields))
	}
	return vals, nil
}

// xperfCol returns the value of a column, if the layout has it.
func xperfCol(e *xperfEvent, vals []string, key string) (string, bool) {
	i, ok := e.cols[key]
	if !ok || i >= len(vals) {
		return "", false
	}
	return vals[i], true
}

// intCol reads an integer column; a required column that is missing or not an
// integer is an error at the line.
func (r *xperfReader) intCol(e *xperfEvent, vals []string, key, label string, line int, required bool) (int64, bool, error) {
	v, ok := xperfCol(e, vals, key)
	if !ok {
		if required {
			return 0, false, errAtLine(line, "%s: no %s column in %s", e.name, label, e.where())
		}
		return 0, false, nil
	}
	if v == "" && !required {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, false, errAtLine(line, "%s: expected an integer %s, found %q", e.name, label, v)
	}
	return n, true, nil
}

func (r *xperfReader) sample(t []byte, line int) error {
	e := r.event("SampledProfile")
	vals, err := r.split(e, t, line)
	if err != nil {
		return err
	}
	s := xperfSample{line: line, count: 1}
	if s.ts, _, err = r.intCol(e, vals, "timestamp", "TimeStamp (µs)", line, true); err != nil {
		return err
	}
	if s.ts < 0 || s.ts > xperfMaxTimestamp {
		return errAtLine(line, "SampledProfile: expected a TimeStamp in µs from the start of the trace, found %d", s.ts)
	}
	if s.tid, _, err = r.intCol(e, vals, "threadid", "ThreadID", line, true); err != nil {
		return err
	}
	if s.cpu, s.hasCPU, err = r.intCol(e, vals, "cpu", "CPU", line, false); err != nil {
		return err
	}
	if n, ok, err := r.intCol(e, vals, "count", "Count", line, false); err != nil {
		return err
	} else if ok {
		if n < 0 || n > xperfMaxCount {
			return errAtLine(line, "SampledProfile: expected a Count from 0 to %d, found %d", xperfMaxCount, n)
		}
		s.count = n
	}
	if p, ok := xperfCol(e, vals, "processname(pid)"); ok {
		s.process, s.pid, s.hasPID = etwProcess(p)
	}
	s.threadStart, _ = xperfCol(e, vals, "threadstartimage!function")
	s.leaf, _ = xperfCol(e, vals, "image!function")
	// The strings are parts of the line: interned, a million samples of
	// a few processes keep a few strings, not a million lines.
	s.process, s.threadStart, s.leaf = r.intern(s.process), r.intern(s.threadStart), r.intern(s.leaf)
	s.next = -1
	x := int32(r.samples.len())
	k := xperfKey{s.ts, s.tid}
	if pi, ok := r.pending[k]; ok {
		p := &r.pend[pi]
		r.samples.at(p.last).next = x
		p.last = x
	} else {
		r.pending[k] = int32(len(r.pend))
		r.pend = append(r.pend, xperfPending{first: x, last: x, cur: -1})
	}
	r.samples.add(s)
	return nil
}

// intern returns s, or the equal string met before.
func (r *xperfReader) intern(s string) string {
	if v, ok := r.strs[s]; ok {
		return v
	}
	s = strings.Clone(s)
	r.strs[s] = s
	return s
}

// pendingOf returns the pending samples of a key, nil if none.
func (r *xperfReader) pendingOf(ts, tid int64) *xperfPending {
	pi, ok := r.pending[xperfKey{ts, tid}]
	if !ok {
		return nil
	}
	return &r.pend[pi]
}

func (r *xperfReader) stack(t []byte, line int) error {
	e := r.events["Stack"]
	if e != nil && e.classic && r.stackFast(e, t) {
		return nil
	}
	r.fields = append(r.fields[:0], strings.Split(string(t), ",")...)
	classic := false
	if e != nil {
		classic = e.classic
	} else {
		// No header: a numbered line is "Stack, ts, tid, No., 0xADDR, frame".
		classic = len(r.fields) >= 6 && xperfIsUint(r.fields[3]) && strings.HasPrefix(strings.TrimSpace(r.fields[4]), "0x")
		e = xperfStackClassic
		if !classic {
			e = xperfStackCompact
		}
	}
	tsCol, tidCol := e.cols["timestamp"], e.cols["threadid"]
	if tsCol == 0 || tidCol == 0 {
		return errAtLine(line, "Stack: expected TimeStamp and ThreadID columns in %s", e.where())
	}
	if !classic {
		return r.compactStack(e, tsCol, tidCol, line)
	}
	vals, ok := etwAlign(r.fields, ",", e.absorb, e.fallback)
	if !ok {
		return errAtLine(line, "Stack: expected %d comma-separated fields as declared by %s, found %d (a compact several-frames line where numbered frames were declared?)",
			len(e.absorb), e.where(), len(r.fields))
	}
	ts, _, err := r.intCol(e, vals, "timestamp", "TimeStamp (µs)", line, true)
	if err != nil {
		return err
	}
	tid, _, err := r.intCol(e, vals, "threadid", "ThreadID", line, true)
	if err != nil {
		return err
	}
	no, _, err := r.intCol(e, vals, "no.", "frame number (No.)", line, true)
	if err != nil {
		return err
	}
	frame, _ := xperfCol(e, vals, "image!function")
	addr, hasAddr := xperfCol(e, vals, "address")
	p := r.pendingOf(ts, tid)
	if p == nil {
		r.unmatched++
		return nil
	}
	loc := r.locs.get(frame)
	if no != 1 && p.cur >= 0 {
		s := r.samples.at(p.cur)
		f := &s.frags[len(s.frags)-1]
		f.locs = append(f.locs, loc)
		return nil
	}
	kernel := xperfKernelModule(frame)
	if hasAddr {
		if a, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimPrefix(addr, "0x"), "0X"), 16, 64); err == nil {
			kernel = r.kernelAddress(a)
		}
	}
	r.startFragment(p, xperfFragment{kernel: kernel, locs: []*profile.Location{loc}})
	return nil
}

// The Stack layouts used when the header block does not declare one.
var (
	xperfStackClassic = newXperfEvent(strings.Split("Stack, TimeStamp, ThreadID, No., Address, Image!Function", ","), 0)
	xperfStackCompact = newXperfEvent(strings.Split("Stack, TimeStamp, ThreadID, Image!Function", ","), 0)
)

// stackFast reads a numbered Stack line without allocating, when its frame
// name has no comma (almost always): Stack lines are most of a dump. It
// reports false to leave the line, and any error in it, to stack.
func (r *xperfReader) stackFast(e *xperfEvent, t []byte) bool {
	r.bfields = r.bfields[:0]
	for len(t) > 0 {
		i := bytes.IndexByte(t, ',')
		if i < 0 {
			r.bfields = append(r.bfields, t)
			break
		}
		r.bfields = append(r.bfields, t[:i])
		t = t[i+1:]
	}
	if len(r.bfields) != len(e.absorb) {
		return false
	}
	ts, ok1 := xperfAtoi(r.bfields[e.cols["timestamp"]])
	tid, ok2 := xperfAtoi(r.bfields[e.cols["threadid"]])
	no, ok3 := xperfAtoi(r.bfields[e.cols["no."]])
	if !ok1 || !ok2 || !ok3 {
		return false
	}
	p := r.pendingOf(ts, tid)
	if p == nil {
		r.unmatched++
		return true
	}
	var frame []byte
	if i, ok := e.cols["image!function"]; ok {
		frame = bytes.TrimSpace(r.bfields[i])
	}
	loc := r.locs.getBytes(frame)
	if no != 1 && p.cur >= 0 {
		s := r.samples.at(p.cur)
		f := &s.frags[len(s.frags)-1]
		f.locs = append(f.locs, loc)
		return true
	}
	kernel := xperfKernelModule(string(frame))
	if i, ok := e.cols["address"]; ok {
		a := bytes.TrimSpace(r.bfields[i])
		if v, err := strconv.ParseUint(strings.TrimPrefix(string(a), "0x"), 16, 64); err == nil {
			kernel = r.kernelAddress(v)
		}
	}
	r.startFragment(p, xperfFragment{kernel: kernel, locs: []*profile.Location{loc}})
	return true
}

// xperfAtoi parses a padded decimal integer field.
func xperfAtoi(b []byte) (int64, bool) {
	b = bytes.TrimSpace(b)
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// compactStack reads a Stack line with several frames, leaf first: one
// fragment (the kernel or the user part of a stack) per line.
func (r *xperfReader) compactStack(e *xperfEvent, tsCol, tidCol, line int) error {
	first := max(tsCol, tidCol) + 1
	if i, ok := e.cols["image!function"]; ok && i > first {
		first = i
	}
	if len(r.fields) <= max(tsCol, tidCol) {
		return errAtLine(line, "Stack: expected TimeStamp, ThreadID and frames, found %d fields", len(r.fields))
	}
	ts, err := strconv.ParseInt(strings.TrimSpace(r.fields[tsCol]), 10, 64)
	if err != nil {
		return errAtLine(line, "Stack: expected an integer TimeStamp (µs), found %q", strings.TrimSpace(r.fields[tsCol]))
	}
	tid, err := strconv.ParseInt(strings.TrimSpace(r.fields[tidCol]), 10, 64)
	if err != nil {
		return errAtLine(line, "Stack: expected an integer ThreadID, found %q", strings.TrimSpace(r.fields[tidCol]))
	}
	p := r.pendingOf(ts, tid)
	if p == nil {
		r.unmatched++
		return nil
	}
	if first >= len(r.fields) {
		return nil // a line without frames adds nothing
	}
	frames := etwJoinFrames(r.fields[first:], ",")
	f := xperfFragment{kernel: xperfKernelModule(frames[0]), locs: make([]*profile.Location, 0, len(frames))}
	for _, fr := range frames {
		if fr != "" {
			f.locs = append(f.locs, r.locs.get(fr))
		}
	}
	if len(f.locs) > 0 {
		r.startFragment(p, f)
		p.cur = -1 // compact lines are complete fragments
	}
	return nil
}

// startFragment gives a new stack fragment to the first sample of its key
// that lacks a fragment of that kind (several samples can share a key).
func (r *xperfReader) startFragment(p *xperfPending, f xperfFragment) {
	target := p.last
	for i := p.first; i >= 0; i = r.samples.at(i).next {
		has := false
		for _, g := range r.samples.at(i).frags {
			has = has || g.kernel == f.kernel
		}
		if !has {
			target = i
			break
		}
	}
	t := r.samples.at(target)
	t.frags = append(t.frags, f)
	p.cur = target
}

// kernelAddress reports whether a code address is in kernel space: the top
// half of the address space (above 0x80000000 on 32-bit Windows, above
// 0xFFFF800000000000 on x64).
func (r *xperfReader) kernelAddress(a uint64) bool {
	if a > 0xFFFFFFFF || r.pointerSize == 8 {
		return a >= 0xFFFF800000000000
	}
	return a >= 0x80000000
}

// xperfKernelModule guesses the kernel side from the module name, for stack
// lines without addresses: drivers (.sys), the kernel and the HAL.
func xperfKernelModule(frame string) bool {
	m, _, ok := strings.Cut(strings.ToLower(strings.TrimSpace(frame)), "!")
	if !ok {
		return false
	}
	return strings.HasSuffix(m, ".sys") || strings.HasPrefix(m, "ntoskrnl") || strings.HasPrefix(m, "ntkrnl") ||
		(strings.HasPrefix(m, "hal") && strings.HasSuffix(m, ".dll"))
}

func xperfIsUint(s string) bool {
	_, err := strconv.ParseUint(strings.TrimSpace(s), 10, 64)
	return err == nil
}

// thread records a thread's name: the ThreadName column where the dumper
// has one, else the thread's start function (stable across runs, unlike the
// thread id).
func (r *xperfReader) thread(ev string, t []byte, line int) error {
	e := r.events[ev]
	if e == nil {
		e = r.event("T-Start")
	}
	vals, ok := etwAlign(strings.Split(string(t), ","), ",", e.absorb, e.fallback)
	if !ok {
		return nil // metadata only: a short line costs a name, not a sample
	}
	tid, ok, err := r.intCol(e, vals, "threadid", "ThreadID", line, false)
	if err != nil || !ok {
		return err
	}
	ts, _, err := r.intCol(e, vals, "timestamp", "TimeStamp (µs)", line, false)
	if err != nil {
		return err
	}
	name, _ := xperfCol(e, vals, "threadname")
	if name == "" {
		name, _ = xperfCol(e, vals, "image!function")
	}
	if name != "" {
		r.threads[tid] = append(r.threads[tid], xperfName{ts, name})
	}
	return nil
}

func (r *xperfReader) process(ev string, t []byte) {
	e := r.events[ev]
	if e == nil {
		e = r.event("P-Start")
	}
	vals, ok := etwAlign(strings.Split(string(t), ","), ",", e.absorb, e.fallback)
	if !ok {
		return
	}
	if p, ok := xperfCol(e, vals, "processname(pid)"); ok {
		if name, pid, ok := etwProcess(p); ok && name != "" && name != "Unknown" {
			r.procs[pid] = name
		}
	}
}

// interval records a sampling-interval change. The interval columns are in
// 100 ns units, the unit of SetProfInt ("Notes on WPA Sampling"); the
// formats survey could not confirm this on a real dump, hence the comment
// in the output profile. Intervals of other profile sources (PMC counters,
// counted in events, not time) are ignored.
func (r *xperfReader) interval(ev string, t []byte, line int) error {
	e := r.events[ev]
	if e == nil {
		if ev != "ProfileFreq-SetInterval" {
			return nil
		}
		e = r.event(ev)
	}
	key := "newinterval"
	if _, ok := e.cols[key]; !ok {
		key = "interval"
		if _, ok := e.cols[key]; !ok {
			return nil
		}
	}
	vals, ok := etwAlign(strings.Split(string(t), ","), ",", e.absorb, e.fallback)
	if !ok {
		return errAtLine(line, "%s: expected %d comma-separated fields as declared by %s, found fewer", ev, len(e.absorb), e.where())
	}
	if src, ok := xperfCol(e, vals, "source"); ok && src != "" && src != "0" && !strings.EqualFold(src, "Timer") && !strings.EqualFold(src, "ProfileTime") {
		return nil
	}
	v, _, err := r.intCol(e, vals, key, "interval (100 ns units)", line, true)
	if err != nil {
		return err
	}
	ts, _, err := r.intCol(e, vals, "timestamp", "TimeStamp (µs)", line, false)
	if err != nil {
		return err
	}
	if v <= 0 || v > xperfMaxInterval {
		return errAtLine(line, "%s: expected an interval from 1 to %d (100 ns units), found %d", ev, xperfMaxInterval, v)
	}
	r.intervals = append(r.intervals, xperfInterval{ts, v * 100})
	return nil
}

// traceInfo reads the line after the header block:
// "OS Version: 10.0.19043, Trace Size: 20736KB, Events Lost: 0, ...".
func (r *xperfReader) traceInfo(s string) {
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "Trace Start":
			r.traceStart, _ = strconv.ParseInt(v, 10, 64)
		case "PointerSize":
			r.pointerSize, _ = strconv.Atoi(v)
		case "Events Lost", "Buffers lost", "Buffers Lost":
			if n, err := strconv.Atoi(v); err == nil && n > 0 {
				r.in.Warnf("the trace reports %s: %d; samples may be missing", k, n)
			}
		}
	}
}

// threadName returns the name of thread tid at time ts.
func (r *xperfReader) threadName(tid, ts int64) string {
	names := r.threads[tid]
	if len(names) == 0 {
		return ""
	}
	name := names[0].name
	for _, n := range names[1:] {
		if n.ts <= ts {
			name = n.name
		}
	}
	return name
}

func (r *xperfReader) build(b *profileBuilder) (*profile.Profile, error) {
	sort.SliceStable(r.intervals, func(i, j int) bool { return r.intervals[i].ts < r.intervals[j].ts })
	intervalAt := func(ts int64) int64 {
		if len(r.intervals) == 0 {
			return xperfDefaultInterval
		}
		ns := r.intervals[0].ns // before the first change: the rundown state
		for _, iv := range r.intervals {
			if iv.ts > ts {
				break
			}
			ns = iv.ns
		}
		return ns
	}
	r.pending, r.pend = nil, nil // every Stack line is read: garbage before out is made
	r.in.collectStacks(b)
	out := newETWSamples(r.in.Options, b.p.SampleType, r.samples.len())
	noStack, idle, samples, firstTS := 0, 0, r.samples.len(), r.samples.at(0).ts
	for i := range samples {
		s := r.samples.at(int32(i))
		stack := xperfStack(s.frags)
		if len(stack) == 0 {
			noStack++
			leaf := s.leaf
			if leaf == "" {
				leaf = "(no stack)"
			}
			stack = []*profile.Location{r.locs.get(leaf)}
		}
		m := sampleMeta{TID: s.tid, HasTID: true, PID: s.pid, HasPID: s.hasPID, Time: s.ts * 1000, HasTime: true}
		m.Process = s.process
		if (m.Process == "" || m.Process == "Unknown") && s.hasPID {
			m.Process = r.procs[s.pid]
		}
		if etwIsIdle(m.Process, s.pid, s.hasPID) {
			idle++
			m.Process, m.Thread = "Idle", etwIdleThread(s.cpu, s.hasCPU)
		} else if m.Thread = r.threadName(s.tid, s.ts); m.Thread == "" {
			m.Thread = s.threadStart
		}
		if err := out.add(etwSample{stack: stack, values: []int64{s.count, s.count * intervalAt(s.ts)}, meta: m}, 1); err != nil {
			return nil, limitOrAtLine(s.line, "SampledProfile: ", err)
		}
	}
	r.samples = xperfSamples{} // what remains of them is out's
	etwAddInTimeOrder(b, out.samples())

	p := b.Profile()
	p.PeriodType = &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}
	p.Period = intervalAt(firstTS)
	p.DefaultSampleType = "cpu"
	p.DurationNanos = out.duration(1)
	if r.traceStart > xperfUnixEpoch {
		p.TimeNanos = (r.traceStart - xperfUnixEpoch) * 100
	}
	p.Comments = append(p.Comments, "converted by ctdiff from xperf -a dumper text",
		"timestamp_ns: the sample's TimeStamp (µs from the start of the trace) × 1000")
	if len(r.intervals) == 0 {
		p.Comments = append(p.Comments, "cpu = Count × 1 ms: no ProfileFreq event, so Windows' default sampling interval is assumed")
		r.in.Warnf("no ProfileFreq event: assumed Windows' default sampling interval of 1 ms for the cpu values")
	} else {
		p.Comments = append(p.Comments, fmt.Sprintf("cpu = Count × the sampling interval of ProfileFreq events (read in 100 ns units; %d ns at the first sample)", p.Period))
	}
	if noStack > 0 {
		r.in.Warnf("%d of %d SampledProfile events have no Stack lines (record with -stackwalk Profile); each is kept with its sampled frame only", noStack, samples)
	}
	if idle > 0 {
		r.in.Warnf("%d samples of the Idle process are kept as process \"Idle\", one thread per CPU; select other threads with --thread or --pid", idle)
	}
	if r.unmatched > 0 {
		r.in.Warnf("%d Stack lines match no SampledProfile event by (TimeStamp, ThreadID); they belong to other events (context switches, ...) and were ignored", r.unmatched)
	}
	return p, nil
}

// xperfStack joins a sample's fragments leaf first: kernel fragments (the
// interrupted code) before user fragments (the code that entered the
// kernel), each kind in arrival order.
func xperfStack(frags []xperfFragment) []*profile.Location {
	n := 0
	for _, f := range frags {
		n += len(f.locs)
	}
	if n == 0 {
		return nil
	}
	stack := make([]*profile.Location, 0, n)
	for _, kernel := range []bool{true, false} {
		for _, f := range frags {
			if f.kernel == kernel {
				stack = append(stack, f.locs...)
			}
		}
	}
	return stack
}

// xperfSamples are the samples read, in chunks: a slice of a million
// samples doubling as it grew held the old array and the new, twice the
// samples, at the moment of each copy.
type xperfSamples struct {
	chunks [][]xperfSample
	n      int
}

const xperfChunk = 8192

func (xs *xperfSamples) len() int { return xs.n }

func (xs *xperfSamples) at(i int32) *xperfSample {
	return &xs.chunks[i/xperfChunk][i%xperfChunk]
}

func (xs *xperfSamples) add(s xperfSample) {
	if xs.n%xperfChunk == 0 {
		xs.chunks = append(xs.chunks, make([]xperfSample, 0, xperfChunk))
	}
	c := &xs.chunks[len(xs.chunks)-1]
	*c = append(*c, s)
	xs.n++
}
