package convert

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"sort"

	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/google/pprof/profile"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pprofile"
)

// otlpLabelNames renames the OpenTelemetry semantic-convention attributes
// that carry thread and process identity to the labels ctdiff reads them
// from (internal/labels); every other attribute keeps its key.
var otlpLabelNames = map[string]string{
	"thread.name":             labels.Thread,
	"thread.id":               labels.TID,
	"process.pid":             labels.PID,
	"process.executable.name": labels.Process,
}

// An otlpReader maps one ProfilesData onto one pprof profile. The
// dictionary's functions, mappings and locations become the profile's
// (ID = table index + 1), made when a sample first reaches them; each
// OTLP profile's sample type is a column of the pprof profile's; the
// attributes of the resource, the profile and the sample, and the
// sample's link, become the sample's labels.
type otlpReader struct {
	in     *parserInput
	pd     pprofile.Profiles
	dict   pprofile.ProfilesDictionary
	strs   []string
	p      *profile.Profile
	types  map[[2]string]int
	groups []*otlpGroup

	funcs  []*profile.Function
	maps   []*profile.Mapping
	locs   []*profile.Location
	stacks [][]*profile.Location
	attrs  []*otlpAttr

	budget  *stackBudget
	timed   int64
	skipped int
	// merged holds each sample's earliest timestamp when samples are
	// merged (Options.MergeSamples), -1 for one without.
	merged []int64
}

// An otlpGroup is the profiles of one scope whose samples are the same
// events (same stacks, attributes, links and timestamps, in the same
// order) with values of different types, as a profile of several sample
// types is split into OTLP profiles of one type each: pprof keeps them as
// one sample with a value per type. A profile like no other is a group
// of its own.
type otlpGroup struct {
	where    string
	resource pcommon.Map
	profs    []pprofile.Profile
	cols     []int
	labels   map[string]*otlpLabels
}

// otlpLabels are the labels of the samples with one set of attributes.
type otlpLabels struct {
	label map[string][]string
	num   map[string][]int64
	unit  map[string][]string
}

// otlpAttr is one attribute table entry as a label.
type otlpAttr struct {
	key, str, unit string
	num            int64
	isNum          bool
}

func newOTLPReader(in *parserInput, pd pprofile.Profiles) *otlpReader {
	d := pd.Dictionary()
	return &otlpReader{
		in:     in,
		pd:     pd,
		dict:   d,
		strs:   d.StringTable().AsRaw(),
		p:      &profile.Profile{},
		types:  map[[2]string]int{},
		funcs:  make([]*profile.Function, d.FunctionTable().Len()),
		maps:   make([]*profile.Mapping, d.MappingTable().Len()),
		locs:   make([]*profile.Location, d.LocationTable().Len()),
		stacks: make([][]*profile.Location, d.StackTable().Len()),
		attrs:  make([]*otlpAttr, d.AttributeTable().Len()),
	}
}

func (r *otlpReader) read() (*profile.Profile, error) {
	if err := r.collect(); err != nil {
		return nil, err
	}
	r.budget = r.in.stackBudget()
	for _, g := range r.groups {
		if err := r.emitGroup(g); err != nil {
			return nil, err
		}
	}
	if r.skipped > 0 {
		r.in.Warnf("skipped %d samples with neither values nor timestamps", r.skipped)
	}
	r.sortMerged()
	return r.p, nil
}

// collect walks the resources, scopes and profiles: it groups the
// profiles, makes the sample types and takes the period and time range.
func (r *otlpReader) collect() error {
	var start, end uint64
	rps := r.pd.ResourceProfiles()
	for ri := range rps.Len() {
		rp := rps.At(ri)
		sps := rp.ScopeProfiles()
		for si := range sps.Len() {
			first := len(r.groups)
			ps := sps.At(si).Profiles()
			for pi := range ps.Len() {
				prof := ps.At(pi)
				where := fmt.Sprintf("resource %d, scope %d, profile %d", ri, si, pi)
				col, err := r.sampleType(prof.SampleType(), where)
				if err != nil {
					return err
				}
				r.group(first, where, rp.Resource().Attributes(), prof, col)
				if err := r.period(prof, where); err != nil {
					return err
				}
				if t := uint64(prof.Time()); t != 0 {
					if start == 0 || t < start {
						start = t
					}
					end = max(end, t+prof.DurationNano())
				}
			}
		}
	}
	if start > math.MaxInt64 || end > math.MaxInt64 {
		return fmt.Errorf("a profile's time is past the year 2262 (%d ns)", max(start, end))
	}
	r.p.TimeNanos, r.p.DurationNanos = int64(start), int64(end-start)
	return nil
}

// sampleType returns the column of a profile's sample type, adding it.
func (r *otlpReader) sampleType(vt pprofile.ValueType, where string) (int, error) {
	typ, err := r.str(vt.TypeStrindex())
	if err != nil {
		return 0, &SyntaxError{Where: where, Msg: "sample type: " + err.Error()}
	}
	unit, err := r.str(vt.UnitStrindex())
	if err != nil {
		return 0, &SyntaxError{Where: where, Msg: "sample type unit: " + err.Error()}
	}
	k := [2]string{typ, unit}
	if c, ok := r.types[k]; ok {
		return c, nil
	}
	c := len(r.p.SampleType)
	r.types[k] = c
	r.p.SampleType = append(r.p.SampleType, &profile.ValueType{Type: typ, Unit: unit})
	return c, nil
}

// group adds prof to the first group from index first (this scope's)
// that holds the same events and no column col yet, or to a new one.
func (r *otlpReader) group(first int, where string, res pcommon.Map, prof pprofile.Profile, col int) {
	for _, g := range r.groups[first:] {
		if !containsInt(g.cols, col) && sameEvents(g.profs[0], prof) {
			g.profs = append(g.profs, prof)
			g.cols = append(g.cols, col)
			return
		}
	}
	r.groups = append(r.groups, &otlpGroup{where: where, resource: res, profs: []pprofile.Profile{prof}, cols: []int{col},
		labels: map[string]*otlpLabels{}})
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// sameEvents reports whether a and b sample the same events: the same
// attributes, stacks, links and timestamps, sample by sample.
func sameEvents(a, b pprofile.Profile) bool {
	if !a.AttributeIndices().Equal(b.AttributeIndices()) || a.Samples().Len() != b.Samples().Len() {
		return false
	}
	as, bs := a.Samples(), b.Samples()
	for i := range as.Len() {
		x, y := as.At(i), bs.At(i)
		if x.StackIndex() != y.StackIndex() || x.LinkIndex() != y.LinkIndex() || x.Values().Len() != y.Values().Len() ||
			!x.AttributeIndices().Equal(y.AttributeIndices()) || !x.TimestampsUnixNano().Equal(y.TimestampsUnixNano()) {
			return false
		}
	}
	return true
}

// period takes the first profile's period that has one: pprof has one
// period for all sample types.
func (r *otlpReader) period(prof pprofile.Profile, where string) error {
	if r.p.PeriodType != nil || (prof.PeriodType().TypeStrindex() == 0 && prof.Period() == 0) {
		return nil
	}
	typ, err := r.str(prof.PeriodType().TypeStrindex())
	if err != nil {
		return &SyntaxError{Where: where, Msg: "period type: " + err.Error()}
	}
	unit, err := r.str(prof.PeriodType().UnitStrindex())
	if err != nil {
		return &SyntaxError{Where: where, Msg: "period unit: " + err.Error()}
	}
	r.p.PeriodType = &profile.ValueType{Type: typ, Unit: unit}
	r.p.Period = prof.Period()
	return nil
}

// str returns the string at index i of the string table.
func (r *otlpReader) str(i int32) (string, error) {
	if i < 0 || int(i) >= len(r.strs) {
		if i == 0 {
			return "", nil // an empty string table: index 0 is ""
		}
		return "", fmt.Errorf("string index %d out of range (the string table has %d entries)", i, len(r.strs))
	}
	return r.strs[i], nil
}

// emitGroup adds the samples of a group's profiles.
func (r *otlpReader) emitGroup(g *otlpGroup) error {
	n := len(r.p.SampleType)
	base := g.profs[0].Samples()
	for i := range base.Len() {
		s := base.At(i)
		where := fmt.Sprintf("%s, sample %d", g.where, i)
		stack, err := r.stack(s.StackIndex())
		if err != nil {
			return &SyntaxError{Where: where, Msg: err.Error()}
		}
		lab, err := r.sampleLabels(g, s)
		if err != nil {
			return &SyntaxError{Where: where, Msg: err.Error()}
		}
		values := make([][]int64, len(g.profs))
		for k, prof := range g.profs {
			values[k] = prof.Samples().At(i).Values().AsRaw()
		}
		if err := r.emitSample(g, s, stack, lab, values, n); err != nil {
			return &SyntaxError{Where: where, Msg: err.Error()}
		}
	}
	return nil
}

// emitSample adds one OTLP sample: one pprof sample per timestamp (each
// a value of 1 when the sample has timestamps and no values), else one
// with each column the sum of the sample's values; merged into one
// sample at its earliest timestamp under Options.MergeSamples.
func (r *otlpReader) emitSample(g *otlpGroup, s pprofile.Sample, stack []*profile.Location, lab *otlpLabels, values [][]int64, n int) error {
	ts := s.TimestampsUnixNano()
	events := ts.Len()
	for _, v := range values {
		if events > 0 && len(v) > 0 && len(v) != events {
			return fmt.Errorf("%d values for %d timestamps: they must be as many", len(v), events)
		}
	}
	if events == 0 || r.in.Options.MergeSamples {
		return r.emitSum(g, s, stack, lab, values, n)
	}
	for e := range events {
		t := ts.At(e)
		if t > math.MaxInt64 {
			return fmt.Errorf("timestamp %d is past the year 2262", t)
		}
		if r.timed++; r.timed > r.in.Options.maxTimed() {
			return &SampleLimitError{Limit: r.in.Options.maxTimed()}
		}
		vals := make([]int64, n)
		for k, v := range values {
			vals[g.cols[k]] = 1
			if len(v) > 0 {
				vals[g.cols[k]] = v[e]
			}
		}
		if err := r.add(stack, vals, lab, int64(t), true); err != nil {
			return err
		}
	}
	return nil
}

// emitSum adds a sample whose values are the sums of an OTLP sample's
// (its count of timestamps when it has no values), at its earliest
// timestamp if it has any.
func (r *otlpReader) emitSum(g *otlpGroup, s pprofile.Sample, stack []*profile.Location, lab *otlpLabels, values [][]int64, n int) error {
	ts := s.TimestampsUnixNano()
	if ts.Len() == 0 && len(values[0]) == 0 {
		r.skipped++
		return nil
	}
	vals := make([]int64, n)
	for k, v := range values {
		sum := int64(ts.Len())
		if len(v) > 0 {
			sum = 0
			for _, x := range v {
				if (x > 0 && sum > math.MaxInt64-x) || (x < 0 && sum < math.MinInt64-x) {
					return fmt.Errorf("the values add up to more than %d", int64(math.MaxInt64))
				}
				sum += x
			}
		}
		vals[g.cols[k]] = sum
	}
	if ts.Len() == 0 {
		return r.add(stack, vals, lab, 0, false)
	}
	first := ts.At(0)
	for _, t := range ts.All() {
		first = min(first, t)
	}
	if first > math.MaxInt64 {
		return fmt.Errorf("timestamp %d is past the year 2262", first)
	}
	return r.add(stack, vals, lab, int64(first), true)
}

// add appends a pprof sample.
func (r *otlpReader) add(stack []*profile.Location, vals []int64, lab *otlpLabels, t int64, timed bool) error {
	if err := r.budget.take(len(stack)); err != nil {
		return err
	}
	s := &profile.Sample{Location: stack, Value: vals, Label: lab.label, NumLabel: lab.num, NumUnit: lab.unit}
	if timed {
		s.NumLabel = make(map[string][]int64, len(lab.num)+1)
		s.NumUnit = make(map[string][]string, len(lab.unit)+1)
		for k, v := range lab.num {
			s.NumLabel[k] = v
		}
		for k, v := range lab.unit {
			s.NumUnit[k] = v
		}
		s.NumLabel[labels.Timestamp] = []int64{t}
		s.NumUnit[labels.Timestamp] = []string{labels.TimestampUnit}
	}
	r.p.Sample = append(r.p.Sample, s)
	if r.in.Options.MergeSamples {
		if !timed {
			t = -1
		}
		r.merged = append(r.merged, t)
	}
	return nil
}

// sortMerged puts merged samples in the order of their timestamps, as
// Options.MergeSamples promises, when every sample has one.
func (r *otlpReader) sortMerged() {
	if len(r.merged) == 0 {
		return
	}
	for _, t := range r.merged {
		if t < 0 {
			return
		}
	}
	idx := make([]int, len(r.merged))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return r.merged[idx[a]] < r.merged[idx[b]] })
	out := make([]*profile.Sample, len(idx))
	for i, j := range idx {
		out[i] = r.p.Sample[j]
	}
	r.p.Sample = out
}

// sampleLabels returns the labels of a sample of group g: its resource's,
// its profile's and its own attributes, and its link as trace_id and
// span_id.
func (r *otlpReader) sampleLabels(g *otlpGroup, s pprofile.Sample) (*otlpLabels, error) {
	key := make([]byte, 0, 4*(s.AttributeIndices().Len()+1))
	key = binary.LittleEndian.AppendUint32(key, uint32(s.LinkIndex()))
	for _, a := range s.AttributeIndices().All() {
		key = binary.LittleEndian.AppendUint32(key, uint32(a))
	}
	if l, ok := g.labels[string(key)]; ok {
		return l, nil
	}
	l := &otlpLabels{}
	for k, v := range g.resource.All() {
		l.put(&otlpAttr{key: k, str: v.AsString(), num: v.Int(), isNum: v.Type() == pcommon.ValueTypeInt})
	}
	for _, idx := range [][]int32{g.profs[0].AttributeIndices().AsRaw(), s.AttributeIndices().AsRaw()} {
		for _, a := range idx {
			attr, err := r.attr(a)
			if err != nil {
				return nil, err
			}
			l.put(attr)
		}
	}
	if err := r.link(l, s.LinkIndex()); err != nil {
		return nil, err
	}
	g.labels[string(key)] = l
	return l, nil
}

// put sets one attribute as a label, replacing one of the same key (a
// sample's attributes come after its profile's and resource's).
func (l *otlpLabels) put(a *otlpAttr) {
	key := a.key
	if k, ok := otlpLabelNames[key]; ok {
		key = k
	}
	if a.isNum {
		if l.num == nil {
			l.num = map[string][]int64{}
		}
		delete(l.label, key)
		l.num[key] = []int64{a.num}
		if a.unit != "" {
			if l.unit == nil {
				l.unit = map[string][]string{}
			}
			l.unit[key] = []string{a.unit}
		}
		return
	}
	if l.label == nil {
		l.label = map[string][]string{}
	}
	delete(l.num, key)
	l.label[key] = []string{a.str}
}

// link adds a sample's link (index 0 is none) as hexadecimal labels.
func (r *otlpReader) link(l *otlpLabels, i int32) error {
	if i == 0 {
		return nil
	}
	links := r.dict.LinkTable()
	if i < 0 || int(i) >= links.Len() {
		return fmt.Errorf("link index %d out of range (the link table has %d entries)", i, links.Len())
	}
	lk := links.At(int(i))
	tid, sid := lk.TraceID(), lk.SpanID()
	if !tid.IsEmpty() {
		l.put(&otlpAttr{key: "trace_id", str: hex.EncodeToString(tid[:])})
	}
	if !sid.IsEmpty() {
		l.put(&otlpAttr{key: "span_id", str: hex.EncodeToString(sid[:])})
	}
	return nil
}

// attr returns attribute table entry i.
func (r *otlpReader) attr(i int32) (*otlpAttr, error) {
	if i < 0 || int(i) >= len(r.attrs) {
		return nil, fmt.Errorf("attribute index %d out of range (the attribute table has %d entries)", i, len(r.attrs))
	}
	if a := r.attrs[i]; a != nil {
		return a, nil
	}
	kv := r.dict.AttributeTable().At(int(i))
	key, err := r.str(kv.KeyStrindex())
	if err != nil {
		return nil, fmt.Errorf("attribute %d key: %v", i, err)
	}
	unit, err := r.str(kv.UnitStrindex())
	if err != nil {
		return nil, fmt.Errorf("attribute %d unit: %v", i, err)
	}
	v := kv.Value()
	a := &otlpAttr{key: key, unit: unit, str: v.AsString(), num: v.Int(), isNum: v.Type() == pcommon.ValueTypeInt}
	r.attrs[i] = a
	return a, nil
}
