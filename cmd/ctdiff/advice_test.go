package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/convert"
)

// An invalid folded line's error says how to skip such lines, in every
// command that reads profiles; a stack over the depth limit, which
// --skip-invalid-lines does not skip, does not.
func TestInvalidLineHint(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.folded", "main;a 10\nmain;b x\n")
	good := writeFile(t, dir, "good.folded", "main;a 12\n")
	deep := writeFile(t, dir, "deep.folded", strings.Repeat("f;", convert.MaxStackDepth)+"leaf 1\n")
	const hint = " (--skip-invalid-lines skips such lines, with one warning counting them)\n"
	lineErr := "ctdiff: " + bad + `: line 2: expected a non-negative integer count at the end, found "x"`
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"diff", []string{"diff", bad, good}, lineErr + hint},
		{"diff, the new side", []string{"diff", good, bad}, lineErr + hint},
		{"cct", []string{"cct", bad}, lineErr + hint},
		{"convert", []string{"convert", "-o", filepath.Join(dir, "out.pb.gz"), bad}, lineErr + hint},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := ctdiff(tt.args...)
			if code != exitError || errOut != tt.want {
				t.Errorf("exit %d, stderr\n%q\nwant exit %d,\n%q", code, errOut, exitError, tt.want)
			}
		})
	}
	_, errOut, code := ctdiff("cct", "--skip-invalid-lines", deep)
	if code != exitError || strings.Contains(errOut, "--skip-invalid-lines") || !strings.Contains(errOut, "stack frames exceed the limit") {
		t.Errorf("a stack over the limit: exit %d, stderr %q", code, errOut)
	}
}
