package convert

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/labels"
)

// The xperf fixtures (testdata/etw/xperf-*.txt) were written by hand from
// the dumper layout in formats-etw-java-perf.md §1.1: no complete real dump
// is public.

func TestXperfGolden(t *testing.T) {
	etwGoldenFiles(t, "xperf-classic.txt", "xperf-compact.txt")
}

func TestXperfClassic(t *testing.T) {
	res, err := ReadFile(filepath.Join("testdata", "etw", "xperf-classic.txt"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "xperf" {
		t.Fatalf("sniffed as %s, want xperf", res.Format)
	}
	p := res.Profile
	etwCheckThreadOrder(t, p)
	want := []string{
		// stack lines right after the sample
		"main@game.exe;Frame@game.exe;Update@game.exe",
		// kernel fragment at once, user fragment (with commas) after other events: kernel frames are the leaf side
		"main@game.exe;Frame@game.exe;std::vector<Vec3,std::allocator<Vec3> >::push_back@game.exe;KiPageFault@ntoskrnl.exe;MmAccessFault@ntoskrnl.exe",
		// stack lines that arrive after two later samples
		"TppWorkerThread@ntdll.dll;Worker@game.exe",
		// no Stack line at all: kept with its sampled frame
		"Spin@game.exe",
		// the Idle process
		"KiIdleLoop@ntoskrnl.exe",
		// commas in the SampledProfile's frame and the stack's, and an unsymbolized frame
		"main@game.exe;Frame@game.exe;client.dll!0x00007ff6b0002000@client.dll;CInterpolatedVarArrayBase<Vector,0>::NoteChanged@client.dll",
	}
	if got := etwRoots(p); !slices.Equal(got, want) {
		t.Errorf("stacks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantThreads := []string{"game.exe!mainCRTStartup", "game.exe!mainCRTStartup", "ntdll.dll!TppWorkerThread", "game.exe!mainCRTStartup", "CPU 1", "game.exe!mainCRTStartup"}
	for i, s := range p.Sample {
		if got := s.Label[labels.Thread]; len(got) != 1 || got[0] != wantThreads[i] {
			t.Errorf("sample %d: thread %q, want %q", i, got, wantThreads[i])
		}
		// ProfileFreq-SetInterval New Interval 5000 (100 ns units) = 0.5 ms per sample
		if s.Value[0] != 1 || s.Value[1] != 500_000 {
			t.Errorf("sample %d: values %v, want [1 500000]", i, s.Value)
		}
	}
	if got := p.Sample[4].Label[labels.Process]; len(got) != 1 || got[0] != "Idle" {
		t.Errorf("Idle sample: process %q", got)
	}
	if got := p.Sample[0].NumLabel[labels.PID]; len(got) != 1 || got[0] != 1234 {
		t.Errorf("pid %v, want 1234", got)
	}
	if got := p.Sample[5].NumLabel[labels.Timestamp]; len(got) != 1 || got[0] != 4_000_000 {
		t.Errorf("timestamp %v, want 4000000 ns (4000 µs)", got)
	}
	// Trace Start 132675686690347142 (FILETIME) is 2021-06-07T19:44:29.0347142Z.
	if p.TimeNanos != 1623095069034714200 {
		t.Errorf("TimeNanos %d", p.TimeNanos)
	}
	for _, w := range []string{
		"1 of 6 SampledProfile events have no Stack lines",
		"1 samples of the Idle process are kept",
		"2 Stack lines match no SampledProfile event",
	} {
		if !slices.ContainsFunc(res.Warnings, func(s string) bool { return strings.Contains(s, w) }) {
			t.Errorf("no warning %q in %q", w, res.Warnings)
		}
	}
}

func TestXperfCompact(t *testing.T) {
	res, err := ReadFile(filepath.Join("testdata", "etw", "xperf-compact.txt"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Profile
	want := []string{
		"RtlUserThreadStart@ntdll.dll;BaseThreadInitThunk@kernel32.dll;wmain@app.exe;Index<std::pair<int,int>,Table>::Build@app.exe;Hash@app.exe",
		// the user fragment came first in the file; the kernel fragment is still the leaf side
		"RtlUserThreadStart@ntdll.dll;BaseThreadInitThunk@kernel32.dll;wmain@app.exe;Index<std::pair<int,int>,Table>::Build@app.exe;" +
			"WaitForSingleObjectEx@KERNELBASE.dll;NtWaitForSingleObject@ntdll.dll;" +
			"KiSystemServiceCopyEnd@ntoskrnl.exe;NtWaitForSingleObject@ntoskrnl.exe;KeWaitForSingleObject@ntoskrnl.exe",
		"RtlUserThreadStart@ntdll.dll;BaseThreadInitThunk@kernel32.dll;ThreadProc@app.exe;Hash@app.exe",
	}
	if got := etwRoots(p); !slices.Equal(got, want) {
		t.Errorf("stacks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := p.Sample[2].Value; got[0] != 2 || got[1] != 2_000_000 {
		t.Errorf("Count 2 at the default 1 ms: values %v", got)
	}
	if !slices.ContainsFunc(res.Warnings, func(s string) bool { return strings.Contains(s, "no ProfileFreq event") }) {
		t.Errorf("no warning about the assumed interval: %q", res.Warnings)
	}
	if !slices.ContainsFunc(p.Comments, func(s string) bool { return strings.Contains(s, "1 ms") }) {
		t.Errorf("the comments do not state the assumed interval: %q", p.Comments)
	}
}

// TestXperfNoHeader reads dumper lines without a header block (excerpts as
// people paste them): the usual layouts apply and both Stack layouts are
// told apart line by line.
func TestXperfNoHeader(t *testing.T) {
	in := `SampledProfile,      36765,      svchost.exe (1100),       1668, 0x81c3617b,   0,      sechost.dll!ScSvcctrlThreadW,     halmacpi.dll!0x81c3617b,     1, Unbatched
SampledProfile,      36765,         dota.exe (  56),       3044, 0x551ea026,   3,         dota.exe!WinMainCRTStartup,       client.dll!CInterpolatedVarArrayBase<Vector,0>::NoteChanged,     1, Unbatched
			 Stack,      36765,       1668,   1, 0x81c3617b,     halmacpi.dll!0x81c3617b
			 Stack,      36765,       1668,   2, 0x81ceec6f,     ntoskrnl.exe!0x81ceec6f
			 Stack,      36765,       3044, client.dll!CInterpolatedVarArrayBase<Vector,0>::NoteChanged, dota.exe!WinMain
`
	res, err := Read(strings.NewReader(in), "excerpt.txt", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"ntoskrnl.exe!0x81ceec6f@ntoskrnl.exe;halmacpi.dll!0x81c3617b@halmacpi.dll",
		"WinMain@dota.exe;CInterpolatedVarArrayBase<Vector,0>::NoteChanged@client.dll",
	}
	if got := etwRoots(res.Profile); !slices.Equal(got, want) {
		t.Errorf("stacks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := res.Profile.Sample[0].Label[labels.Thread]; len(got) != 1 || got[0] != "sechost.dll!ScSvcctrlThreadW" {
		t.Errorf("thread %q, want the ThreadStartImage!Function", got)
	}
}

func TestXperfErrors(t *testing.T) {
	header := "BeginHeader\n" +
		"SampledProfile, TimeStamp, Process Name ( PID), ThreadID, PrgrmCtr, CPU, ThreadStartImage!Function, Image!Function, Count, SampledProfile type\n" +
		"Stack, TimeStamp, ThreadID, No., Address, Image!Function\n" +
		"ProfileFreq-SetInterval, TimeStamp, Process Name ( PID), ThreadID, Source, New Interval, Old Interval\n" +
		"EndHeader\n"
	sample := "SampledProfile, 10, a.exe (1), 2, 0x10, 0, a.exe!start, a.exe!f, 1, Unbatched\n"
	for _, tc := range []struct{ name, in, want string }{
		{"timestamp", header + "SampledProfile, 1x0, a.exe (1), 2, 0x10, 0, a.exe!start, a.exe!f, 1, Unbatched\n",
			`in.txt: line 6: SampledProfile: expected an integer TimeStamp (µs), found "1x0"`},
		{"negative timestamp", header + "SampledProfile, -5, a.exe (1), 2, 0x10, 0, a.exe!start, a.exe!f, 1, Unbatched\n",
			"in.txt: line 6: SampledProfile: expected a TimeStamp in µs from the start of the trace, found -5"},
		{"short sample", header + "SampledProfile, 10, a.exe (1), 2\n",
			"in.txt: line 6: SampledProfile: expected 10 comma-separated fields as declared by its header at line 2, found 4"},
		{"count", header + "SampledProfile, 10, a.exe (1), 2, 0x10, 0, a.exe!start, a.exe!f, -1, Unbatched\n",
			"in.txt: line 6: SampledProfile: expected a Count from 0 to 1048576, found -1"},
		{"frame number", header + sample + "Stack, 10, 2, one, 0x10, a.exe!f\n",
			`in.txt: line 7: Stack: expected an integer frame number (No.), found "one"`},
		{"short stack", header + sample + "Stack, 10, 2, a.exe!f\n",
			"in.txt: line 7: Stack: expected 6 comma-separated fields as declared by its header at line 3, found 4 (a compact several-frames line where numbered frames were declared?)"},
		{"interval", header + "ProfileFreq-SetInterval, 5, Unknown (-1), 0, Timer, 0, 10000\n" + sample,
			"in.txt: line 6: ProfileFreq-SetInterval: expected an interval from 1 to 1073741824 (100 ns units), found 0"},
		{"unclosed header", "BeginHeader\nSampledProfile, TimeStamp, ThreadID\n",
			"in.txt: line 2: expected EndHeader to close the BeginHeader at line 1, found the end of the input"},
		{"missing column", "BeginHeader\nSampledProfile, TimeStamp, Process Name ( PID), Image!Function\nEndHeader\nSampledProfile, 10, a.exe (1), a.exe!f\n",
			"in.txt: line 4: SampledProfile: no ThreadID column in its header at line 2"},
		{"compact tid", "Stack, 10, x, a.exe!f, a.exe!g\n" + sample,
			`in.txt: line 1: Stack: expected an integer ThreadID, found "x"`},
		{"no samples", header + "Stack, 10, 2, 1, 0x10, a.exe!f\n",
			"in.txt: no samples: the xperf dump holds no SampledProfile events (record with the PROFILE kernel flag and -stackwalk Profile)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), "in.txt", Options{From: "xperf"})
			if err == nil || err.Error() != tc.want {
				t.Errorf("error:\n%v\nwant:\n%s", err, tc.want)
			}
		})
	}
}

func TestXperfSniff(t *testing.T) {
	for _, tc := range []struct {
		head string
		want bool
	}{
		{"BeginHeader\n  SampledProfile, TimeStamp\n", true},
		{"\r\nBeginHeader\r\n", true},
		{"SampledProfile,      36765,      svchost.exe (1100),", true},
		{"   Stack, 1, 2, 3", true},
		{"a;b;c 1\n", false},
		{"Process Name, Stack, Weight\n", false},
	} {
		if got := sniffXperf([]byte(tc.head)); got != tc.want {
			t.Errorf("sniffXperf(%q) = %v", tc.head, got)
		}
	}
}

// xperfSynthetic writes a dump of n samples, each with a six-frame user
// stack that arrives after the next sample (no -stacktimeshifting) and a
// context-switch stack line that belongs to no sample.
func xperfSynthetic(n int) string {
	var sb strings.Builder
	sb.WriteString("BeginHeader\n" +
		"SampledProfile, TimeStamp, Process Name ( PID), ThreadID, PrgrmCtr, CPU, ThreadStartImage!Function, Image!Function, Count, SampledProfile type\n" +
		"Stack, TimeStamp, ThreadID, No., Address, Image!Function\nEndHeader\n")
	stack := func(ts, tid int) {
		for d := 1; d <= 6; d++ {
			if d == 3 { // one frame in six has a comma in its name
				fmt.Fprintf(&sb, "Stack, %d, %d, %d, 0x%x, app.exe!f%d<int,%d>\n", ts, tid, d, 0x7ff600000000+int64(d)*16, (ts+d)%40, d)
				continue
			}
			fmt.Fprintf(&sb, "Stack, %d, %d, %d, 0x%x, app.exe!f%d\n", ts, tid, d, 0x7ff600000000+int64(d)*16, (ts+d)%40)
		}
	}
	for i := 0; i < n; i++ {
		ts, tid := 1000+i*1000, 100+i%4
		fmt.Fprintf(&sb, "SampledProfile, %d, app.exe (7), %d, 0x7ff600000010, %d, app.exe!main, app.exe!f0, 1, Unbatched\n", ts, tid, i%8)
		fmt.Fprintf(&sb, "Stack, %d, %d, 1, 0xfffff80000001000, ntoskrnl.exe!KiSwapContext\n", ts+1, tid)
		if i > 0 {
			stack(ts-1000, 100+(i-1)%4)
		}
	}
	stack(1000+(n-1)*1000, 100+(n-1)%4)
	return sb.String()
}

func TestXperfSynthetic(t *testing.T) {
	res, err := Read(strings.NewReader(xperfSynthetic(1000)), "synthetic.txt", Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Profile
	if len(p.Sample) != 1000 {
		t.Fatalf("%d samples, want 1000", len(p.Sample))
	}
	for i, s := range p.Sample {
		if len(s.Location) != 6 {
			t.Fatalf("sample %d has %d frames, want 6 (its late stack was not joined)", i, len(s.Location))
		}
	}
	if got := etwSum(p, 1); got != 1000*xperfDefaultInterval {
		t.Errorf("cpu sum %d", got)
	}
	etwCheckThreadOrder(t, p)
}

func FuzzXperf(f *testing.F) {
	for _, name := range []string{"xperf-classic.txt", "xperf-compact.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", "etw", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(xperfSynthetic(3)))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Read(strings.NewReader(string(data)), "fuzz.txt", Options{From: "xperf"})
		CheckRead(t, "fuzz.txt", res, err)
		if err != nil {
			var se *SyntaxError
			if errors.As(err, &se) && !strings.HasPrefix(se.Where, "line ") {
				t.Fatalf("syntax error without a line: %v", err)
			}
			return
		}
		etwCheckThreadOrder(t, res.Profile)
		for _, s := range res.Profile.Sample {
			if len(s.Location) == 0 {
				t.Fatal("a sample without frames")
			}
			// cpu = Count × a positive interval
			if s.Value[0] > 0 && (s.Value[1] <= 0 || s.Value[1]%s.Value[0] != 0) {
				t.Fatalf("values %v are not Count × interval", s.Value)
			}
		}
	})
}

func BenchmarkXperf(b *testing.B) {
	data := xperfSynthetic(20000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(strings.NewReader(data), "bench.txt", Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
