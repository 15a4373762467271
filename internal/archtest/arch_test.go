// Package archtest enforces DESIGN.md's one-way data flow:
// convert → cct → diff → report, with cmd/ctdiff on top, for the stages and
// for the internal packages they use.
package archtest

import (
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/ctdiff/ctdiff/"

// stages are the pipeline's packages in order, relative to mod.
var stages = []string{"convert", "cct", "diff", "report", "cmd/ctdiff"}

// forbidden lists, for each stage, the project packages it must not depend
// on (directly or indirectly).
var forbidden = map[string][]string{
	"convert": {"cct", "diff", "report", "cmd/ctdiff"},
	"cct":     {"convert", "diff", "report", "cmd/ctdiff"},
	"diff":    {"convert", "report", "cmd/ctdiff"},
	"report":  {"convert", "cmd/ctdiff"},
	// The samples' interchange is below convert and cct.
	"stacks": {"convert", "cct", "diff", "report", "cmd/ctdiff"},
}

const cobra = "github.com/spf13/cobra"

// banned are packages outside the project that the stages must not depend
// on, and why.
var banned = []struct {
	pkg, name, why string
	inCmd          bool // cmd/ctdiff may
}{
	{cobra, "cobra", "flags stop at cmd", true},
	{"testing", "testing", "test helpers (internal/golden, internal/cctest) stay in _test.go files", false},
}

func TestImportsFlowOneWay(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH")
	}
	// -deps lists every package the module's packages depend on, each with
	// its direct imports: the whole (non-test) import graph.
	out, err := exec.Command(goBin, "list", "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, mod+"...").Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
	}
	for _, s := range stages {
		if _, ok := imports[mod+s]; !ok {
			t.Fatalf("go list does not list stage %s; output:\n%s", s, out)
		}
	}
	used := 0
	for p := range usedBy(imports, true) {
		if strings.HasPrefix(p, mod+"internal/") {
			used++
		}
	}
	if used < 3 {
		t.Fatalf("only %d internal packages are used by the stages; go list output:\n%s", used, out)
	}
	for _, v := range violations(imports) {
		t.Error(v)
	}
}

// usedBy maps each package to the stages that depend on it, directly or
// through other packages, with the path from the stage: users[p][s] is
// [s, ..., p]. With ownOnly, paths do not pass through another stage: p is
// then one of the stage's own helpers, not a dependency it has only by
// importing another stage.
func usedBy(imports map[string][]string, ownOnly bool) map[string]map[string][]string {
	isStage := map[string]bool{}
	for _, s := range stages {
		isStage[mod+s] = true
	}
	users := map[string]map[string][]string{}
	for _, s := range stages {
		// Breadth first, so the path shown is a shortest one.
		path := map[string][]string{mod + s: {mod + s}}
		queue := []string{mod + s}
		for len(queue) > 0 {
			p := queue[0]
			queue = queue[1:]
			for _, q := range imports[p] {
				if _, seen := path[q]; seen {
					continue
				}
				path[q] = append(slices.Clip(path[p]), q)
				if !ownOnly || !isStage[q] {
					queue = append(queue, q)
				}
				if users[q] == nil {
					users[q] = map[string][]string{}
				}
				users[q][s] = path[q]
			}
		}
	}
	return users
}

// violations checks the import graph (package → direct imports):
//
//   - a stage must not depend on the stages forbidden to it, nor on the
//     packages banned from it;
//   - an internal package must not import what a stage that uses it (as its
//     own helper, not through another stage) must not depend on. With the
//     pipeline's order this means no internal package imports a stage above
//     the lowest stage that uses it: a helper of convert must not import
//     cct, diff or report.
//
// The first rule alone would catch a bad internal import too (as a stage's
// indirect dependency); the second names the internal package and the
// import to remove.
func violations(imports map[string][]string) []string {
	deps := usedBy(imports, false)
	var out []string
	for _, s := range stages {
		for _, b := range forbidden[s] {
			if _, ok := deps[mod+b][s]; ok {
				out = append(out, fmt.Sprintf("%s depends on %s: data flows convert → cct → diff → report → cmd only", s, b))
			}
		}
		for _, bn := range banned {
			if _, ok := deps[bn.pkg][s]; ok && !(bn.inCmd && s == "cmd/ctdiff") {
				out = append(out, fmt.Sprintf("%s depends on %s: %s", s, bn.name, bn.why))
			}
		}
	}
	users := usedBy(imports, true)
	var internal []string
	for p := range imports {
		if strings.HasPrefix(p, mod+"internal/") {
			internal = append(internal, p)
		}
	}
	slices.Sort(internal)
	for _, p := range internal {
		for _, q := range imports[p] {
			for _, s := range stages { // lowest stage first
				path, uses := users[p][s]
				if !uses {
					continue
				}
				why := ""
				for _, bn := range banned {
					if q == bn.pkg && !(bn.inCmd && s == "cmd/ctdiff") {
						why = bn.why
					}
				}
				for _, b := range forbidden[s] {
					if q == mod+b {
						why = "an internal package must not import a stage above the stages that use it"
					}
				}
				if why != "" {
					out = append(out, fmt.Sprintf("%s imports %s, but %s uses it (%s) and must not depend on %s: %s",
						short(p), short(q), s, strings.Join(shortAll(path), " → "), short(q), why))
					break
				}
			}
		}
	}
	return out
}

func short(p string) string { return strings.TrimPrefix(p, mod) }

func shortAll(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = short(p)
	}
	return out
}

// TestViolations runs the rules over made-up import graphs, so each one is
// shown to fail when it should.
func TestViolations(t *testing.T) {
	// clean is a small graph that obeys every rule.
	clean := func() map[string][]string {
		return map[string][]string{
			mod + "convert":          {mod + "internal/labels", mod + "internal/stacks", "fmt"},
			mod + "cct":              {mod + "internal/labels", mod + "internal/stacks"},
			mod + "diff":             {mod + "cct"},
			mod + "report":           {mod + "cct", mod + "diff", mod + "internal/pprofio"},
			mod + "cmd/ctdiff":       {mod + "convert", mod + "report", mod + "internal/browser", cobra},
			mod + "internal/labels":  {},
			mod + "internal/stacks":  {},
			mod + "internal/pprofio": {mod + "internal/labels", mod + "cct"},
			mod + "internal/browser": {mod + "report", mod + "diff"},
			mod + "internal/eval":    {mod + "convert", mod + "diff", cobra}, // used by no stage
		}
	}
	for _, tt := range []struct {
		name string
		edit func(g map[string][]string)
		want []string
	}{
		{"clean", func(map[string][]string) {}, nil},
		{
			"helper of convert imports cct",
			func(g map[string][]string) { g[mod+"internal/stacks"] = []string{mod + "cct"} },
			[]string{
				"convert depends on cct: data flows convert → cct → diff → report → cmd only",
				"internal/stacks imports cct, but convert uses it (convert → internal/stacks) and must not depend on cct: an internal package must not import a stage above the stages that use it",
			},
		},
		{
			"helper of a helper of convert imports report",
			func(g map[string][]string) {
				g[mod+"internal/labels"] = []string{mod + "internal/oneline"}
				g[mod+"internal/oneline"] = []string{mod + "report"}
			},
			[]string{
				"convert depends on cct: data flows convert → cct → diff → report → cmd only",
				"convert depends on diff: data flows convert → cct → diff → report → cmd only",
				"convert depends on report: data flows convert → cct → diff → report → cmd only",
				"cct depends on diff: data flows convert → cct → diff → report → cmd only",
				"cct depends on report: data flows convert → cct → diff → report → cmd only",
				"diff depends on report: data flows convert → cct → diff → report → cmd only",
				"internal/oneline imports report, but convert uses it (convert → internal/labels → internal/oneline) and must not depend on report: an internal package must not import a stage above the stages that use it",
			},
		},
		{
			"helper of report imports diff: allowed",
			func(g map[string][]string) {
				g[mod+"internal/pprofio"] = append(g[mod+"internal/pprofio"], mod+"diff")
			},
			nil,
		},
		{
			"helper of report imports convert",
			func(g map[string][]string) {
				g[mod+"internal/pprofio"] = append(g[mod+"internal/pprofio"], mod+"convert")
			},
			[]string{
				"report depends on convert: data flows convert → cct → diff → report → cmd only",
				"internal/pprofio imports convert, but report uses it (report → internal/pprofio) and must not depend on convert: an internal package must not import a stage above the stages that use it",
			},
		},
		{
			"helper of diff imports cobra",
			func(g map[string][]string) {
				g[mod+"diff"] = append(g[mod+"diff"], mod+"internal/flags")
				g[mod+"internal/flags"] = []string{cobra}
			},
			[]string{
				"diff depends on cobra: flags stop at cmd",
				"report depends on cobra: flags stop at cmd",
				"internal/flags imports github.com/spf13/cobra, but diff uses it (diff → internal/flags) and must not depend on github.com/spf13/cobra: flags stop at cmd",
			},
		},
		{
			"helper of report imports testing",
			func(g map[string][]string) {
				g[mod+"internal/pprofio"] = append(g[mod+"internal/pprofio"], "testing")
			},
			[]string{
				"report depends on testing: test helpers (internal/golden, internal/cctest) stay in _test.go files",
				"cmd/ctdiff depends on testing: test helpers (internal/golden, internal/cctest) stay in _test.go files",
				"internal/pprofio imports testing, but report uses it (report → internal/pprofio) and must not depend on testing: test helpers (internal/golden, internal/cctest) stay in _test.go files",
			},
		},
		{
			"tool outside the pipeline imports testing: allowed",
			func(g map[string][]string) { g[mod+"internal/eval"] = append(g[mod+"internal/eval"], "testing") },
			nil,
		},
		{
			"helper of cmd only imports every stage: allowed",
			func(g map[string][]string) {
				g[mod+"internal/browser"] = []string{mod + "convert", mod + "cct", mod + "diff", mod + "report"}
			},
			nil,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := clean()
			tt.edit(g)
			if got := violations(g); !slices.Equal(got, tt.want) {
				t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
