package convert

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/google/pprof/profile"
	"go.opentelemetry.io/collector/pdata/pprofile"
)

// otlpWriter writes a pprof profile as OTLP with pdata, the way an OTLP
// exporter of pprof data does: one OTLP profile per sample type, the
// samples spread over two resources (to read every resource back), the
// timestamp label as the samples' timestamps and the thread and process
// labels under their semantic-convention names.
type otlpWriter struct {
	pd    pprofile.Profiles
	dict  pprofile.ProfilesDictionary
	strs  map[string]int32
	locs  map[uint64]int32
	funcs map[uint64]int32
	maps  map[uint64]int32
	stack map[string]int32
	attrs map[string]int32
}

func profileToOTLP(t testing.TB, p *profile.Profile) pprofile.Profiles {
	t.Helper()
	w := &otlpWriter{pd: pprofile.NewProfiles(), strs: map[string]int32{}, locs: map[uint64]int32{},
		funcs: map[uint64]int32{}, maps: map[uint64]int32{}, stack: map[string]int32{}, attrs: map[string]int32{}}
	w.dict = w.pd.Dictionary()
	w.str("")
	w.dict.MappingTable().AppendEmpty()
	w.dict.StackTable().AppendEmpty()
	w.dict.LinkTable().AppendEmpty()
	w.dict.AttributeTable().AppendEmpty()
	stacks := make([]int32, len(p.Sample))
	attrs := make([][]int32, len(p.Sample))
	for i, s := range p.Sample {
		stacks[i], attrs[i] = w.stackOf(s), w.attrsOf(s)
	}
	for r := range 2 {
		rp := w.pd.ResourceProfiles().AppendEmpty()
		rp.Resource().Attributes().PutStr("service.name", "otlp-test")
		sp := rp.ScopeProfiles().AppendEmpty()
		sp.Scope().SetName("ctdiff-test")
		for j, st := range p.SampleType {
			op := sp.Profiles().AppendEmpty()
			op.SampleType().SetTypeStrindex(w.str(st.Type))
			op.SampleType().SetUnitStrindex(w.str(st.Unit))
			if p.PeriodType != nil {
				op.PeriodType().SetTypeStrindex(w.str(p.PeriodType.Type))
				op.PeriodType().SetUnitStrindex(w.str(p.PeriodType.Unit))
			}
			op.SetPeriod(p.Period)
			for i, s := range p.Sample {
				if i%2 == r {
					w.sample(op.Samples().AppendEmpty(), s, stacks[i], attrs[i], j)
				}
			}
		}
	}
	return w.pd
}

func (w *otlpWriter) str(s string) int32 {
	if i, ok := w.strs[s]; ok {
		return i
	}
	i := int32(w.dict.StringTable().Len())
	w.dict.StringTable().Append(s)
	w.strs[s] = i
	return i
}

// otlpNames are the attribute keys of the labels otlpLabelNames renames.
var otlpNames = map[string]string{}

func init() {
	for k, v := range otlpLabelNames {
		otlpNames[v] = k
	}
}

func (w *otlpWriter) stackOf(s *profile.Sample) int32 {
	key := make([]byte, 0, 4*len(s.Location))
	for _, l := range s.Location {
		key = binary.LittleEndian.AppendUint32(key, uint32(w.location(l)))
	}
	if si, ok := w.stack[string(key)]; ok {
		return si
	}
	si := int32(w.dict.StackTable().Len())
	st := w.dict.StackTable().AppendEmpty()
	for _, l := range s.Location {
		st.LocationIndices().Append(w.location(l))
	}
	w.stack[string(key)] = si
	return si
}

func (w *otlpWriter) attrsOf(s *profile.Sample) []int32 {
	var out []int32
	for _, k := range slices.Sorted(maps.Keys(s.Label)) {
		out = append(out, w.attr(cmpOr(otlpNames[k], k), s.Label[k][0], 0, false))
	}
	for _, k := range slices.Sorted(maps.Keys(s.NumLabel)) {
		if k != labels.Timestamp {
			out = append(out, w.attr(cmpOr(otlpNames[k], k), "", s.NumLabel[k][0], true))
		}
	}
	return out
}

func (w *otlpWriter) sample(os pprofile.Sample, s *profile.Sample, stack int32, attrs []int32, col int) {
	os.SetStackIndex(stack)
	os.Values().Append(s.Value[col])
	os.AttributeIndices().Append(attrs...)
	if t, ok := s.NumLabel[labels.Timestamp]; ok {
		os.TimestampsUnixNano().Append(uint64(t[0]))
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (w *otlpWriter) attr(key, str string, num int64, isNum bool) int32 {
	k := fmt.Sprint(key, "\x00", str, "\x00", num, isNum)
	if i, ok := w.attrs[k]; ok {
		return i
	}
	i := int32(w.dict.AttributeTable().Len())
	a := w.dict.AttributeTable().AppendEmpty()
	a.SetKeyStrindex(w.str(key))
	if isNum {
		a.Value().SetInt(num)
	} else {
		a.Value().SetStr(str)
	}
	w.attrs[k] = i
	return i
}

func (w *otlpWriter) location(l *profile.Location) int32 {
	if i, ok := w.locs[l.ID]; ok {
		return i
	}
	var m int32
	if l.Mapping != nil {
		m = w.mapping(l.Mapping)
	}
	i := int32(w.dict.LocationTable().Len())
	ol := w.dict.LocationTable().AppendEmpty()
	ol.SetMappingIndex(m)
	ol.SetAddress(l.Address)
	for _, ln := range l.Line {
		oln := ol.Lines().AppendEmpty()
		oln.SetFunctionIndex(w.function(ln.Function))
		oln.SetLine(ln.Line)
		oln.SetColumn(ln.Column)
	}
	w.locs[l.ID] = i
	return i
}

func (w *otlpWriter) mapping(m *profile.Mapping) int32 {
	if i, ok := w.maps[m.ID]; ok {
		return i
	}
	i := int32(w.dict.MappingTable().Len())
	om := w.dict.MappingTable().AppendEmpty()
	om.SetMemoryStart(m.Start)
	om.SetMemoryLimit(m.Limit)
	om.SetFileOffset(m.Offset)
	om.SetFilenameStrindex(w.str(m.File))
	if m.BuildID != "" {
		om.AttributeIndices().Append(w.attr("process.executable.build_id.gnu", m.BuildID, 0, false))
	}
	w.maps[m.ID] = i
	return i
}

func (w *otlpWriter) function(f *profile.Function) int32 {
	if i, ok := w.funcs[f.ID]; ok {
		return i
	}
	i := int32(w.dict.FunctionTable().Len())
	of := w.dict.FunctionTable().AppendEmpty()
	of.SetNameStrindex(w.str(f.Name))
	of.SetSystemNameStrindex(w.str(f.SystemName))
	of.SetFilenameStrindex(w.str(f.Filename))
	of.SetStartLine(f.StartLine)
	w.funcs[f.ID] = i
	return i
}

// encodeOTLP returns pd in protobuf or JSON, gzipped or not.
func encodeOTLP(t testing.TB, pd pprofile.Profiles, json, gz bool) []byte {
	t.Helper()
	var data []byte
	var err error
	if json {
		data, err = (&pprofile.JSONMarshaler{}).MarshalProfiles(pd)
	} else {
		data, err = (&pprofile.ProtoMarshaler{}).MarshalProfiles(pd)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !gz {
		return data
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	return buf.Bytes()
}

// functionTotals returns, per sample type and function name (a
// location's address where it has no function), the sum of the values of
// the samples whose stack holds the function (once per sample) and of
// those whose leaf it is: pprof's cum and flat.
func functionTotals(p *profile.Profile) map[string][2]int64 {
	out := map[string][2]int64{}
	for _, s := range p.Sample {
		seen := map[string]bool{}
		for li, l := range s.Location {
			names := []string{fmt.Sprintf("%#x", l.Address)}
			if len(l.Line) > 0 {
				names = names[:0]
				for _, ln := range l.Line {
					names = append(names, ln.Function.Name)
				}
			}
			for ki, name := range names {
				for j, st := range p.SampleType {
					k := st.Type + "/" + st.Unit + " " + name
					v := out[k]
					if !seen[k] {
						v[0] += s.Value[j]
						seen[k] = true
					}
					if li == 0 && ki == 0 {
						v[1] += s.Value[j]
					}
					out[k] = v
				}
			}
		}
	}
	return out
}

// TestOTLPRoundTrip converts corpus profiles of different formats to pprof
// with Read, writes them as OTLP with pdata in each encoding, and reads
// them back: every function's cum and flat totals, the sample types and
// the sample count are the source's.
func TestOTLPRoundTrip(t *testing.T) {
	sources := []string{
		"pprof/pprof-legacy-go.crc32.cpu",
		"cpuprofile/speedscope-node_10.11.0-example.cpuprofile",
		"perf/flamegraph-perf-cycles-instructions-01.txt",
		"java/jfrparser-wall.jfr.gz",
		"devtools/speedscope-Chrome_141-no-arg-data.json",
	}
	encodings := []struct {
		name     string
		json, gz bool
	}{{"pb", false, false}, {"pb.gz", false, true}, {"json", true, false}, {"json.gz", true, true}}
	for _, src := range sources {
		path := corpus.Path(t, src)
		res, err := ReadFile(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		want := functionTotals(res.Profile)
		pd := profileToOTLP(t, res.Profile)
		for _, enc := range encodings {
			for _, from := range []string{"", "otlp"} {
				t.Run(src+"/"+enc.name+"/"+cmpOr(from, "sniffed"), func(t *testing.T) {
					data := encodeOTLP(t, pd, enc.json, enc.gz)
					got, err := Read(bytes.NewReader(data), "x.otlp", Options{From: from})
					CheckRead(t, "x.otlp", got, err)
					if err != nil {
						t.Fatal(err)
					}
					if got.Format != "otlp" {
						t.Fatalf("read as %s", got.Format)
					}
					if g, w := len(got.Profile.Sample), len(res.Profile.Sample); g != w {
						t.Errorf("%d samples, want %d", g, w)
					}
					if g, w := sampleTypeNames(got.Profile), sampleTypeNames(res.Profile); !slices.Equal(g, w) {
						t.Errorf("sample types %q, want %q", g, w)
					}
					if g := functionTotals(got.Profile); !maps.Equal(g, want) {
						t.Errorf("function totals differ: %d functions × types, want %d; first difference: %s",
							len(g), len(want), firstDiff(g, want))
					}
				})
			}
		}
		t.Logf("%s: %d samples, %d sample types, %d function totals equal", src, len(res.Profile.Sample),
			len(res.Profile.SampleType), len(want))
	}
}

func sampleTypeNames(p *profile.Profile) []string {
	var out []string
	for _, st := range p.SampleType {
		out = append(out, st.Type+"/"+st.Unit)
	}
	return out
}

func firstDiff(got, want map[string][2]int64) string {
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got[k] != want[k] {
			return fmt.Sprintf("%s: %v, want %v", k, got[k], want[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			return fmt.Sprintf("%s: %v, not in the source", k, got[k])
		}
	}
	return "none"
}
