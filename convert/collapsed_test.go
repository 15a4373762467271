package convert_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/google/pprof/profile"
)

func readString(t *testing.T, name, content string, opts convert.Options) (*convert.Result, error) {
	t.Helper()
	return convert.Read(strings.NewReader(content), name, opts)
}

func TestCollapsed(t *testing.T) {
	res, err := convert.ReadFile("testdata/collapsed/threads.collapsed", convert.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "collapsed" {
		t.Fatalf("format %q", res.Format)
	}
	p := res.Profile
	var got []string
	for _, s := range p.Sample {
		var frames []string
		for i := len(s.Location) - 1; i >= 0; i-- {
			ln := s.Location[i].Line[0]
			f := ln.Function.Name
			if ln.Function.SystemName != f {
				f += "{" + ln.Function.SystemName + "}"
			}
			if ln.Line != 0 {
				f += ":" + itoa(ln.Line)
			}
			frames = append(frames, f)
		}
		got = append(got, s.Label["thread"][0]+"/"+itoa(s.NumLabel["tid"][0])+" "+strings.Join(frames, ";")+" "+itoa(s.Value[0]))
	}
	want := []string{
		"main/12 App.run{App.run_[j]};App.work{App.work_[i]} 5",
		"worker/13 Pool.loop{Pool.loop_[0]};Task.exec:42 7",
		"main/12 App.run{App.run_[j]};libc.so.read{libc.so.read_[k]} 2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("samples:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if st := p.SampleType[0]; st.Type != "samples" || st.Unit != "count" {
		t.Errorf("sample type %v", st)
	}
}

func TestCollapsedErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"main;a 1\nmain;b\n", "x.folded: line 2: expected \"frame;frame;... COUNT\", found no count in \"main;b\""},
		{"main;a 1\nmain;b -3\n", "x.folded: line 2: expected a non-negative integer count at the end, found \"-3\""},
		{"main;a 1\n[t tid=1] 4\n", "x.folded: line 2: expected at least one frame after the thread frame"},
		{"main;a 99999999999999999999\n", "x.folded: line 1: expected a non-negative integer count at the end, found \"99999999999999999999\""},
		// Sniffed, not forced: a stray line is an error at its line, not an unknown format.
		{"# c\n// c\na;b 1\na;c 2\ninvalid line\n", "x.folded: line 5: expected a non-negative integer count at the end, found \"line\""},
		{"invalid line\na;b 1\na;c 2\n", "x.folded: line 1: expected a non-negative integer count at the end, found \"line\""},
	}
	for _, tt := range tests {
		for _, from := range []string{"collapsed", ""} {
			if from == "" && !strings.Contains(tt.in, "invalid") {
				continue
			}
			_, err := readString(t, "x.folded", tt.in, convert.Options{From: from})
			if err == nil || err.Error() != tt.want {
				t.Errorf("Read(%q, --from %q) error = %v\nwant %s", tt.in, from, err, tt.want)
			}
			if !errors.Is(err, convert.ErrInvalidLine) {
				t.Errorf("Read(%q, --from %q) error %v is not ErrInvalidLine (a line SkipInvalidLines skips)", tt.in, from, err)
			}
		}
	}
}

// Lines ended by a lone CR (classic Mac OS) are lines: a file of them is
// not one stack, sniffed or forced, and errors name their lines, mixed
// with LF and CRLF ends too.
func TestCollapsedCRLines(t *testing.T) {
	for _, from := range []string{"collapsed", ""} {
		res, err := readString(t, "x.folded", "main;a 1\rmain;b 2\r\rmain;a 3\r", convert.Options{From: from})
		if err != nil {
			t.Fatalf("--from %q: %v", from, err)
		}
		var got []string
		for _, s := range res.Profile.Sample {
			got = append(got, fmt.Sprintf("%s %d", s.Location[0].Line[0].Function.Name, s.Value[0]))
		}
		if strings.Join(got, ",") != "a 4,b 2" {
			t.Errorf("--from %q: samples %q, want a 4, b 2", from, got)
		}
	}
	_, err := readString(t, "x.folded", "main;a 1\rmain;b 2\r\nmain;c 3\nmain;d\rmain;e 1\n", convert.Options{From: "collapsed"})
	if want := `x.folded: line 4: expected "frame;frame;... COUNT", found no count in "main;d"`; err == nil || err.Error() != want {
		t.Errorf("error %v\nwant  %s", err, want)
	}
}

// TestCollapsedSkipInvalidLines reads speedscope's sample with comments
// ("#", "//") and an invalid last line: by default an error at that line;
// with Options.SkipInvalidLines the other lines, and a warning counting the
// skipped ones.
func TestCollapsedSkipInvalidLines(t *testing.T) {
	path := corpus.Path(t, "collapsed/speedscope-simple-with-invalids.txt")
	_, err := convert.ReadFile(path, convert.Options{})
	if want := path + ": line 8: expected a non-negative integer count at the end, found \"line\""; err == nil || err.Error() != want {
		t.Errorf("error = %v\nwant %s", err, want)
	}
	res, err := convert.ReadFile(path, convert.Options{SkipInvalidLines: true})
	if err != nil {
		t.Fatal(err)
	}
	// Five lines, three stacks (a;b;c three times).
	if res.Format != "collapsed" || sum(res.Profile, 0) != 14 || len(res.Profile.Sample) != 3 {
		t.Errorf("format %s, %d samples, total %d; want collapsed, 3, 14", res.Format, len(res.Profile.Sample), sum(res.Profile, 0))
	}
	want := []string{"skipped 1 invalid line (line 8: expected a non-negative integer count at the end, found \"line\")"}
	if !slices.Equal(res.Warnings, want) {
		t.Errorf("warnings %q, want %q", res.Warnings, want)
	}

	res, err = readString(t, "x", "a;b 1\nbad\na;c 2\nalso bad\n[t tid=1] 3\n", convert.Options{SkipInvalidLines: true})
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"skipped 3 invalid lines (the first at line 2: expected \"frame;frame;... COUNT\", found no count in \"bad\")"}
	if sum(res.Profile, 0) != 3 || !slices.Equal(res.Warnings, want) {
		t.Errorf("total %d, warnings %q; want 3, %q", sum(res.Profile, 0), res.Warnings, want)
	}
}

func TestSniff(t *testing.T) {
	deep := strings.Repeat("frame;", 3000) + "leaf 1\n"
	tests := []struct {
		name, in, want string
	}{
		{"folded", "a;b;c 10\n", "collapsed"},
		{"bracket value", "a;b [10]\n", "collapsed"},
		{"deep first line longer than the sniff window", deep, "collapsed"},
		{"comment first", "# generated\na;b 1\n", "collapsed"},
		{"slash comment first", "// generated\na;b 1\n", "collapsed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := readString(t, "in", tt.in, convert.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != tt.want {
				t.Errorf("format = %s, want %s", res.Format, tt.want)
			}
		})
	}
}

// TestCollapsedMergesStacks: identical stacks of a thread are one sample,
// in the order of first appearance, so memory follows the distinct stacks:
// a million lines of three stacks are three samples, not a million
// (100 MB of such lines would take 1.6 GB one sample a line).
func TestCollapsedMergesStacks(t *testing.T) {
	read := func(lines int) (*profile.Profile, uint64) {
		var b strings.Builder
		for i := range lines {
			b.WriteString([]string{"main;a;b 1\n", "[w tid=2];main;a;b 2\n", "main;a;c 3\n"}[i%3])
		}
		in := b.String()
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		res, err := readString(t, "x.folded", in, convert.Options{})
		if err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(res)
		runtime.KeepAlive(in) // let go during the read, its size came off the growth
		return res.Profile, after.HeapAlloc - min(after.HeapAlloc, before.HeapAlloc)
	}
	p, small := read(3_000)
	var got []string
	for _, s := range p.Sample {
		got = append(got, fmt.Sprintf("%s %s %d", convert.ThreadName(s), jpStackKey(s), s.Value[0]))
	}
	want := []string{" main:0;a:0;b:0 1000", "w main:0;a:0;b:0 2000", " main:0;a:0;c:0 3000"}
	if !slices.Equal(got, want) {
		t.Errorf("%d samples %q..., want %q", len(got), got[:min(len(got), 4)], want)
	}
	p, large := read(1_200_000)
	if len(p.Sample) != 3 || sum(p, 0) != 2_400_000 {
		t.Errorf("%d samples, total %d; want 3, 2400000", len(p.Sample), sum(p, 0))
	}
	// What the profile keeps does not grow with the lines (it grew by
	// about 150 bytes a line).
	if large > small+1<<20 {
		t.Errorf("the profile of 1,200,000 lines keeps %d bytes, of 3,000 lines %d", large, small)
	}

	_, err := readString(t, "x.folded", "a;b 9223372036854775807\na;b 1\n", convert.Options{})
	if want := "x.folded: line 2: the counts of this stack add up to more than 9223372036854775807"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
	// Refused before the frames are built, even when skipping invalid lines.
	_, err = readString(t, "x.folded", strings.Repeat("f;", convert.MaxStackDepth)+"leaf 1\n", convert.Options{SkipInvalidLines: true})
	if want := "x.folded: sample 0: stack frames exceed the limit: a stack of 1000001 frames, more than the limit of 1000000 per stack (runaway recursion?)"; err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

func TestCorpusCollapsedTotals(t *testing.T) {
	for file, want := range map[string]int64{
		"collapsed/asyncprofiler-sample1.collapsed": 185,
		"collapsed/asyncprofiler-sample2.collapsed": 188,
	} {
		res, err := convert.ReadFile(corpus.Path(t, file), convert.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := sum(res.Profile, 0); got != want {
			t.Errorf("%s: total %d, want %d", file, got, want)
		}
	}
}

func TestPprofRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../testdata/example/*/*.pb.gz")
	if len(files) == 0 {
		t.Fatal("no example profiles")
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want, err := profile.ParseData(raw)
		if err != nil {
			t.Fatal(err)
		}
		res, err := convert.ReadFile(f, convert.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Format != "pprof" || len(res.Profile.Sample) != len(want.Sample) || sum(res.Profile, 1) != sum(want, 1) {
			t.Errorf("%s: format %s, %d samples (want %d), total %d (want %d)", f, res.Format,
				len(res.Profile.Sample), len(want.Sample), sum(res.Profile, 1), sum(want, 1))
		}
	}
}

func TestAggregateAndThreadSelection(t *testing.T) {
	in := "[main tid=1];a 1\n[main tid=1];a 2\n[bg tid=2];b 4\n"
	res, err := readString(t, "x", in, convert.Options{Aggregate: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Profile.Sample) != 2 || sum(res.Profile, 0) != 7 {
		t.Errorf("aggregate: %d samples, total %d; want 2, 7", len(res.Profile.Sample), sum(res.Profile, 0))
	}
	res, err = readString(t, "x", in, convert.Options{Thread: mustRegexp(t, "^bg$")})
	if err != nil {
		t.Fatal(err)
	}
	if sum(res.Profile, 0) != 4 {
		t.Errorf("thread selection kept total %d, want 4", sum(res.Profile, 0))
	}
}

func FuzzCollapsed(f *testing.F) {
	for _, p := range []string{"testdata/collapsed/recursive.folded", "testdata/collapsed/threads.collapsed"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	if d := corpus.Dir(); d != "" {
		if b, err := os.ReadFile(filepath.Join(d, "collapsed/asyncprofiler-sample1.collapsed")); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := convert.Read(strings.NewReader(string(data)), "fuzz", convert.Options{From: "collapsed"})
		convert.CheckRead(t, "fuzz", res, err)
		if err != nil {
			return
		}
		// Conservation: the counts in equal the values out.
		var in int64
		for _, line := range strings.Split(string(data), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || line[0] == '#' {
				continue
			}
			v := line[strings.LastIndexAny(line, " \t")+1:]
			in += atoi(strings.Trim(v, "[]"))
		}
		if out := sum(res.Profile, 0); in != out {
			t.Fatalf("sum in %d != sum out %d", in, out)
		}
	})
}

func FuzzPprof(f *testing.F) {
	files, _ := filepath.Glob("../testdata/example/old/*.pb.gz")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("\x0a\x04\x08\x01\x10\x02"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res, err := convert.Read(strings.NewReader(string(data)), "fuzz", convert.Options{From: "pprof", MaxDecompressed: 1 << 20})
		convert.CheckRead(t, "fuzz", res, err)
		if err != nil {
			return
		}
		// Conservation: what pprof itself reads is what ctdiff keeps.
		in, err := profile.Parse(bytes.NewReader(data))
		if err != nil {
			t.Fatalf("ctdiff read a profile pprof cannot: %v", err)
		}
		if want, got := convert.SampleSums(in), convert.SampleSums(res.Profile); !slices.Equal(want, got) {
			t.Fatalf("sums %v, pprof reads %v", got, want)
		}
	})
}
