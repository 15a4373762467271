// Package hostile writes the small inputs that expand into much memory or
// time: gzip inside gzip, one huge token, compact trees that
// name deep nodes many times, values whose totals overflow. Tests generate
// them at the sizes they need, so no large file is committed; mkhostile
// writes them at full size for measuring the CLI with /usr/bin/time.
//
// Every generator streams: a payload of gigabytes costs no memory here.
package hostile

import (
	"archive/zip"
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"strings"

	"github.com/google/pprof/profile"
)

// Gzip writes what body writes, gzipped.
func Gzip(w io.Writer, body func(io.Writer) error) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	if err := body(zw); err != nil {
		return err
	}
	return zw.Close()
}

// Pprof writes a valid uncompressed pprof profile: one cpu/nanoseconds
// sample of value on the stack main → work.
func Pprof(w io.Writer, value int64) error {
	main := &profile.Function{ID: 1, Name: "main", SystemName: "main", Filename: "main.go"}
	work := &profile.Function{ID: 2, Name: "work", SystemName: "work", Filename: "main.go"}
	l1 := &profile.Location{ID: 1, Line: []profile.Line{{Function: main, Line: 3}}}
	l2 := &profile.Location{ID: 2, Line: []profile.Line{{Function: work, Line: 9}}}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10_000_000,
		Sample:     []*profile.Sample{{Location: []*profile.Location{l2, l1}, Value: []int64{value}}},
		Location:   []*profile.Location{l1, l2},
		Function:   []*profile.Function{main, work},
	}
	return p.WriteUncompressed(w)
}

// PprofUnknownField writes Pprof(w, 1) followed by a length-delimited field
// profile.proto does not define (number 100) holding n zero bytes: a valid
// profile that readers must skip past.
func PprofUnknownField(w io.Writer, n int64) error {
	if err := Pprof(w, 1); err != nil {
		return err
	}
	hdr := appendVarint(appendVarint(nil, 100<<3|2), uint64(n))
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	return zeros(w, n)
}

// NestedGzipPprof writes PprofUnknownField(n) gzipped twice: the outer
// layer expands to about n/1000 bytes, the inner one to n.
func NestedGzipPprof(w io.Writer, n int64) error {
	return Gzip(w, func(w io.Writer) error {
		return Gzip(w, func(w io.Writer) error { return PprofUnknownField(w, n) })
	})
}

// CpuprofileLongName writes a .cpuprofile whose one sampled function has a
// name of n bytes.
func CpuprofileLongName(w io.Writer, n int64) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""},"children":[2]},` +
		`{"id":2,"callFrame":{"functionName":"`)
	if err := repeat(bw, 'a', n); err != nil {
		return err
	}
	bw.WriteString(`","url":"x.js","lineNumber":0,"columnNumber":0}}],` +
		`"startTime":0,"endTime":2000,"samples":[2,2],"timeDeltas":[0,1000]}`)
	return bw.Flush()
}

// PerfViewZipWhitespace writes a .perfView.xml.zip whose XML holds n bytes
// of white space between two elements.
func PerfViewZipWhitespace(w io.Writer, n int64) error {
	zw := zip.NewWriter(w)
	f, err := zw.CreateHeader(&zip.FileHeader{Name: "x.perfView.xml", Method: zip.Deflate})
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	bw.WriteString(`<StackWindow><StackSource><Frames Count="1"><Frame ID="0">main</Frame></Frames>`)
	if err := repeat(bw, ' ', n); err != nil {
		return err
	}
	bw.WriteString(`<Stacks Count="1"><Stack ID="0" CallerID="-1" FrameID="0" /></Stacks>` +
		`<Samples Count="2"><Sample ID="0" Time="0" StackID="0" Metric="1" /><Sample ID="1" Time="1" StackID="0" Metric="1" /></Samples>` +
		`</StackSource></StackWindow>`)
	if err := bw.Flush(); err != nil {
		return err
	}
	return zw.Close()
}

// Spread picks the nodes samples hit in a chain: Deepest puts every sample
// on the deepest node; Every cycles through all depths (deepest first), so
// consecutive samples have different stacks.
type Spread int

const (
	Deepest Spread = iota
	Every
)

// depthOf returns the depth (1-based) sample i hits in a chain of n.
func (s Spread) depthOf(i, n int) int {
	if s == Deepest {
		return n
	}
	return n - i%n
}

// V8Chain writes a .cpuprofile whose call tree is one chain of depth
// nodes below (root), recursion through seven functions, with samples
// samples spread as s, 1 ms apart.
func V8Chain(w io.Writer, depth, samples int, s Spread) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""}}`)
	for d := 1; d <= depth; d++ {
		fmt.Fprintf(bw, `,{"id":%d,"parent":%d,"callFrame":{"functionName":"f%d","url":"a.js","lineNumber":%d}}`, d+1, d, d%7, d%7)
	}
	fmt.Fprintf(bw, `],"startTime":0,"endTime":%d,"samples":[`, samples*1000)
	for i := range samples {
		if i > 0 {
			bw.WriteByte(',')
		}
		fmt.Fprint(bw, s.depthOf(i, depth)+1)
	}
	bw.WriteString(`],"timeDeltas":[`)
	for i := range samples {
		if i > 0 {
			bw.WriteByte(',')
		}
		bw.WriteString("1000")
	}
	bw.WriteString("]}")
	return bw.Flush()
}

// V8Comb writes a .cpuprofile whose call tree is a chain of n nodes with a
// leaf below each, every leaf sampled once: the leaves' stacks share no
// tail, so together they hold about n²/2 frames.
func V8Comb(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""}}`)
	for d := 1; d <= n; d++ { // spine node 2d, its leaf 2d+1
		parent := 2 * (d - 1)
		if d == 1 {
			parent = 1
		}
		fmt.Fprintf(bw, `,{"id":%d,"parent":%d,"callFrame":{"functionName":"s%d","url":"a.js"}}`, 2*d, parent, d%7)
		fmt.Fprintf(bw, `,{"id":%d,"parent":%d,"callFrame":{"functionName":"leaf","url":"a.js"}}`, 2*d+1, 2*d)
	}
	fmt.Fprintf(bw, `],"startTime":0,"endTime":%d,"samples":[`, n*1000)
	for d := 1; d <= n; d++ {
		if d > 1 {
			bw.WriteByte(',')
		}
		fmt.Fprint(bw, 2*d+1)
	}
	bw.WriteString(`],"timeDeltas":[`)
	for d := 1; d <= n; d++ {
		if d > 1 {
			bw.WriteByte(',')
		}
		bw.WriteString("1000")
	}
	bw.WriteString("]}")
	return bw.Flush()
}

// CCTChain writes a ctdiff.cct/v1 tree whose one thread holds a chain of
// depth function nodes, each with self value 1 (so each is a sample whose
// stack is its whole path).
func CCTChain(w io.Writer, depth int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `{"schema":"ctdiff.cct/v1","view":"top-down","sample_types":[{"type":"samples","unit":"count"}],"nodes":[`+
		`{"id":0,"kind":"root","function":"(root)","parent":-1,"self":[0],"total":[%d],"children":[1]},`+
		`{"id":1,"kind":"thread","function":"main","parent":0,"self":[0],"total":[%d],"children":[2]}`, depth, depth)
	for d := 1; d <= depth; d++ {
		kids := ""
		if d < depth {
			kids = fmt.Sprint(d + 2)
		}
		fmt.Fprintf(bw, `,{"id":%d,"function":"f%d","parent":%d,"self":[1],"total":[%d],"children":[%s]}`, d+1, d%7, d, depth-d+1, kids)
	}
	bw.WriteString("]}")
	return bw.Flush()
}

// PerfViewChain writes a .perfView.xml whose stacks form one chain of
// depth nodes, with samples samples spread as s.
func PerfViewChain(w io.Writer, depth, samples int, s Spread) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`<StackWindow><StackSource><Frames Count="7">`)
	for f := range 7 {
		fmt.Fprintf(bw, `<Frame ID="%d">f%d</Frame>`, f, f)
	}
	fmt.Fprintf(bw, `</Frames><Stacks Count="%d">`, depth)
	for d := range depth {
		fmt.Fprintf(bw, `<Stack ID="%d" CallerID="%d" FrameID="%d" />`, d, d-1, d%7)
	}
	fmt.Fprintf(bw, `</Stacks><Samples Count="%d">`, samples)
	for i := range samples {
		fmt.Fprintf(bw, `<Sample ID="%d" Time="%d" StackID="%d" Metric="1" />`, i, i, s.depthOf(i, depth)-1)
	}
	bw.WriteString(`</Samples></StackSource></StackWindow>`)
	return bw.Flush()
}

// Padded writes what body writes followed by n spaces: input bytes that
// hold nothing and compress a thousandfold.
func Padded(w io.Writer, n int64, body func(io.Writer) error) error {
	if err := body(w); err != nil {
		return err
	}
	return repeat(w, ' ', n)
}

func appendVarint(b []byte, u uint64) []byte {
	for u >= 0x80 {
		b = append(b, byte(u)|0x80)
		u >>= 7
	}
	return append(b, byte(u))
}

var zeroBlock = make([]byte, 64<<10)

func zeros(w io.Writer, n int64) error {
	for n > 0 {
		k := min(n, int64(len(zeroBlock)))
		if _, err := w.Write(zeroBlock[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

func repeat(w io.Writer, c byte, n int64) error {
	block := []byte(strings.Repeat(string(c), 64<<10))
	for n > 0 {
		k := min(n, int64(len(block)))
		if _, err := w.Write(block[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// PerfViewComb writes a .perfView.xml whose stacks are a chain of n nodes
// with a leaf below each, every leaf sampled once: the leaves' stacks share
// no tail, so together they hold about n²/2 frames.
func PerfViewComb(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`<StackWindow><StackSource><Frames Count="8">`)
	for f := range 7 {
		fmt.Fprintf(bw, `<Frame ID="%d">s%d</Frame>`, f, f)
	}
	fmt.Fprintf(bw, `<Frame ID="7">leaf</Frame></Frames><Stacks Count="%d">`, 2*n)
	for d := range n { // spine node 2d, its leaf 2d+1
		fmt.Fprintf(bw, `<Stack ID="%d" CallerID="%d" FrameID="%d" /><Stack ID="%d" CallerID="%d" FrameID="7" />`, 2*d, max(2*d-2, -1), d%7, 2*d+1, 2*d)
	}
	fmt.Fprintf(bw, `</Stacks><Samples Count="%d">`, n)
	for d := range n {
		fmt.Fprintf(bw, `<Sample ID="%d" Time="%d" StackID="%d" Metric="1" />`, d, d, 2*d+1)
	}
	bw.WriteString(`</Samples></StackSource></StackWindow>`)
	return bw.Flush()
}

// CCTComb writes a ctdiff.cct/v1 tree whose one thread holds a chain of n
// function nodes with a leaf below each, every leaf with self value 1.
func CCTComb(w io.Writer, n int) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `{"schema":"ctdiff.cct/v1","view":"top-down","sample_types":[{"type":"samples","unit":"count"}],"nodes":[`+
		`{"id":0,"kind":"root","function":"(root)","parent":-1,"self":[0],"total":[%d],"children":[1]},`+
		`{"id":1,"kind":"thread","function":"main","parent":0,"self":[0],"total":[%d],"children":[2]}`, n, n)
	for d := range n { // spine node 2d+2, its leaf 2d+3
		parent := 2 * d
		if d == 0 {
			parent = 1
		}
		kids := fmt.Sprint(2*d + 3)
		if d < n-1 {
			kids += fmt.Sprintf(",%d", 2*d+4)
		}
		fmt.Fprintf(bw, `,{"id":%d,"function":"s%d","parent":%d,"self":[0],"total":[%d],"children":[%s]}`, 2*d+2, d%7, parent, n-d, kids)
		fmt.Fprintf(bw, `,{"id":%d,"function":"leaf","parent":%d,"self":[1],"total":[1]}`, 2*d+3, 2*d+2)
	}
	bw.WriteString("]}")
	return bw.Flush()
}
