package convert

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// hprof reads the ASCII output of the JDK ≤ 8 HPROF agent
// (java -agentlib:hprof=cpu=samples|times[,depth=N][,thread=y],format=a):
// TRACE records (frames leaf first, cut at the depth, root side) and the
// CPU SAMPLES or CPU TIME (ms) table that ranks them.
//
//	TRACE 300556:
//		java.io.RandomAccessFile.close0(RandomAccessFile.java:Unknown line)
//		java.io.RandomAccessFile.close(RandomAccessFile.java:543)
//	CPU SAMPLES BEGIN (total = 3362) Fri Dec 18 16:33:36 2009
//	rank   self  accum   count trace method
//	   1 78.94% 78.94%    2654 300556 java.io.RandomAccessFile.close0
//	CPU SAMPLES END
//
// Each table row is one aggregated pprof sample (HPROF keeps no time):
//   - cpu=samples: samples/count = count, and cpu/nanoseconds = count × 10 ms,
//     HPROF's default interval, which the file does not state (a warning
//     says so);
//   - cpu=times: cpu/nanoseconds = self% × the table's total ms (the table
//     gives no per-trace time), calls/count = count, the calls of the trace.
//
// Percentages are read with a decimal point or comma (the agent follows the
// locale: "23,26%"). The table lists only traces above HPROF's cutoff, so
// whatever its rows leave of the stated total is kept as a sample with the
// frame "(unlisted traces)", and the profile's total equals the file's.
// Frames are Name "pkg.Class.method", File the source file and Line its line;
// "Native method" frames get the SystemName suffix "_[n]", as JFR native
// frames do. With thread=y, traces carry their thread's name (labels.Thread).
func init() {
	register(inputFormat{
		Name:        "hprof",
		Description: "HPROF ASCII CPU profile (java -agentlib:hprof=cpu=samples|times,format=a)",
		Priority:    50,
		Sniff:       sniffHPROF,
		Parse:       parseHPROF,
	})
}

func sniffHPROF(head []byte) bool {
	line, _ := firstLine(head)
	return bytes.HasPrefix(line, []byte("JAVA PROFILE 1.0."))
}

// hprofInterval is HPROF's default sampling interval (interval=10 ms).
const hprofInterval = 10_000_000

var (
	hprofThread = regexp.MustCompile(`^THREAD START \(obj=\w+, id = (\d+), name="(.*)", group="(.*)"\)$`)
	hprofTrace  = regexp.MustCompile(`^TRACE (\d+):(?: \(thread=(\d+)\))?$`)
	hprofBegin  = regexp.MustCompile(`^CPU (SAMPLES|TIME \(ms\)) BEGIN \(total = (\d+)\)`)
	hprofRowRe  = regexp.MustCompile(`^\s*\d+\s+(\d+)[.,](\d\d)%\s+\d+[.,]\d\d%\s+(\d+)\s+(\d+)\s+(\S.*)$`)
)

// hprofID is a trace's or thread's id as the file writes it, a decimal
// number of any size: an id beyond 2^63 is itself, not another one.
// Leading zeros are dropped.
type hprofID string

func hprofIDOf(digits []byte) hprofID {
	t := bytes.TrimLeft(digits, "0")
	if len(t) == 0 {
		return "0"
	}
	return hprofID(t)
}

// hprofNumber parses digits, a count or total of the table's unit, which
// must be at most limit (so that it and its nanoseconds fit in 64 bits).
func hprofNumber(digits string, limit int64, line int, what string) (int64, error) {
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n > limit {
		return 0, errAtLine(line, what, digits, limit)
	}
	return n, nil
}

type hprofTraceRec struct {
	frames []stackFrame
	thread string
}

type hprofRowRec struct {
	line       int
	pct, count int64 // pct in hundredths of a percent
	trace      hprofID
	method     string
}

func parseHPROF(in *parserInput) (*profile.Profile, error) {
	// Binary heap dumps (jmap, -XX:+HeapDumpOnOutOfMemoryError) start with
	// the same words and a NUL: say so rather than read them as text.
	if head, _ := in.R.Peek(24); bytes.IndexByte(head, 0) > 0 {
		return nil, errAtOffset(int64(bytes.IndexByte(head, 0)), "this is a binary HPROF heap dump (jmap, HeapDumpOnOutOfMemoryError), which holds no CPU samples; profile with -agentlib:hprof=cpu=samples,format=a")
	}
	lr := newLineReader(in.R)
	threads := map[hprofID]string{}
	traces := map[hprofID]*hprofTraceRec{}
	var cur *hprofTraceRec // the TRACE whose frames are being read
	var rows []hprofRowRec
	var times bool
	var total int64
	tableLine := 0 // line of the table's BEGIN; 0 outside a table
	tables := 0
	for lr.Scan() {
		line := lr.Bytes()
		if cur != nil {
			if len(line) > 0 && line[0] == '\t' {
				if f, ok := hprofFrame(string(line[1:])); ok {
					cur.frames = append(cur.frames, f)
					continue
				}
				if string(line[1:]) == "<empty>" {
					continue
				}
				return nil, errAtLine(lr.Line(), "expected a frame \"pkg.Class.method(File.java:LINE)\" in the TRACE, found %q", textExcerpt(line))
			}
			cur = nil
		}
		if tableLine > 0 {
			s := string(line)
			if strings.HasPrefix(s, "CPU SAMPLES END") || strings.HasPrefix(s, "CPU TIME (ms) END") {
				tableLine = 0
				continue
			}
			if strings.HasPrefix(s, "rank ") {
				continue
			}
			r, err := hprofRow(s, lr.Line(), times)
			if err != nil {
				return nil, err
			}
			rows = append(rows, r)
			continue
		}
		switch {
		case bytes.HasPrefix(line, []byte("TRACE ")):
			if m := hprofTrace.FindSubmatch(line); m != nil {
				id := hprofIDOf(m[1])
				if traces[id] != nil {
					return nil, errAtLine(lr.Line(), "TRACE %s is defined twice", id)
				}
				cur = &hprofTraceRec{}
				if len(m[2]) > 0 {
					cur.thread = threads[hprofIDOf(m[2])]
					if cur.thread == "" {
						cur.thread = "thread " + string(m[2])
					}
				}
				traces[id] = cur
			}
		case bytes.HasPrefix(line, []byte("THREAD START (")):
			m := hprofThread.FindSubmatch(line)
			if m == nil {
				return nil, errAtLine(lr.Line(), "expected THREAD START (obj=..., id = N, name=\"...\", group=\"...\"), found %q", textExcerpt(line))
			}
			threads[hprofIDOf(m[1])] = string(m[2])
		case bytes.HasPrefix(line, []byte("CPU SAMPLES BEGIN")) || bytes.HasPrefix(line, []byte("CPU TIME (ms) BEGIN")):
			m := hprofBegin.FindSubmatch(line)
			if m == nil {
				return nil, errAtLine(lr.Line(), "expected \"CPU SAMPLES BEGIN (total = N)\" or \"CPU TIME (ms) BEGIN (total = N)\", found %q", textExcerpt(line))
			}
			if tables++; tables > 1 {
				return nil, errAtLine(lr.Line(), "a second CPU table; HPROF writes one per run")
			}
			times = string(m[1]) != "SAMPLES"
			var err error
			if total, err = hprofTotal(string(m[2]), lr.Line(), times); err != nil {
				return nil, err
			}
			tableLine = lr.Line()
		}
	}
	if err := lr.Err(); err != nil {
		return nil, err
	}
	if tableLine > 0 {
		return nil, errAtLine(lr.Line(), "unexpected end of input: the CPU table begun on line %d has no END line", tableLine)
	}
	if tables == 0 {
		return nil, fmt.Errorf("%w: no CPU SAMPLES or CPU TIME table (was the agent run with cpu=samples or cpu=times?)", errNoSamples)
	}
	return hprofProfile(in, rows, traces, times, total)
}

// hprofRow parses a row of the CPU table: its count and share bounded so
// that their nanoseconds fit in 64 bits.
func hprofRow(s string, line int, times bool) (hprofRowRec, error) {
	m := hprofRowRe.FindStringSubmatch(s)
	if m == nil {
		return hprofRowRec{}, errAtLine(line, "expected a table row \"rank self accum count trace method\", found %q", textExcerpt([]byte(s)))
	}
	r := hprofRowRec{line: line, method: m[5], trace: hprofIDOf([]byte(m[4]))}
	var err error
	if r.pct, err = strconv.ParseInt(m[1]+m[2], 10, 64); err != nil || r.pct > 10000 {
		return r, errAtLine(line, "a share of %s.%s%%, more than 100%%", m[1], m[2])
	}
	limit, what := int64(math.MaxInt64/hprofInterval), "a count of %s samples, more than the %d whose 10 ms fit in 64 bits of nanoseconds"
	if times {
		limit, what = math.MaxInt64, "a count of %s calls, more than %d"
	}
	r.count, err = hprofNumber(m[3], limit, line, what)
	return r, err
}

// hprofTotal parses the total of a CPU table's header.
func hprofTotal(digits string, line int, times bool) (int64, error) {
	if times {
		return hprofNumber(digits, math.MaxInt64/1_000_000, line, "a total of %s ms, more than the %d ms whose nanoseconds fit in 64 bits")
	}
	return hprofNumber(digits, math.MaxInt64/hprofInterval, line, "a total of %s samples, more than the %d whose 10 ms fit in 64 bits of nanoseconds")
}

// hprofFrame parses "pkg.Class.method(File.java:543)", with "Unknown line",
// "Native method", "Unknown source" or "Compiled method" in place of the
// file and line.
func hprofFrame(s string) (stackFrame, bool) {
	open := strings.LastIndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return stackFrame{}, false
	}
	f := stackFrame{Name: s[:open]}
	loc := s[open+1 : len(s)-1]
	if file, line, ok := strings.Cut(loc, ":"); ok {
		f.File = file
		f.Line, _ = strconv.ParseInt(line, 10, 64) // "Unknown line" → 0
		f.Line = max(f.Line, 0)
	} else if loc == "Native method" {
		f.SystemName = f.Name + "_[n]"
	}
	return f, true
}

func hprofProfile(in *parserInput, rows []hprofRowRec, traces map[hprofID]*hprofTraceRec, times bool, total int64) (*profile.Profile, error) {
	cpu := &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}
	b := newProfileBuilder(&profile.ValueType{Type: "samples", Unit: "count"}, cpu)
	period := int64(hprofInterval)
	if times {
		b = newProfileBuilder(cpu, &profile.ValueType{Type: "calls", Unit: "count"})
		period = 1_000_000 // the table's unit, ms
	}
	p := b.Profile()
	p.PeriodType, p.Period, p.DefaultSampleType = &profile.ValueType{Type: "cpu", Unit: "nanoseconds"}, period, "cpu"
	var listed int64 // in the table's unit: samples or ms
	for _, r := range rows {
		t := traces[r.trace]
		if t == nil {
			return nil, errAtLine(r.line, "trace %s is not defined by a TRACE record", r.trace)
		}
		frames := t.frames
		if len(frames) == 0 { // "<empty>": the row still names the method
			frames = []stackFrame{{Name: r.method}}
		}
		stack := make([]*profile.Location, len(frames))
		for i, f := range frames {
			stack[i] = b.Location(f)
		}
		var v []int64
		if times {
			ms := (r.pct*total + 5000) / 10000 // self% (hundredths) of the total, rounded
			listed += ms
			v = []int64{ms * 1_000_000, r.count}
		} else {
			listed += r.count
			v = []int64{r.count, r.count * hprofInterval}
		}
		b.Add(stack, v, sampleMeta{Thread: t.thread})
	}
	unit := "samples"
	if times {
		unit = "ms"
	}
	switch rest := total - listed; {
	case rest > 0:
		loc := b.Location(stackFrame{Name: "(unlisted traces)"})
		v := []int64{rest, rest * hprofInterval}
		if times {
			v = []int64{rest * 1_000_000, 0}
		}
		b.Add([]*profile.Location{loc}, v, sampleMeta{})
		why := "traces below HPROF's print cutoff"
		if times {
			why += ", and the rounding of percentages"
		}
		in.Warnf("the table's rows account for %d of the %d %s it states; the other %d (%s) are kept as the frame \"(unlisted traces)\"", listed, total, unit, rest, why)
	case rest < 0:
		in.Warnf("the table's rows add up to %d %s, more than the %d it states (percentages are rounded)", listed, unit, total)
	}
	if !times {
		in.Warnf("HPROF does not record its sampling interval; cpu time assumes its default of 10 ms per sample")
	} else {
		in.Warnf("HPROF's CPU TIME table gives each trace's share of the total as a percentage with 2 decimals; cpu time per trace is that share of the %d ms total", total)
	}
	return p, nil
}
