package convert

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/labels"
)

// The PerfView fixtures (testdata/etw/perfview-cpu.perfView.*) were written
// by hand from the schema in formats-etw-java-perf.md §1.3 and PerfView's
// XmlStackSourceWriter; the real file is the corpus file tested below.

func TestPerfViewGolden(t *testing.T) {
	etwGoldenFiles(t, "perfview-cpu.perfView.xml", "perfview-cpu.perfView.json")
}

func TestPerfViewCPUView(t *testing.T) {
	res, err := ReadFile(filepath.Join("testdata", "etw", "perfview-cpu.perfView.xml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Profile
	if p.DefaultSampleType != "cpu" || p.SampleType[1].Type != "cpu" {
		t.Errorf("a view with thread pseudo-frames and no BLOCKED_TIME is cpu time, got %s", p.DefaultSampleType)
	}
	for i, s := range p.Sample {
		for _, l := range s.Location {
			name := l.Line[0].Function.Name
			if name == "ROOT" || strings.HasPrefix(name, "Thread (") || strings.HasPrefix(name, "Process64") {
				t.Errorf("sample %d keeps the pseudo-frame %q", i, name)
			}
		}
		if pid := s.NumLabel[labels.PID]; len(pid) != 1 || pid[0] != 1234 {
			t.Errorf("sample %d: pid %v", i, pid)
		}
		if proc := s.Label[labels.Process]; len(proc) != 1 || proc[0] != "game" {
			t.Errorf("sample %d: process %q", i, proc)
		}
	}
	var tids []int64
	for _, s := range p.Sample {
		tids = append(tids, s.NumLabel[labels.TID][0])
	}
	if want := []int64{5104, 5104, 5200, 5104, 5104}; !slices.Equal(tids, want) {
		t.Errorf("tids %v, want %v", tids, want)
	}
}

func TestPerfViewThreadName(t *testing.T) {
	in := `{"StackSource":{"Samples":[{"Time":1,"Stack":["a!f","Thread (77) CPU=5ms (Render Loop)","Process32 app (3)","ROOT"]}]}}`
	res, err := Read(strings.NewReader(in), "t.perfView.json", Options{})
	if err != nil {
		t.Fatal(err)
	}
	s := res.Profile.Sample[0]
	if th := s.Label[labels.Thread]; len(th) != 1 || th[0] != "Render Loop" {
		t.Errorf("thread %q, want \"Render Loop\"", th)
	}
	if got := etwRoots(res.Profile)[0]; got != "f@a" {
		t.Errorf("stack %s, want f@a", got)
	}
}

func perfViewZip(t testing.TB, entries map[string][]byte) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	names := make([]string, 0, len(entries))
	for n := range entries {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(entries[n])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestPerfViewZip reads .perfView.xml.zip and .perfView.json.zip, which
// PerfView writes with one entry named like the file without ".zip".
func TestPerfViewZip(t *testing.T) {
	for _, name := range []string{"perfview-cpu.perfView.xml", "perfview-cpu.perfView.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "etw", name))
		if err != nil {
			t.Fatal(err)
		}
		z := perfViewZip(t, map[string][]byte{name: data})
		res, err := Read(bytes.NewReader(z), name+".zip", Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Format != "perfview" {
			t.Errorf("%s.zip sniffed as %s", name, res.Format)
		}
		plain, err := ReadFile(filepath.Join("testdata", "etw", name), Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := etwDump(res.Profile), etwDump(plain.Profile); got != want {
			t.Errorf("%s.zip converts differently from %s:\n%s\nwant:\n%s", name, name, got, want)
		}
	}
}

// TestPerfViewCorpus converts PerfView's strace-derived stack file: 102
// samples with their times and metrics.
func TestPerfViewCorpus(t *testing.T) {
	path := corpus.Path(t, "etw/perfview-ls.strace.perfView.xml")
	res, err := ReadFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "perfview" {
		t.Fatalf("sniffed as %s", res.Format)
	}
	p := res.Profile
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// An independent reading of the samples: Metric is omitted when it is 1.
	re := regexp.MustCompile(`<Sample ID="\d+" Time="([0-9.]+)" StackID="\d+"(?: Metric="([0-9.]+)")? />`)
	var times, metrics []int64
	for _, m := range re.FindAllStringSubmatch(string(data), -1) {
		ts, _ := etwFixed(m[1], 6)
		metric := int64(1_000_000)
		if m[2] != "" {
			metric, _ = etwFixed(m[2], 6)
		}
		times, metrics = append(times, ts), append(metrics, metric)
	}
	if len(p.Sample) != 102 || len(times) != 102 {
		t.Fatalf("%d samples, %d in the file; want 102", len(p.Sample), len(times))
	}
	for i, s := range p.Sample {
		if got := s.NumLabel[labels.Timestamp][0]; got != times[i] || s.Value[1] != metrics[i] || s.Value[0] != 1 {
			t.Errorf("sample %d: time %d ns, values %v; want time %d ns, metric %d ns", i, got, s.Value, times[i], metrics[i])
		}
	}
	if p.Sample[1].NumLabel[labels.Timestamp][0] != 1_847_000 || p.Sample[0].Value[1] != 1_195_000 {
		t.Errorf("sample 0/1: %v %v", p.Sample[0].Value, p.Sample[1].NumLabel)
	}
	var sum int64
	for _, m := range metrics {
		sum += m
	}
	if got := etwSum(p, 1); got != sum {
		t.Errorf("total %d ns, want %d", got, sum)
	}
	want := `Raw Syscalls@;Syscall: execve@;Arguments: "/usr/bin/ls", ["ls"], 0x7fff93c6e390 /* 27 vars */@;Return Code: 0@`
	if got := etwRoots(p)[0]; got != want {
		t.Errorf("sample 0 stack:\n%s\nwant:\n%s", got, want)
	}
	if p.DefaultSampleType != "wall" {
		t.Errorf("an strace view without thread frames is wall time, got %s", p.DefaultSampleType)
	}
}

func TestPerfViewErrors(t *testing.T) {
	const head = `<?xml version="1.0" encoding="utf-8"?>` + "\n<StackWindow>\n <StackSource>\n"
	frames := "  <Frames><Frame ID=\"0\">a!f</Frame></Frames>\n"
	for _, tc := range []struct{ name, in, want string }{
		{"unclosed", head + frames + "  <Samples>\n   <Sample Time=\"1\" StackID=\"0\">\n  </Samples>\n",
			"in.xml: line 7: malformed XML: element <Sample> closed by </Samples>"},
		{"time", head + frames + "  <Stacks><Stack ID=\"0\" CallerID=\"-1\" FrameID=\"0\" /></Stacks>\n  <Samples>\n   <Sample Time=\"1,5\" StackID=\"0\" />\n",
			`in.xml: line 7: <Sample>: expected a number of milliseconds in Time, found "1,5"`},
		{"stack id", head + frames + "  <Samples>\n   <Sample Time=\"1\" StackID=\"7\" />\n  </Samples>\n </StackSource>\n</StackWindow>\n",
			`in.xml: line 6: StackID 7: expected a <Stack ID="7"> element, found none`},
		{"frame id", head + frames + "  <Stacks><Stack ID=\"0\" CallerID=\"-1\" FrameID=\"3\" /></Stacks>\n  <Samples><Sample Time=\"1\" StackID=\"0\" /></Samples>\n </StackSource>\n</StackWindow>\n",
			`in.xml: line 6: stack 0: expected a <Frame ID="3"> element, found none`},
		{"loop", head + frames + "  <Stacks><Stack ID=\"0\" CallerID=\"1\" FrameID=\"0\" /><Stack ID=\"1\" CallerID=\"0\" FrameID=\"0\" /></Stacks>\n  <Samples><Sample Time=\"1\" StackID=\"1\" /></Samples>\n </StackSource>\n</StackWindow>\n",
			"in.xml: line 6: StackID 1: the CallerID chain loops back on itself"},
		{"stack attr", head + "  <Stacks><Stack ID=\"x\" FrameID=\"0\" /></Stacks>\n",
			`in.xml: line 4: <Stack>: expected an integer id in ID, found "x"`},
		{"root", "<Profile/>", "in.xml: line 1: expected a <StackWindow> or <StackSource> element, found <Profile>"},
		{"no source", "<StackWindow></StackWindow>", "in.xml: line 1: expected a <StackSource> element, found none"},
		{"json time", `{"StackSource":{"Samples":[{"Time":"1.0","Stack":["a"]},{"Time":"x","Stack":["a"]}]}}`,
			`in.xml: event 1: sample: expected a number of milliseconds in Time, found "x"`},
		{"json stack", `{"StackSource":{"Samples":[{"Time":"1.0","Stack":"a"}]}}`,
			"in.xml: event 0: sample: expected an array in Stack, found a JSON string"},
		{"json syntax", `{"StackSource":{"Samples":[{"Time":1,}]}}`,
			"in.xml: event 0: malformed JSON in the sample that starts at byte 27: invalid character '}' looking for beginning of object key string"},
		{"json truncated", `{"StackSource":{"Samples":[{"Time":1}`,
			"in.xml: byte 37: malformed JSON: unexpected end of input"},
		{"json shape", `{"StackSource":{"Frames":[]}}`,
			`in.xml: byte 29: expected {"StackSource":{"Samples":[...]}}, found no StackSource.Samples`},
		{"empty", "  \n", "in.xml: empty input: no profile data"},
		{"no samples", head + " </StackSource>\n</StackWindow>\n", "in.xml: no samples: the PerfView file has no <Sample> elements"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), "in.xml", Options{From: "perfview"})
			if err == nil || err.Error() != tc.want {
				t.Errorf("error:\n%v\nwant:\n%s", err, tc.want)
			}
		})
	}
}

func TestPerfViewZipErrors(t *testing.T) {
	xml := []byte("<StackWindow><StackSource><Samples><Sample Time=\"x\"/></Samples></StackSource></StackWindow>")
	for _, tc := range []struct {
		name    string
		entries map[string][]byte
		want    string
	}{
		{"two entries", map[string][]byte{"a.xml": xml, "b.xml": xml},
			"in.zip: expected one .xml or .json entry in the zip archive, as PerfView writes, found a.xml and b.xml"},
		{"no entry", map[string][]byte{"notes.txt": nil},
			"in.zip: expected a .perfView.xml or .perfView.json entry in the zip archive, found: notes.txt"},
		{"bad entry", map[string][]byte{"a.perfView.xml": xml},
			`in.zip (zip entry a.perfView.xml): line 1: <Sample>: expected a number of milliseconds in Time, found "x"`},
		{"etl", map[string][]byte{"trace.etl": {0}, "LogFile.txt": nil},
			"in.zip: binary ETL is not supported: the zip archive holds trace.etl; " + etwExportAdvice},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(perfViewZip(t, tc.entries)), "in.zip", Options{From: "perfview"})
			if err == nil || err.Error() != tc.want {
				t.Errorf("error:\n%v\nwant:\n%s", err, tc.want)
			}
		})
	}
}

// TestETLRefused feeds binary ETW traces: PerfView's zipped test trace from
// the corpus and a raw trace's first bytes. Both get the intended refusal
// with export advice, not a parse of garbage.
func TestETLRefused(t *testing.T) {
	const want = "binary ETL is not supported; export it to text first: `xperf -i trace.etl -o trace.txt -symbols -a dumper -stacktimeshifting`"
	path := corpus.Path(t, "etw/perfview-net.4.5.2.x64.etl.zip")
	_, err := ReadFile(path, Options{})
	if !errors.Is(err, errBinaryETL) || !strings.HasPrefix(err.Error(), path+": "+want) {
		t.Errorf("error:\n%v\nwant it to start with:\n%s: %s", err, path, want)
	}
	raw := make([]byte, 4096)
	binary.LittleEndian.PutUint32(raw, 64<<10)
	copy(raw[72:], []byte{0x02, 0x00, 0x02, 0xC0}) // SYSTEM64 trace header
	_, err = Read(bytes.NewReader(raw), "trace.etl", Options{})
	if !errors.Is(err, errBinaryETL) || !strings.HasPrefix(err.Error(), "trace.etl: "+want) {
		t.Errorf("raw trace: %v", err)
	}
	// The PerfView reader, forced, refuses a zipped trace the same way.
	_, err = ReadFile(path, Options{From: "perfview"})
	if !errors.Is(err, errBinaryETL) || !strings.Contains(err.Error(), "holds net.4.5.2.x64.etl") {
		t.Errorf("--from perfview: %v", err)
	}
}

func TestPerfViewSniff(t *testing.T) {
	z := perfViewZip(t, map[string][]byte{"x.perfView.xml": []byte("<StackWindow/>")})
	ze := perfViewZip(t, map[string][]byte{"x.etl": {0}})
	for _, tc := range []struct {
		head    string
		pv, etl bool
	}{
		{"\xef\xbb\xbf<?xml version=\"1.0\"?>\n<StackWindow>\n <StackSource>", true, false},
		{"<StackSource>", true, false},
		{`{"StackSource":{"Samples":[]}}`, true, false},
		{string(z), true, false},
		{string(ze), false, true},
		{`{"traceEvents":[]}`, false, false},
		{"<html>", false, false},
	} {
		if got := sniffPerfView([]byte(tc.head)); got != tc.pv {
			t.Errorf("sniffPerfView(%.20q) = %v", tc.head, got)
		}
		if got := sniffETL([]byte(tc.head)); got != tc.etl {
			t.Errorf("sniffETL(%.20q) = %v", tc.head, got)
		}
	}
}

func FuzzPerfView(f *testing.F) {
	for _, name := range []string{"perfview-cpu.perfView.xml", "perfview-cpu.perfView.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "etw", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add(perfViewZip(f, map[string][]byte{name: data}))
	}
	if d := corpus.Dir(); d != "" {
		if data, err := os.ReadFile(filepath.Join(d, "etw", "perfview-ls.strace.perfView.xml")); err == nil {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Read(bytes.NewReader(data), "fuzz", Options{From: "perfview"})
		CheckRead(t, "fuzz", res, err)
		if err != nil {
			return
		}
		etwCheckThreadOrder(t, res.Profile)
		for _, s := range res.Profile.Sample {
			if len(s.Location) == 0 || s.Value[0] != 1 {
				t.Fatalf("sample with %d frames, values %v", len(s.Location), s.Value)
			}
		}
	})
}

func BenchmarkPerfView(b *testing.B) {
	path := corpus.Path(b, "etw/perfview-ls.strace.perfView.xml")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), path, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
