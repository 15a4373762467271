package convert

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/golden"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/google/pprof/profile"
)

// The fixtures in testdata/etw were written by hand from the documented
// formats (formats-etw-java-perf.md §1); see testdata/etw/README.md.

// etwDump writes a converted profile as text: one line per sample, stacks
// root first as function@file, with [SystemName] where it is not file!function.
func etwDump(p *profile.Profile) string {
	var sb strings.Builder
	var types []string
	for _, st := range p.SampleType {
		types = append(types, st.Type+"/"+st.Unit)
	}
	fmt.Fprintf(&sb, "sample types: %s (default %s)\n", strings.Join(types, ", "), p.DefaultSampleType)
	if p.PeriodType != nil {
		fmt.Fprintf(&sb, "period: %d %s/%s\n", p.Period, p.PeriodType.Type, p.PeriodType.Unit)
	}
	fmt.Fprintf(&sb, "time_nanos: %d, duration_nanos: %d\n", p.TimeNanos, p.DurationNanos)
	for _, c := range p.Comments {
		fmt.Fprintf(&sb, "comment: %s\n", c)
	}
	for _, s := range p.Sample {
		sb.WriteString("sample")
		for _, k := range []string{labels.Timestamp, labels.PID, labels.TID} {
			if v := s.NumLabel[k]; len(v) > 0 {
				fmt.Fprintf(&sb, " %s=%d", k, v[0])
			}
		}
		for _, k := range []string{labels.Process, labels.Thread} {
			if v := s.Label[k]; len(v) > 0 {
				fmt.Fprintf(&sb, " %s=%q", k, v[0])
			}
		}
		fmt.Fprintf(&sb, " values=%v\n   ", s.Value)
		for i := len(s.Location) - 1; i >= 0; i-- {
			fn := s.Location[i].Line[0].Function
			fmt.Fprintf(&sb, " %s@%s", fn.Name, fn.Filename)
			if fn.SystemName != fn.Name && fn.SystemName != fn.Filename+"!"+fn.Name {
				fmt.Fprintf(&sb, "[%s]", fn.SystemName)
			}
		}
		sb.WriteString("\n")
	}
	return sb.String()
}

// etwRoots returns each sample's stack root first, as "function@file;...".
func etwRoots(p *profile.Profile) []string {
	out := make([]string, len(p.Sample))
	for i, s := range p.Sample {
		var fs []string
		for j := len(s.Location) - 1; j >= 0; j-- {
			fn := s.Location[j].Line[0].Function
			fs = append(fs, fn.Name+"@"+fn.Filename)
		}
		out[i] = strings.Join(fs, ";")
	}
	return out
}

// etwCheckThreadOrder fails unless every thread's samples are in
// non-decreasing timestamp order.
func etwCheckThreadOrder(t testing.TB, p *profile.Profile) {
	t.Helper()
	last := map[string]int64{}
	for i, s := range p.Sample {
		ts := s.NumLabel[labels.Timestamp]
		if len(ts) == 0 {
			continue
		}
		k := fmt.Sprint(s.Label[labels.Process], s.Label[labels.Thread], s.NumLabel[labels.PID], s.NumLabel[labels.TID])
		if prev, ok := last[k]; ok && ts[0] < prev {
			t.Fatalf("sample %d of thread %s at %d ns comes after one at %d ns", i, k, ts[0], prev)
		}
		last[k] = ts[0]
	}
}

func etwSum(p *profile.Profile, i int) int64 {
	var n int64
	for _, s := range p.Sample {
		n += s.Value[i]
	}
	return n
}

// etwGoldenFiles converts fixtures and compares their dumps (and warnings)
// with testdata/etw/NAME.golden.
func etwGoldenFiles(t *testing.T, names ...string) {
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			res, err := ReadFile(filepath.Join("testdata", "etw", name), Options{})
			if err != nil {
				t.Fatal(err)
			}
			etwCheckThreadOrder(t, res.Profile)
			got := etwDump(res.Profile)
			for _, w := range res.Warnings {
				got += "warning: " + w + "\n"
			}
			golden.CheckString(t, "testdata/etw/"+name+".golden", got)
		})
	}
}

func TestETWFrame(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want stackFrame
	}{
		{"val3.exe!_allmul", stackFrame{Name: "_allmul", SystemName: "val3.exe!_allmul", File: "val3.exe"}},
		{"client.dll!CInterpolatedVarArrayBase<Vector,0>::NoteChanged",
			stackFrame{Name: "CInterpolatedVarArrayBase<Vector,0>::NoteChanged", SystemName: "client.dll!CInterpolatedVarArrayBase<Vector,0>::NoteChanged", File: "client.dll"}},
		{"ntoskrnl.exe!0x81ceec6f", stackFrame{Name: "ntoskrnl.exe!0x81ceec6f", File: "ntoskrnl.exe"}},
		{"nvlddmkm.sys!?", stackFrame{Name: "nvlddmkm.sys!?", File: "nvlddmkm.sys"}},
		{"?!?", stackFrame{Name: "?!?"}},
		{`C:\Windows\System32\ntdll.dll!TppWorkerThread`,
			stackFrame{Name: "TppWorkerThread", SystemName: `C:\Windows\System32\ntdll.dll!TppWorkerThread`, File: "ntdll.dll"}},
		{`C:\x\app.dll!0x1000`, stackFrame{Name: "app.dll!0x1000", SystemName: `C:\x\app.dll!0x1000`, File: "app.dll"}},
		{"game![QuickJitted]Game.Step(float64)", stackFrame{Name: "Game.Step(float64)", SystemName: "game![QuickJitted]Game.Step(float64)", File: "game"}},
		{"Unknown", stackFrame{Name: "Unknown"}},
		{"operator<(a!b)", stackFrame{Name: "operator<(a!b)"}},
		{"  BLOCKED_TIME ", stackFrame{Name: "BLOCKED_TIME"}},
	} {
		if got := etwFrame(tc.in); got != tc.want {
			t.Errorf("etwFrame(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestETWFixed(t *testing.T) {
	for _, tc := range []struct {
		in    string
		scale int
		want  int64
		ok    bool
	}{
		{"9.771723102", 9, 9771723102, true},
		{"1.001237", 6, 1001237, true},
		{"0.000", 6, 0, true},
		{"1.195", 6, 1195000, true},
		{"1,001.5", 6, 1001500000, true},
		{"-2.5", 6, -2500000, true},
		{".5", 3, 500, true},
		{"1.0000005", 6, 1000001, true},
		{"1.0000004", 6, 1000000, true},
		{"10", 6, 10000000, true},
		{"1e-3", 9, 1000000, true},
		{"1,5", 6, 0, false},
		{"1,0000", 6, 0, false},
		{"", 6, 0, false},
		{".", 6, 0, false},
		{"abc", 6, 0, false},
		{"1.2.3", 6, 0, false},
		{"99999999999999999999", 0, 0, false},
		{"NaN", 6, 0, false},
	} {
		got, ok := etwFixed(tc.in, tc.scale)
		if got != tc.want || ok != tc.ok {
			t.Errorf("etwFixed(%q, %d) = %d, %v; want %d, %v", tc.in, tc.scale, got, ok, tc.want, tc.ok)
		}
	}
}

func TestETWAlign(t *testing.T) {
	for _, tc := range []struct {
		line     string
		absorb   []bool
		fallback int
		want     []string
	}{
		{ // the dota.exe line of UIforETW's example: a comma in a template argument list
			"SampledProfile, 36765, dota.exe (  56), 3044, 0x551ea026, 3, dota.exe!WinMainCRTStartup, client.dll!CInterpolatedVarArrayBase<Vector,0>::NoteChanged, 1, Unbatched",
			[]bool{false, false, true, false, false, false, true, true, false, false}, 7,
			[]string{"SampledProfile", "36765", "dota.exe (  56)", "3044", "0x551ea026", "3", "dota.exe!WinMainCRTStartup", "client.dll!CInterpolatedVarArrayBase<Vector,0>::NoteChanged", "1", "Unbatched"},
		},
		{ // no brackets to go by: the extras go to the fallback column
			"P-DCStart, 100, a.exe (1), \"a.exe\" -x 1, -y, fast",
			[]bool{false, false, true, true}, 3,
			[]string{"P-DCStart", "100", "a.exe (1)", "\"a.exe\" -x 1, -y, fast"},
		},
		{
			"a, b",
			[]bool{false, true}, 1,
			[]string{"a", "b"},
		},
	} {
		got, ok := etwAlign(strings.Split(tc.line, ","), ",", tc.absorb, tc.fallback)
		if !ok || !slices.Equal(got, tc.want) {
			t.Errorf("etwAlign(%q) = %q, %v; want %q", tc.line, got, ok, tc.want)
		}
	}
	if _, ok := etwAlign([]string{"a"}, ",", []bool{false, false}, 1); ok {
		t.Error("etwAlign accepted fewer fields than columns")
	}
}

func TestETWProcess(t *testing.T) {
	for _, tc := range []struct {
		in   string
		name string
		pid  int64
		ok   bool
	}{
		{"dota.exe (  56)", "dota.exe", 56, true},
		{"val3.exe (4144)", "val3.exe", 4144, true},
		{"Idle (   0)", "Idle", 0, true},
		{"Unknown (  -1)", "Unknown", -1, true},
		{"My App (x86) (12)", "My App (x86)", 12, true},
		{"no pid", "no pid", 0, false},
		{"bad (x)", "bad (x)", 0, false},
	} {
		name, pid, ok := etwProcess(tc.in)
		if name != tc.name || pid != tc.pid || ok != tc.ok {
			t.Errorf("etwProcess(%q) = %q, %d, %v; want %q, %d, %v", tc.in, name, pid, ok, tc.name, tc.pid, tc.ok)
		}
	}
}

// TestETWCRLF reads the text fixtures with Windows line ends and a UTF-8
// byte-order mark, as Windows tools write them: the result is the same.
func TestETWCRLF(t *testing.T) {
	for _, name := range []string{"xperf-classic.txt", "xperf-compact.txt", "wpa-ctdiff.csv", "wpa-fulltable.csv", "perfview-cpu.perfView.xml"} {
		data, err := os.ReadFile(filepath.Join("testdata", "etw", name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := Read(strings.NewReader(string(data)), name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		crlf := "\xef\xbb\xbf" + strings.ReplaceAll(string(data), "\n", "\r\n")
		got, err := Read(strings.NewReader(crlf), name, Options{})
		if err != nil {
			t.Fatalf("%s with CRLF: %v", name, err)
		}
		if g, w := etwDump(got.Profile), etwDump(want.Profile); g != w {
			t.Errorf("%s with CRLF:\n%s\nwant:\n%s", name, g, w)
		}
	}
}
