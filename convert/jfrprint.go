package convert

import (
	"bytes"
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/google/pprof/profile"
)

// jfrprint reads the text of `jfr print --events jdk.ExecutionSample
// [--stack-depth N] rec.jfr` (JDK 11+), the fallback when only a JDK is at
// hand:
//
//	jdk.ExecutionSample {
//	  startTime = 2023-08-03T04:34:34.761531348Z      (or 19:51:05.752)
//	  sampledThread = "main" (javaThreadId = 1)        (or osThreadId = N)
//	  state = "STATE_RUNNABLE"
//	  stackTrace = [
//	    java.lang.Thread.run() line: 833               (leaf first)
//	    ...                                            (cut at --stack-depth)
//	  ]
//	}
//
// profiler.WallClockSample blocks (async-profiler) add "samples = N", their
// weight; a jdk.ExecutionSample of a sleeping thread is a wall-clock sample
// of async-profiler's cpu+wall mode, as in the binary reader (jfr.go). Other
// events are counted and skipped.
//
// The profile has the binary reader's layout and names, so a recording and
// its text compare sample for sample: samples/count, cpu/nanoseconds,
// wall/nanoseconds; frame names "pkg.Class.method" with stable generated
// class names; labels.Timestamp and labels.Thread. labels.TID is the
// osThreadId, or the javaThreadId for Java threads (jfr print shows no OS id
// for them), so that same-named threads stay apart.
//
// What the text lacks, the reader says in warnings: the sampling period (not
// printed; estimated from the gaps between consecutive samples of a thread),
// the frame types, and, with jfr print's default of 5 frames, whole stacks.
// startTime is either ISO-8601 with nanoseconds (timestamps then count from
// the Unix epoch, exactly as in the recording) or a time of day in
// milliseconds (timestamps then count from the midnight before the first
// sample, and a later time that is 12 h earlier than the one before is taken
// to be on the next day). The profile's duration is the span of the samples
// either way; only ISO-8601 times give its start (TimeNanos).
func init() {
	register(inputFormat{
		Name:        "jfrprint",
		Description: "text of `jfr print --events jdk.ExecutionSample` (JDK Flight Recorder)",
		Priority:    40,
		Sniff:       sniffJFRPrint,
		Parse:       parseJFRPrint,
	})
}

// jfrEventStart is the first line of an event block: "jdk.ExecutionSample {".
var jfrEventStart = regexp.MustCompile(`^([A-Za-z_$][\w$.]*) \{$`)

func sniffJFRPrint(head []byte) bool {
	line, _ := firstLine(head)
	return jfrEventStart.Match(line) && bytes.Contains(head, []byte("\n  startTime = "))
}

// jfrPrintDefaultDepth is how many frames jfr print shows without --stack-depth.
const jfrPrintDefaultDepth = 5

// A jfrPrintEvent is one sample event as read.
type jfrPrintEvent struct {
	line      int // where the block starts
	kind      uint8
	time      int64
	thread    string
	tid       int64
	hasTID    bool
	state     string
	samples   int64
	stack     []*profile.Location
	truncated bool // the stack ended with "..."
}

type jfrPrintReader struct {
	in *parserInput
	lr *lineReader
	b  *profileBuilder

	events     []jfrPrintEvent
	skipped    map[string]int
	truncated  map[int]int // frames shown → stacks cut there, by warnTruncation
	lastClock  int64       // time-of-day form: last time, for midnight rollover
	day        int64
	clockForm  bool
	isoForm    bool
	noStack    int
	frameCache map[string]*profile.Location
}

func parseJFRPrint(in *parserInput) (*profile.Profile, error) {
	r := &jfrPrintReader{
		in: in, lr: newLineReader(in.R), b: newProfileBuilder(),
		skipped: map[string]int{}, truncated: map[int]int{}, frameCache: map[string]*profile.Location{},
	}
	if err := r.read(); err != nil {
		return nil, err
	}
	return r.profile()
}

func (r *jfrPrintReader) read() error {
	lr := r.lr
	for lr.Scan() {
		line := lr.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		m := jfrEventStart.FindSubmatch(line)
		if m == nil {
			return errAtLine(lr.Line(), "expected an event such as \"jdk.ExecutionSample {\", found %q", textExcerpt(line))
		}
		if err := r.event(string(m[1])); err != nil {
			return err
		}
	}
	return lr.Err()
}

// event reads the rest of a block, up to its closing "}".
func (r *jfrPrintReader) event(name string) error {
	lr := r.lr
	start := lr.Line()
	e := jfrPrintEvent{line: start, samples: 1}
	switch name {
	case "jdk.ExecutionSample":
		e.kind = jfrCPU
	case "profiler.WallClockSample":
		e.kind = jfrWall
	default:
		r.skipped[name]++
		return r.skipBlock(name, start)
	}
	var hasTime, hasStack bool
	for lr.Scan() {
		line := lr.Bytes()
		if string(line) == "}" {
			if !hasTime {
				return errAtLine(start, "the %s event has no startTime", name)
			}
			if !hasStack {
				r.noStack++
				e.stack = []*profile.Location{r.b.Location(stackFrame{Name: "(no stack trace)"})}
			}
			if e.kind == jfrCPU && e.state == "STATE_SLEEPING" {
				e.kind = jfrWall
			}
			r.events = append(r.events, e)
			return nil
		}
		key, val, ok := bytes.Cut(bytes.TrimSpace(line), []byte(" = "))
		if !ok || !bytes.HasPrefix(line, []byte("  ")) {
			return errAtLine(lr.Line(), "expected \"  field = value\" or \"}\" in the %s event begun on line %d, found %q", name, start, textExcerpt(line))
		}
		var err error
		switch string(key) {
		case "startTime":
			e.time, err = r.startTime(string(val))
			hasTime = true
		case "sampledThread":
			e.thread, e.tid, e.hasTID, err = jfrPrintThread(string(val))
		case "state":
			e.state = strings.Trim(string(val), `"`)
		case "samples":
			e.samples, err = strconv.ParseInt(string(val), 10, 64)
			if err != nil || e.samples < 0 {
				err = fmt.Errorf("expected a non-negative sample count, found %q", val)
			}
		case "stackTrace":
			hasStack = true
			switch string(val) {
			case "null":
				hasStack = false
			case "[":
				e.stack, e.truncated, err = r.frames(name, start)
				if err != nil {
					return err
				}
			default:
				err = fmt.Errorf("expected \"[\" or \"null\" after stackTrace =, found %q", val)
			}
		default:
			if bytes.HasSuffix(val, []byte("{")) || bytes.HasSuffix(val, []byte("[")) {
				if err := r.skipValue(name, start); err != nil {
					return err
				}
			}
		}
		if err != nil {
			return errAtLine(lr.Line(), "%s: %v", key, err)
		}
	}
	if err := lr.Err(); err != nil {
		return err
	}
	return errAtLine(lr.Line(), "unexpected end of input: the %s event begun on line %d is not closed by \"}\"", name, start)
}

// frames reads the frames of a stackTrace, up to "  ]".
func (r *jfrPrintReader) frames(name string, start int) ([]*profile.Location, bool, error) {
	lr := r.lr
	var stack []*profile.Location
	truncated := false
	for lr.Scan() {
		line := lr.Bytes()
		if string(line) == "  ]" {
			if len(stack) == 0 {
				r.noStack++
				stack = append(stack, r.b.Location(stackFrame{Name: "(no stack trace)"}))
			}
			return stack, truncated, nil
		}
		f, ok := bytes.CutPrefix(line, []byte("    "))
		if !ok || len(f) == 0 || f[0] == ' ' || truncated {
			return nil, false, errAtLine(lr.Line(), "expected a frame \"pkg.Class.method(Args) line: N\" or \"  ]\" in the %s event begun on line %d, found %q", name, start, textExcerpt(line))
		}
		if string(f) == "..." {
			truncated = true
			continue
		}
		loc, err := r.frame(f)
		if err != nil {
			return nil, false, errAtLine(lr.Line(), "%v", err)
		}
		stack = append(stack, loc)
	}
	if err := lr.Err(); err != nil {
		return nil, false, err
	}
	return nil, false, errAtLine(lr.Line(), "unexpected end of input in the stack trace of the %s event begun on line %d", name, start)
}

// frame parses "pkg.Class.method(Arg, Arg) line: N". Native frames of
// async-profiler look alike ("libjvm.so.VMThread::run() line: 0"); the name
// is everything before the argument list, which may itself hold parentheses.
func (r *jfrPrintReader) frame(f []byte) (*profile.Location, error) {
	if loc, ok := r.frameCache[string(f)]; ok {
		return loc, nil
	}
	s := string(f)
	var line int64
	if i := strings.LastIndex(s, " line: "); i >= 0 {
		n, err := strconv.ParseInt(s[i+len(" line: "):], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("expected a line number after \"line:\", found %q", s[i+len(" line: "):])
		}
		line, s = max(n, 0), s[:i]
	}
	if open := trailingArgsStart(s); open > 0 {
		s = s[:open]
	}
	if s == "" {
		return nil, fmt.Errorf("expected a method name, found %q", f)
	}
	// The class ends at the last '.', except that async-profiler's native
	// frames may have an empty class and a library path as the method.
	name := s
	if strings.HasPrefix(s, ".") {
		name = stableJavaName("", s[1:])
	} else if i := strings.LastIndexByte(s, '.'); i >= 0 {
		name = stableJavaName(s[:i], s[i+1:])
	}
	loc := r.b.Location(stackFrame{Name: name, Line: line})
	r.frameCache[string(f)] = loc
	return loc, nil
}

// trailingArgsStart returns the index of the "(" that opens a trailing, balanced
// "(...)" group, or -1.
func trailingArgsStart(s string) int {
	if !strings.HasSuffix(s, ")") {
		return -1
	}
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// jfrPrintThread parses `"name" (javaThreadId = 50)`, `"name" (osThreadId = 7)` or `null`.
func jfrPrintThread(v string) (name string, tid int64, hasTID bool, err error) {
	if v == "null" {
		return "", 0, false, nil
	}
	if !strings.HasPrefix(v, `"`) {
		return "", 0, false, fmt.Errorf("expected a quoted thread name, found %q", v)
	}
	i := strings.LastIndex(v[1:], `" (`) + 1
	if i == 0 {
		return strings.TrimSuffix(v[1:], `"`), 0, false, nil
	}
	name, rest := v[1:i], v[i+2:]
	for _, key := range []string{"(osThreadId = ", "(javaThreadId = "} {
		if num, ok := strings.CutPrefix(rest, key); ok {
			n, err := strconv.ParseInt(strings.TrimSuffix(num, ")"), 10, 64)
			if err != nil || !strings.HasSuffix(num, ")") {
				return "", 0, false, fmt.Errorf("expected %sN), found %q", key, rest)
			}
			return name, n, true, nil
		}
	}
	return name, 0, false, nil
}

// startTime parses either form of jfr print's startTime.
func (r *jfrPrintReader) startTime(v string) (int64, error) {
	if strings.ContainsRune(v, 'T') {
		t, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return 0, fmt.Errorf("expected an ISO-8601 time such as 2023-08-03T04:34:34.761531348Z, found %q", v)
		}
		r.isoForm = true
		return t.UnixNano(), nil
	}
	ns, ok := parseClockNanos(v)
	if !ok {
		return 0, fmt.Errorf("expected a time such as 19:51:05.752 or 2023-08-03T04:34:34.761531348Z, found %q", v)
	}
	r.clockForm = true
	const day = int64(24 * time.Hour)
	if r.lastClock != 0 && ns+r.day < r.lastClock-day/2 {
		r.day += day // past midnight
	}
	r.lastClock = ns + r.day
	return r.lastClock, nil
}

// parseClockNanos parses "HH:MM:SS[.fraction]" into nanoseconds since midnight.
func parseClockNanos(v string) (int64, bool) {
	hms, frac, _ := strings.Cut(v, ".")
	parts := strings.Split(hms, ":")
	if len(parts) != 3 || len(frac) > 9 {
		return 0, false
	}
	var ns int64
	for i, p := range parts {
		n, err := strconv.ParseInt(p, 10, 64)
		if err != nil || n < 0 || len(p) != 2 || (i == 0 && n > 23) || (i > 0 && n > 59) {
			return 0, false
		}
		ns = ns*60 + n
	}
	ns *= int64(time.Second)
	if frac != "" {
		n, err := strconv.ParseInt(frac, 10, 64)
		if err != nil || n < 0 {
			return 0, false
		}
		for range 9 - len(frac) {
			n *= 10
		}
		ns += n
	}
	return ns, true
}

// skipBlock skips an event this reader does not convert.
func (r *jfrPrintReader) skipBlock(name string, start int) error {
	lr := r.lr
	for lr.Scan() {
		if string(lr.Bytes()) == "}" {
			return nil
		}
	}
	if err := lr.Err(); err != nil {
		return err
	}
	return errAtLine(lr.Line(), "unexpected end of input: the %s event begun on line %d is not closed by \"}\"", name, start)
}

// skipValue skips a nested "{ ... }" or "[ ... ]" value: it ends at the
// first line indented as the field was.
func (r *jfrPrintReader) skipValue(name string, start int) error {
	lr := r.lr
	for lr.Scan() {
		line := lr.Bytes()
		if bytes.HasPrefix(line, []byte("  ")) && !bytes.HasPrefix(line, []byte("   ")) &&
			(string(line) == "  }" || string(line) == "  ]") {
			return nil
		}
		if string(line) == "}" {
			return errAtLine(lr.Line(), "the %s event begun on line %d ends inside a nested value", name, start)
		}
	}
	if err := lr.Err(); err != nil {
		return err
	}
	return errAtLine(lr.Line(), "unexpected end of input in the %s event begun on line %d", name, start)
}

func (r *jfrPrintReader) profile() (*profile.Profile, error) {
	in := r.in
	var has [jfrKinds]bool
	for _, e := range r.events {
		has[e.kind] = true
	}
	if !has[jfrCPU] && !has[jfrWall] {
		return nil, fmt.Errorf("%w: the text holds no jdk.ExecutionSample or profiler.WallClockSample event%s", errNoSamples, jfrSkippedText(r.skipped))
	}
	var st []*profile.ValueType
	st = append(st, &profile.ValueType{Type: "samples", Unit: "count"})
	cpuIdx, wallIdx := -1, -1
	var cpuPeriod, wallInterval int64
	p := r.b.Profile()
	if has[jfrCPU] {
		cpuPeriod = r.estimatePeriod(jfrCPU, "jdk.ExecutionSample")
		st = append(st, &profile.ValueType{Type: "cpu", Unit: "nanoseconds"})
		cpuIdx = len(st) - 1
	}
	if has[jfrWall] {
		wallInterval = r.estimatePeriod(jfrWall, "wall-clock sample")
		st = append(st, &profile.ValueType{Type: "wall", Unit: "nanoseconds"})
		wallIdx = len(st) - 1
	}
	p.SampleType = st
	if has[jfrCPU] {
		p.DefaultSampleType, p.PeriodType, p.Period = "cpu", &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, cpuPeriod
	} else {
		p.DefaultSampleType, p.PeriodType, p.Period = "wall", &profile.ValueType{Type: "wall", Unit: "nanoseconds"}, wallInterval
	}
	if r.isoForm && r.clockForm {
		in.Warnf("startTime mixes ISO-8601 times and times of day; their timestamps are not comparable")
	}

	// The samples span the duration. Times of day give no date, so only
	// ISO-8601 times give the start.
	order := timeOrder(len(r.events), func(i int) int64 { return r.events[i].time })
	if len(order) > 0 && r.isoForm != r.clockForm {
		first, last := r.events[order[0]].time, r.events[order[len(order)-1]].time
		p.DurationNanos = last - first
		if r.isoForm {
			p.TimeNanos = first
		}
	}
	vals := make([]int64, len(r.events)*len(st))
	states := map[string]map[string]string{} // shared, read-only label maps
	for i, k := range order {
		e := &r.events[k]
		v := vals[i*len(st) : (i+1)*len(st) : (i+1)*len(st)]
		meta := sampleMeta{Thread: e.thread, TID: e.tid, HasTID: e.hasTID, Time: e.time, HasTime: true}
		if e.kind == jfrCPU {
			v[0], v[cpuIdx] = 1, cpuPeriod
		} else {
			v[0], v[wallIdx] = e.samples, e.samples*wallInterval
			if e.state != "" {
				if states[e.state] == nil {
					states[e.state] = map[string]string{labels.State: e.state}
				}
				meta.Labels = states[e.state]
			}
		}
		r.b.Add(e.stack, v, meta)
	}
	r.warnTruncation()
	if r.noStack > 0 {
		in.Warnf("%d events have no stack trace; they are kept with the frame \"(no stack trace)\"", r.noStack)
	}
	if s := jfrSkippedText(r.skipped); s != "" {
		in.Warnf("not converted%s", s)
	}
	in.Warnf("jfr print text carries no frame types (interpreted, JIT, inlined, native); read the .jfr recording itself to keep them")
	return p, nil
}

func (r *jfrPrintReader) warnTruncation() {
	total := 0
	for _, e := range r.events {
		if e.truncated {
			r.truncated[len(e.stack)]++
			total++
		}
	}
	if total == 0 {
		return
	}
	depths := make([]int, 0, len(r.truncated))
	for d := range r.truncated {
		depths = append(depths, d)
	}
	slices.Sort(depths)
	if r.truncated[jfrPrintDefaultDepth] > 0 {
		r.in.Warnf("%d of %d stacks are cut at %d frames (\"...\"), jfr print's default: their callers are missing; print again with --stack-depth 64 (or more)",
			total, len(r.events), jfrPrintDefaultDepth)
		return
	}
	r.in.Warnf("%d of %d stacks end with \"...\" (cut at %v frames): their callers are missing; print again with a larger --stack-depth", total, len(r.events), depths)
}

// estimatePeriod estimates the sampling period, which jfr print does not
// show, from the gaps between consecutive samples of each thread: the lower
// quartile of the gaps (a busy thread is sampled once a period; idle threads
// only add longer gaps), snapped to a round value within 15%.
func (r *jfrPrintReader) estimatePeriod(kind uint8, what string) int64 {
	last := map[string]*jfrPrintEvent{}
	var gaps []int64
	order := make([]*jfrPrintEvent, 0, len(r.events))
	for i := range r.events {
		if r.events[i].kind == kind {
			order = append(order, &r.events[i])
		}
	}
	slices.SortStableFunc(order, func(a, b *jfrPrintEvent) int { return cmp.Compare(a.time, b.time) })
	for _, e := range order {
		key := fmt.Sprintf("%s\x00%d", e.thread, e.tid)
		if prev, ok := last[key]; ok && e.time > prev.time && prev.samples == 1 {
			gaps = append(gaps, e.time-prev.time)
		}
		last[key] = e
	}
	const fallback = asyncProfilerCPUInterval
	if len(gaps) < 4 {
		r.in.Warnf("jfr print text carries no sampling period and too few samples to estimate one; assuming 10 ms per %s", what)
		return fallback
	}
	slices.Sort(gaps)
	est := gaps[len(gaps)/4]
	for _, nice := range []int64{1, 2, 4, 5, 10, 20, 50, 100, 200, 500, 1000} {
		ns := nice * int64(time.Millisecond)
		if est*100 >= ns*85 && est*100 <= ns*115 {
			est = ns
			break
		}
	}
	r.in.Warnf("jfr print text carries no sampling period: estimated %v per %s from the gaps between a thread's samples (read the .jfr recording itself for the recorded value)", time.Duration(est), what)
	return est
}

func jfrSkippedText(skipped map[string]int) string {
	var parts []string
	for name, n := range skipped {
		parts = append(parts, fmt.Sprintf("%d %s", n, name))
	}
	if len(parts) == 0 {
		return ""
	}
	slices.Sort(parts)
	return " (events of kinds this reader does not convert: " + strings.Join(parts, ", ") + ")"
}

// jfrHeldText names the events a recording holds, most frequent first,
// for the error when none of them converts.
func jfrHeldText(held map[string]int) string {
	if len(held) == 0 {
		return "no events"
	}
	names := make([]string, 0, len(held))
	for name := range held {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int {
		if c := cmp.Compare(held[b], held[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	const show = 8
	parts := make([]string, 0, show+1)
	for _, name := range names[:min(len(names), show)] {
		parts = append(parts, fmt.Sprintf("%d %s", held[name], name))
	}
	if len(names) > show {
		parts = append(parts, fmt.Sprintf("and %d more kinds", len(names)-show))
	}
	return strings.Join(parts, ", ")
}

// textExcerpt shortens a line for an error message to its first 40 bytes
// (whole UTF-8 characters): enough to recognise the line, and little of a
// file that was never a profile (a manifest may name any path).
func textExcerpt(b []byte) string {
	const n = 40
	if len(b) <= n {
		return string(b)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "..."
}
