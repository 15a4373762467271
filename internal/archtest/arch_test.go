// Package archtest enforces DESIGN.md's one-way data flow:
// convert → cct → diff → report, with cmd/ctdiff on top.
package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/ctdiff/ctdiff/"

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

func TestImportsFlowOneWay(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go tool not on PATH")
	}
	out, err := exec.Command(goBin, "list", "-f", `{{.ImportPath}} {{join .Deps " "}}`, mod+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], mod)
		bad, ok := forbidden[pkg]
		if !ok {
			continue
		}
		checked++
		deps := map[string]bool{}
		for _, d := range f[1:] {
			deps[d] = true
		}
		for _, b := range bad {
			if deps[mod+b] {
				t.Errorf("%s depends on %s: data flows convert → cct → diff → report → cmd only", pkg, b)
			}
		}
		if deps["github.com/spf13/cobra"] {
			t.Errorf("%s depends on cobra: flags stop at cmd", pkg)
		}
	}
	if checked < 3 {
		t.Fatalf("checked %d stage packages; go list output:\n%s", checked, out)
	}
}
