package convert

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"maps"
	"slices"
	"strings"
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

// minimalOTLP returns a ProfilesData of one profile of one sample: main
// calling work, with a thread name and a timestamp.
func minimalOTLP() pprofile.Profiles {
	pd := pprofile.NewProfiles()
	d := pd.Dictionary()
	d.StringTable().Append("", "cpu", "nanoseconds", "main", "work", "thread.name", "worker-1", "app")
	d.MappingTable().AppendEmpty()
	d.LinkTable().AppendEmpty()
	d.AttributeTable().AppendEmpty()
	a := d.AttributeTable().AppendEmpty()
	a.SetKeyStrindex(5)
	a.Value().SetStr("worker-1")
	d.FunctionTable().AppendEmpty()
	for _, name := range []int32{3, 4} {
		d.FunctionTable().AppendEmpty().SetNameStrindex(name)
	}
	d.LocationTable().AppendEmpty()
	for _, fn := range []int32{2, 1} { // work (leaf), main
		d.LocationTable().AppendEmpty().Lines().AppendEmpty().SetFunctionIndex(fn)
	}
	d.StackTable().AppendEmpty()
	d.StackTable().AppendEmpty().LocationIndices().Append(1, 2)
	rp := pd.ResourceProfiles().AppendEmpty()
	rp.Resource().Attributes().PutStr("process.executable.name", "app")
	p := rp.ScopeProfiles().AppendEmpty().Profiles().AppendEmpty()
	p.SampleType().SetTypeStrindex(1)
	p.SampleType().SetUnitStrindex(2)
	s := p.Samples().AppendEmpty()
	s.SetStackIndex(1)
	s.AttributeIndices().Append(1)
	s.Values().Append(10_000_000)
	s.TimestampsUnixNano().Append(1_700_000_000_000_000_000)
	return pd
}

func TestOTLPMinimal(t *testing.T) {
	for _, json := range []bool{false, true} {
		res, err := Read(bytes.NewReader(encodeOTLP(t, minimalOTLP(), json, false)), "min.otlp", Options{})
		CheckRead(t, "min.otlp", res, err)
		if err != nil {
			t.Fatal(err)
		}
		p := res.Profile
		if len(p.Sample) != 1 {
			t.Fatalf("%d samples", len(p.Sample))
		}
		s := p.Sample[0]
		got := fmt.Sprintln(sampleTypeNames(p), s.Value, s.Location[0].Line[0].Function.Name, s.Location[1].Line[0].Function.Name,
			s.Label, s.NumLabel)
		want := "[cpu/nanoseconds] [10000000] work main map[process:[app] thread:[worker-1]] map[timestamp_ns:[1700000000000000000]]"
		if got = strings.TrimSuffix(got, "\n"); got != want {
			t.Errorf("json=%v:\n got %s\nwant %s", json, got, want)
		}
	}
}

// TestOTLPProfilesOfOtherEvents: profiles whose samples are not the same
// events stay separate samples, each with its own column and zero in the
// others; profiles of the same events share samples.
func TestOTLPProfilesOfOtherEvents(t *testing.T) {
	pd := minimalOTLP()
	d := pd.Dictionary()
	d.StringTable().Append("alloc", "bytes")
	sp := pd.ResourceProfiles().At(0).ScopeProfiles().At(0)
	same := sp.Profiles().AppendEmpty()
	sp.Profiles().At(0).CopyTo(same)
	same.SampleType().SetTypeStrindex(8)
	same.SampleType().SetUnitStrindex(9)
	same.Samples().At(0).Values().SetAt(0, 7)
	other := sp.Profiles().AppendEmpty()
	same.CopyTo(other)
	other.Samples().At(0).TimestampsUnixNano().SetAt(0, 1_700_000_000_000_000_001)
	res, err := Read(bytes.NewReader(encodeOTLP(t, pd, false, true)), "x.otlp", Options{})
	CheckRead(t, "x.otlp", res, err)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range res.Profile.Sample {
		got = append(got, fmt.Sprint(s.Value))
	}
	if want := []string{"[10000000 7]", "[0 7]"}; !slices.Equal(got, want) {
		t.Errorf("samples %q, want %q (types %q)", got, want, sampleTypeNames(res.Profile))
	}
}

func TestOTLPErrors(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(pd pprofile.Profiles)
		json   bool
		want   string
	}{
		{"stack index", func(pd pprofile.Profiles) { otlpSample(pd).SetStackIndex(9) },
			false, "x.otlp: resource 0, scope 0, profile 0, sample 0: stack index 9 out of range (the stack table has 2 entries)"},
		{"function index", func(pd pprofile.Profiles) {
			pd.Dictionary().LocationTable().At(2).Lines().At(0).SetFunctionIndex(-1)
		}, true, "x.otlp: resource 0, scope 0, profile 0, sample 0: stack 1: location 2: function index -1 out of range (the function table has 3 entries)"},
		{"values and timestamps", func(pd pprofile.Profiles) { otlpSample(pd).Values().Append(3) },
			false, "x.otlp: resource 0, scope 0, profile 0, sample 0: 2 values for 1 timestamps: they must be as many"},
		{"sample type string", func(pd pprofile.Profiles) {
			pd.ResourceProfiles().At(0).ScopeProfiles().At(0).Profiles().At(0).SampleType().SetUnitStrindex(99)
		}, true, "x.otlp: resource 0, scope 0, profile 0: sample type unit: string index 99 out of range (the string table has 9 entries)"},
		{"attribute index", func(pd pprofile.Profiles) { otlpSample(pd).AttributeIndices().Append(5) },
			false, "x.otlp: resource 0, scope 0, profile 0, sample 0: attribute index 5 out of range (the attribute table has 2 entries)"},
		{"negative value", func(pd pprofile.Profiles) { otlpSample(pd).Values().SetAt(0, -1) },
			false, "x.otlp: sample 0: negative sample value: cpu/nanoseconds is -1; ctdiff needs counts and times " +
				"(a profile of differences, such as pprof -diff_base writes, cannot be read: pass the two profiles instead)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pd := minimalOTLP()
			tt.mutate(pd)
			_, err := Read(bytes.NewReader(encodeOTLP(t, pd, tt.json, false)), "x.otlp", Options{})
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v\n      want %s", err, tt.want)
			}
		})
	}
}

func otlpSample(pd pprofile.Profiles) pprofile.Sample {
	return pd.ResourceProfiles().At(0).ScopeProfiles().At(0).Profiles().At(0).Samples().At(0)
}

func TestOTLPUndecodable(t *testing.T) {
	tests := []struct {
		data, want string
	}{
		{"\x0a\x05\x0a\x03\x0a", "x.otlp: not a valid OTLP profile (protobuf): "},
		{`{"resourceProfiles": 5}`, "x.otlp: not a valid OTLP profile (JSON): "},
		{`{"resourceProfiles": [{"scopeProfiles": [{"profiles": [{"samples": [{"stackIndex": "x"}]}]}]}]}`,
			"x.otlp: not a valid OTLP profile (JSON): "},
	}
	for _, tt := range tests {
		_, err := Read(strings.NewReader(tt.data), "x.otlp", Options{From: "otlp"})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error %v\n      want %s…", tt.data, err, tt.want)
		}
	}
}

func TestSniffOTLP(t *testing.T) {
	pb := encodeOTLP(t, minimalOTLP(), false, false)
	js := encodeOTLP(t, minimalOTLP(), true, false)
	tests := []struct {
		name string
		head []byte
		want bool
	}{
		{"protobuf, dictionary first", pb, true},
		{"JSON", js, true},
		{"JSON with spaces", append([]byte(" {\n  "), js[1:]...), true},
		{"resource profiles first", []byte{0x0a, 0x04, 0x0a, 0x02, 0x0a, 0x00}, true},
		{"dictionary of mappings, then resource profiles", []byte{0x12, 0x02, 0x0a, 0x00, 0x0a, 0x02, 0x12, 0x00}, true},
		{"pprof sample type", []byte{0x0a, 0x04, 0x08, 0x01, 0x10, 0x02, 0x12, 0x00}, false},
		{"pprof sample, then sample", []byte{0x12, 0x04, 0x0a, 0x01, 0x01, 0x12, 0x12, 0x00}, false},
		{"other JSON", []byte(`{"nodes": []}`), false},
		{"empty", nil, false},
	}
	for _, tt := range tests {
		if got := sniffOTLP(tt.head); got != tt.want {
			t.Errorf("%s: sniffOTLP = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func FuzzOTLP(f *testing.F) {
	for _, json := range []bool{false, true} {
		f.Add(encodeOTLP(f, minimalOTLP(), json, false))
		pd := minimalOTLP()
		otlpSample(pd).TimestampsUnixNano().Append(1)
		otlpSample(pd).Values().Append(2)
		f.Add(encodeOTLP(f, pd, json, false))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		opts := Options{From: "otlp", MaxDecompressed: 1 << 20}
		res, err := Read(bytes.NewReader(data), "fuzz.otlp", opts)
		CheckRead(t, "fuzz.otlp", res, err)
		CheckStacks(t, "fuzz.otlp", data, opts)
	})
}
