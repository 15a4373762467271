package convert

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strconv"

	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// cpuprofile reads V8 CPU profiles as CDP's Profiler.Profile: the
// .cpuprofile files of DevTools' JavaScript Profiler, Node's --cpu-prof
// and the inspector protocol ({"nodes", "startTime", "endTime", "samples",
// "timeDeltas"}), with nodes that list their children, name their parent,
// or both; and the legacy nested format of Node <= 8's v8-profiler
// ({"head": tree, "startTime"/"endTime" in seconds, absolute "timestamps"}).
// Without "samples" the nodes' hitCount gives counts without timestamps;
// with them hitCount is not read: V8 counts it differently (node-fibonacci:
// (program) hitCount 44 for 4 samples; Chrome_65-simple: 0 for 1).
// The file is streamed; "samples" and "timeDeltas" are parsed in place.
// Facts and sources: docs/formats-devtools.md (b).
func init() {
	register(inputFormat{
		Name:        "cpuprofile",
		Description: "V8 .cpuprofile (DevTools JavaScript Profiler, node --cpu-prof, CDP Profiler.Profile; legacy \"head\" tree)",
		Priority:    50,
		Sniff:       sniffCpuprofile,
		Parse:       parseCpuprofile,
		ParseStacks: func(in *parserInput) (*profile.Profile, *stacks.Samples, error) {
			return readCpuprofileAs(in, true)
		},
		CompleteStacks: true,
	})
}

func sniffCpuprofile(head []byte) bool {
	t := trimJSONSpace(head)
	if len(t) == 0 || t[0] != '{' || bytes.Contains(head, []byte(`"traceEvents"`)) {
		return false
	}
	has := func(s string) bool { return bytes.Contains(head, []byte(s)) }
	return has(`"nodes"`) && has(`"callFrame"`) || has(`"head"`) && has(`"functionName"`)
}

// nodeCPUProfName is Node's --cpu-prof file name,
// CPU.<yyyymmdd>.<hhmmss>.<pid>.<tid>.<seq>.cpuprofile: the only place
// that says which process and thread a .cpuprofile sampled.
var nodeCPUProfName = regexp.MustCompile(`^CPU\.\d{8}\.\d{6}\.(\d+)\.(\d+)\.\d+\.cpuprofile`)

// cpuprofileDoc is what the top-level keys of a .cpuprofile gave.
type cpuprofileDoc struct {
	tree                 *v8Tree
	legacy               bool
	ids, deltas, stamps  []int64
	hasDeltas, hasStamps bool
	samplesAt            int64 // byte offset of "samples", for errors
	start, end           *float64
	// "samples" and "timeDeltas" as runs (numberRuns) of nIDs and nDeltas
	// numbers, merged by node with Options.MergeSamples, else expanded
	// into ids and deltas; kept one by one, at most limit of them.
	merge             bool
	limit             int64
	idRuns, deltaRuns []byte
	nIDs, nDeltas     int
}

func parseCpuprofile(in *parserInput) (*profile.Profile, error) {
	p, _, err := readCpuprofileAs(in, false)
	return p, err
}

// readCpuprofileAs converts the file, its samples as profile.Samples or,
// with collect, as stacks.Samples (inputFormat.ParseStacks).
func readCpuprofileAs(in *parserInput, collect bool) (*profile.Profile, *stacks.Samples, error) {
	th, err := readCpuprofile(in)
	if err != nil {
		return nil, nil, err
	}
	em := newV8Emitter(in, collect)
	em.threads = []*v8Thread{th}
	p, err := em.profile()
	if err != nil {
		return nil, nil, err
	}
	return p, em.collected(), nil
}

// readCpuprofile reads the file into its one thread and profile.
func readCpuprofile(in *parserInput) (*v8Thread, error) {
	s := newJSONStream(in.R)
	d := &cpuprofileDoc{tree: newV8Tree(func(pos int64, format string, args ...any) error {
		return errAtOffset(pos, format, args...)
	}), merge: in.Options.MergeSamples}
	if !d.merge {
		d.limit = in.Options.maxTimed()
	}
	hasNodes := false
	err := s.object("the profile", func(key string) error {
		var err error
		switch key {
		case "nodes":
			hasNodes = true
			return d.nodes(s)
		case "head":
			hasNodes, d.legacy = true, true
			return d.head(s)
		case "samples":
			d.samplesAt = s.off
			d.idRuns, d.nIDs, err = numberRuns(s, 0, "samples", d.limit)
		case "timeDeltas":
			d.hasDeltas = true
			d.deltaRuns, d.nDeltas, err = numberRuns(s, 1000, "timeDeltas", d.limit)
		case "timestamps":
			d.hasStamps = true
			d.stamps, err = s.numbers(d.stamps[:0], 1000, "timestamps")
		case "startTime":
			d.start, err = s.float("startTime")
		case "endTime":
			d.end, err = s.float("endTime")
		default:
			_, err = s.value(false)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if c, err := s.peek(); err != io.EOF {
		if err != nil {
			return nil, err
		}
		return nil, errAtOffset(s.off, "expected the end of the profile, found %s", quoteByte(c))
	}
	if !hasNodes {
		return nil, errAtOffset(0, "expected a \"nodes\" array (or a legacy \"head\" tree) in the profile, found neither")
	}
	s.warnCut(in)
	if err := d.tree.finish(); err != nil {
		return nil, err
	}
	p, err := d.profile(in)
	if err != nil {
		return nil, err
	}
	th := &v8Thread{}
	if m := nodeCPUProfName.FindStringSubmatch(filepath.Base(in.Name)); m != nil {
		th.pid, _ = strconv.ParseInt(m[1], 10, 64)
		th.tid, _ = strconv.ParseInt(m[2], 10, 64)
		th.hasPID, th.hasTID = true, true
	}
	th.profiles = []*v8Profile{p}
	return th, nil
}

func (d *cpuprofileDoc) nodes(s *jsonStream) error {
	it, err := s.array("\"nodes\"")
	if err != nil {
		return err
	}
	for {
		more, err := it.Next()
		if err != nil {
			return err
		}
		if !more {
			if it.Unclosed {
				return errAtOffset(s.off, "the \"nodes\" array is cut off by the end of the input")
			}
			return nil
		}
		off := s.off
		raw, err := s.value(true)
		if err != nil {
			return err
		}
		var n v8Node
		if err := decodeAt(off, raw, "profile node", &n); err != nil {
			return err
		}
		if err := d.tree.add(&n, off); err != nil {
			return err
		}
	}
}

func (d *cpuprofileDoc) head(s *jsonStream) error {
	off := s.off
	raw, err := s.value(true)
	if err != nil {
		return err
	}
	var h v8LegacyNode
	if err := decodeAt(off, raw, "legacy \"head\" tree", &h); err != nil {
		return err
	}
	return d.tree.addLegacy(&h, off)
}

// decodeAt decodes raw, which starts at byte off, turning encoding/json's
// errors into positioned ones.
func decodeAt(off int64, raw []byte, what string, v any) error {
	err := json.Unmarshal(raw, v)
	if err == nil {
		return nil
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return errAtOffset(off, "%s: field %s: expected %s, found %s", what, te.Field, jsonType(te.Type), te.Value)
	}
	return errAtOffset(off+jsonErrOffset(err), "%s: %v", what, err)
}

// float reads a number (or null).
func (s *jsonStream) float(what string) (*float64, error) {
	off := s.off
	raw, err := s.value(true)
	if err != nil {
		return nil, err
	}
	if string(raw) == "null" {
		return nil, nil
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return nil, errAtOffset(off, "expected a number for %s, found %q", what, truncate(raw, 40))
	}
	return &f, nil
}

// profile times the samples. Modern profiles count from startTime (µs) by
// timeDeltas. Legacy ones give absolute timestamps (µs) and startTime and
// endTime in seconds (DevTools' CPUProfileDataModel). Either may lack
// per-sample times; then, as in DevTools (normalizeTimestamps), samples are
// spread evenly from startTime to endTime.
func (d *cpuprofileDoc) profile(in *parserInput) (*v8Profile, error) {
	unit := int64(1000) // µs → ns
	if d.legacy {
		unit = 1e9 // s → ns
	}
	start, end, err := d.bounds(unit)
	if err != nil {
		return nil, err
	}
	p := &v8Profile{tree: d.tree, ids: d.ids, start: start, name: "the profile"}
	if d.merge && d.hasDeltas && !d.legacy && d.nIDs == d.nDeltas && d.nIDs > 0 {
		merged, err := mergeRuns(p, d.idRuns, d.deltaRuns, d.nIDs)
		if err != nil {
			return nil, errAtOffset(d.samplesAt, "%v", err)
		}
		if merged {
			return p, nil
		}
	}
	// The samples one by one: without merging, or where they cannot be.
	p.ids = expandRuns(d.idRuns, d.nIDs)
	if d.hasDeltas {
		d.deltas = expandRuns(d.deltaRuns, d.nDeltas)
	}
	d.idRuns, d.deltaRuns = nil, nil
	n := len(p.ids)
	switch {
	case n == 0:
		return d.fromHitCounts(in, p, end)
	case d.hasDeltas && !d.legacy:
		if len(d.deltas) != n {
			return nil, errAtOffset(d.samplesAt, "%d samples but %d timeDeltas; they must pair up", n, len(d.deltas))
		}
		if p.times, err = cumulative(start, d.deltas); err != nil {
			return nil, errAtOffset(d.samplesAt, "%v", err)
		}
	case d.hasStamps:
		switch len(d.stamps) {
		case n:
			p.times = d.stamps
		case n + 1: // DevTools reads the extra timestamp as the last sample's end
			p.times, p.end, p.hasEnd = d.stamps[:n], d.stamps[n], true
		default:
			return nil, errAtOffset(d.samplesAt, "%d samples but %d timestamps; they must pair up", n, len(d.stamps))
		}
		if start < p.times[0] {
			p.start = start
		} else {
			p.start = p.times[0]
		}
	default:
		if end == nil {
			return nil, errAtOffset(d.samplesAt, "the profile has samples but no timeDeltas, timestamps or endTime to time them by")
		}
		in.Warnf("the profile has no per-sample times; its %d samples are spread evenly from startTime to endTime, as DevTools does", n)
		step := (*end - start) / int64(n)
		p.times = make([]int64, n)
		for i := range p.times {
			p.times[i] = start + int64(i)*step
		}
		p.end, p.hasEnd = *end, true
	}
	return p, nil
}

// bounds converts startTime and endTime to ns; a missing startTime is 0.
func (d *cpuprofileDoc) bounds(unit int64) (int64, *int64, error) {
	var start int64
	if d.start != nil {
		v, ok := scaleFloat(*d.start, unit)
		if !ok {
			return 0, nil, errAtOffset(0, "startTime %v is out of range", *d.start)
		}
		start = v
	}
	if d.end == nil {
		return start, nil, nil
	}
	end, ok := scaleFloat(*d.end, unit)
	if !ok || end < start {
		return 0, nil, errAtOffset(0, "endTime %v is out of range or before startTime", *d.end)
	}
	return start, &end, nil
}

// fromHitCounts makes an untimed profile from the nodes' hitCount, for
// profiles without samples; each hit weighs (endTime-startTime)/hits.
func (d *cpuprofileDoc) fromHitCounts(in *parserInput, p *v8Profile, end *int64) (*v8Profile, error) {
	var total int64
	for i := range d.tree.nodes {
		if h := d.tree.nodes[i].hits; h > 0 {
			p.ids = append(p.ids, d.tree.nodes[i].id)
			p.counts = append(p.counts, h)
			if total += h; total > maxScaled {
				return nil, errAtOffset(d.tree.nodes[i].pos, "hitCount %d is out of range", h)
			}
		}
	}
	if total == 0 {
		return nil, fmt.Errorf("%w: the profile has neither samples nor hitCounts", errNoSamples)
	}
	p.untimed = true
	if end != nil {
		p.interval = (*end - p.start) / total
		p.end, p.hasEnd = *end, true
	}
	in.Warnf("the profile has no samples; using the nodes' hitCount (%d hits): no timestamps, each hit weighs %d ns", total, p.interval)
	return p, nil
}
