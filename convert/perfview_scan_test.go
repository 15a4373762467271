package convert

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/ctdiff/ctdiff/tools/hostile"
)

// checkPerfViewScan fails unless reading data with the sample scanner
// gives what reading it with encoding/xml alone does: the same error, or
// the same warnings and the same pprof bytes, one by one and merged.
func checkPerfViewScan(t testing.TB, name string, data []byte) {
	t.Helper()
	for _, opts := range []Options{{From: "perfview"}, {From: "perfview", Stacks: true, MergeSamples: true}} {
		slow := opts
		slow.xmlDecoderOnly = true
		want, werr := Read(bytes.NewReader(data), name, slow)
		got, gerr := Read(bytes.NewReader(data), name, opts)
		if werr != nil || gerr != nil {
			if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
				t.Fatalf("%s, stacks %v: scanned, error %v; decoded, %v", name, opts.Stacks, gerr, werr)
			}
			continue
		}
		if !slices.Equal(got.Warnings, want.Warnings) {
			t.Fatalf("%s, stacks %v: scanned, warnings %q; decoded, %q", name, opts.Stacks, got.Warnings, want.Warnings)
		}
		var gb, wb bytes.Buffer
		if err := pprofio.WriteSourceUncompressed(&gb, got.Samples); err != nil {
			t.Fatal(err)
		}
		if err := pprofio.WriteSourceUncompressed(&wb, want.Samples); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gb.Bytes(), wb.Bytes()) {
			t.Fatalf("%s, stacks %v: scanned, %d bytes of pprof unlike the %d decoded", name, opts.Stacks, gb.Len(), wb.Len())
		}
	}
}

// perfViewScanCases are documents whose samples the scanner reads, or
// leaves to the decoder, in every way it tells apart.
var perfViewScanCases = []struct{ name, body string }{
	{"usual", `<Sample ID="0" Time="0.000" StackID="1" Metric="1.195" />` + "\n" + `<Sample ID="1" Time="1.5" StackID="0" Metric="2" />`},
	{"no space before />", `<Sample Time="1" StackID="1"/><Sample/>`},
	{"no attributes", "<Sample />\n<Sample/>"},
	{"single quotes", `<Sample Time='2' StackID='1' />`},
	{"space around =", "<Sample Time = \"2\"\n  StackID\t=\t'1'\r\n/>"},
	{"no space between attributes", `<Sample Time="2"StackID="1"/>`},
	{"first of a name", `<Sample Time="2" Time="x" StackID="1" StackID="0"/>`},
	{"> in a value", `<Sample Time="2" Other="a>b" StackID="1"/>`},
	{"empty values", `<Sample Time="" StackID="1"/>`},
	{"bad values", `<Sample Time="1" Metric="1,5" StackID="1"/>`},
	{"bad id", `<Sample Time="1" StackID="x"/>`},
	{"missing stack", `<Sample Time="1" StackID="9"/>`},
	{"entity", `<Sample Time="&#49;" StackID="1"/>`},
	{"entity in another attribute", `<Sample Time="1" Note="a&amp;b" StackID="1"/>`},
	{"< in a value", `<Sample Time="1<" StackID="1"/>`},
	{"UTF-8 in a value", `<Sample Time="1" Note="é" StackID="1"/>`},
	{"control in a value", "<Sample Time=\"1\" Note=\"a\x01\" StackID=\"1\"/>"},
	{"tab in a value", "<Sample Time=\"1\t\" StackID=\"1\"/>"},
	{"prefixed attribute", `<Sample x:Time="7" Time="1" StackID="1"/>`},
	{"namespace", `<Sample xmlns="urn:x" Time="1" StackID="1"/>`},
	{"prefixed element", `<x:Sample Time="1" StackID="1"/>`},
	{"longer name", `<SampleX Time="1" StackID="1"/><Samples/>`},
	{"unquoted value", `<Sample Time=1 StackID="1"/>`},
	{"attribute without value", `<Sample Time StackID="1"/>`},
	{"name starting with a digit", `<Sample 1a="1" StackID="1"/>`},
	{"literal stack", "<Sample Time=\"1\">\n a!leaf\n a!main\n</Sample>"},
	{"empty body", `<Sample Time="1" StackID="1"></Sample>`},
	{"comment", "<Sample Time=\"1\" StackID=\"1\"/><!-- x --><Sample Time=\"2\" StackID=\"0\"/>"},
	{"text between", `<Sample Time="1" StackID="1"/> text <Sample Time="2" StackID="0"/>`},
	{"CDATA", `<Sample Time="1" StackID="1"/><![CDATA[<Sample Time="9" StackID="1"/>]]>`},
	{"unclosed", `<Sample Time="1" StackID="1"`},
	{"/ without >", `<Sample Time="1" StackID="1" / >`},
	{"long tag", `<Sample Time="1" StackID="1" Pad="` + strings.Repeat("p", 70<<10) + `"/><Sample Time="2" StackID="0"/>`},
	{"many samples", strings.Repeat("<Sample Time=\"3\" StackID=\"1\" Metric=\"1\" />\n", 5000)},
}

// perfViewScanDoc is a stack file whose samples are body.
func perfViewScanDoc(body string) string {
	return `<?xml version="1.0" encoding="utf-8"?>` + "\n<StackWindow>\n <StackSource>\n" +
		`  <Frames Count="2"><Frame ID="0">a!main</Frame><Frame ID="1">a!work</Frame></Frames>` + "\n" +
		`  <Stacks Count="2"><Stack ID="0" CallerID="-1" FrameID="0" /><Stack ID="1" CallerID="0" FrameID="1" /></Stacks>` + "\n" +
		"  <Samples Count=\"2\">\n" + body + "\n  </Samples>\n </StackSource>\n</StackWindow>\n"
}

// TestPerfViewScanDecoder: the scanner reads what encoding/xml reads, in
// the crafted cases (whole and cut at every byte), in generated files of
// many samples and stacks, and in the fixtures and corpus.
func TestPerfViewScanDecoder(t *testing.T) {
	for _, tc := range perfViewScanCases {
		t.Run(tc.name, func(t *testing.T) {
			doc := perfViewScanDoc(tc.body)
			checkPerfViewScan(t, "x.perfView.xml", []byte(doc))
			if len(doc) > 4<<10 {
				return
			}
			// Cut in the samples or after them: before, the cases agree.
			for n := strings.Index(doc, tc.body); n < len(doc); n++ {
				checkPerfViewScan(t, "x.perfView.xml", []byte(doc[:n]))
			}
		})
	}
	for _, g := range []struct {
		name string
		gen  func(io.Writer) error
	}{
		{"samples", func(w io.Writer) error { return hostile.PerfViewSamples(w, 20_000) }},
		{"chain", func(w io.Writer) error { return hostile.PerfViewChain(w, 2000, 5000, hostile.Every) }},
		{"comb", func(w io.Writer) error { return hostile.PerfViewComb(w, 500) }},
	} {
		var b bytes.Buffer
		if err := g.gen(&b); err != nil {
			t.Fatal(err)
		}
		checkPerfViewScan(t, g.name, b.Bytes())
	}
	paths := []string{filepath.Join("testdata", "etw", "perfview-cpu.perfView.xml")}
	paths = append(paths, corpus.Glob(t, "etw/*perfView*")...)
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		checkPerfViewScan(t, filepath.Base(p), data)
	}
}

// TestPerfViewScanReads: the decoder is left next to nothing of a file of
// usual samples (a buffer's last sample, when the buffer holds part of
// the next), so the differential test compares the scanner, not the
// decoder with itself.
func TestPerfViewScanReads(t *testing.T) {
	var b bytes.Buffer
	if err := hostile.PerfViewSamples(&b, 100_000); err != nil {
		t.Fatal(err)
	}
	in := &parserInput{Name: "x", Options: &Options{MergeSamples: true}}
	pv := newPerfView(in)
	if err := pv.readXML(bytes.NewReader(b.Bytes())); err != nil {
		t.Fatal(err)
	}
	if pv.count != 100_000 {
		t.Fatalf("%d samples read, want 100000", pv.count)
	}
	decoded := int64(b.Len()) - pv.scanned
	t.Logf("%d of %d bytes scanned, %d decoded", pv.scanned, b.Len(), decoded)
	if decoded > int64(b.Len())/50 {
		t.Errorf("the decoder read %d of %d bytes, more than a fiftieth", decoded, b.Len())
	}
}

// TestPerfViewSampleAllocs counts the allocations of reading samples that
// merge (ctdiff cct): none a sample, where encoding/xml made a token, its
// attributes and their strings for each (about 4 µs of CPU a sample).
func TestPerfViewSampleAllocs(t *testing.T) {
	var b bytes.Buffer
	if err := hostile.PerfViewSamples(&b, 20_000); err != nil {
		t.Fatal(err)
	}
	data := b.Bytes()
	allocs := testing.AllocsPerRun(2, func() {
		if _, err := Read(bytes.NewReader(data), "x", Options{Stacks: true, MergeSamples: true}); err != nil {
			t.Fatal(err)
		}
	})
	per := allocs / 20_000
	t.Logf("%.0f allocations, %.3f a sample", allocs, per)
	if per > 0.1 {
		t.Errorf("%.2f allocations a sample, want next to none", per)
	}
}

// FuzzPerfViewScan compares the scanner with encoding/xml on any sample
// list, in the stack file of the crafted cases.
func FuzzPerfViewScan(f *testing.F) {
	for _, tc := range perfViewScanCases {
		if len(tc.body) < 4<<10 {
			f.Add(tc.body)
		}
	}
	f.Fuzz(func(t *testing.T, body string) {
		checkPerfViewScan(t, "x.perfView.xml", []byte(perfViewScanDoc(body)))
	})
}

// BenchmarkPerfViewSamples reads 100,000 usual samples, merged, with the
// scanner and with encoding/xml alone.
func BenchmarkPerfViewSamples(b *testing.B) {
	var buf bytes.Buffer
	if err := hostile.PerfViewSamples(&buf, 100_000); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	for _, decoderOnly := range []bool{false, true} {
		name := "scanner"
		if decoderOnly {
			name = "encoding-xml"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Read(bytes.NewReader(data), "x", Options{Stacks: true, MergeSamples: true, xmlDecoderOnly: decoderOnly}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
