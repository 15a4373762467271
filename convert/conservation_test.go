package convert

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/cctjson"
	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/long"
	"github.com/google/pprof/profile"
	"github.com/grafana/jfr-parser/parser"
)

// A weigher reads a file's weights straight from its bytes, without the
// reader: the total of each sample type it can tell ("samples/count" → n).
// They are deliberately naive, so that they share no bug with the readers.
type weigher func(t *testing.T, data []byte) map[string]int64

var weighers = map[string]weigher{
	"collapsed":  weighCollapsed,
	"pprof":      weighPprof,
	"cpuprofile": weighCpuprofile,
	"devtools":   weighDevtools,
	"xperf":      weighXperf,
	"wpacsv":     weighWPACSV,
	"perfview":   weighPerfView,
	"jfr":        weighJFR,
	"jfrprint":   weighJFRPrint,
	"hprof":      weighHPROF,
	"perfscript": weighPerfScript,
	"cct":        weighCCT,
	"speedscope": weighSpeedscope,
	"firefox":    weighFirefox,
}

// TestConservation reads every fixture and corpus file and checks that
// the weights in equal the weights out, per sample type a weigher can
// tell, or that a warning states the difference; and that the
// calling-context tree's totals are the sums of the sample values.
func TestConservation(t *testing.T) {
	var files []string
	filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && d.Name() == "fuzz":
			return filepath.SkipDir
		case !d.IsDir() && !strings.HasSuffix(p, ".golden") && !strings.HasSuffix(p, ".md"):
			files = append(files, p)
		}
		return nil
	})
	examples, _ := filepath.Glob(filepath.Join("..", "testdata", "example", "*", "*.pb.gz"))
	files = append(files, examples...)
	if d := corpus.Dir(); d != "" {
		found, _ := filepath.Glob(filepath.Join(d, "*", "*"))
		for _, p := range found {
			if filepath.Base(filepath.Dir(p)) != "expected" && !strings.HasSuffix(p, ".tsv") {
				files = append(files, p)
			}
		}
	}
	files = append(files, corpus.NextFiles(t)...)
	seen := map[string]int{}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			long.File(t, path)
			res, err := ReadFile(path, Options{})
			skipping := false
			var se *SyntaxError
			if err != nil && errors.As(err, &se) && strings.HasPrefix(se.Where, "line ") {
				// Folded stacks with invalid lines are refused unless told
				// to skip them: the weigher skips the same lines, and a
				// warning must say how many were skipped.
				res, err = ReadFile(path, Options{SkipInvalidLines: true})
				skipping = true
			}
			if err != nil {
				if refusedOnPurpose(path) {
					return
				}
				t.Fatal(err)
			}
			if skipping && !slices.ContainsFunc(res.Warnings, func(w string) bool { return strings.HasPrefix(w, "skipped ") }) {
				t.Errorf("invalid lines skipped without a warning (warnings: %q)", res.Warnings)
			}
			seen[res.Format]++
			weigh := weighers[res.Format]
			if weigh == nil {
				t.Fatalf("no weigher for format %s", res.Format)
			}
			in := weigh(t, decompressed(t, path))
			if len(in) == 0 {
				t.Fatal("the weigher found no weights")
			}
			out := map[string]int64{}
			for i, s := range SampleSums(res.Profile) {
				out[sampleTypeName(res.Profile, i)] = s
			}
			for typ, want := range in {
				got, ok := out[typ]
				if !ok {
					t.Errorf("the profile has no %s (types %v)", typ, out)
					continue
				}
				if got != want && !warned(res.Warnings, want-got) {
					t.Errorf("%s: %d in, %d out, and no warning states the difference %d (warnings: %q)", typ, want, got, want-got, res.Warnings)
				}
			}
			tr, err := cct.FromProfile(res.Profile, cct.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range SampleSums(res.Profile) {
				if got := tr.Total(cct.RootID)[i]; got != s {
					t.Errorf("the tree's %s total is %d, the samples hold %d", sampleTypeName(res.Profile, i), got, s)
				}
			}
		})
	}
	checkEveryFormatWeighed(t, seen)
}

// refusedOnPurpose says whether ctdiff refuses an input on purpose:
// binary ETL, a PerfView text report that is not a stack file, and the
// public files that are invalid.
func refusedOnPurpose(path string) bool {
	return strings.HasSuffix(path, ".etl.zip") || strings.HasSuffix(path, ".baseline.txt") ||
		strings.Contains(filepath.Base(path), "-invalid-")
}

// checkEveryFormatWeighed checks that every reader was weighed on some
// input: all on the fixtures but JFR, which has only corpus files, and
// speedscope and Firefox, which have only public files not yet in the
// corpus.
func checkEveryFormatWeighed(t *testing.T, seen map[string]int) {
	for name := range weighers {
		if seen[name] == 0 && (name != "jfr" || corpus.Dir() != "") && (name != "speedscope" && name != "firefox" || corpus.NextDir() != "") {
			t.Errorf("no input of format %s was weighed", name)
		}
	}
}

// warned reports whether a warning states a count as a number.
func warned(warnings []string, diff int64) bool {
	n := strconv.FormatInt(max(diff, -diff), 10)
	re := regexp.MustCompile(`(^|[^0-9])` + n + `([^0-9]|$)`)
	for _, w := range warnings {
		if re.MatchString(w) {
			return true
		}
	}
	return false
}

func decompressed(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
		if data, err = io.ReadAll(zr); err != nil {
			t.Fatal(err)
		}
	}
	return data
}

func lines(data []byte) []string {
	return strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n")
}

func mustAtoi(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		t.Fatalf("weigher: %v", err)
	}
	return n
}

// weighCollapsed adds the count at the end of every stack line.
func weighCollapsed(t *testing.T, data []byte) map[string]int64 {
	var n int64
	for _, l := range lines(data) {
		if l = strings.TrimSpace(l); l == "" || l[0] == '#' || strings.HasPrefix(l, "//") {
			continue
		}
		// A line without a count at the end is invalid, and skipped.
		if v, err := strconv.ParseInt(strings.Trim(l[strings.LastIndexAny(l, " \t")+1:], "[]"), 10, 64); err == nil {
			n += v
		}
	}
	return map[string]int64{"samples/count": n}
}

// weighPprof sums every sample type as pprof itself reads the file.
func weighPprof(t *testing.T, data []byte) map[string]int64 {
	p, err := profile.ParseData(data)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for i, s := range SampleSums(p) {
		out[sampleTypeName(p, i)] = s
	}
	return out
}

// weighCpuprofile counts the samples array, or the hit counts of a
// profile without one.
func weighCpuprofile(t *testing.T, data []byte) map[string]int64 {
	var doc struct {
		Samples []json.RawMessage
		Nodes   []struct{ HitCount int64 }
		Head    json.RawMessage
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Samples) > 0 {
		return map[string]int64{"samples/count": int64(len(doc.Samples))}
	}
	var n int64
	for _, nd := range doc.Nodes {
		n += nd.HitCount
	}
	// Legacy nested "head" trees: every hitCount anywhere in them.
	for _, m := range regexp.MustCompile(`"hitCount"\s*:\s*(\d+)`).FindAllSubmatch(doc.Head, -1) {
		n += mustAtoi(t, string(m[1]))
	}
	return map[string]int64{"samples/count": n}
}

// weighDevtools counts the samples of every ProfileChunk and CpuProfile
// event, reading events one by one so that a trace missing its final "]"
// (which DevTools writes when a recording is cut short) still counts.
func weighDevtools(t *testing.T, data []byte) map[string]int64 {
	d := json.NewDecoder(bytes.NewReader(data))
	tok, err := d.Token()
	if err != nil {
		t.Fatal(err)
	}
	if tok == json.Delim('{') { // {"traceEvents": [...], ...}
		for {
			key, err := d.Token()
			if err != nil {
				t.Fatal(err)
			}
			if key == "traceEvents" {
				break
			}
			var skip json.RawMessage
			if err := d.Decode(&skip); err != nil {
				t.Fatal(err)
			}
		}
		if tok, err = d.Token(); err != nil || tok != json.Delim('[') {
			t.Fatalf("traceEvents: %v %v", tok, err)
		}
	}
	type cpuProfile struct {
		Samples []json.RawMessage
	}
	var n int64
	for d.More() {
		var e struct {
			Name string
			Args struct {
				Data struct{ CpuProfile cpuProfile }
			}
		}
		if err := d.Decode(&e); err != nil {
			break // the end of a truncated trace
		}
		if e.Name == "ProfileChunk" || e.Name == "CpuProfile" {
			n += int64(len(e.Args.Data.CpuProfile.Samples))
		}
	}
	return map[string]int64{"samples/count": n}
}

// weighXperf adds the Count column (second to last) of SampledProfile
// events; the header line names the columns instead.
func weighXperf(t *testing.T, data []byte) map[string]int64 {
	var n int64
	for _, l := range lines(data) {
		f := strings.Split(l, ",")
		if strings.TrimSpace(f[0]) != "SampledProfile" || strings.TrimSpace(f[1]) == "TimeStamp" {
			continue
		}
		n += mustAtoi(t, f[len(f)-2])
	}
	return map[string]int64{"samples/count": n}
}

// weighWPACSV adds the Count column.
func weighWPACSV(t *testing.T, data []byte) map[string]int64 {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	r.FieldsPerRecord, r.TrimLeadingSpace, r.LazyQuotes = -1, true, true
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col, stack := -1, -1
	for i, name := range rows[0] {
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "count":
			col = i
		case "stack":
			stack = i
		}
	}
	if col < 0 {
		return map[string]int64{"samples/count": int64(len(rows) - 1)}
	}
	var n int64
	for _, row := range rows[1:] {
		i := col
		if len(row) != len(rows[0]) && stack < col {
			// Export Full Table leaves commas in frame names unquoted:
			// columns after the stack are found from the end.
			i = len(row) - (len(rows[0]) - col)
		}
		n += mustAtoi(t, row[i])
	}
	return map[string]int64{"samples/count": n}
}

// weighPerfView counts the samples of a PerfView stack file (XML or
// JSON, zipped or not).
func weighPerfView(t *testing.T, data []byte) map[string]int64 {
	if bytes.HasPrefix(data, []byte("PK")) {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		f, err := zr.File[0].Open()
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if data, err = io.ReadAll(f); err != nil {
			t.Fatal(err)
		}
	}
	if b := bytes.TrimSpace(data); len(b) > 0 && b[0] == '{' {
		var doc struct {
			StackSource struct{ Samples []json.RawMessage }
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		return map[string]int64{"samples/count": int64(len(doc.StackSource.Samples))}
	}
	return map[string]int64{"samples/count": int64(bytes.Count(data, []byte("<Sample ")))}
}

// weighJFR counts stack-sample events with jfr-parser: execution samples
// and the batch weight of wall-clock samples, and allocation events.
func weighJFR(t *testing.T, data []byte) map[string]int64 {
	p := parser.NewParser(data, parser.Options{})
	var samples, allocs, mallocs, locks int64
	for {
		typ, err := p.ParseEvent()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch tm := &p.TypeMap; typ {
		case tm.T_EXECUTION_SAMPLE:
			samples++
		case tm.T_WALL_CLOCK_SAMPLE:
			samples += int64(p.WallClockSample.Samples)
		case tm.T_ALLOC_IN_NEW_TLAB, tm.T_ALLOC_OUTSIDE_TLAB, tm.T_ALLOC_SAMPLE:
			allocs++
		case tm.T_MALLOC:
			mallocs++
		case tm.T_MONITOR_ENTER, tm.T_THREAD_PARK:
			locks++
		}
	}
	out := map[string]int64{}
	if samples > 0 {
		out["samples/count"] = samples
	}
	if allocs > 0 {
		out["alloc_samples/count"] = allocs
	}
	if mallocs > 0 {
		out["malloc_samples/count"] = mallocs
	}
	if locks > 0 {
		out["contentions/count"] = locks
	}
	return out
}

// weighJFRPrint counts the printed execution samples, and the "samples =
// N" batch weight of async-profiler's wall-clock samples.
func weighJFRPrint(t *testing.T, data []byte) map[string]int64 {
	var n int64
	wall := false
	for _, l := range lines(data) {
		switch l = strings.TrimSpace(l); {
		case l == "jdk.ExecutionSample {":
			n++
		case l == "profiler.WallClockSample {":
			wall = true
		case wall && strings.HasPrefix(l, "samples = "):
			n += mustAtoi(t, strings.TrimPrefix(l, "samples = "))
		case l == "}":
			wall = false
		}
	}
	return map[string]int64{"samples/count": n}
}

// weighHPROF takes the total the CPU table states: samples, or ms.
func weighHPROF(t *testing.T, data []byte) map[string]int64 {
	m := regexp.MustCompile(`(?m)^CPU (SAMPLES|TIME \(ms\)) BEGIN \(total = (\d+)\)`).FindSubmatch(data)
	if m == nil {
		t.Fatal("no CPU table")
	}
	total := mustAtoi(t, string(m[2]))
	if string(m[1]) == "SAMPLES" {
		return map[string]int64{"samples/count": total}
	}
	return map[string]int64{"cpu/nanoseconds": total * 1_000_000}
}

// weighPerfScript counts sample header lines: the unindented lines that
// are not comments (stack lines are indented).
func weighPerfScript(t *testing.T, data []byte) map[string]int64 {
	var n int64
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		l := sc.Text()
		if l != "" && l[0] != '#' && l[0] != ' ' && l[0] != '\t' && strings.TrimSpace(l) != "" {
			n++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return map[string]int64{"samples/count": n}
}

// weighCCT adds the nodes' self values per sample type.
func weighCCT(t *testing.T, data []byte) map[string]int64 {
	var tree cctjson.Tree
	if err := json.Unmarshal(data, &tree); err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for _, n := range tree.Nodes {
		for i, v := range n.Self {
			st := tree.SampleTypes[i]
			out[st.Type+"/"+st.Unit] += v
		}
	}
	return out
}
