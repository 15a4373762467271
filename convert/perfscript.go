package convert

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ctdiff/ctdiff/internal/hashindex"
	"github.com/google/pprof/profile"
	"github.com/ianlancetaylor/demangle"
)

// perfscript reads the text of Linux `perf script` (perf record -g data),
// with or without `--header`, and the tab-separated variant that Android's
// simpleperf writes (report_sample.py):
//
//	# ========                                       (optional header)
//	perf   977/977   [000] 7628263.042515:    1001001 cpu-clock:
//		ffffffff8104f45a native_write_msr_safe+0x6 ([kernel.kallsyms])
//		    7f35a986f204 _Z4betav (/workdir/a.out)
//	                                                (blank line: next sample)
//
// A sample header is "comm [pid/]tid [[cpu]] [secs.frac:] [period] event:"
// (the command name may contain spaces); its frames follow, leaf first, as
// "addr symbol[+0xOFF] (dso)". Every sample becomes one pprof sample with
// its timestamp (labels.Timestamp: perf's clock in ns, which counts from
// boot, not from the epoch), its thread (labels.Thread = comm, labels.TID,
// labels.PID when printed) and its frames: Name the symbol, demangled (C++,
// Rust), without the offset and Rust's build hash; SystemName the raw
// symbol; File the dso. Unsymbolized frames keep a "module!0xADDR" name.
//
// Sample types: samples/count (1 per sample), and one type per event with
// its period as the weight: cpu/nanoseconds for cpu-clock and task-clock,
// whose periods are nanoseconds, else "<event>/count" (cycles/count, ...).
// Where perf script prints no period, the fixed period the header states
// (perf record -c N: "{ sample_period, sample_freq } = N" without
// "freq = 1") is every sample's period. An event without periods adds no
// type when it is the only one; beside other events it gets
// "<event>_samples/count", 1 per sample, so every event keeps its own.
//
// Recordings made without timestamps (perf record without -T, or
// `perf script -F` without time) cannot give a timeline: identical stacks of
// a thread are merged into one sample and a warning says so.
func init() {
	register(inputFormat{
		Name:        "perfscript",
		Description: "Linux perf script text (also Android simpleperf report_sample.py)",
		Priority:    20,
		Sniff:       sniffPerfScript,
		Parse:       parsePerfScript,
		ParseStacks: parsePerfScriptStacks,
		// Its samples have no labels but the thread's and the time.
		CompleteStacks: true,
	})
}

func sniffPerfScript(head []byte) bool {
	line, _ := firstLine(head, "#")
	if _, ok := matchPerfHeader(string(line)); !ok {
		return false
	}
	// The next line is a frame (indented) or a blank line.
	i := bytes.Index(head, line)
	rest := head[i+len(line):]
	rest = bytes.TrimPrefix(rest, []byte("\r"))
	rest = bytes.TrimPrefix(rest, []byte("\n"))
	return len(rest) == 0 || rest[0] == '\t' || rest[0] == ' ' || rest[0] == '\n' || rest[0] == '\r'
}

type perfThread struct {
	comm     string
	pid, tid int64
	hasPID   bool
}

type perfSample struct {
	thread *perfThread
	time   int64
	event  int // index into perfReader.events
	period int64
	stack  []int32 // location indexes (profileBuilder.loc), leaf first
	// n is how many samples this one stands for (Options.MergeSamples
	// merges those of one thread, event and stack; period is then their
	// sum, and time the earliest).
	n int64
}

type perfEvent struct {
	name      string
	typ       int  // index of its sample type, -1 when it has none
	counts    bool // its type counts samples, not periods
	hasPeriod bool
	noPeriod  int // samples without a period
	period    int64
}

type perfReader struct {
	in      *parserInput
	b       *profileBuilder
	threads map[perfThread]*perfThread
	events  []*perfEvent
	byName  map[string]int
	lines   map[string]int32 // location by frame line, for lines simpleFrameLine does not split
	// bySym finds the location of a line simpleFrameLine splits by its
	// symbol and dso, which a location's system name (or name) and file
	// are: a line recurs in many samples, and lines of one symbol differ
	// mostly in their address and offset (the full lines of a recording's
	// leaf frames are nearly all distinct). It keeps no key of its own: a
	// stack of a million distinct symbols took a map of them.
	bySym   hashindex.Index
	symSeed hashindex.Seed
	dsos    map[string]string // the files of frames, interned
	samples []perfSample
	merge   *mergeIndex // with Options.MergeSamples
	count   int         // samples read
	span    timeSpan    // of their timestamps
	// lastTimed says the last sample read had a timestamp.
	lastTimed bool
	cut       int // frame lines cut to maxNameBytes (cutFrameLine)
	timed     int // samples with a timestamp
	empty     int // samples without frames
	// headerPeriod is the fixed sample period the header states per event
	// name; fromHeader names the events whose periods came from it.
	headerPeriod map[string]int64
	fromHeader   []string
}

// parsePerfScriptStacks is parsePerfScript as ParseStacks.
var parsePerfScriptStacks = parseCollecting(parsePerfScript)

func parsePerfScript(in *parserInput) (*profile.Profile, error) {
	r := &perfReader{
		in: in, b: newProfileBuilder(),
		threads: map[perfThread]*perfThread{}, byName: map[string]int{}, lines: map[string]int32{},
		dsos: map[string]string{}, headerPeriod: map[string]int64{},
	}
	if in.Options.MergeSamples {
		r.merge = newMergeIndex()
	}
	in.collectFrames(r.b)
	lr := newLineReader(in.R)
	var cur *perfSample
	var stack []int32
	inStack := false // a frame line came before, in this sample
	var mergeErr error
	finish := func() {
		if cur == nil {
			return
		}
		if len(stack) == 0 {
			r.empty++
		}
		cur.stack, cur.n = stack, 1
		if r.add(cur, &mergeErr) {
			stack = stack[:0] // merged: the stack buffer is free again
		} else {
			stack = nil
		}
		cur, inStack = nil, false
	}
	for lr.Scan() {
		line := lr.Bytes()
		t := bytes.TrimSpace(line)
		switch {
		case len(t) == 0:
			finish()
		case line[0] == '#':
			finish() // header (perf script --header) or comment
			r.headerEvent(string(t))
		case line[0] == ' ' || line[0] == '\t':
			if cur == nil {
				return nil, errAtLine(lr.Line(), "expected a sample header \"comm [pid/]tid [cpu] secs.usecs: [period] event:\" before this frame, found %q", textExcerpt(line))
			}
			if inStack && isPerfSrcLine(t) { // -F +srcline: "file.c:12" under its frame
				continue
			}
			inStack = true
			if len(stack) == MaxStackDepth {
				// Refused as it grows, before its frames take the memory
				// (and as checkSamples would refuse it).
				err := (&stackBudget{limit: math.MaxInt64}).take(MaxStackDepth + 1)
				return nil, errAtLine(lr.Line(), "sample %d: %v", r.count, err)
			}
			stack = append(stack, r.frameLine(r.cutFrameLine(t)))
		default:
			finish()
			s, trailer, err := r.header(string(line))
			if err != nil {
				return nil, errAtLine(lr.Line(), "%v", err)
			}
			if mergeErr != nil {
				return nil, limitOrAtLine(lr.Line(), "", mergeErr)
			}
			if r.count > 0 && (s.time >= 0) != r.lastTimed {
				return nil, errAtLine(lr.Line(), "this sample has %s timestamp, unlike the samples before it", map[bool]string{true: "a", false: "no"}[s.time >= 0])
			}
			cur = &s
			if trailer != "" { // perf script -F ...,ip,sym without a call chain: one frame on the header line
				if f := r.frame(trailer); f.File != "" {
					stack = append(stack, r.location(f))
				}
			}
		}
	}
	if err := lr.Err(); err != nil {
		return nil, err
	}
	if r.cut > 0 {
		in.Warnf("%d frame lines are longer than %d bytes: their names were cut to that length", r.cut, maxNameBytes)
	}
	finish()
	if mergeErr != nil {
		return nil, limitOrAtLine(lr.Line(), "", mergeErr)
	}
	if len(r.samples) == 0 {
		return nil, fmt.Errorf("%w: no perf script sample header (\"comm tid secs.usecs: event:\") in the input", errNoSamples)
	}
	return r.profile()
}

// frameLine returns the location of a frame line (trimmed): a line of
// the usual form by its symbol and dso (bySym), any other by the whole
// line.
func (r *perfReader) frameLine(t []byte) int32 {
	if sym, dso, ok := simpleFrameLine(t); ok {
		key := perfSymKey{viewString(sym), perfFile(viewString(dso))}
		h := hashindex.Hash(&r.symSeed, key)
		x, found := r.bySym.Find(h, func(x int32) bool {
			raw, file := r.b.rawName(x)
			return raw == key.sym && file == key.file
		})
		if !found {
			x = r.location(r.frame(string(t)))
			r.bySym.Add(h, x)
		}
		return x
	}
	x, ok := r.lines[string(t)]
	if !ok {
		x = r.location(r.frame(string(t)))
		r.lines[string(t)] = x
	}
	return x
}

// perfSymKey is a frame line's symbol and file, as bySym hashes them.
type perfSymKey struct{ sym, file string }

// perfFile is the file of a frame of a dso as perf script prints it.
func perfFile(dso string) string {
	dso = strings.TrimSuffix(dso, " (deleted)")                     // perf-map files and replaced binaries
	if dso == "[unknown]" || dso == "unknown" || dso == "inlined" { // "inlined": perf script --inline
		return ""
	}
	return dso
}

// simpleFrameLine splits a frame line "addr sym[+0xOFF] (dso)" whose
// address is hex, whose symbol is printable ASCII without spaces or
// parentheses and not "[unknown]", and whose dso has no parentheses, into
// the symbol without its offset and the dso. frame gives every such line
// the same frame for the same symbol and dso, whatever its address and
// offset; ok is false for other lines.
func simpleFrameLine(t []byte) (sym, dso []byte, ok bool) {
	sp := bytes.IndexByte(t, ' ')
	if sp <= 0 {
		return nil, nil, false
	}
	for _, c := range t[:sp] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return nil, nil, false
		}
	}
	rest := t[sp+1:]
	open := bytes.IndexByte(rest, '(')
	if open < 2 || rest[open-1] != ' ' || rest[len(rest)-1] != ')' {
		return nil, nil, false
	}
	sym, dso = rest[:open-1], rest[open+1:len(rest)-1]
	for _, c := range sym {
		if c <= ' ' || c >= 0x7f || c == '(' || c == ')' {
			return nil, nil, false
		}
	}
	for _, c := range dso {
		if c < ' ' || c >= 0x7f || c == '(' || c == ')' {
			return nil, nil, false
		}
	}
	if i := bytes.LastIndex(sym, []byte("+0x")); i > 0 && isHexBytes(sym[i+3:]) {
		sym = sym[:i]
	}
	if string(sym) == "[unknown]" {
		return nil, nil, false
	}
	return sym, dso, true
}

func isHexBytes(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return len(b) > 0
}

func (r *perfReader) header(line string) (perfSample, string, error) {
	h, ok := matchPerfHeader(line)
	if !ok {
		return perfSample{}, "", fmt.Errorf("expected a sample header \"comm [pid/]tid [cpu] secs.usecs: [period] event:\", found %q", textExcerpt([]byte(line)))
	}
	k := perfThread{comm: strings.TrimSpace(h.comm)}
	var err error
	if h.pid != "" {
		k.hasPID = true
		if k.pid, err = strconv.ParseInt(h.pid, 10, 64); err != nil {
			return perfSample{}, "", fmt.Errorf("pid %q: %v", h.pid, err)
		}
	}
	if k.tid, err = strconv.ParseInt(h.tid, 10, 64); err != nil {
		return perfSample{}, "", fmt.Errorf("tid %q: %v", h.tid, err)
	}
	th := r.threads[k]
	if th == nil {
		th = &k
		r.threads[k] = th
	}
	s := perfSample{thread: th, time: -1, period: -1}
	if h.secs != "" {
		secs, err := strconv.ParseInt(h.secs, 10, 64)
		frac := h.frac
		if len(frac) > 9 {
			frac = frac[:9]
		}
		ns, err2 := strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64)
		if err != nil || err2 != nil || secs > (1<<63-1)/1_000_000_000-1 {
			return perfSample{}, "", fmt.Errorf("expected a time secs.frac, found %q", h.secs+"."+h.frac)
		}
		s.time = secs*1e9 + ns
		r.timed++
	}
	if h.period != "" {
		if s.period, err = strconv.ParseInt(h.period, 10, 64); err != nil {
			return perfSample{}, "", fmt.Errorf("period %q: %v", h.period, err)
		}
	} else if p, ok := r.headerPeriod[h.event]; ok {
		s.period = p
	}
	s.event = r.event(h.event, s.period)
	return s, strings.TrimSpace(h.trailer), nil
}

func (r *perfReader) event(name string, period int64) int {
	i, ok := r.byName[name]
	if !ok {
		i = len(r.events)
		r.byName[name] = i
		r.events = append(r.events, &perfEvent{name: name, typ: -1})
		if _, ok := r.headerPeriod[name]; ok {
			r.fromHeader = append(r.fromHeader, name)
		}
	}
	e := r.events[i]
	if period >= 0 {
		if !e.hasPeriod {
			e.hasPeriod, e.period = true, period
		}
	} else {
		e.noPeriod++
	}
	return i
}

// perfHeaderEvent matches an event line of perf script --header, and
// perfFixedPeriod its fixed period: "{ sample_period, sample_freq } = N"
// is a period unless "freq = 1" makes N a frequency.
var (
	perfHeaderEvent = regexp.MustCompile(`^#\s*event\s*:\s*name\s*=\s*([^,\s]+)`)
	perfFixedPeriod = regexp.MustCompile(`\{ sample_period, sample_freq \} = (\d+)`)
	perfFreqMode    = regexp.MustCompile(`(?:^|,\s*)freq = 1(?:,|$)`)
)

// headerEvent records the fixed period of an event the header describes.
func (r *perfReader) headerEvent(line string) {
	m := perfHeaderEvent.FindStringSubmatch(line)
	if m == nil || perfFreqMode.MatchString(line) {
		return
	}
	if p := perfFixedPeriod.FindStringSubmatch(line); p != nil {
		if n, err := strconv.ParseInt(p[1], 10, 64); err == nil && n > 0 {
			r.headerPeriod[m[1]] = n
		}
	}
}

// frame parses "addr symbol[+0xOFF] (dso)". The symbol may hold spaces and
// parentheses (C++ signatures), so the dso is the balanced "(...)" at the end.
func (r *perfReader) frame(s string) stackFrame {
	addr, rest, _ := strings.Cut(s, "\t")
	if rest == "" || strings.ContainsAny(addr, " ") {
		addr, rest, _ = strings.Cut(s, " ")
	}
	rest = strings.TrimSpace(rest)
	if !isHex(addr) || rest == "" { // no address column
		addr, rest = "", s
	}
	var f stackFrame
	sym := rest
	if open := trailingArgsStart(rest); open >= 0 && (open == 0 || rest[open-1] == ' ' || rest[open-1] == '\t') {
		f.File = rest[open+1 : len(rest)-1]
		sym = strings.TrimSpace(rest[:open])
	}
	if i := strings.LastIndex(sym, "+0x"); i > 0 && isHex(sym[i+3:]) {
		sym = sym[:i]
	}
	f.File = perfFile(f.File)
	if sym == "" || sym == "[unknown]" {
		mod := path.Base(f.File)
		if f.File == "" {
			mod = "[unknown]"
		}
		switch a := strings.TrimLeft(strings.ToLower(addr), "0"); {
		case addr == "":
			f.Name = mod + "!?"
		case a == "":
			f.Name = mod + "!0x0"
		default:
			f.Name = mod + "!0x" + a
		}
		return f
	}
	f.Name = demangleSymbol(sym)
	if f.Name != sym {
		f.SystemName = sym
	}
	return f
}

// location returns the location of a frame that r.frame made of a line:
// its strings are copied off the line, which they would keep whole, and
// its file interned.
func (r *perfReader) location(f stackFrame) int32 {
	if x, ok := r.b.findLoc(f); ok {
		return x
	}
	f.Name, f.SystemName = strings.Clone(f.Name), strings.Clone(f.SystemName)
	file, ok := r.dsos[f.File]
	if !ok {
		file = strings.Clone(f.File)
		r.dsos[file] = file
	}
	f.File = file
	return r.b.loc(f)
}

// rustHash is the build hash rustc appends to legacy-mangled names
// ("::h0123456789abcdef"); it changes with every build, so it is dropped.
var rustHash = regexp.MustCompile(`::h[0-9a-f]{16}$`)

// demangleSymbol demangles C++ (Itanium) and Rust (legacy and v0) symbols,
// keeping C++ parameter lists as perf itself prints them.
func demangleSymbol(sym string) string {
	name := sym
	if strings.HasPrefix(sym, "_Z") || strings.HasPrefix(sym, "_R") || strings.HasPrefix(sym, "__Z") {
		if d, err := demangleSafe(strings.TrimPrefix(sym, "_")); err == nil && strings.HasPrefix(sym, "__Z") {
			name = d
		} else if d, err := demangleSafe(sym); err == nil {
			name = d
		}
	}
	return rustUnescape(rustHash.ReplaceAllString(name, ""))
}

// demangleSafe is demangle.ToString, which panics on some malformed
// symbols ("_ZW3A00": an index out of range in unqualifiedName; found by
// FuzzSimpleFrameLine): such a symbol is an error, and its frame keeps the
// name as written, rather than crashing the reader.
func demangleSafe(sym string) (d string, err error) {
	defer func() {
		if recover() != nil {
			d, err = "", errMalformedSymbol
		}
	}()
	return demangle.ToString(sym)
}

// errMalformedSymbol is demangleSafe's error for a symbol the demangler
// could not read.
var errMalformedSymbol = errors.New("malformed mangled symbol")

// rustEscape finds the escapes of Rust's legacy mangling that perf leaves
// in names it demangled only halfway ("_$LT$core..result..Result$LT$T$C$$u20$E$GT$$GT$::and_then").
var rustEscape = regexp.MustCompile(`\$(?:LT|GT|SP|BP|RF|LP|RP|C|u[0-9a-f]{1,6})\$`)

// rustUnescape finishes that demangling as rustc-demangle does for legacy
// symbols: the escapes become "<", ">", "@", "*", "&", "(", ")", "," and
// the character of a $uXX$ code, ".." becomes "::", and a path element's
// "_" before an escape goes. Names without such escapes (C, C++, Java's
// "Outer$Inner") are returned as they are.
func rustUnescape(s string) string {
	if !rustEscape.MatchString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		switch {
		case s[i] == '_' && strings.HasPrefix(s[i+1:], "$") && (i == 0 || strings.HasSuffix(s[:i], "::") || strings.HasSuffix(s[:i], "..")):
			i++ // "_$LT$" at the start of a path element
		case s[i] == '$':
			if j := strings.IndexByte(s[i+1:], '$'); j >= 0 {
				if r, ok := rustEscapeText(s[i+1 : i+1+j]); ok {
					b.WriteString(r)
					i += j + 2
					continue
				}
			}
			b.WriteByte('$')
			i++
		case strings.HasPrefix(s[i:], ".."):
			b.WriteString("::")
			i += 2
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

func rustEscapeText(code string) (string, bool) {
	switch code {
	case "SP":
		return "@", true
	case "BP":
		return "*", true
	case "RF":
		return "&", true
	case "LT":
		return "<", true
	case "GT":
		return ">", true
	case "LP":
		return "(", true
	case "RP":
		return ")", true
	case "C":
		return ",", true
	}
	if hex, ok := strings.CutPrefix(code, "u"); ok && len(hex) <= 6 {
		if n, err := strconv.ParseUint(hex, 16, 32); err == nil && utf8.ValidRune(rune(n)) && hex != "" {
			return string(rune(n)), true
		}
	}
	return "", false
}

func isHex(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// eventType names the sample type of a perf event: cpu-clock and task-clock
// count nanoseconds; other events count themselves. Modifiers (":u", ":ppp")
// are dropped; tracepoints ("sched:sched_switch") keep their subsystem.
func eventType(event string) (string, string) {
	base := event
	if i := strings.LastIndexByte(event, ':'); i > 0 && strings.Trim(event[i+1:], "ukhGHpPSDIWeb") == "" {
		base = event[:i]
	}
	if base == "cpu-clock" || base == "task-clock" {
		return "cpu", "nanoseconds"
	}
	return base, "count"
}

func (r *perfReader) profile() (*profile.Profile, error) {
	in := r.in
	st := []*profile.ValueType{{Type: "samples", Unit: "count"}}
	for _, e := range r.events {
		typ, unit := eventType(e.name)
		if !e.hasPeriod {
			if len(r.events) == 1 {
				continue // samples/count says it all
			}
			typ, unit, e.counts = typ+"_samples", "count", true
		}
		for i, t := range st {
			if t.Type == typ && t.Unit == unit {
				e.typ = i
			}
		}
		if e.typ < 0 {
			st = append(st, &profile.ValueType{Type: typ, Unit: unit})
			e.typ = len(st) - 1
		}
		if e.noPeriod > 0 && e.hasPeriod {
			in.Warnf("%d %s samples have no period; they count as samples but add 0 to %s/%s", e.noPeriod, e.name, typ, unit)
		}
	}
	p := r.b.Profile()
	p.SampleType = st
	var def *perfEvent // the default: cpu if present, else the first event with periods
	for _, e := range r.events {
		if e.typ > 0 && !e.counts && (def == nil || st[e.typ].Type == "cpu" && st[def.typ].Type != "cpu") {
			def = e
		}
	}
	if len(r.fromHeader) > 0 {
		p.Comments = append(p.Comments, "periods of "+strings.Join(r.fromHeader, ", ")+" from the perf header (a fixed sample_period)")
	}
	p.DefaultSampleType, p.PeriodType, p.Period = "samples", st[0], 1
	if def != nil {
		p.DefaultSampleType, p.PeriodType, p.Period = st[def.typ].Type, st[def.typ], def.period
	}
	if len(r.events) > 1 {
		names := make([]string, len(r.events))
		for i, e := range r.events {
			names[i] = e.name
		}
		in.Warnf("the recording mixes %d events (%s); each has its own sample type, and samples/count counts them all", len(r.events), strings.Join(names, ", "))
	}
	if r.empty > 0 {
		in.Warnf("%d samples have no call chain (record with -g); they are kept without frames", r.empty)
	}
	if r.timed == 0 {
		return r.aggregate(p), nil
	}
	var order []int32
	if r.merge != nil {
		order = r.merge.order() // by earliest time, as the merged samples' times
	} else {
		order = timeOrder(len(r.samples), func(i int) int64 { return r.samples[i].time })
	}
	p.DurationNanos = r.span.hi - r.span.lo
	p.Comments = append(p.Comments, "timestamp_ns: perf's clock (time since boot), not wall time")
	vals := make([]int64, len(r.samples)*len(st))
	for i, k := range order {
		s := &r.samples[k]
		v := vals[i*len(st) : (i+1)*len(st) : (i+1)*len(st)]
		r.values(s, v)
		th := s.thread
		r.b.addIdx(s.stack, v, sampleMeta{Thread: th.comm, PID: th.pid, HasPID: th.hasPID, TID: th.tid, HasTID: true, Time: s.time, HasTime: true})
		s.stack = nil // copied
	}
	return p, nil
}

func (r *perfReader) values(s *perfSample, v []int64) {
	v[0] = s.n
	switch e := r.events[s.event]; {
	case e.typ <= 0:
	case e.counts:
		v[e.typ] = s.n
	case s.period > 0:
		v[e.typ] = s.period
	}
}

// aggregate merges identical stacks of a thread: without timestamps there
// is no timeline to keep.
func (r *perfReader) aggregate(p *profile.Profile) *profile.Profile {
	r.in.Warnf("the recording has no timestamps (perf record without -T, or perf script -F without time): %d samples are merged by thread and stack, and no timeline (latency inference) is possible", r.count)
	type key struct {
		thread *perfThread
		stack  string
	}
	type merged struct {
		s *perfSample
		v []int64
	}
	index := map[key]int{}
	var out []merged
	var ids []byte
	for i := range r.samples {
		s := &r.samples[i]
		ids = ids[:0]
		for _, x := range s.stack {
			ids = strconv.AppendUint(ids, uint64(x), 36)
			ids = append(ids, ',')
		}
		k := key{s.thread, string(ids)}
		v := make([]int64, len(p.SampleType))
		r.values(s, v)
		if x, ok := index[k]; ok {
			for j := range v {
				out[x].v[j] += v[j]
			}
			continue
		}
		index[k] = len(out)
		out = append(out, merged{s, v})
	}
	for _, m := range out {
		th := m.s.thread
		r.b.addIdx(m.s.stack, m.v, sampleMeta{Thread: th.comm, PID: th.pid, HasPID: th.hasPID, TID: th.tid, HasTID: true})
	}
	return p
}

// add keeps a sample read, or with Options.MergeSamples adds it to the
// merged sample of its thread, event and stack, reporting whether it did
// (the sample's stack is then not kept). A period sum that overflows sets
// *err.
func (r *perfReader) add(s *perfSample, err *error) (merged bool) {
	if s.time >= 0 {
		r.span.add(s.time, s.time)
	}
	r.count++
	r.lastTimed = s.time >= 0
	if r.merge == nil {
		if limit := r.in.Options.maxTimed(); s.time >= 0 && int64(r.timed) > limit && *err == nil {
			*err = &SampleLimitError{Limit: limit}
		}
		r.samples = append(r.samples, *s)
		return false
	}
	th := s.thread
	key := appendMetaKey(r.merge.newKey(), &sampleMeta{Thread: th.comm, PID: th.pid, HasPID: th.hasPID, TID: th.tid, HasTID: true})
	key = binary.AppendUvarint(key, uint64(s.event))
	x, found := r.merge.find(appendIdxKey(key, s.stack), s.time, s.time >= 0)
	if !found {
		r.samples = append(r.samples, *s)
		return false
	}
	m := &r.samples[x]
	m.n++
	if s.period > 0 { // -1 for none, which adds nothing (values)
		if m.period = max(m.period, 0) + s.period; m.period < 0 && *err == nil {
			*err = fmt.Errorf("the periods of %s samples add up to more than %d", r.events[s.event].name, int64(math.MaxInt64))
		}
	}
	if s.time >= 0 {
		m.time = r.merge.time[x]
	}
	return true
}

// cutFrameLine cuts a frame line (trimmed) whose name is longer than
// maxNameBytes to that length, keeping its " (dso)" end: a name of
// hundreds of megabytes would otherwise be copied several times over as
// it is split, demangled and interned.
func (r *perfReader) cutFrameLine(t []byte) []byte {
	const tail = 4 << 10 // the most of a line's end kept as its dso
	if len(t) <= maxNameBytes+tail {
		return t
	}
	r.cut++
	out := append(make([]byte, 0, maxNameBytes+tail), t[:maxNameBytes]...)
	if i := bytes.LastIndex(t[len(t)-tail:], []byte(" (")); i >= 0 && t[len(t)-1] == ')' {
		out = append(out, t[len(t)-tail+i:]...)
	}
	return out
}
