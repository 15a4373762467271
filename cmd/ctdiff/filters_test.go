package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The filters have pprof's meaning in a comparison: focus keeps the
// samples through checkRules (the causes stay, the totals shrink to its
// time), ignore drops them (no cause is left), hide gives EqualFold's time
// to its caller (its cause goes, checkRules is the costliest function),
// show keeps the frames it names. The report says which filters it is of.
func TestDiffFilters(t *testing.T) {
	type doc struct {
		Base, New struct{ Total int64 }
		Causes    []struct {
			Path []struct{ Function string }
		}
		RankedPaths []struct {
			Path []struct {
				Function string
				Rank     int
			}
		} `json:"ranked_paths"`
		Filters map[string]string
	}
	read := func(t *testing.T, args ...string) doc {
		t.Helper()
		out, errOut, code := ctdiff(append([]string{"diff", exampleOld, exampleNew, "--format", "json"}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		var d doc
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	leaves := func(d doc) []string {
		var out []string
		for _, c := range d.Causes {
			out = append(out, c.Path[len(c.Path)-1].Function)
		}
		return out
	}
	hottest := func(d doc) string {
		for _, n := range d.RankedPaths[0].Path {
			if n.Rank == 1 {
				return n.Function
			}
		}
		return ""
	}
	all := read(t)
	if all.Filters != nil {
		t.Errorf("unfiltered: filters %v, want none", all.Filters)
	}
	const checkRules = "github.com/ctdiff/ctdiff/internal/example.checkRules"
	for _, tt := range []struct {
		args    []string
		causes  []string
		hottest string
		filters map[string]string
	}{
		{[]string{"--focus", `example\.checkRules$`}, []string{"strings.EqualFold", "internal/stringslite.Index"}, "strings.EqualFold", map[string]string{"focus": `example\.checkRules$`}},
		{[]string{"--ignore", "checkRules"}, nil, "", map[string]string{"ignore": "checkRules"}},
		{[]string{"--hide", "EqualFold"}, []string{"internal/stringslite.Index"}, checkRules, map[string]string{"hide": "EqualFold"}},
		{[]string{"--show", `^main\.main$|EqualFold`}, []string{"strings.EqualFold"}, "strings.EqualFold", map[string]string{"show": `^main\.main$|EqualFold`}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			d := read(t, tt.args...)
			if got := leaves(d); !slices.Equal(got, tt.causes) {
				t.Errorf("causes %q, want %q", got, tt.causes)
			}
			if tt.hottest != "" && hottest(d) != tt.hottest {
				t.Errorf("hottest function of the top path %q, want %q", hottest(d), tt.hottest)
			}
			if !equalMaps(d.Filters, tt.filters) {
				t.Errorf("filters %v, want %v", d.Filters, tt.filters)
			}
			if d.Base.Total >= all.Base.Total && tt.args[0] != "--hide" {
				t.Errorf("base total %d, want less than the unfiltered %d", d.Base.Total, all.Base.Total)
			}
		})
	}
	out, _, _ := ctdiff("diff", exampleOld, exampleNew, "--focus", "checkRules", "--hide", `^runtime\.`)
	want := "Filters: focus=checkRules, hide=^runtime\\. (pprof's filters:\n  totals, causes and paths are of the samples and frames they kept)\n"
	if !strings.Contains(out, want) {
		t.Errorf("the text report does not say which filters it is of (want %q):\n%s", want, out)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestFilterErrors(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"diff", exampleOld, exampleNew, "--hide", "a("}, exitError,
			"ctdiff: --hide \"a(\": error parsing regexp: missing closing ): `a(`\n"},
		{[]string{"diff", exampleOld, exampleNew, "--focus", "nosuch"}, exitError,
			"ctdiff: --focus \"nosuch\" matched no frame of the inputs: no sample is left to compare\n"},
		{[]string{"diff", exampleOld, exampleNew, "--show", "nosuch", "--fail-on-regression"}, exitError,
			"ctdiff: --show \"nosuch\" matched no frame of the inputs: no sample is left to compare\n"},
		{[]string{"diff", exampleOld, exampleNew, "-focus=checkRules"}, exitError,
			"ctdiff: -focus=checkRules: ctdiff's long flags take two dashes: --focus (see 'ctdiff diff --help')\n"},
		{[]string{"diff", "-hide", "x", exampleOld, exampleNew}, exitError,
			"ctdiff: -hide: ctdiff's long flags take two dashes: --hide (see 'ctdiff diff --help')\n"},
		{[]string{"cct", "-ignore", "x", exampleOld}, exitError,
			"ctdiff: -ignore: ctdiff's long flags take two dashes: --ignore (see 'ctdiff cct --help')\n"},
		{[]string{"cct", exampleOld + "/run1.pb.gz", "--show", "a[", "-o", "x.txt"}, exitError,
			"ctdiff: --show \"a[\": error parsing regexp: missing closing ]: `[`\n"},
		// Not a long flag: pflag's own message.
		{[]string{"diff", "-zz", exampleOld, exampleNew}, exitError,
			"ctdiff: unknown shorthand flag: 'z' in -zz (see 'ctdiff diff --help')\n"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, errOut, code := ctdiff(tt.args...)
			if code != tt.code || errOut != tt.stderr {
				t.Errorf("exit %d, stderr %q; want %d, %q", code, errOut, tt.code, tt.stderr)
			}
		})
	}
}

// A filter that matches nothing but leaves samples (ignore, hide) is a
// warning, on stderr and in the report, as pprof warns of it.
func TestFilterUnmatchedWarns(t *testing.T) {
	out, errOut, code := ctdiff("diff", exampleOld, exampleNew, "--format", "json", "--hide", "nosuch")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	const w = `--hide "nosuch" matched no frame of the inputs`
	if !strings.Contains(errOut, "ctdiff: warning: "+w+"\n") || !strings.Contains(out, `--hide \"nosuch\" matched no frame`) {
		t.Errorf("no warning of the unmatched filter; stderr %q", errOut)
	}
	out, errOut, code = ctdiff("cct", exampleOld+"/run1.pb.gz", "--focus", "nosuch")
	if code != 0 || !strings.Contains(out, "total 0;") {
		t.Errorf("cct --focus nosuch: exit %d, stdout %q", code, out)
	}
	if want := "ctdiff: warning: --focus \"nosuch\" matched no frame of the inputs, so no sample is left\n"; errOut != want {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}

// ctdiff cct filters the tree it shows as diff does; a manifest's
// component takes the filters as options.
func TestCCTAndManifestFilters(t *testing.T) {
	out, errOut, code := ctdiff("cct", exampleNew+"/run1.pb.gz", "--focus", "EqualFold", "--hide", `^runtime\.|^main\.`, "--node-fraction", "0")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var names []string
	for _, l := range strings.Split(out, "\n") {
		if i := strings.Index(l, "─ "); i >= 0 {
			names = append(names, strings.Fields(l[i+len("─ "):])[0])
		}
	}
	want := []string{"github.com/ctdiff/ctdiff/internal/example.Run", "github.com/ctdiff/ctdiff/internal/example.handleRequest",
		"github.com/ctdiff/ctdiff/internal/example.validate", "github.com/ctdiff/ctdiff/internal/example.checkRules", "strings.EqualFold"}
	if !slices.Equal(names, want) {
		t.Errorf("frames %q, want %q:\n%s", names, want, out)
	}

	dir := t.TempDir()
	old, _ := filepath.Abs(exampleOld)
	nw, _ := filepath.Abs(exampleNew)
	m := writeFile(t, dir, "release.toml", "[[component]]\nname = \"rules\"\nold = \""+old+"\"\nnew = \""+nw+"\"\noptions = { ignore = \"checkRules\" }\n")
	out, errOut, code = ctdiff("report", m, "--format", "json")
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `--ignore=checkRules",`) || !strings.Contains(out, `"verdict": "unchanged"`) {
		t.Errorf("the component is not compared with --ignore checkRules:\n%s", out[:min(len(out), 3000)])
	}
}
