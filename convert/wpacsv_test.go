package convert

import (
	"bufio"
	"encoding/xml"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/google/pprof/profile"
)

// The WPA fixtures (testdata/etw/wpa-*.csv) were written by hand from the
// export format in formats-etw-java-perf.md §1.2; the real export is the
// corpus file tested below.

func TestWPACSVGolden(t *testing.T) {
	etwGoldenFiles(t, "wpa-ctdiff.csv", "wpa-fulltable.csv")
}

// TestWPACSVCorpus converts gprof2dot's real export: 5,045 rows of one
// thread, 5,045.1 ms of weight, rows not in time order.
func TestWPACSVCorpus(t *testing.T) {
	path := corpus.Path(t, "etw/gprof2dot-val3_xperf.wpa-cpu-sampled.csv")
	res, err := ReadFile(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "wpacsv" {
		t.Fatalf("sniffed as %s", res.Format)
	}
	p := res.Profile

	// An independent reading of the file: split on ", " as gprof2dot does.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	sc.Scan()
	var rows int
	var weightMS float64
	minTS, maxTS := math.Inf(1), math.Inf(-1)
	for sc.Scan() {
		fields := strings.Split(sc.Text(), ", ")
		w, _ := strconv.ParseFloat(fields[9], 64)
		ts, _ := strconv.ParseFloat(fields[12], 64)
		weightMS += w
		minTS, maxTS = min(minTS, ts), max(maxTS, ts)
		rows++
	}

	if len(p.Sample) != 5045 || rows != 5045 {
		t.Fatalf("%d samples from %d rows, want 5045", len(p.Sample), rows)
	}
	cpu := float64(etwSum(p, 1)) / 1e6
	if math.Abs(cpu-weightMS) > 1e-6 || math.Abs(cpu-5045.1) > 0.05 {
		t.Errorf("cpu total %.6f ms, want the file's Weight total %.6f ms (5,045.1)", cpu, weightMS)
	}
	if got := etwSum(p, 0); got != 5045 {
		t.Errorf("sample count total %d, want 5045", got)
	}
	for i, s := range p.Sample {
		if tid := s.NumLabel[labels.TID]; len(tid) != 1 || tid[0] != 5104 {
			t.Fatalf("sample %d: tid %v, want 5104", i, tid)
		}
		if pid := s.NumLabel[labels.PID]; len(pid) != 1 || pid[0] != 4144 {
			t.Fatalf("sample %d: pid %v, want 4144", i, pid)
		}
		if proc := s.Label[labels.Process]; len(proc) != 1 || proc[0] != "val3.exe" {
			t.Fatalf("sample %d: process %q, want val3.exe", i, proc)
		}
	}
	etwCheckThreadOrder(t, p)
	first, last := p.Sample[0].NumLabel[labels.Timestamp][0], p.Sample[len(p.Sample)-1].NumLabel[labels.Timestamp][0]
	if first != int64(math.Round(minTS*1e9)) || last != int64(math.Round(maxTS*1e9)) {
		t.Errorf("timestamps run %d..%d ns, want %.9f..%.9f s", first, last, minTS, maxTS)
	}
	// The first row of the file, TimeStamp 9.771723102, weight 1.001237 ms.
	i := slices.IndexFunc(p.Sample, func(s *profile.Sample) bool { return s.NumLabel[labels.Timestamp][0] == 9771723102 })
	if i < 0 {
		t.Fatal("no sample at 9.771723102 s")
	}
	want := "_RtlUserThreadStart@ntdll.dll;__RtlUserThreadStart@ntdll.dll;BaseThreadInitThunk@kernel32.dll;__tmainCRTStartup@val3.exe;main@val3.exe;_allmul@val3.exe"
	if got := etwRoots(p)[i]; got != want || p.Sample[i].Value[1] != 1_001_237 {
		t.Errorf("sample at 9.771723102 s: %s %v\nwant %s [1 1001237]", got, p.Sample[i].Value, want)
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings: %q", res.Warnings)
	}
}

// TestWPAProfile checks the shipped export profile: one ungrouped row per
// sample with exactly the columns ctdiff reads, Stack last, and that a CSV
// with those columns is recognised and read.
func TestWPAProfile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "testdata", "wpa", "ctdiff-cpu-sampled.wpaProfile"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Presets []struct {
			Keys    string `xml:"KeyColumnCount,attr"`
			Columns []struct {
				Name    string `xml:"Name,attr"`
				Visible string `xml:"IsVisible,attr"`
			} `xml:"Columns>Column"`
		} `xml:"Content>Views>View>Graphs>Graph>Preset"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Presets) != 1 || doc.Presets[0].Keys != "0" {
		t.Fatalf("want one preset without key (grouping) columns, got %+v", doc.Presets)
	}
	var cols []string
	for _, c := range doc.Presets[0].Columns {
		if c.Visible == "true" {
			cols = append(cols, c.Name)
		}
	}
	want := []string{"TimeStamp", "Process", "Thread ID", "CPU", "Weight", "Count", "Stack"}
	if !slices.Equal(cols, want) {
		t.Fatalf("visible columns %q, want %q", cols, want)
	}
	csv := strings.Join(cols, ", ") + "\n2.000000001, a.exe (1), 2, 0, 1.000000, 1, [Root]/a.exe!main/a.exe!f<int, int>\n"
	res, err := Read(strings.NewReader(csv), "export.csv", Options{})
	if err != nil || res.Format != "wpacsv" {
		t.Fatalf("a CSV with the profile's columns: %v (format %v)", err, res)
	}
	if got := etwRoots(res.Profile)[0]; got != "main@a.exe;f<int, int>@a.exe" {
		t.Errorf("stack %s", got)
	}
}

func TestWPACSVErrors(t *testing.T) {
	const header = "TimeStamp, Process, Thread ID, CPU, Weight, Count, Stack\n"
	for _, tc := range []struct{ name, in, want string }{
		{"timestamp", header + "1.5s, a.exe (1), 2, 0, 1.0, 1, [Root]/a.exe!f\n",
			`in.csv: line 2: TimeStamp: expected a non-negative number of s, found "1.5s"`},
		{"decimal comma", header + "1.5, a.exe (1), 2, 0, 1,0, 1, [Root]/a.exe!f\n",
			`in.csv: line 2: Weight: expected a number of ms, found "1,0"`},
		{"short row", header + "\n1.5, a.exe (1), 2\n",
			`in.csv: line 3: expected 7 fields separated by ", " as in the header, found 3`},
		{"thread id", header + "1.5, a.exe (1), two, 0, 1.0, 1, [Root]/a.exe!f\n",
			`in.csv: line 2: Thread ID: expected an integer, found "two"`},
		{"count", header + "1.5, a.exe (1), 2, 0, 1.0, -1, [Root]/a.exe!f\n",
			`in.csv: line 2: Count: expected an integer from 0 to 1099511627776, found "-1"`},
		{"no stack column", "TimeStamp, Process, Thread ID, Weight, Count\n1, a (1), 2, 1, 1\n",
			"in.csv: line 1: expected a Stack column in the header, found: TimeStamp, Process, Thread ID, Weight, Count"},
		{"unit", "TimeStamp (min), Process, Thread ID, Weight, Count, Stack\n",
			`in.csv: line 1: timestamp: expected a time unit (s, ms, us or ns) in the column name, found "min"`},
		{"unclosed quote", `"TimeStamp","Process","Thread ID","Weight","Count","Stack"` + "\n" + `"1.0","a (1)","2","1.0","1","[Root]/a!f` + "\n",
			"in.csv: line 2: expected a closing quote for the field at column 29"},
		{"no rows", header,
			"in.csv: no samples: the WPA CSV has a header but no rows"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), "in.csv", Options{From: "wpacsv"})
			if err == nil || err.Error() != tc.want {
				t.Errorf("error:\n%v\nwant:\n%s", err, tc.want)
			}
		})
	}
}

// TestWPACSVQuoted reads an export that quotes its fields and names units.
func TestWPACSVQuoted(t *testing.T) {
	in := `"TimeStamp (ms)","Process","Thread ID","CPU","Weight (us)","Count","Stack"` + "\n" +
		`"2.5","a.exe (1)","2","0","500","1","[Root]/a.exe!main/a.exe!Sum<int, ""x"">"` + "\n" +
		`"1.5","a.exe (1)","2","0","250","1","[Root]/a.exe!main"` + "\n"
	res, err := Read(strings.NewReader(in), "q.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Profile
	if got := etwRoots(p); !slices.Equal(got, []string{"main@a.exe", `main@a.exe;Sum<int, "x">@a.exe`}) {
		t.Errorf("stacks %q", got)
	}
	if got := p.Sample[0].NumLabel[labels.Timestamp][0]; got != 1_500_000 {
		t.Errorf("timestamp %d ns, want 1500000 (1.5 ms)", got)
	}
	if got := etwSum(p, 1); got != 750_000 {
		t.Errorf("cpu %d ns, want 750000 (750 µs)", got)
	}
}

// TestWPACSVNoTimestamp reads UIforETW's export columns (Process, Thread ID,
// Stack): samples without time, with a warning.
func TestWPACSVNoTimestamp(t *testing.T) {
	in := "Process, Thread ID, Count, Stack\na.exe (1), 2, 3, [Root]/a.exe!main/<PDB_not_found>\n"
	res, err := Read(strings.NewReader(in), "u.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Profile
	if _, ok := p.Sample[0].NumLabel[labels.Timestamp]; ok {
		t.Error("a timestamp without a TimeStamp column")
	}
	if got := p.Sample[0].Value; got[0] != 3 || got[1] != 3_000_000 {
		t.Errorf("values %v, want [3 3000000]", got)
	}
	if len(res.Warnings) != 2 {
		t.Errorf("warnings %q, want one about TimeStamp and one about Weight", res.Warnings)
	}
}

func TestWPACSVSniff(t *testing.T) {
	for _, tc := range []struct {
		head string
		want bool
	}{
		{"Process Name, Display Name, Process, Stack, Module, Function, Address, Thread ID, CPU, Weight, % Weight, Count, TimeStamp\n", true},
		{"TimeStamp, Process, Thread ID, CPU, Weight, Count, Stack\n", true},
		{"\xef\xbb\xbf\"TimeStamp (s)\",\"Process\",\"Thread ID\",\"Weight (ms)\",\"Stack\"\n", true},
		{"Process, Thread ID, Count, Stack\n", true},
		{"Name, Exc %, Exc, Exc Ct\n", false},
		{"Stack, Weight\n", false},
		{"BeginHeader\n", false},
	} {
		if got := sniffWPACSV([]byte(tc.head)); got != tc.want {
			t.Errorf("sniffWPACSV(%q) = %v", tc.head, got)
		}
	}
}

func FuzzWPACSV(f *testing.F) {
	for _, name := range []string{"wpa-ctdiff.csv", "wpa-fulltable.csv"} {
		data, err := os.ReadFile(filepath.Join("testdata", "etw", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	if d := corpus.Dir(); d != "" {
		if data, err := os.ReadFile(filepath.Join(d, "etw", "gprof2dot-val3_xperf.wpa-cpu-sampled.csv")); err == nil {
			f.Add(data[:wpaFirstLines(data, 20)])
		}
	}
	f.Add([]byte(`"TimeStamp","Process","Thread ID","Weight","Count","Stack"` + "\n" + `"1","a (1)","2","1.0","1","[Root]/a!f"` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := Read(strings.NewReader(string(data)), "fuzz.csv", Options{From: "wpacsv"})
		CheckRead(t, "fuzz.csv", res, err)
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
		}
	})
}

// wpaFirstLines returns the length of the first n lines of data.
func wpaFirstLines(data []byte, n int) int {
	for i, c := range data {
		if c == '\n' {
			if n--; n == 0 {
				return i + 1
			}
		}
	}
	return len(data)
}

func BenchmarkWPACSV(b *testing.B) {
	path := corpus.Path(b, "etw/gprof2dot-val3_xperf.wpa-cpu-sampled.csv")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(strings.NewReader(string(data)), path, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
