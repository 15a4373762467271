package main

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// --view functions is pprof's -top of the example's diff: strings.EqualFold
// first by flat delta, and with --cum checkRules and validate, whose cum
// grew by 213 ms; the causes are those of the report.
func TestDiffFunctionsExample(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		golden string
	}{
		{[]string{"--view", "functions"}, "diff-example-functions.txt"},
		{[]string{"--view", "functions", "--cum", "--node-fraction", "0.03", "--format", "markdown"}, "diff-example-functions-cum.md"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := ctdiff(append([]string{"diff", exampleOld, exampleNew}, tt.args...)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, tt.golden, out)
		})
	}

	// JSON holds the table beside the report, whose causes it does not
	// change.
	type doc struct {
		Causes    json.RawMessage
		Graph     json.RawMessage `json:"critical_graph"`
		Functions *struct {
			Sort string
			Rows []struct {
				Function string
				Flat     struct {
					Delta int64
					Test  struct{ Significant bool }
				}
			}
		}
	}
	read := func(args ...string) doc {
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
	plain, with := read(), read("--view", "functions")
	if plain.Functions != nil {
		t.Error("the report's JSON has a function table without --view functions")
	}
	if with.Functions == nil || len(with.Functions.Rows) == 0 {
		t.Fatal("no function table in the JSON with --view functions")
	}
	if r := with.Functions.Rows[0]; r.Function != "strings.EqualFold" || r.Flat.Delta != 86666667 || !r.Flat.Test.Significant {
		t.Errorf("first row %+v, want strings.EqualFold +86.67ms, significant", r)
	}
	if !reflect.DeepEqual(plain.Causes, with.Causes) || !reflect.DeepEqual(plain.Graph, with.Graph) {
		t.Error("the causes differ with --view functions")
	}
}

func TestDiffFunctionsFlagErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--view", "top"}, `ctdiff: --view "top" must be one of: [report functions]`},
		{[]string{"--cum"}, "ctdiff: --cum orders the function table: use it with --view functions"},
		{[]string{"--node-fraction", "0.1"}, "ctdiff: --node-fraction leaves functions out of the function table: use it with --view functions"},
		{[]string{"--view", "functions", "--format", "html"}, "ctdiff: --view functions is written as text, markdown or json, not --format html"},
		{[]string{"--view", "functions", "-o", "r.pb.gz"}, "ctdiff: --view functions is written as text, markdown or json, not --format pprof"},
		{[]string{"--view", "functions", "--node-fraction", "1"}, "ctdiff: --node-fraction 1 must be at least 0 and below 1"},
		{[]string{"-cum"}, "ctdiff: -cum: ctdiff's long flags take two dashes: --cum (see 'ctdiff diff --help')"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			_, errOut, code := ctdiff(append([]string{"diff", exampleOld, exampleNew}, tt.args...)...)
			if code != exitError || errOut != tt.want+"\n" {
				t.Errorf("exit %d, stderr %q; want 2, %q", code, errOut, tt.want)
			}
		})
	}
}

// The README's excerpt of the example's function table is verbatim, and
// its filter and view commands run on the example.
func TestDiffFunctionsREADME(t *testing.T) {
	out, errOut, code := ctdiff("diff", exampleOld, exampleNew, "--view", "functions")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	have := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		have[l] = true
	}
	_, sec, ok := strings.Cut(readDoc(t, "docs/usage.md"), "### pprof habits: filters and the per-function table\n")
	if !ok {
		t.Fatal("docs/usage.md has no section on pprof habits")
	}
	sec, _, _ = strings.Cut(sec, "\n### ")
	checked := 0
	for i, block := range strings.Split(sec, "```") {
		if i%2 == 0 {
			continue
		}
		for _, l := range strings.Split(strings.Trim(block, "\n"), "\n") {
			checked++
			if !have[l] {
				t.Errorf("README line not in the example's function table:\n%s", l)
			}
		}
	}
	if checked < 3 {
		t.Errorf("checked %d README lines", checked)
	}
	ran := 0
	for _, c := range readmeCommands(t) {
		f := strings.Fields(c.cmd)
		if len(f) < 4 || f[0] != "ctdiff" || f[1] != "diff" || f[2] != "OLD" || !strings.Contains(c.cmd, "--focus") && !strings.Contains(c.cmd, "--view") {
			continue
		}
		args := []string{"diff", exampleOld, exampleNew}
		for _, a := range f[4:] {
			args = append(args, strings.Trim(a, "'"))
		}
		if _, errOut, code := ctdiff(args...); code != 0 {
			t.Errorf("README's %q: exit %d: %s", c.cmd, code, errOut)
		}
		ran++
	}
	if ran < 2 {
		t.Errorf("ran %d README commands", ran)
	}
}
