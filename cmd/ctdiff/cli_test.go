package main

import (
	"regexp"
	"strings"
	"testing"
)

// --version and -v print the version like `ctdiff version`; a flag error
// points to the help of the command it was given to, named once.
func TestVersionFlags(t *testing.T) {
	want, _, _ := ctdiff("version")
	if !strings.HasPrefix(want, "ctdiff ") {
		t.Fatalf("ctdiff version printed %q", want)
	}
	for _, args := range [][]string{{"--version"}, {"-v"}} {
		out, errOut, code := ctdiff(args...)
		if code != exitOK || out != want || errOut != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want %q", args, code, out, errOut, want)
		}
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--colour"}, "ctdiff: unknown flag: --colour (see 'ctdiff --help')\n"},
		{[]string{"diff", "--colour"}, "ctdiff: unknown flag: --colour (see 'ctdiff diff --help')\n"},
	} {
		_, errOut, code := ctdiff(tt.args...)
		if code != exitError || errOut != tt.want {
			t.Errorf("%v: exit %d, stderr %q, want %q", tt.args, code, errOut, tt.want)
		}
	}
}

// Help texts state each default once and name value types in words.
func TestHelpDefaults(t *testing.T) {
	doubled := regexp.MustCompile(`default[: ].*\(default [^)]*\)\s*$`)
	for _, cmd := range []string{"convert", "cct", "diff", "report"} {
		out, _, code := ctdiff(cmd, "--help")
		if code != exitOK {
			t.Fatalf("%s --help: exit %d", cmd, code)
		}
		for _, line := range strings.Split(out, "\n") {
			if doubled.MatchString(line) {
				t.Errorf("%s --help states a default twice: %s", cmd, strings.TrimSpace(line))
			}
			if strings.Contains(line, "int64Slice") || strings.Contains(line, "(default [])") {
				t.Errorf("%s --help: %s", cmd, strings.TrimSpace(line))
			}
		}
	}
}
