package main

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/internal/corpus"
)

// TestConvertRoundTripWithPprof converts inputs with the real CLI and checks
// that `go tool pprof -top` on the output shows the same total and the same
// per-function flat and cumulative values as ctdiff's own flat view of the
// input.
func TestConvertRoundTripWithPprof(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH")
	}
	inputs := []string{
		corpus.Path(t, "collapsed/asyncprofiler-sample1.collapsed"),
		corpus.Path(t, "collapsed/asyncprofiler-sample2.collapsed"),
	}
	ex, _ := filepath.Glob("../../testdata/example/*/run*.pb.gz")
	inputs = append(inputs, ex...)
	for _, in := range inputs {
		t.Run(filepath.Base(filepath.Dir(in))+"/"+filepath.Base(in), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.pb.gz")
			if _, errOut, code := ctdiff("convert", in, "-o", out); code != 0 {
				t.Fatalf("convert: exit %d: %s", code, errOut)
			}
			cmd := exec.Command(goBin, "tool", "pprof", "-top", "-nodecount=1000000", "-nodefraction=0", "-unit=ns", out)
			raw, err := cmd.Output()
			if err != nil {
				t.Fatalf("go tool pprof: %v", err)
			}
			got := parsePprofTop(t, string(raw))

			res, err := convert.ReadFile(in, convert.Options{})
			if err != nil {
				t.Fatal(err)
			}
			tree, err := cct.FromProfile(res.Profile, cct.Options{})
			if err != nil {
				t.Fatal(err)
			}
			si, _ := tree.SampleIndex("")
			want := map[string][2]int64{}
			for _, e := range cct.Flat(tree) {
				v := want[e.Function]
				want[e.Function] = [2]int64{v[0] + e.Self[si], v[1] + e.Total[si]}
			}
			if len(got) != len(want) {
				t.Errorf("pprof shows %d functions, ctdiff %d", len(got), len(want))
			}
			for fn, w := range want {
				if g, ok := got[fn]; !ok || g != w {
					t.Errorf("%s: pprof flat/cum %v, ctdiff self/total %v", fn, g, w)
				}
			}
			if total := tree.Total(cct.RootID)[si]; !strings.Contains(string(raw), "of "+strconv.FormatInt(total, 10)) {
				t.Errorf("pprof total differs from ctdiff's %d:\n%s", total, raw[:min(len(raw), 400)])
			}
		})
	}
}

// parsePprofTop reads `pprof -top` rows: flat flat% sum% cum cum% name.
func parsePprofTop(t *testing.T, out string) map[string][2]int64 {
	t.Helper()
	rows := map[string][2]int64{}
	_, body, ok := strings.Cut(out, "cum%\n")
	if !ok {
		t.Fatalf("no table in pprof output:\n%s", out)
	}
	for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
		f := strings.Fields(line)
		if len(f) < 6 {
			t.Fatalf("bad pprof row %q", line)
		}
		name := strings.TrimSuffix(strings.Join(f[5:], " "), " (inline)")
		flat, err1 := strconv.ParseInt(strings.TrimSuffix(f[0], "ns"), 10, 64)
		cum, err2 := strconv.ParseInt(strings.TrimSuffix(f[3], "ns"), 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad pprof row %q", line)
		}
		v := rows[name]
		rows[name] = [2]int64{v[0] + flat, v[1] + cum}
	}
	return rows
}

// A folded line that is not one fails with its line number, or, with
// --skip-invalid-lines, is skipped with a warning that counts it.
func TestConvertSkipInvalidLines(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "s.folded", "# comment\nmain;a 3\nnot a stack line\nmain;b 2\n")
	_, errOut, code := ctdiff("convert", in, "-o", filepath.Join(dir, "a.pb.gz"))
	if code != exitError || !strings.Contains(errOut, "line 3") {
		t.Errorf("without the flag: exit %d, stderr %q; want 2 naming line 3", code, errOut)
	}
	_, errOut, code = ctdiff("convert", in, "--skip-invalid-lines", "-o", filepath.Join(dir, "b.pb.gz"))
	if code != exitOK || !strings.Contains(errOut, "skipped 1 invalid line") {
		t.Errorf("with the flag: exit %d, stderr %q; want 0 and a warning counting the skipped line", code, errOut)
	}
}
