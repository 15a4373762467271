package convert

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// wpacsv reads the "CPU Usage (Sampled)" table of Windows Performance
// Analyzer (or xperfview) exported to CSV: by "Export Full Table" in the GUI,
// or headless with `wpaexporter -i trace.etl -profile
// testdata/wpa/ctdiff-cpu-sampled.wpaProfile` (formats-etw-java-perf.md §1.2).
//
//	Process Name, Display Name, Process, Stack, ..., Thread ID, CPU, Weight, % Weight, Count, TimeStamp
//	val3.exe, val3.exe, val3.exe (4144), [Root]/ntdll.dll!_RtlUserThreadStart/.../val3.exe!_allmul, ..., 5104, 0, 1.001237, 0.01, 1, 9.771723102
//
// The columns depend on the export profile, so they are found by name. The
// separator is ", " and nothing is quoted, so frame names that contain the
// separator are rejoined (etwAlign). Stack is root first, '/'-separated,
// under a synthetic "[Root]". Each row of an ungrouped export is one sample;
// rows are not in time order. TimeStamp is in seconds, Weight in
// milliseconds (a "(unit)" suffix on the column name overrides either).
//
// Weight becomes cpu/nanoseconds: the table samples the processors'
// instruction pointers, so each row's weight is processor time spent by that
// thread (idle processors show up as the Idle process), not wall time.
func init() {
	register(inputFormat{
		Name:        "wpacsv",
		Description: "WPA \"CPU Usage (Sampled)\" table exported to CSV (Export Full Table, wpaexporter)",
		Priority:    40,
		Sniff:       sniffWPACSV,
		Parse:       parseWPACSV,
		ParseStacks: parseCollecting(parseWPACSV),
		// Its samples have no labels but the thread's and the time.
		CompleteStacks: true,
	})
}

func sniffWPACSV(head []byte) bool {
	line, _ := firstLine(bytes.TrimPrefix(head, etwBOM))
	if bytes.IndexByte(line, ',') < 0 {
		return false
	}
	h := wpaHeader(string(line))
	_, stack := h.col["stack"]
	_, weight := h.col["weight"]
	_, count := h.col["count"]
	_, tid := h.col["thread id"]
	_, proc := h.col["process"]
	return stack && (weight || count) && (tid || proc)
}

// wpaColumns is a parsed header line.
type wpaColumns struct {
	sep    string
	quoted bool
	n      int
	col    map[string]int    // lower-case name without unit → index
	unit   map[string]string // lower-case name → unit suffix, e.g. "ms"
	names  []string
}

// wpaHeader parses the header. Column names are matched case-insensitively
// without a trailing unit such as " (ms)"; "Weight (in view)" counts as
// Weight.
func wpaHeader(line string) *wpaColumns {
	h := &wpaColumns{sep: ",", col: map[string]int{}, unit: map[string]string{}}
	if strings.Contains(line, ", ") {
		h.sep = ", "
	}
	h.quoted = strings.HasPrefix(strings.TrimSpace(line), `"`)
	for i, f := range strings.Split(line, h.sep) {
		name := strings.TrimSpace(strings.Trim(strings.TrimSpace(f), `"`))
		h.names = append(h.names, name)
		key, unit := strings.ToLower(name), ""
		for {
			j := strings.LastIndexByte(key, '(')
			if j <= 0 || !strings.HasSuffix(key, ")") {
				break
			}
			u := strings.TrimSpace(key[j+1 : len(key)-1])
			key = strings.TrimSpace(key[:j])
			if u != "in view" && unit == "" {
				unit = u
			}
		}
		if _, dup := h.col[key]; !dup {
			h.col[key], h.unit[key] = i, unit
		}
	}
	h.n = len(h.names)
	return h
}

// wpaMaxCount bounds Count so that Count × 1 ms cannot overflow.
const wpaMaxCount int64 = 1 << 40

// wpaAbsorbs lists the columns whose text may contain the separator.
var wpaAbsorbs = map[string]bool{
	"stack": true, "function": true, "display name": true, "process name": true,
	"process": true, "thread name": true, "module": true, "thread start function": true,
}

func parseWPACSV(in *parserInput) (*profile.Profile, error) {
	lr := newLineReader(in.R)
	h, err := wpaReadHeader(lr)
	if err != nil {
		return nil, err
	}
	rows := &wpaRows{h: h, names: interner{}}
	if rows.absorb, rows.tsScale, rows.wScale, err = h.layout(lr.Line()); err != nil {
		return nil, err
	}
	b := newProfileBuilder(
		&profile.ValueType{Type: "samples", Unit: "count"},
		&profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
	)
	in.collectStacks(b)
	rows.locs = newETWLocations(b)
	samples := newETWSamples(in.Options, b.p.SampleType, 0)
	for lr.Scan() {
		line := lr.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		sample, err := rows.sample(line, lr.Line())
		if err != nil {
			return nil, err
		}
		if err := samples.add(sample, 1); err != nil {
			return nil, limitOrAtLine(lr.Line(), "", err)
		}
	}
	noStack, idle := rows.noStack, rows.idle
	if err := lr.Err(); err != nil {
		return nil, err
	}
	if samples.n == 0 {
		return nil, fmt.Errorf("%w: the WPA CSV has a header but no rows", errNoSamples)
	}
	etwAddInTimeOrder(b, samples.samples())

	p := b.Profile()
	p.PeriodType = &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}
	p.Period = xperfDefaultInterval
	p.DefaultSampleType = "cpu"
	p.DurationNanos = samples.duration(1)
	p.Comments = append(p.Comments, "converted by ctdiff from a WPA \"CPU Usage (Sampled)\" CSV export",
		"cpu = the Weight column (processor time of the sample); period: Windows' default 1 ms sampling interval")
	if _, ok := h.col["timestamp"]; ok {
		p.Comments = append(p.Comments, "timestamp_ns: the TimeStamp column (time from the start of the trace) in nanoseconds")
	} else {
		in.Warnf("the export has no TimeStamp column: samples carry no timestamps, so latency inference is not possible (export with testdata/wpa/ctdiff-cpu-sampled.wpaProfile)")
	}
	if _, ok := h.col["weight"]; !ok {
		in.Warnf("the export has no Weight column: assumed 1 ms of cpu per counted sample")
	}
	if noStack > 0 {
		in.Warnf("%d of %d rows have no stack (n/a); each is kept as one frame \"(no stack)\" or its Module!Function", noStack, samples.n)
	}
	if idle > 0 {
		in.Warnf("%d rows of the Idle process are kept as process \"Idle\", one thread per CPU; select other threads with --thread or --pid", idle)
	}
	return p, nil
}

// wpaReadHeader reads up to the first line that is not blank, the header,
// and checks that it names a Stack column.
func wpaReadHeader(lr *lineReader) (*wpaColumns, error) {
	var h *wpaColumns
	for h == nil && lr.Scan() {
		if t := bytes.TrimSpace(bytes.TrimPrefix(lr.Bytes(), etwBOM)); len(t) > 0 {
			h = wpaHeader(string(t))
		}
	}
	if h == nil {
		if err := lr.Err(); err != nil {
			return nil, err
		}
		return nil, errAtLine(max(lr.Line(), 1), "expected a CSV header line naming the columns, found no lines")
	}
	if _, ok := h.col["stack"]; !ok {
		names := make([]string, len(h.names))
		for i, n := range h.names {
			names[i] = oneLine(n)
		}
		return nil, errAtLine(lr.Line(), "expected a Stack column in the header, found: %s", strings.Join(names, ", "))
	}
	return h, nil
}

// layout returns which columns absorb separators and the powers of ten of
// the TimeStamp and Weight units; headerLine is the header's line number.
func (h *wpaColumns) layout(headerLine int) (absorb []bool, tsScale, wScale int, err error) {
	absorb = make([]bool, h.n)
	for k, i := range h.col {
		absorb[i] = wpaAbsorbs[k]
	}
	if tsScale, err = wpaScale(h, "timestamp", "s", headerLine); err != nil {
		return nil, 0, 0, err
	}
	if wScale, err = wpaScale(h, "weight", "ms", headerLine); err != nil {
		return nil, 0, 0, err
	}
	return absorb, tsScale, wScale, nil
}

// wpaRows turns the rows after the header into samples, counting those
// without a stack and those of the Idle process.
type wpaRows struct {
	h               *wpaColumns
	absorb          []bool
	tsScale, wScale int
	locs            *etwLocations
	names           interner
	fields          []string
	noStack, idle   int
}

// col returns the value of the named column, if the header has it.
func (r *wpaRows) col(vals []string, name string) (string, bool) {
	i, ok := r.h.col[name]
	if !ok {
		return "", false
	}
	return vals[i], true
}

// sample parses the row line, at line number at.
func (r *wpaRows) sample(line []byte, at int) (etwSample, error) {
	h := r.h
	var err error
	if h.quoted {
		r.fields, err = wpaQuoted(string(line), r.fields[:0])
		if err != nil {
			return etwSample{}, errAtLine(at, "%v", err)
		}
	} else {
		r.fields = append(r.fields[:0], strings.Split(string(line), h.sep)...)
	}
	stackCol := h.col["stack"]
	vals, ok := etwAlign(r.fields, h.sep, r.absorb, stackCol)
	if !ok {
		return etwSample{}, errAtLine(at, "expected %d fields separated by %q as in the header, found %d", h.n, h.sep, len(r.fields))
	}
	count, weight, m, err := r.values(vals, at)
	if err != nil {
		return etwSample{}, err
	}
	r.who(vals, &m)
	stack := wpaStack(vals[stackCol], r.locs)
	if mod, ok := r.col(vals, "module"); ok {
		fn, _ := r.col(vals, "function")
		stack = wpaLeaf(stack, mod, fn, r.locs)
	}
	if len(stack) == 0 {
		r.noStack++
		stack = []*profile.Location{r.locs.get("(no stack)")}
	}
	return etwSample{stack: stack, values: []int64{count, weight}, meta: m}, nil
}

// values parses a row's TimeStamp, Count, Weight and Thread ID.
func (r *wpaRows) values(vals []string, at int) (count, weight int64, m sampleMeta, err error) {
	h := r.h
	if v, ok := r.col(vals, "timestamp"); ok {
		ns, ok := etwFixed(v, r.tsScale)
		if !ok || ns < 0 {
			return 0, 0, m, errAtLine(at, "TimeStamp: expected a non-negative number of %s, found %q", h.unitOf("timestamp", "s"), v)
		}
		m.Time, m.HasTime = ns, true
	}
	count = 1
	if v, ok := r.col(vals, "count"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 || n > wpaMaxCount {
			return 0, 0, m, errAtLine(at, "Count: expected an integer from 0 to %d, found %q", wpaMaxCount, v)
		}
		count = n
	}
	weight = count * xperfDefaultInterval
	if v, ok := r.col(vals, "weight"); ok {
		if weight, ok = etwFixed(v, r.wScale); !ok {
			return 0, 0, m, errAtLine(at, "Weight: expected a number of %s, found %q", h.unitOf("weight", "ms"), v)
		}
	}
	if v, ok := r.col(vals, "thread id"); ok {
		tid, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, 0, m, errAtLine(at, "Thread ID: expected an integer, found %q", v)
		}
		m.TID, m.HasTID = tid, true
	}
	return count, weight, m, nil
}

// who sets a row's process and thread names, the Idle process's threads
// named after their CPU.
func (r *wpaRows) who(vals []string, m *sampleMeta) {
	h := r.h
	if v, ok := r.col(vals, "process"); ok {
		m.Process, m.PID, m.HasPID = etwProcess(v)
	}
	if v, ok := r.col(vals, "process name"); ok && v != "" {
		m.Process = v
	}
	m.Thread, _ = r.col(vals, "thread name")
	if m.Thread == "" {
		m.Thread, _ = r.col(vals, "thread start function")
	}
	if etwIsIdle(m.Process, m.PID, m.HasPID) {
		r.idle++
		cpu, err := strconv.ParseInt(vals[h.colOr("cpu", 0)], 10, 64)
		_, hasCPU := h.col["cpu"]
		m.Process, m.Thread = "Idle", etwIdleThread(cpu, hasCPU && err == nil)
	}
	// The names are parts of the row: interned, a sample keeps no row.
	m.Process, m.Thread = r.names.of(m.Process), r.names.of(m.Thread)
}

// colOr returns the index of a column, or def.
func (h *wpaColumns) colOr(name string, def int) int {
	if i, ok := h.col[name]; ok {
		return i
	}
	return def
}

func (h *wpaColumns) unitOf(name, def string) string {
	if u := h.unit[name]; u != "" {
		return u
	}
	return def
}

// wpaScale returns the power of ten that turns a column's unit into
// nanoseconds.
func wpaScale(h *wpaColumns, name, def string, line int) (int, error) {
	switch u := h.unitOf(name, def); u {
	case "s", "sec":
		return 9, nil
	case "ms":
		return 6, nil
	case "µs", "us":
		return 3, nil
	case "ns":
		return 0, nil
	default:
		return 0, errAtLine(line, "%s: expected a time unit (s, ms, us or ns) in the column name, found %q", name, u)
	}
}

// wpaStack turns "[Root]/mod!fn/.../mod!leaf" into leaf-first locations.
// "[Root]" is WPA's synthetic root; "n/a" means no stack.
func wpaStack(s string, locs *etwLocations) []*profile.Location {
	s = strings.TrimSpace(s)
	if s == "" || s == "n/a" {
		return nil
	}
	parts := strings.Split(s, "/")
	if parts[0] == "[Root]" {
		parts = parts[1:]
	}
	stack := make([]*profile.Location, 0, len(parts)+1)
	for i := len(parts) - 1; i >= 0; i-- {
		if f := strings.TrimSpace(parts[i]); f != "" {
			stack = append(stack, locs.get(f))
		}
	}
	return stack
}

// wpaLeaf adds the sampled Module!Function as the leaf when the stack does
// not end in it: gprof2dot notes that the sampled function is sometimes
// missing from the stack. Unknown functions ("Unknown", "?") and a stack leaf
// with the same function (WPA may name the kernel ntkrnlmp.exe in the stack
// and ntoskrnl.exe in Module) add nothing.
func wpaLeaf(stack []*profile.Location, module, fn string, locs *etwLocations) []*profile.Location {
	if module == "" || fn == "" || etwUnsymbolized(fn) {
		return stack
	}
	if len(stack) > 0 && stack[0].Line[0].Function.Name == fn {
		return stack
	}
	return append([]*profile.Location{locs.get(module + "!" + fn)}, stack...)
}

// wpaQuoted splits a line of quoted CSV ("a","b, c",...), for exports that
// quote their fields. A doubled quote inside a field is a literal quote.
func wpaQuoted(line string, out []string) ([]string, error) {
	for i := 0; ; {
		for i < len(line) && line[i] == ' ' {
			i++
		}
		if i < len(line) && line[i] == '"' {
			var sb strings.Builder
			j := i + 1
			for {
				k := strings.IndexByte(line[j:], '"')
				if k < 0 {
					return out, fmt.Errorf("expected a closing quote for the field at column %d", i+1)
				}
				sb.WriteString(line[j : j+k])
				j += k + 1
				if j < len(line) && line[j] == '"' {
					sb.WriteByte('"')
					j++
					continue
				}
				break
			}
			out = append(out, sb.String())
			for j < len(line) && line[j] == ' ' {
				j++
			}
			if j == len(line) {
				return out, nil
			}
			if line[j] != ',' {
				return out, fmt.Errorf("expected a comma after the quoted field at column %d, found %q", i+1, line[j])
			}
			i = j + 1
			continue
		}
		k := strings.IndexByte(line[i:], ',')
		if k < 0 {
			return append(out, line[i:]), nil
		}
		out = append(out, line[i:i+k])
		i += k + 1
	}
}
