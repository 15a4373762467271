// Package archtest enforces the pipeline's one-way data flow:
// convert → cct → diff → report, with cmd/ctdiff on top, for the stages and
// for the internal packages they use; and keeps the lab (tools/: the
// accuracy harness, the audit, the generators of inputs) out of the product.
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

// goList runs go list with a format that prints a package path and then
// package paths, and returns the graph it prints.
func goList(t *testing.T, args ...string) (map[string][]string, string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH")
	}
	out, err := exec.Command(goBin, append([]string{"list"}, args...)...).Output()
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
	return imports, string(out)
}

func TestImportsFlowOneWay(t *testing.T) {
	// -deps lists every package the module's packages depend on, each with
	// its direct imports: the whole (non-test) import graph.
	imports, out := goList(t, "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, mod+"...")
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

// product are the packages ctdiff is made of: the stages and the samples'
// interchange below them.
var product = []string{"stacks", "convert", "cct", "diff", "report", "cmd/ctdiff"}

// lab is the prefix of the harnesses and generators, relative to mod.
const lab = "tools/"

// generators are the lab's packages that the product's tests may import:
// they write test inputs (synthetic profiles, hostile files) and judge
// nothing. The harnesses (tools/eval, tools/audit) test the product from
// outside and are imported by none of it.
var generators = []string{"tools/synth", "tools/hostile"}

func TestLabStaysOut(t *testing.T) {
	imports, out := goList(t, "-deps", "-f", `{{.ImportPath}} {{join .Imports " "}}`, mod+"...")
	n := 0
	for p := range imports {
		if strings.HasPrefix(p, mod+lab) {
			n++
		}
	}
	if n < 3 {
		t.Fatalf("go list lists %d packages under %s, so the rule would check nothing; output:\n%s", n, lab, out)
	}
	args := []string{"-f", `{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}`}
	for _, p := range product {
		args = append(args, mod+p)
	}
	testImports, _ := goList(t, args...)
	for _, v := range labViolations(imports, testImports) {
		t.Error(v)
	}
}

// labViolations checks the import graph (package → direct imports) and the
// product's test imports (package → what its _test.go files import):
//
//   - no product package depends on the lab, directly or through other
//     packages;
//   - the product's tests import from the lab only the generators, and a
//     generator does not bring in the rest of the lab.
func labViolations(imports, testImports map[string][]string) []string {
	isGenerator := func(p string) bool { return slices.Contains(generators, short(p)) }
	var out []string
	for _, s := range product {
		for _, path := range reach(imports, []string{mod + s}) {
			if q := path[len(path)-1]; strings.HasPrefix(q, mod+lab) {
				out = append(out, fmt.Sprintf("%s depends on %s (%s): the product never imports the lab",
					s, short(q), strings.Join(shortAll(path), " → ")))
			}
		}
		var roots []string
		for _, q := range testImports[mod+s] {
			if strings.HasPrefix(q, mod+lab) {
				roots = append(roots, q)
			}
		}
		for _, path := range reach(imports, roots) {
			if q := path[len(path)-1]; strings.HasPrefix(q, mod+lab) && !isGenerator(q) {
				out = append(out, fmt.Sprintf("%s's tests import %s (%s): the product's tests may use the lab's generators (%s) only",
					s, short(q), strings.Join(shortAll(path), " → "), strings.Join(generators, ", ")))
			}
		}
	}
	return out
}

// reach returns, for each package reachable from roots (the roots
// included), a shortest import path to it, in a stable order.
func reach(imports map[string][]string, roots []string) [][]string {
	slices.Sort(roots)
	order, path := walk(imports, roots, func(string) bool { return true })
	out := make([][]string, len(order))
	for i, p := range order {
		out[i] = path[p]
	}
	return out
}

// walk visits the packages reachable from roots breadth first, so that
// the path to each is a shortest one, and goes on through a package only
// when follow says so. It returns the packages in the order visited (the
// roots first) and the path from a root to each.
func walk(imports map[string][]string, roots []string, follow func(string) bool) ([]string, map[string][]string) {
	path := map[string][]string{}
	var order, queue []string
	for _, r := range roots {
		if _, seen := path[r]; !seen {
			path[r] = []string{r}
			order = append(order, r)
			queue = append(queue, r)
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, q := range imports[p] {
			if _, seen := path[q]; seen {
				continue
			}
			path[q] = append(slices.Clip(path[p]), q)
			order = append(order, q)
			if follow(q) {
				queue = append(queue, q)
			}
		}
	}
	return order, path
}

// TestLabViolations runs the lab rule over made-up import graphs, so each
// part of it is shown to fail when it should.
func TestLabViolations(t *testing.T) {
	clean := func() (map[string][]string, map[string][]string) {
		return map[string][]string{
				mod + "stacks":        {"fmt"},
				mod + "convert":       {mod + "stacks"},
				mod + "cct":           {mod + "stacks"},
				mod + "diff":          {mod + "cct"},
				mod + "report":        {mod + "diff"},
				mod + "cmd/ctdiff":    {mod + "convert", mod + "report"},
				mod + "tools/synth":   {"math/rand/v2"},
				mod + "tools/hostile": {"compress/gzip"},
				mod + "tools/eval":    {mod + "convert", mod + "diff"},
			}, map[string][]string{
				mod + "convert":    {mod + "tools/hostile", "testing"},
				mod + "diff":       {mod + "tools/synth", mod + "cct"},
				mod + "cmd/ctdiff": {mod + "tools/synth", mod + "tools/hostile"},
			}
	}
	for _, tt := range []struct {
		name string
		edit func(g, tg map[string][]string)
		want []string
	}{
		{"clean", func(_, _ map[string][]string) {}, nil},
		{
			"stage imports a harness",
			func(g, _ map[string][]string) { g[mod+"report"] = append(g[mod+"report"], mod+"tools/eval") },
			[]string{
				"report depends on tools/eval (report → tools/eval): the product never imports the lab",
				"cmd/ctdiff depends on tools/eval (cmd/ctdiff → report → tools/eval): the product never imports the lab",
			},
		},
		{
			"stacks imports a generator",
			func(g, _ map[string][]string) { g[mod+"stacks"] = []string{mod + "tools/synth"} },
			[]string{
				"stacks depends on tools/synth (stacks → tools/synth): the product never imports the lab",
				"convert depends on tools/synth (convert → stacks → tools/synth): the product never imports the lab",
				"cct depends on tools/synth (cct → stacks → tools/synth): the product never imports the lab",
				"diff depends on tools/synth (diff → cct → stacks → tools/synth): the product never imports the lab",
				"report depends on tools/synth (report → diff → cct → stacks → tools/synth): the product never imports the lab",
				"cmd/ctdiff depends on tools/synth (cmd/ctdiff → convert → stacks → tools/synth): the product never imports the lab",
			},
		},
		{
			"tests import a harness",
			func(_, tg map[string][]string) { tg[mod+"diff"] = append(tg[mod+"diff"], mod+"tools/eval") },
			[]string{
				"diff's tests import tools/eval (tools/eval): the product's tests may use the lab's generators (tools/synth, tools/hostile) only",
			},
		},
		{
			"a generator brings in a harness",
			func(g, _ map[string][]string) { g[mod+"tools/hostile"] = []string{mod + "tools/audit"} },
			[]string{
				"convert's tests import tools/audit (tools/hostile → tools/audit): the product's tests may use the lab's generators (tools/synth, tools/hostile) only",
				"cmd/ctdiff's tests import tools/audit (tools/hostile → tools/audit): the product's tests may use the lab's generators (tools/synth, tools/hostile) only",
			},
		},
		{
			"harness imports every stage: allowed",
			func(g, _ map[string][]string) {
				g[mod+"tools/eval"] = []string{mod + "stacks", mod + "convert", mod + "cct", mod + "diff", mod + "report"}
			},
			nil,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, tg := clean()
			tt.edit(g, tg)
			if got := labViolations(g, tg); !slices.Equal(got, tt.want) {
				t.Errorf("violations:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
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
		order, path := walk(imports, []string{mod + s}, func(q string) bool { return !ownOnly || !isStage[q] })
		for _, q := range order[1:] {
			if users[q] == nil {
				users[q] = map[string][]string{}
			}
			users[q][s] = path[q]
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
			mod + "tools/eval":       {mod + "convert", mod + "diff", cobra}, // used by no stage
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
			func(g map[string][]string) { g[mod+"tools/eval"] = append(g[mod+"tools/eval"], "testing") },
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
