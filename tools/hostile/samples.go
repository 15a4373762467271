package hostile

import (
	"archive/zip"
	"bufio"
	"fmt"
	"io"
)

// Inputs whose memory would grow with the sample count: one stack sampled
// n times, in each text and tree format. They compress extremely well (a
// gzipped 30 M-sample .cpuprofile is about 120 KB).

// CpuprofileSamples writes a .cpuprofile whose one stack (root → main →
// work) is sampled n times, 1 ms apart.
func CpuprofileSamples(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""},"children":[2]},` +
		`{"id":2,"callFrame":{"functionName":"main","url":"a.js","lineNumber":1},"children":[3]},` +
		`{"id":3,"callFrame":{"functionName":"work","url":"a.js","lineNumber":5}}],`)
	fmt.Fprintf(bw, `"startTime":0,"endTime":%d,"samples":[`, int64(n)*1000)
	if err := list(bw, n, "3"); err != nil {
		return err
	}
	bw.WriteString(`],"timeDeltas":[`)
	if err := list(bw, n, "1000"); err != nil {
		return err
	}
	bw.WriteString("]}")
	return bw.Flush()
}

// PerfViewZipSamples writes a .perfView.xml.zip whose one stack (main →
// work) is sampled n times, 1 ms apart.
func PerfViewZipSamples(w io.Writer, n int) error {
	zw := zip.NewWriter(w)
	f, err := zw.CreateHeader(&zip.FileHeader{Name: "x.perfView.xml", Method: zip.Deflate})
	if err != nil {
		return err
	}
	if err := PerfViewSamples(f, n); err != nil {
		return err
	}
	return zw.Close()
}

// PerfViewSamples writes the .perfView.xml of PerfViewZipSamples.
func PerfViewSamples(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	fmt.Fprintf(bw, `<StackWindow><StackSource><Frames Count="2"><Frame ID="0">main</Frame><Frame ID="1">work</Frame></Frames>`+
		`<Stacks Count="2"><Stack ID="0" CallerID="-1" FrameID="0" /><Stack ID="1" CallerID="0" FrameID="1" /></Stacks>`+
		`<Samples Count="%d">`, n)
	for i := range n {
		fmt.Fprintf(bw, `<Sample ID="%d" Time="%d" StackID="1" Metric="1" />`, i, i)
	}
	bw.WriteString(`</Samples></StackSource></StackWindow>`)
	return bw.Flush()
}

const wpaHeader = "Process Name, Display Name, Process, Stack, Module, Function, Address, Thread ID, CPU, Weight, % Weight, Count, TimeStamp\n"

// WPACSVRows writes a WPA "CPU Usage (Sampled)" CSV export of n rows of
// one stack, 1 ms apart.
func WPACSVRows(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(wpaHeader)
	for i := range n {
		fmt.Fprintf(bw, "app.exe, app.exe, app.exe (42), [Root]/app.exe!main/app.exe!work, app.exe, work, 0x1000, 7, 0, 1.000000, 0.01, 1, %d.%06d\n",
			i/1000, i%1000*1000)
	}
	return bw.Flush()
}

// WPACSVQuotedField writes a WPA CSV export, quoted as Excel writes it,
// whose one row's Stack field is n bytes long.
func WPACSVQuotedField(w io.Writer, n int64) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(`"Process Name","Display Name","Process","Stack","Module","Function","Address","Thread ID","CPU","Weight","% Weight","Count","TimeStamp"` + "\n")
	bw.WriteString(`"app.exe","app.exe","app.exe (42)","[Root]/app.exe!main/app.exe!`)
	if err := repeat(bw, 'a', n); err != nil {
		return err
	}
	bw.WriteString(`","app.exe","work","0x1000","7","0","1.000000","0.01","1","1.000000"` + "\n")
	return bw.Flush()
}

// PerfScriptSamples writes `perf script` output of n samples of one
// three-frame stack, 1 ms apart.
func PerfScriptSamples(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	for i := range n {
		fmt.Fprintf(bw, "app 42/42 [000] %d.%06d: 1000000 cpu-clock:u:\n"+
			"\t    4005d0 work (/app)\n\t    400600 main (/app)\n\t    400700 _start (/app)\n\n", 1+i/1000, i%1000*1000)
	}
	return bw.Flush()
}

// PerfScriptLongLine writes `perf script` output whose one sample has a
// frame line of n bytes (a name of n bytes and no module).
func PerfScriptLongLine(w io.Writer, n int64) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("app 42/42 [000] 1.000000: 1000000 cpu-clock:u:\n\t    4005d0 ")
	if err := repeat(bw, 'a', n); err != nil {
		return err
	}
	bw.WriteString("\n\t    400600 main (/app)\n\n")
	return bw.Flush()
}

// PerfScriptLongName writes `perf script` output whose one sample's leaf
// frame is a function of n bytes in a module.
func PerfScriptLongName(w io.Writer, n int64) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("app 42/42 [000] 1.000000: 1000000 cpu-clock:u:\n\t    4005d0 ")
	if err := repeat(bw, 'a', n); err != nil {
		return err
	}
	bw.WriteString(" (/app)\n\t    400600 main (/app)\n\n")
	return bw.Flush()
}

// XperfSamples writes an xperf text dump of n SampledProfile events of one
// thread, with no stacks.
func XperfSamples(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("BeginHeader\n" +
		"         SampledProfile,  TimeStamp,     Process Name ( PID),   ThreadID,           PrgrmCtr, CPU, ThreadStartImage!Function,            Image!Function, Count, SampledProfile type\n" +
		"EndHeader\n")
	for i := range n {
		fmt.Fprintf(bw, "SampledProfile, %d, app.exe (42), 7, 0x00007ff600001000, 0, app.exe!wmainCRTStartup, app.exe!Hash, 1, Unbatched\n", 1000+i)
	}
	return bw.Flush()
}

// Deep stacks of distinct frames: one stack n frames deep whose every
// frame is a function of its own name (f0, f1, ...).

// FoldedDeep writes folded stacks: one line of n distinct frames, count 1.
func FoldedDeep(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	for d := range n {
		if d > 0 {
			bw.WriteByte(';')
		}
		fmt.Fprintf(bw, "f%d", d)
	}
	bw.WriteString(" 1\n")
	return bw.Flush()
}

// PerfScriptDeep writes `perf script` output of one sample whose stack is
// n distinct frames.
func PerfScriptDeep(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString("app 42/42 [000] 1.000000: 1000000 cpu-clock:u:\n")
	for d := n - 1; d >= 0; d-- {
		fmt.Fprintf(bw, "\t    %x f%d (/app)\n", 0x400000+d, d)
	}
	bw.WriteString("\n")
	return bw.Flush()
}

// CpuprofileDeep writes a .cpuprofile whose call tree is one chain of n
// distinct functions below (root), its deepest node sampled twice.
func CpuprofileDeep(w io.Writer, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""}}`)
	for d := 1; d <= n; d++ {
		fmt.Fprintf(bw, `,{"id":%d,"parent":%d,"callFrame":{"functionName":"f%d","url":"a.js"}}`, d+1, d, d)
	}
	fmt.Fprintf(bw, `],"startTime":0,"endTime":2000,"samples":[%d,%d],"timeDeltas":[0,1000]}`, n+1, n+1)
	return bw.Flush()
}

// list writes n copies of item separated by commas.
func list(bw *bufio.Writer, n int, item string) error {
	for i := range n {
		if i > 0 {
			bw.WriteByte(',')
		}
		if _, err := bw.WriteString(item); err != nil {
			return err
		}
	}
	return nil
}
