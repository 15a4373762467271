package convert

import (
	"math"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// Helpers shared by the ETW text readers: xperf dumper text (xperf.go), the
// WPA CSV export (wpacsv.go) and PerfView stack files (perfview.go).
// formats-etw-java-perf.md §1 describes the formats.

// etwBOM starts text that Windows tools (and PerfView's XML writer) save
// as UTF-8.
var etwBOM = []byte("\xef\xbb\xbf")

// etwFrame turns an ETW frame text into a Frame.
//
// ETW tools name frames "module!function" (xperf, WPA, PerfView). The module
// goes to Frame.File, as for every native frame in ctdiff, and Name keeps the
// function alone: cct identifies a frame by (Name, File), so the module still
// separates same-named functions of different images, while the function
// reads the same in every view (WPA's Function column, PerfView's short names,
// pprof's -top list; pprof's -filefunctions shows the module). SystemName
// keeps the raw text.
//
// Unsymbolized frames ("ntoskrnl.exe!0x81ceec6f", WPA's "nvlddmkm.sys!?",
// PerfView's "?!?") keep the full "module!0xADDR" text as Name: the address
// or "?" alone would merge unrelated modules. A directory before the module
// (PerfView's verbose names) is dropped from File so paths that differ
// between machines still match. A PerfView optimization-tier prefix such as
// "[QuickJitted]" stays in SystemName only, so the JIT tier does not split a
// method in two.
func etwFrame(text string) stackFrame {
	text = strings.TrimSpace(text)
	i := strings.IndexByte(text, '!')
	if i <= 0 || strings.ContainsAny(text[:i], "<>()`'\"") {
		return stackFrame{Name: text}
	}
	module := path.Base(strings.ReplaceAll(strings.TrimSpace(text[:i]), `\`, "/"))
	fn := strings.TrimSpace(text[i+1:])
	if strings.HasPrefix(fn, "[") {
		if j := strings.IndexByte(fn, ']'); j > 0 && j < len(fn)-1 {
			fn = strings.TrimSpace(fn[j+1:])
		}
	}
	if etwUnsymbolized(fn) {
		name := module + "!" + fn
		sys := ""
		if name != text {
			sys = text
		}
		if module == "?" { // PerfView's "?!?": no module known either
			module = ""
		}
		return stackFrame{Name: name, SystemName: sys, File: module}
	}
	return stackFrame{Name: fn, SystemName: text, File: module}
}

// etwUnsymbolized reports whether the function part of "module!function"
// names no symbol.
func etwUnsymbolized(fn string) bool {
	switch fn {
	case "", "?", "Unknown", "<PDB_not_found>", "<Missing ImageLoad event>":
		return true
	}
	return strings.HasPrefix(fn, "0x") || strings.HasPrefix(fn, "0X")
}

// etwLocations interns frame texts: ETW stacks repeat the same few thousand
// frames millions of times, and parsing each text once keeps conversion fast.
type etwLocations struct {
	b     *profileBuilder
	cache map[string]int32 // location index (profileBuilder.loc) by text
}

func newETWLocations(b *profileBuilder) *etwLocations {
	return &etwLocations{b: b, cache: map[string]int32{}}
}

// getBytes is get without allocating when the frame was seen before.
func (l *etwLocations) getBytes(text []byte) *profile.Location {
	if x, ok := l.cache[string(text)]; ok {
		return l.b.p.Location[x]
	}
	return l.get(string(text))
}

// get returns the location of a frame's text. Without useFrames only.
func (l *etwLocations) get(text string) *profile.Location {
	return l.b.p.Location[l.index(text)]
}

// index returns the index of the location of a frame's text.
func (l *etwLocations) index(text string) int32 {
	if x, ok := l.cache[text]; ok {
		return x
	}
	x := l.b.loc(etwFrame(text))
	l.cache[strings.Clone(text)] = x
	return x
}

// etwProcess splits ETW's "name (pid)" process text, e.g. "dota.exe (  56)"
// (xperf pads the pid to four places) or "val3.exe (4144)".
func etwProcess(s string) (name string, pid int64, ok bool) {
	s = strings.TrimSpace(s)
	if !strings.HasSuffix(s, ")") {
		return s, 0, false
	}
	i := strings.LastIndexByte(s, '(')
	if i < 0 {
		return s, 0, false
	}
	pid, err := strconv.ParseInt(strings.TrimSpace(s[i+1:len(s)-1]), 10, 64)
	if err != nil {
		return s, 0, false
	}
	return strings.TrimSpace(s[:i]), pid, true
}

// etwIdleThread names the thread of an Idle-process sample. Windows gives
// every processor's idle thread the id 0, so the CPU separates them; each is
// its own thread with its own time order. Idle samples are kept (weights in
// equal weights out) and the readers say how many there were.
func etwIdleThread(cpu int64, hasCPU bool) string {
	if !hasCPU {
		return "Idle"
	}
	return "CPU " + strconv.FormatInt(cpu, 10)
}

// etwIsIdle reports whether a process is the Idle process (pid 0).
func etwIsIdle(name string, pid int64, hasPID bool) bool {
	return hasPID && pid == 0 && (name == "Idle" || name == "")
}

// etwAlign maps the fields of a line split on sep onto the n columns of its
// header. The tools write frame names without quoting, so a name with the
// separator in it ("client.dll!CInterpolatedVarArrayBase<Vector,0>::NoteChanged")
// splits into several fields. Columns marked in absorb may hold such names:
// scanning left to right, an absorbing column takes following fields while
// its text has unclosed brackets ('<', '(' or '['), as C++ templates and
// argument lists do. Extra fields left after that go to column fallback
// (the documented rule: join the extras back into the frame column).
// ok is false when the line has fewer fields than columns.
func etwAlign(fields []string, sep string, absorb []bool, fallback int) (vals []string, ok bool) {
	n := len(absorb)
	extra := len(fields) - n
	if extra < 0 {
		return nil, false
	}
	vals = make([]string, n)
	if extra == 0 {
		for i, f := range fields {
			vals[i] = strings.TrimSpace(f)
		}
		return vals, true
	}
	left, fi := extra, 0
	for c := 0; c < n; c++ {
		start := fi
		fi++
		if absorb[c] {
			depth := etwBracketDepth(fields[start])
			for left > 0 && depth > 0 {
				depth += etwBracketDepth(fields[fi])
				fi++
				left--
			}
		}
		vals[c] = strings.TrimSpace(strings.Join(fields[start:fi], sep))
	}
	if left == 0 {
		return vals, true
	}
	// Brackets did not account for every extra field: give them all to the
	// fallback column and map the others by position from either end.
	for c := 0; c < n; c++ {
		switch {
		case c < fallback:
			vals[c] = strings.TrimSpace(fields[c])
		case c == fallback:
			vals[c] = strings.TrimSpace(strings.Join(fields[c:c+extra+1], sep))
		default:
			vals[c] = strings.TrimSpace(fields[c+extra])
		}
	}
	return vals, true
}

// etwBracketDepth is the number of brackets s opens and does not close.
func etwBracketDepth(s string) int {
	d := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<', '(', '[':
			d++
		case '>', ')', ']':
			if i > 0 && s[i] == '>' && s[i-1] == '-' { // "operator->"
				continue
			}
			d--
		}
	}
	return d
}

// etwJoinFrames groups the frame fields of a compact xperf Stack line the way
// etwAlign groups columns: a field continues the previous frame while that
// frame has unclosed brackets.
func etwJoinFrames(fields []string, sep string) []string {
	out := make([]string, 0, len(fields))
	depth := 0
	for _, f := range fields {
		if depth > 0 && len(out) > 0 {
			out[len(out)-1] += sep + f
			depth += etwBracketDepth(f)
			continue
		}
		out = append(out, f)
		depth = etwBracketDepth(f)
	}
	for i, f := range out {
		out[i] = strings.TrimSpace(f)
	}
	return out
}

// etwFixed parses a decimal number such as "9.771723102" or "1,001.237" and
// returns it multiplied by 10^scale, rounded half away from zero. It is exact
// for the fixed-point numbers the tools print (seconds with nine decimals,
// milliseconds with three or six), where float64 would lose nanoseconds; it
// falls back to float parsing for exponents. Thousands separators are
// accepted only in groups of three digits, so a decimal comma from another
// locale ("1,5") is an error rather than a silent factor of 10.
func etwFixed(s string, scale int) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if strings.ContainsAny(s, "eE") {
		return etwFloat(s, scale)
	}
	neg := false
	switch s[0] {
	case '-':
		neg, s = true, s[1:]
	case '+':
		s = s[1:]
	}
	intPart, frac, hasDot := strings.Cut(s, ".")
	intPart, ok := etwUngroup(intPart)
	if !ok || intPart == "" && (!hasDot || frac == "") {
		return 0, false
	}
	v, ok := etwDigits(intPart, frac, scale)
	if neg {
		v = -v
	}
	return v, ok
}

// etwFloat is etwFixed for a number with an exponent: parsed as a float.
func etwFloat(s string, scale int) (int64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	v := math.Round(f * math.Pow10(scale))
	if math.Abs(v) >= 1<<62 {
		return 0, false
	}
	return int64(v), true
}

// etwUngroup removes the thousands separators of an integer part, which
// must group its digits by three after a first group of one to three.
func etwUngroup(intPart string) (string, bool) {
	if !strings.Contains(intPart, ",") {
		return intPart, true
	}
	groups := strings.Split(intPart, ",")
	if len(groups[0]) == 0 || len(groups[0]) > 3 {
		return "", false
	}
	for _, g := range groups[1:] {
		if len(g) != 3 {
			return "", false
		}
	}
	return strings.Join(groups, ""), true
}

// etwDigits returns intPart.frac × 10^scale for unsigned decimal digits,
// rounded half up at the first digit beyond scale; false for a byte that
// is not a digit or a value above math.MaxInt64.
func etwDigits(intPart, frac string, scale int) (int64, bool) {
	var v int64
	add := func(c byte) bool {
		if c < '0' || c > '9' || v > (math.MaxInt64-9)/10 {
			return false
		}
		v = v*10 + int64(c-'0')
		return true
	}
	for i := 0; i < len(intPart); i++ {
		if !add(intPart[i]) {
			return 0, false
		}
	}
	digits, roundUp := 0, false
	for i := 0; i < len(frac); i++ {
		c := frac[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		switch {
		case digits < scale:
			if !add(c) {
				return 0, false
			}
			digits++
		case digits == scale:
			roundUp = c >= '5'
			digits++
		}
	}
	for ; digits < scale; digits++ {
		if !add('0') {
			return 0, false
		}
	}
	if roundUp {
		if v == math.MaxInt64 {
			return 0, false
		}
		v++
	}
	return v, true
}

// etwSample is a converted sample waiting to be written in time order.
type etwSample struct {
	stack  []*profile.Location
	idx    []int32  // instead of stack, location indexes (profileBuilder.loc)
	ref    stackRef // instead of either, a stack laid out in the profileBuilder's pool
	values []int64
	meta   sampleMeta
}

// etwAddInTimeOrder adds the samples to b sorted by time, which puts every
// thread's samples in time order as the interchange requires (WPA rows are
// not time-sorted; late xperf stacks complete samples out of order). The sort
// is stable; samples of an input without times keep their input order.
func etwAddInTimeOrder(b *profileBuilder, samples []etwSample) {
	timed := true
	for i := range samples {
		timed = timed && samples[i].meta.HasTime
	}
	if timed {
		sort.SliceStable(samples, func(i, j int) bool { return samples[i].meta.Time < samples[j].meta.Time })
	}
	for _, s := range samples {
		switch {
		case s.ref.laidOut():
			b.addRef(s.ref, s.values, s.meta)
		case s.idx != nil:
			b.addIdx(s.idx, s.values, s.meta)
		default:
			b.Add(s.stack, s.values, s.meta)
		}
	}
}

// etwSpan returns the time from the first sample's start to the last
// sample's end (its time plus its time value), for DurationNanos.
func etwSpan(samples []etwSample, timeValue int) int64 {
	var lo, hi int64
	first := true
	for _, s := range samples {
		if !s.meta.HasTime {
			continue
		}
		end := s.meta.Time + s.values[timeValue]
		if first {
			lo, hi, first = s.meta.Time, end, false
			continue
		}
		lo, hi = min(lo, s.meta.Time), max(hi, end)
	}
	return hi - lo
}
