package main

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/report"
	"github.com/ctdiff/ctdiff/tools/hostile"
)

// mergeInput makes the samples of mergeInputs: sample i has thread
// i%3, one of five stacks, and a time out of order with many ties.
func mergeInput(n int, sample func(i, thread, stack int, ms int64) string) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(sample(i, i%3, (i*7)%5, int64((i*7919)%97)))
	}
	return b.String()
}

var mergeStacks = [5][]string{{"main", "a"}, {"main", "b"}, {"main", "a", "c"}, {"main"}, {"main", "b", "a"}}

// TestMergeSamplesSameTree reads inputs whose samples interleave threads
// and stacks, out of time order, with equal times, and builds their tree
// from the samples one by one and from the samples merged as they are
// read (convert.Options.MergeSamples, which cct and diff use without
// latency inference): the trees, their node order included, are the same.
func TestMergeSamplesSameTree(t *testing.T) {
	perf := mergeInput(300, func(i, th, st int, ms int64) string {
		var b strings.Builder
		fmt.Fprintf(&b, "app 1/%d [000] 1.%06d: 1000 cpu-clock:\n", th+1, ms*1000)
		s := mergeStacks[st]
		for k := len(s) - 1; k >= 0; k-- {
			fmt.Fprintf(&b, "\t%x %s (/app)\n", 0x400+k, s[k])
		}
		return b.String() + "\n"
	})
	wpa := "Process Name, Display Name, Process, Stack, Module, Function, Address, Thread ID, CPU, Weight, % Weight, Count, TimeStamp\n" +
		mergeInput(300, func(i, th, st int, ms int64) string {
			return fmt.Sprintf("app.exe, app.exe, app.exe (42), [Root]/app.exe!%s, app.exe, x, 0x1, %d, 0, 1.000000, 0.01, 1, %d.%03d\n",
				strings.Join(mergeStacks[st], "/app.exe!"), th+7, ms/1000, ms%1000)
		})
	// PerfView: stack 0 is ROOT; thread t's pseudo-frame is stack 1+t; a
	// stack s of thread t is 10+10*t+s, a chain below its thread.
	var pv strings.Builder
	pv.WriteString(`<StackWindow><StackSource><Frames Count="9"><Frame ID="0">ROOT</Frame>` +
		`<Frame ID="1">Thread (1) CPU=1ms</Frame><Frame ID="2">Thread (2) CPU=1ms</Frame><Frame ID="3">Thread (3) CPU=1ms</Frame>` +
		`<Frame ID="4">main</Frame><Frame ID="5">a</Frame><Frame ID="6">b</Frame><Frame ID="7">c</Frame><Frame ID="8">d</Frame></Frames><Stacks Count="18">` +
		`<Stack ID="0" CallerID="-1" FrameID="0" />`)
	for th := range 3 {
		fmt.Fprintf(&pv, `<Stack ID="%d" CallerID="0" FrameID="%d" />`, 1+th, 1+th)
		for s := range 5 {
			caller := 1 + th
			if s > 0 {
				caller = 10 + 10*th + s - 1
			}
			fmt.Fprintf(&pv, `<Stack ID="%d" CallerID="%d" FrameID="%d" />`, 10+10*th+s, caller, 4+s)
		}
	}
	pv.WriteString(`</Stacks><Samples Count="300">`)
	pv.WriteString(mergeInput(300, func(i, th, st int, ms int64) string {
		return fmt.Sprintf(`<Sample ID="%d" Time="%d" StackID="%d" Metric="%d" />`, i, ms, 10+10*th+st, 1+i%2)
	}))
	pv.WriteString(`</Samples></StackSource></StackWindow>`)
	cpuprofile := func(deltas func(i int) int) string {
		var b strings.Builder
		b.WriteString(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""}}`)
		for k, name := range []string{"main", "a", "b", "c", "d"} {
			parent := 1
			if k > 0 {
				parent = 2 + (k-1)/2
			}
			fmt.Fprintf(&b, `,{"id":%d,"parent":%d,"callFrame":{"functionName":%q,"url":"a.js"}}`, k+2, parent, name)
		}
		b.WriteString(`],"startTime":0,"endTime":100000,"samples":[`)
		for i := range 300 {
			fmt.Fprintf(&b, "%s%d", map[bool]string{true: ",", false: ""}[i > 0], 2+(i*i+i/3)%5)
		}
		b.WriteString(`],"timeDeltas":[`)
		for i := range 300 {
			fmt.Fprintf(&b, "%s%d", map[bool]string{true: ",", false: ""}[i > 0], deltas(i))
		}
		return b.String() + "]}"
	}
	xperf := "BeginHeader\n" +
		"SampledProfile, TimeStamp, Process Name ( PID), ThreadID, PrgrmCtr, CPU, ThreadStartImage!Function, Image!Function, Count, SampledProfile type\n" +
		"Stack, TimeStamp, ThreadID, Image!Function\n" +
		"EndHeader\n" +
		mergeInput(300, func(i, th, st int, ms int64) string {
			s := mergeStacks[st]
			frames := make([]string, len(s))
			for k := range s {
				frames[len(s)-1-k] = "app.exe!" + s[k]
			}
			return fmt.Sprintf("SampledProfile, %d, app.exe (42), %d, 0x1000, 0, app.exe!start, %s, 1, Unbatched\nStack, %d, %d, %s\n",
				ms*1000, th+7, frames[0], ms*1000, th+7, strings.Join(frames, ", "))
		})
	dir := t.TempDir()
	for _, tc := range []struct{ name, content string }{
		{"perf.txt", perf},
		{"wpa.csv", wpa},
		{"xperf.txt", xperf},
		{"x.perfView.xml", pv.String()},
		{"steady.cpuprofile", cpuprofile(func(i int) int { return 100 + i%3*50 })},
		{"unsorted.cpuprofile", cpuprofile(func(i int) int { return 100 - i%7*40 })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, dir, tc.name, tc.content)
			tree := func(merge bool) (string, int) {
				res, err := convert.ReadFile(path, convert.Options{Stacks: true, MergeSamples: merge})
				if err != nil {
					t.Fatal(err)
				}
				n := res.Samples.Len()
				b := cct.NewBuilder(cct.Options{})
				if err := b.AddSamples(res.Samples); err != nil {
					t.Fatal(err)
				}
				var out bytes.Buffer
				if err := report.WriteTree(&out, b.Finish(), report.JSON, report.TreeOptions{View: "top-down"}); err != nil {
					t.Fatal(err)
				}
				return out.String(), n
			}
			one, n1 := tree(false)
			merged, n2 := tree(true)
			if merged != one {
				t.Errorf("the tree of the merged samples differs:\n%s\none by one:\n%s", merged, one)
			}
			if tc.name != "unsorted.cpuprofile" && n2 >= n1 {
				t.Errorf("%d samples merged into %d: not merged", n1, n2)
			}
		})
	}
}

// Samples kept one by one with their timestamps (convert, latency
// inference) are bounded by --max-samples: past it, each of the readers
// that would hold them all fails with one line naming the input and the
// flag; cct without --latency merges them and reads the same input.
func TestMaxSamples(t *testing.T) {
	dir := t.TempDir()
	gen := func(name string, write func(w io.Writer, n int) error) string {
		var b bytes.Buffer
		if err := write(&b, 11); err != nil {
			t.Fatal(err)
		}
		return writeFile(t, dir, name, b.String())
	}
	for _, in := range []string{
		gen("s.perf.txt", hostile.PerfScriptSamples),
		gen("s.wpa.csv", hostile.WPACSVRows),
		gen("s.xperf.txt", hostile.XperfSamples),
		gen("s.perfView.xml", hostile.PerfViewSamples),
		gen("s.cpuprofile", hostile.CpuprofileSamples),
	} {
		want := "ctdiff: " + in + ": more than 10 timestamped samples, the limit for samples kept one by one (raise it with --max-samples)\n"
		for _, args := range [][]string{
			{"convert", "--max-samples", "10", "-o", filepath.Join(dir, "out.pb.gz"), in},
			{"cct", "--max-samples", "10", "--latency", "conservative", in},
		} {
			if _, errOut, code := ctdiff(args...); code != 2 || errOut != want {
				t.Errorf("%v: exit %d, stderr %q, want 2 and %q", args, code, errOut, want)
			}
		}
		if _, errOut, code := ctdiff("cct", "--max-samples", "10", in); code != 0 {
			t.Errorf("cct %s: exit %d (%s), want 0: merged samples are not limited", in, code, errOut)
		}
		if _, errOut, code := ctdiff("convert", "--max-samples", "11", "-o", filepath.Join(dir, "out.pb.gz"), in); code != 0 {
			t.Errorf("convert --max-samples 11 %s: exit %d (%s), want 0", in, code, errOut)
		}
	}
}
