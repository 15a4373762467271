package convert

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// perfview reads PerfView's stack files (formats-etw-java-perf.md §1.3):
// .perfView.xml as written by File > Save (XmlStackSourceWriter),
//
//	<StackWindow><StackSource>
//	  <Frames Count="167"><Frame ID="0">ROOT</Frame>...</Frames>
//	  <Stacks Count="260"><Stack ID="1" CallerID="0" FrameID="5" />...</Stacks>
//	  <Samples Count="102"><Sample ID="0" Time="0.000" StackID="3" Metric="1.195" />...</Samples>
//	</StackSource></StackWindow>
//
// the same zipped (.perfView.xml.zip, one entry), and .perfView.json:
//
//	{"StackSource":{"Samples":[{"Time":"10","Metric":"10","Stack":["leaf",...,"root"]}]}}
//
// Stacks are parent-pointer nodes (CallerID -1 is the top); a sample names
// its leaf node, or lists its frames leaf first in its body (the simple
// hand-written form, also the JSON form). Time is milliseconds from the
// start of the trace; Metric, default 1, is the sample's weight in
// milliseconds in PerfView's time views (CPU Stacks: one sample = 1 ms).
//
// Views made from ETW put pseudo-frames at the top of every stack: "ROOT",
// "Process64 name (pid) Args: ..." and "Thread (tid) CPU=...ms". They become
// the process and thread labels, not frames (PerfView's own speedscope writer
// finds threads the same way, StackSourceWriterHelper.cs).
//
// The time value is cpu/nanoseconds when the stacks have thread pseudo-frames
// and no BLOCKED_TIME frames (a CPU Stacks view), else wall/nanoseconds (a
// Thread Time view, or a non-ETW source such as strace, whose metric is the
// call's duration).
func init() {
	register(inputFormat{
		Name:        "perfview",
		Description: "PerfView stack files: .perfView.xml, .perfView.xml.zip, .perfView.json",
		Priority:    45,
		Sniff:       sniffPerfView,
		Parse:       parsePerfView,
		ParseStacks: func(in *parserInput) (*profile.Profile, *stacks.Samples, error) {
			return readPerfView(in, true)
		},
		CompleteStacks: true,
	})
}

func sniffPerfView(head []byte) bool {
	if name, ok := etwZipFirstEntry(head); ok {
		n := strings.ToLower(name)
		return strings.HasSuffix(n, ".xml") || strings.HasSuffix(n, ".json")
	}
	h := bytes.TrimLeft(bytes.TrimPrefix(head, etwBOM), " \t\r\n")
	switch {
	case bytes.HasPrefix(h, []byte("<")):
		return bytes.Contains(h, []byte("<StackWindow")) || bytes.Contains(h, []byte("<StackSource"))
	case bytes.HasPrefix(h, []byte("{")):
		return bytes.Contains(h, []byte(`"StackSource"`))
	}
	return false
}

// etwZipFirstEntry returns the name of the first entry of a zip archive from
// its first local file header.
func etwZipFirstEntry(head []byte) (string, bool) {
	if len(head) < 30 || !bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		return "", false
	}
	n := int(head[26]) | int(head[27])<<8
	if 30+n > len(head) {
		return "", true
	}
	return string(head[30 : 30+n]), true
}

func parsePerfView(in *parserInput) (*profile.Profile, error) {
	p, _, err := readPerfView(in, false)
	return p, err
}

// readPerfView reads the file, its samples as profile.Samples or, with
// collect, as stacks.Samples (inputFormat.ParseStacks).
func readPerfView(in *parserInput, collect bool) (*profile.Profile, *stacks.Samples, error) {
	magic, _ := in.R.Peek(4)
	if bytes.Equal(magic, []byte("PK\x03\x04")) {
		return parsePerfViewZip(in, collect)
	}
	return parsePerfViewStream(in, in.R, collect)
}

// parsePerfViewStream reads XML or JSON, told apart by the first byte.
func parsePerfViewStream(in *parserInput, r *bufio.Reader, collect bool) (*profile.Profile, *stacks.Samples, error) {
	if bom, _ := r.Peek(3); bytes.Equal(bom, etwBOM) {
		r.Discard(3)
	}
	for {
		c, err := r.ReadByte()
		if err != nil {
			return nil, nil, errors.New("expected a PerfView .perfView.xml or .perfView.json stack file, found no content")
		}
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		r.UnreadByte()
		pv := newPerfView(in)
		switch c {
		case '<':
			err = pv.readXML(r)
		case '{':
			err = pv.readJSON(r)
		default:
			return nil, nil, errAtOffset(0, "expected a PerfView XML (<StackWindow>) or JSON ({\"StackSource\": ...}) stack file, found %q", c)
		}
		if err != nil {
			return nil, nil, err
		}
		return pv.build(collect)
	}
}

// parsePerfViewZip reads a .perfView.xml.zip: PerfView writes exactly one
// entry. A zipped binary ETL trace gets a clear refusal.
func parsePerfViewZip(in *parserInput, collect bool) (*profile.Profile, *stacks.Samples, error) {
	data, err := in.ReadAll()
	if err != nil {
		return nil, nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, nil, fmt.Errorf("reading the zip archive: %w", err)
	}
	var entry *zip.File
	var names []string
	for _, f := range zr.File {
		n := strings.ToLower(f.Name)
		names = append(names, f.Name)
		switch {
		case strings.HasSuffix(n, ".etl"):
			return nil, nil, fmt.Errorf("%w: the zip archive holds %s; %s", errBinaryETL, f.Name, etwExportAdvice)
		case strings.HasSuffix(n, ".xml") || strings.HasSuffix(n, ".json"):
			if entry != nil {
				return nil, nil, fmt.Errorf("expected one .xml or .json entry in the zip archive, as PerfView writes, found %s and %s", entry.Name, f.Name)
			}
			entry = f
		}
	}
	if entry == nil {
		return nil, nil, fmt.Errorf("expected a .perfView.xml or .perfView.json entry in the zip archive, found: %s", strings.Join(names, ", "))
	}
	limit := in.Options.MaxDecompressed
	if limit <= 0 {
		limit = DefaultMaxDecompressed
	}
	if entry.UncompressedSize64 > uint64(limit) {
		return nil, nil, &SizeLimitError{Limit: limit, Entry: entry.Name, Size: entry.UncompressedSize64}
	}
	rc, err := entry.Open()
	if err != nil {
		return nil, nil, fmt.Errorf("zip entry %s: %w", entry.Name, err)
	}
	defer rc.Close()
	r := bufio.NewReaderSize(&limitReader{r: rc, limit: limit}, 64<<10)
	p, st, err := parsePerfViewStream(in, r, collect)
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) && se.File == "" {
			se.File = fmt.Sprintf("%s (zip entry %s)", in.Name, entry.Name)
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("zip entry %s: %w", entry.Name, err)
	}
	return p, st, nil
}

type perfViewStack struct{ caller, frame int32 }

type perfViewSample struct {
	time, metric int64 // nanoseconds
	stack        int32 // node id, or -1 with frames set
	frames       []string
	where        *SyntaxError // position, for errors found when stacks resolve
	// n is how many samples this one stands for: Options.MergeSamples
	// merges those of one stack (metric is then their sum, time the
	// earliest, where the first's).
	n int64
}

type perfView struct {
	in *parserInput
	// scanned and lines count the bytes and lines scanSamples read, which
	// the XML decoder did not.
	scanned int64
	lines   int
	// sample holds the attributes scanSamples found.
	sample  [3][]byte
	frames  map[int32]string
	stacks  map[int32]perfViewStack
	samples []perfViewSample
	merge   *mergeIndex // with Options.MergeSamples
	span    timeSpan    // of the samples read
	count   int64
}

func newPerfView(in *parserInput) *perfView {
	pv := &perfView{in: in, frames: map[int32]string{}, stacks: map[int32]perfViewStack{}}
	if in.Options.MergeSamples {
		pv.merge = newMergeIndex()
	}
	return pv
}

// readXML streams the first StackSource element. Runs of <Sample .../>
// elements, which are nearly all of a recording's bytes, are read by
// scanSamples (perfview_scan.go) between the decoder's tokens.
func (pv *perfView) readXML(r io.Reader) error {
	x := &xmlInput{r: bufio.NewReaderSize(newXMLLimiter(r), 64<<10)}
	d := xml.NewDecoder(x)
	d.Strict = true
	depth, inSource, done := 0, false, false
	line := func() int { l, _ := d.InputPos(); return l + pv.lines }
	for {
		if inSource && !pv.in.Options.xmlDecoderOnly && d.InputOffset()+pv.scanned == x.n {
			// The decoder holds no byte it read back: the next are ours.
			if err := pv.scanSamples(x, line()); err != nil {
				return err
			}
		}
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return pv.xmlError(err, line(), "")
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 1 && t.Name.Local != "StackWindow" && t.Name.Local != "StackSource" {
				return errAtLine(line(), "expected a <StackWindow> or <StackSource> element, found <%s>", t.Name.Local)
			}
			if t.Name.Local == "StackSource" && !done {
				inSource = true
				continue
			}
			if !inSource {
				continue
			}
			var err error
			switch t.Name.Local {
			case "Frame":
				err = pv.xmlFrame(d, t, line())
				depth--
			case "Stack":
				err = pv.xmlStack(t, line())
			case "Sample":
				err = pv.xmlSample(d, t, line())
				depth--
			}
			if err != nil {
				return err
			}
		case xml.EndElement:
			depth--
			if t.Name.Local == "StackSource" && inSource {
				inSource, done = false, true
			}
		}
	}
	if !done && !inSource {
		return errAtLine(max(line(), 1), "expected a <StackSource> element, found none")
	}
	return nil
}

// xmlError reports a syntax error at its own line, anything else at the
// element's line; what, when not empty, says what was expected there.
// The decoder's lines miss those scanSamples read.
func (pv *perfView) xmlError(err error, line int, what string) error {
	var se *xml.SyntaxError
	var te *xmlTokenError
	switch {
	case errors.As(err, &se):
		return errAtLine(se.Line+pv.lines, "malformed XML: %s", se.Msg)
	case errors.As(err, &te):
		return errAtLine(te.line, "%s", te.msg())
	case what == "":
		return errAtLine(line, "malformed XML: %v", err)
	}
	return errAtLine(line, "%s: %v", what, err)
}

func perfViewAttr(t xml.StartElement, name string) (string, bool) {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

func perfViewID(t xml.StartElement, name string, line int, required bool) (int32, error) {
	v, ok := perfViewAttr(t, name)
	return perfViewIDOf(t.Name.Local, name, v, ok, line, required)
}

// perfViewIDOf reads the id in attribute name of element elem, whose value
// is v when ok: -1 when absent and not required.
func perfViewIDOf(elem, name, v string, ok bool, line int, required bool) (int32, error) {
	if !ok {
		if required {
			return 0, errAtLine(line, "<%s>: expected a %s attribute", elem, name)
		}
		return -1, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
	if err != nil || n < -1 {
		return 0, errAtLine(line, "<%s>: expected an integer id in %s, found %q", elem, name, v)
	}
	return int32(n), nil
}

func (pv *perfView) xmlFrame(d *xml.Decoder, t xml.StartElement, line int) error {
	id, err := perfViewID(t, "ID", line, true)
	if err != nil {
		return err
	}
	if id < 0 {
		return errAtLine(line, "<Frame>: expected a non-negative ID, found %d", id)
	}
	var name string
	if err := d.DecodeElement(&name, &t); err != nil {
		return pv.xmlError(err, line, fmt.Sprintf("<Frame ID=\"%d\">: expected the frame name as text", id))
	}
	pv.frames[id] = strings.TrimSpace(name)
	return nil
}

func (pv *perfView) xmlStack(t xml.StartElement, line int) error {
	id, err := perfViewID(t, "ID", line, true)
	if err != nil {
		return err
	}
	caller, err := perfViewID(t, "CallerID", line, false)
	if err != nil {
		return err
	}
	frame, err := perfViewID(t, "FrameID", line, true)
	if err != nil {
		return err
	}
	if id < 0 || frame < 0 {
		return errAtLine(line, "<Stack>: expected non-negative ID and FrameID, found %d and %d", id, frame)
	}
	pv.stacks[id] = perfViewStack{caller: caller, frame: frame}
	return nil
}

func (pv *perfView) xmlSample(d *xml.Decoder, t xml.StartElement, line int) error {
	time, tok := perfViewAttr(t, "Time")
	metric, mok := perfViewAttr(t, "Metric")
	stack, sok := perfViewAttr(t, "StackID")
	s, err := newPerfViewSample(time, tok, metric, mok, stack, sok, line)
	if err != nil {
		return err
	}
	var body string
	if err := d.DecodeElement(&body, &t); err != nil {
		return pv.xmlError(err, line, "<Sample>: expected an empty element or a literal stack as text")
	}
	if body = strings.TrimSpace(body); body != "" {
		s.stack = -1
		for _, f := range strings.Split(body, "\n") {
			if f = strings.TrimSpace(f); f != "" {
				s.frames = append(s.frames, f)
			}
		}
	}
	return pv.add(s, func() *SyntaxError { return errAtLine(line, "") })
}

// newPerfViewSample is a <Sample> of the given Time, Metric and StackID
// attributes (each when its ok), an element at line.
func newPerfViewSample(time string, tok bool, metric string, mok bool, stack string, sok bool, line int) (perfViewSample, error) {
	s := perfViewSample{stack: -1, metric: 1_000_000, n: 1}
	var err error
	if tok {
		if s.time, err = perfViewMS(time, "Time", line); err != nil {
			return s, err
		}
	}
	if mok {
		if s.metric, err = perfViewMS(metric, "Metric", line); err != nil {
			return s, err
		}
	}
	s.stack, err = perfViewIDOf("Sample", "StackID", stack, sok, line, false)
	return s, err
}

// add keeps a sample read or, with Options.MergeSamples, adds it to the
// merged sample of its stack. where is its position, kept for the first
// sample of a stack.
func (pv *perfView) add(s perfViewSample, where func() *SyntaxError) error {
	pv.span.add(s.time, s.time+s.metric)
	pv.count++
	if limit := pv.in.Options.maxTimed(); pv.merge == nil && pv.count > limit {
		return &SampleLimitError{Limit: limit}
	}
	if pv.merge != nil {
		key := pv.merge.newKey()
		if s.stack >= 0 {
			key = binary.AppendUvarint(append(key, 0), uint64(s.stack))
		} else {
			key = append(key, 1)
			for _, f := range s.frames {
				key = append(binary.AppendUvarint(key, uint64(len(f))), f...)
			}
		}
		if x, found := pv.merge.find(key, s.time, true); found {
			m := &pv.samples[x]
			m.n++
			m.time = pv.merge.time[x]
			if m.metric += s.metric; m.metric < 0 {
				e := where()
				e.Msg = fmt.Sprintf("the Metric values add up to more than %d", int64(math.MaxInt64))
				return e
			}
			return nil
		}
	}
	s.where = where()
	pv.samples = append(pv.samples, s)
	return nil
}

func perfViewMS(v, attr string, line int) (int64, error) {
	ns, ok := etwFixed(v, 6)
	if !ok {
		return 0, errAtLine(line, "<Sample>: expected a number of milliseconds in %s, found %q", attr, v)
	}
	return ns, nil
}

// readJSON streams the Samples array of {"StackSource":{"Samples":[...]}}.
func (pv *perfView) readJSON(r io.Reader) error {
	d := json.NewDecoder(r)
	d.UseNumber()
	syntax := func(err error) error {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return errAtOffset(d.InputOffset(), "malformed JSON: unexpected end of input")
		}
		return errAtOffset(d.InputOffset(), "malformed JSON: %v", err)
	}
	found := false
	err := perfViewObject(d, func(key string) (bool, error) {
		if key != "StackSource" {
			return false, nil
		}
		return true, perfViewObject(d, func(key string) (bool, error) {
			if key != "Samples" {
				return false, nil
			}
			found = true
			return true, pv.jsonSamples(d)
		})
	})
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			return err
		}
		return syntax(err)
	}
	if !found {
		return errAtOffset(d.InputOffset(), "expected {\"StackSource\":{\"Samples\":[...]}}, found no StackSource.Samples")
	}
	return nil
}

// perfViewObject walks one JSON object; field reads the value of a key and
// reports true, or reports false to have it skipped.
func perfViewObject(d *json.Decoder, field func(key string) (bool, error)) error {
	off := d.InputOffset()
	tok, err := d.Token()
	if err != nil {
		return err
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		found := fmt.Sprint(tok)
		if s, ok := tok.(string); ok {
			found = strconv.Quote(truncate([]byte(s), 40))
		}
		return errAtOffset(off, "expected a JSON object, found %s", found)
	}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		used, err := field(key)
		if err != nil {
			return err
		}
		if !used {
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				return err
			}
		}
	}
	_, err = d.Token()
	return err
}

// perfViewJSONSample is one sample; Time and Metric are numbers or strings
// holding numbers ("10"), as .NET's JSON-to-XML mapping reads both.
type perfViewJSONSample struct {
	Time   json.RawMessage `json:"Time"`
	Metric json.RawMessage `json:"Metric"`
	Stack  []string        `json:"Stack"`
}

func (pv *perfView) jsonSamples(d *json.Decoder) error {
	off := d.InputOffset()
	tok, err := d.Token()
	if err != nil {
		return err
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '[' {
		return errAtOffset(off, "Samples: expected an array, found %v", tok)
	}
	for i := 0; d.More(); i++ {
		var js perfViewJSONSample
		start := d.InputOffset()
		if err := d.Decode(&js); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return errAtEvent(i, "sample: expected %s in %s, found a JSON %s", jsonType(te.Type), te.Field, te.Value)
			}
			// json.Decoder's SyntaxError offsets are relative to its buffer, not
			// the input: name the sample and where it starts instead.
			return errAtEvent(i, "malformed JSON in the sample that starts at byte %d: %v", start, err)
		}
		s := perfViewSample{stack: -1, metric: 1_000_000, n: 1, frames: js.Stack}
		for _, f := range []struct {
			name string
			raw  json.RawMessage
			dst  *int64
		}{{"Time", js.Time, &s.time}, {"Metric", js.Metric, &s.metric}} {
			if len(f.raw) == 0 || string(f.raw) == "null" {
				continue
			}
			v := strings.Trim(string(f.raw), `"`)
			ns, ok := etwFixed(v, 6)
			if !ok || strings.ContainsAny(v, ",") {
				return errAtEvent(i, "sample: expected a number of milliseconds in %s, found %s", f.name, f.raw)
			}
			*f.dst = ns
		}
		if err := pv.add(s, func() *SyntaxError { return errAtEvent(i, "") }); err != nil {
			return err
		}
	}
	_, err = d.Token()
	return err
}

// perfViewProcess and perfViewThread match TraceEvent's pseudo-frames:
// "Process64 devenv (8872) Args:  /x" and "Thread (6148) CPU=9718ms", the
// latter optionally followed by the thread's name in parentheses.
var (
	perfViewProcess = regexp.MustCompile(`^Process(?:32|64)? (.*?) ?\((\d+)\)(?:\s+Args:.*)?$`)
	perfViewThread  = regexp.MustCompile(`^Thread \((\d+)\)(?: CPU=[^ ]*)?(?: \((.*)\))?`)
)

// perfViewResolved is a resolved leaf stack: locations (profileBuilder.loc)
// and thread identity.
type perfViewResolved struct {
	stack []int32
	meta  sampleMeta
}

func (pv *perfView) build(collect bool) (*profile.Profile, *stacks.Samples, error) {
	if len(pv.samples) == 0 {
		return nil, nil, fmt.Errorf("%w: the PerfView file has no <Sample> elements", errNoSamples)
	}
	b := newProfileBuilder(
		&profile.ValueType{Type: "samples", Unit: "count"},
		&profile.ValueType{Type: "wall", Unit: "nanoseconds"},
	)
	if collect {
		b.CollectStacks()
		pv.in.useFrames(b)
	}
	locs := newETWLocations(b)
	st, err := pv.layout(b, locs)
	if err != nil {
		return nil, nil, err
	}
	threads, blocked, empty := false, false, int64(0)
	checked := map[stackRef]bool{}
	out := make([]etwSample, 0, len(pv.samples))
	order := pv.order()
	for _, i := range order {
		s := &pv.samples[i]
		var es etwSample
		if s.stack >= 0 {
			n := st.dense[s.stack]
			es.ref, es.meta = st.refs[n], st.metas[st.meta[n]]
			if !checked[es.ref] {
				checked[es.ref] = true
				for _, x := range b.pool.locs[es.ref.start:es.ref.end] {
					blocked = blocked || strings.HasPrefix(b.frameName(x), "BLOCKED_TIME")
				}
			}
			if st.empty[n] {
				empty += s.n
			}
		} else {
			res := perfViewResolve(s.frames, locs)
			for _, x := range res.stack {
				blocked = blocked || strings.HasPrefix(b.frameName(x), "BLOCKED_TIME")
			}
			es.idx, es.meta = res.stack, res.meta
			if len(es.idx) == 0 {
				empty += s.n
				es.idx = []int32{locs.index("(no stack)")}
			}
		}
		threads = threads || es.meta.HasTID
		es.meta.Time, es.meta.HasTime = s.time, true
		es.values = []int64{s.n, s.metric}
		out = append(out, es)
	}
	etwAddInTimeOrder(b, out)

	p := b.Profile()
	kind := "wall"
	if threads && !blocked {
		kind = "cpu"
		p.Period = 1_000_000 // PerfView samples CPUs every millisecond by default
	}
	p.SampleType[1].Type = kind
	p.PeriodType = &profile.ValueType{Type: kind, Unit: "nanoseconds"}
	p.DefaultSampleType = kind
	p.DurationNanos = pv.span.hi - pv.span.lo
	p.Comments = append(p.Comments, "converted by ctdiff from a PerfView stack file",
		fmt.Sprintf("%s = the sample's Metric read as milliseconds (PerfView's time views); timestamp_ns = Time (ms from the start of the trace) in nanoseconds", kind))
	if empty > 0 {
		pv.in.Warnf("%d of %d samples have no frames; each is kept as one frame \"(no stack)\"", empty, pv.count)
	}
	return p, b.Stacks(), nil
}

// perfViewStacks are the laid out stacks of the sampled <Stack> nodes, by
// dense index (dense maps a Stack ID to it): the stack, the thread labels
// its pseudo-frames give (an index in metas) and whether it had no frame
// but those.
type perfViewStacks struct {
	dense map[int32]int32
	refs  []stackRef
	meta  []int32
	metas []sampleMeta
	empty []bool
}

// layout charges the stacks the samples name to the input's budget and
// lays them out in one pool the samples share (stackpool.go): CallerID
// chains can be deep and shared by many samples.
func (pv *perfView) layout(b *profileBuilder, locs *etwLocations) (*perfViewStacks, error) {
	st := &perfViewStacks{dense: make(map[int32]int32, len(pv.stacks))}
	for id := range pv.stacks {
		st.dense[id] = int32(len(st.dense))
	}
	n := len(st.dense)
	st.refs, st.meta, st.empty = make([]stackRef, n), make([]int32, n), make([]bool, n)
	budget, depths := pv.in.stackBudget(), map[int32]int{}
	var sampled []int32
	seen := make([]bool, n)
	where := map[int32]string{} // the first sample of each node, for errors
	for i := range pv.samples {
		s := &pv.samples[i]
		if s.stack < 0 {
			continue
		}
		d, ok := st.dense[s.stack]
		if !ok {
			return nil, &SyntaxError{Where: s.where.Where, Msg: fmt.Sprintf("StackID %d: expected a <Stack ID=\"%d\"> element, found none", s.stack, s.stack)}
		}
		if err := budget.take(pv.depth(s.stack, depths)); err != nil {
			return nil, fmt.Errorf("%s: %w", s.where.Where, err)
		}
		if !seen[d] {
			seen[d] = true
			sampled = append(sampled, d)
			where[d] = s.where.Where
		}
	}
	ids := make([]int32, n) // dense index → Stack ID
	for id, d := range st.dense {
		ids[d] = id
	}
	metaIdx := map[stacks.Thread]int32{}
	pool := pv.in.newStackPool(n)
	b.usePool(pool)
	var names []string
	var chain []int32
	var werr error
	err := pool.layout(sampled, func(d int32) int { return max(pv.depth(ids[d], depths), 1) }, st.refs,
		func(d int32, frames, owners []int32) ([]int32, []int32) {
			var err error
			if names, chain, err = pv.chain(ids[d], names[:0], chain[:0]); err != nil {
				if werr == nil {
					err.(*SyntaxError).Where = where[d]
					werr = err
				}
				return append(frames, 0), append(owners, -1)
			}
			res := perfViewResolve(names, locs)
			m := res.meta
			key := stacks.Thread{Thread: m.Thread, Process: m.Process, PID: m.PID, TID: m.TID, HasPID: m.HasPID, HasTID: m.HasTID}
			mi, ok := metaIdx[key]
			if !ok {
				mi = int32(len(st.metas))
				metaIdx[key] = mi
				st.metas = append(st.metas, m)
			}
			if len(res.stack) == 0 {
				st.meta[d], st.empty[d] = mi, true
				return append(frames, locs.index("(no stack)")), append(owners, -1)
			}
			for k, x := range res.stack {
				// The pseudo-frames are above the stack: every node on it
				// has the same, and its own stack is the rest of this one.
				owner := st.dense[chain[k]]
				st.meta[owner] = mi
				frames, owners = append(frames, x), append(owners, owner)
			}
			return frames, owners
		})
	if werr != nil {
		return nil, werr
	}
	return st, err
}

// depth returns how many frames chain(id) has, memoizing every node's
// depth in depths so that all calls together take time linear in the
// stacks. A loop or a missing node ends the count; chain reports them.
func (pv *perfView) depth(id int32, depths map[int32]int) int {
	var path []int32
	base := 0
	for id >= 0 && len(path) <= len(pv.stacks) {
		if d, ok := depths[id]; ok {
			base = d
			break
		}
		st, ok := pv.stacks[id]
		if !ok {
			break
		}
		path = append(path, id)
		id = st.caller
	}
	for k := len(path) - 1; k >= 0; k-- {
		base++
		depths[path[k]] = base
	}
	return base
}

// chain returns the frame names of a stack node, leaf first.
func (pv *perfView) chain(id int32, names []string, ids []int32) ([]string, []int32, error) {
	for id >= 0 {
		st, ok := pv.stacks[id]
		if !ok {
			return names, ids, &SyntaxError{Msg: fmt.Sprintf("StackID %d: expected a <Stack ID=\"%d\"> element, found none", id, id)}
		}
		if len(names) > len(pv.stacks) {
			return names, ids, &SyntaxError{Msg: fmt.Sprintf("StackID %d: the CallerID chain loops back on itself", ids[0])}
		}
		name, ok := pv.frames[st.frame]
		if !ok {
			return names, ids, &SyntaxError{Msg: fmt.Sprintf("stack %d: expected a <Frame ID=\"%d\"> element, found none", id, st.frame)}
		}
		names, ids = append(names, name), append(ids, id)
		id = st.caller
	}
	return names, ids, nil
}

// perfViewResolve turns leaf-first frame names into locations, taking the
// ROOT, process and thread pseudo-frames at the top as labels.
func perfViewResolve(frames []string, locs *etwLocations) *perfViewResolved {
	res := &perfViewResolved{}
	top := len(frames) // frames[top:] are pseudo-frames
	for top > 0 {
		f := frames[top-1]
		if f == "ROOT" && top == len(frames) {
			top--
			continue
		}
		if m := perfViewProcess.FindStringSubmatch(f); m != nil && !res.meta.HasPID && !res.meta.HasTID {
			res.meta.Process = m[1]
			res.meta.PID, _ = strconv.ParseInt(m[2], 10, 64)
			res.meta.HasPID = true
			top--
			continue
		}
		if m := perfViewThread.FindStringSubmatch(f); m != nil && !res.meta.HasTID {
			res.meta.TID, _ = strconv.ParseInt(m[1], 10, 64)
			res.meta.HasTID = true
			res.meta.Thread = m[2]
			top--
			continue
		}
		break
	}
	res.stack = make([]int32, 0, top)
	for _, f := range frames[:top] {
		res.stack = append(res.stack, locs.index(f))
	}
	return res
}

// order returns the indexes of the samples in the order they are added:
// merged samples in mergeIndex.order, else as read.
func (pv *perfView) order() []int32 {
	if pv.merge != nil {
		return pv.merge.order()
	}
	out := make([]int32, len(pv.samples))
	for i := range out {
		out[i] = int32(i)
	}
	return out
}
