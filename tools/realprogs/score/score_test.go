package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestBlamed(t *testing.T) {
	path := `"path":[{"function":"main.main"},{"function":"main.validEmail"},{"function":"regexp/syntax.parse"}]`
	tests := []struct {
		name, cause, want string
	}{
		{"blame object", `{` + path + `,"blame":{"function":"main.validEmail","file":"x.go"}}`, "main.validEmail"},
		{"blame name", `{` + path + `,"blame":"main.validEmail"}`, "main.validEmail"},
		{"no blame", `{` + path + `}`, "regexp/syntax.parse"},
		{"null blame", `{` + path + `,"blame":null}`, "regexp/syntax.parse"},
		{"empty path", `{"path":[]}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c cause
			if err := json.Unmarshal([]byte(tt.cause), &c); err != nil {
				t.Fatal(err)
			}
			if got := c.blamed(); got != tt.want {
				t.Errorf("blamed() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestJudge(t *testing.T) {
	onPath := `{"path":[{"function":"main.main"},{"function":"main.f"},{"function":"runtime.mallocgc"}],"delta":9}`
	blamedF := `{"path":[{"function":"main.main"},{"function":"runtime.gcBgMarkWorker"}],"blame":{"function":"main.f"},"delta":8}`
	offPath := `{"path":[{"function":"main.main"},{"function":"main.g"}],"delta":7}`
	tests := []struct {
		name, out, kind string
		want            row
	}{
		{"leaf blamed, on path", `{"causes":[` + onPath + `,` + offPath + `]}`, "change",
			row{Tested: "yes", Blamed: "runtime.mallocgc", Causes: 2, OffPath: 1}},
		{"blame hits", `{"causes":[` + blamedF + `,` + onPath + `]}`, "change",
			row{Tested: "yes", Blamed: "main.f", Hit: true, Causes: 2}},
		{"untested only", `{"causes":[],"untested":[` + offPath + `,` + blamedF + `]}`, "change",
			row{Tested: "untested", UntestedBlamed: "main.f", Untested: 2}},
		{"nothing", `{"causes":[],"untested":[]}`, "change", row{Tested: "none"}},
		{"noise with a cause", `{"causes":[` + offPath + `]}`, "noise",
			row{Tested: "yes", Blamed: "main.g", Causes: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out diffOutput
			if err := json.Unmarshal([]byte(tt.out), &out); err != nil {
				t.Fatal(err)
			}
			got := row{Tested: "none"}
			judge(&got, &out, &caseRow{Kind: tt.kind, Function: "main.f"})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("judge() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

const pprofTop = `File: prog
Type: cpu
Duration: 5.76s, Total samples = 1.87s (32.46%)
Showing nodes accounting for 0.18s, 9.63% of 1.87s total
      flat  flat%   sum%        cum   cum%
    -0.11s  5.88%  5.88%     -0.11s  5.88%  indexbytebody
     0.10s  5.35%  0.53%      0.10s  5.35%  crypto/internal/fips140/sha256.blockSHANI
     90ms  4.81%  4.28%      0.07s  3.74%  slices.BinarySearch[go.shape.[]uint64,go.shape.uint64]
         0     0%  4.28%      0.30s 16.04%  main.shardKey (inline)
 1200.99ms  7.03% 94.01%  1200.99ms  7.03%  (anonymous)
`

func TestRankOf(t *testing.T) {
	tests := []struct {
		fn   string
		want int
	}{
		{"indexbytebody", 1},
		{"main.shardKey", 4},
		{"slices.BinarySearch[go.shape.[]uint64,go.shape.uint64]", 3},
		{"(anonymous)", 5},
		{"main.absent", 0},
		{"main", 0},
	}
	for _, tt := range tests {
		if got := rankOf([]byte(pprofTop), tt.fn); got != tt.want {
			t.Errorf("rankOf(%q) = %d, want %d", tt.fn, got, tt.want)
		}
	}
	if mt := totalRE.FindStringSubmatch(pprofTop); mt == nil || mt[1] != "1.87" || mt[2] != "s" {
		t.Errorf("total: %q", mt)
	}
}

func TestReadCasesErrors(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"fields", "a\tgo\tchange\tmain.f\t?\n", ":1: expected 6 tab-separated fields"},
		{"language", "a\tc\tchange\tf\t?\td\n", `:1: unknown language "c"`},
		{"kind", "# header\na\tgo\tshift\tmain.f\t?\td\n", `:2: case a: kind "shift", expected change or noise`},
		{"function", "a\tgo\tchange\t-\t?\td\n", ":1: case a: a change case needs its changed function"},
		{"twice", "a\tgo\tnoise\t-\t0\td\na\tgo\tnoise\t-\t0\td\n", ":2: case a listed twice"},
		{"empty", "# only a comment\n", ": no cases"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "cases.tsv")
			if err := os.WriteFile(p, []byte(tt.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := readCases(p)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("readCases() error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestCPUCost(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cpu.tsv")
	text := "side\trun\tuser_s\tsys_s\nold\t1\t1.50\t0.50\nnew\t1\t2.00\t0.50\nold\t2\t2.00\t0.00\nnew\t2\t2.40\t0.10\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	got := cpuCost(p)
	if got == nil || *got < 24.99 || *got > 25.01 {
		t.Errorf("cpuCost() = %v, want +25%%", got)
	}
	if cpuCost(filepath.Join(t.TempDir(), "absent.tsv")) != nil {
		t.Error("cpuCost() of a missing file is not nil")
	}
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	cases := filepath.Join(dir, "cases.tsv")
	if err := os.WriteFile(cases, []byte("a\tgo\tchange\tmain.f\t?\td\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no flags", nil, "score: -ctdiff is required"},
		{"unknown flag", []string{"-bogus"}, "flag provided but not defined: -bogus"},
		{"argument", []string{"-ctdiff", self, "x"}, `score: unexpected argument "x"`},
		{"no ctdiff", []string{"-ctdiff", filepath.Join(dir, "nope"), "-data", dir, "-cases", cases}, "score: -ctdiff " + filepath.Join(dir, "nope")},
		{"no data dir", []string{"-ctdiff", self, "-data", filepath.Join(dir, "nope"), "-cases", cases}, "not a directory"},
		{"missing runs", []string{"-ctdiff", self, "-data", dir, "-cases", cases},
			"score: a: missing data: " + filepath.Join(dir, "a", "old", "run1.pb.gz") + " (record it with run.sh)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if code := run(tt.args, &stdout, &stderr); code != 2 {
				t.Errorf("exit code %d, want 2", code)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr %q, want it to contain %q", stderr.String(), tt.want)
			}
		})
	}
}

func TestErrorLine(t *testing.T) {
	tests := []struct{ stderr, want string }{
		{"ctdiff: a.jfr: warning: not converted\nctdiff: merging 3 inputs: incompatible sample types\n", "ctdiff: merging 3 inputs: incompatible sample types"},
		{"ctdiff: a.jfr: warning: only warnings\n", "ctdiff: a.jfr: warning: only warnings"},
		{"\n  \n", ""},
	}
	for _, tt := range tests {
		if got := errorLine(tt.stderr); got != tt.want {
			t.Errorf("errorLine(%q) = %q, want %q", tt.stderr, got, tt.want)
		}
	}
}
