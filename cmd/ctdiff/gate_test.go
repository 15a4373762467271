package main

import (
	"strings"
	"testing"
)

// A gate (--fail-on-regression, or --fail-on-untested, which implies it)
// never passes silently over what it could not judge, and refuses to
// judge profiles of two different programs.
func TestGate(t *testing.T) {
	dir := t.TempDir()
	// One run a side and a top-level call in the new run only: no test
	// can tell it from an event handler that fired by accident.
	small := writeFile(t, dir, "small.folded", "main;work 100\nmain;parse 300\nmain;render 200\n")
	grown := writeFile(t, dir, "grown.folded", "main;work 100\nmain;parse 300\nmain;render 200\ncron;job 200\n")
	other := writeFile(t, dir, "other.folded", "server;accept 300\nserver;handle;parse 500\n")
	for _, tt := range []struct {
		name   string
		args   []string
		code   int
		stderr string // a line stderr must hold
	}{
		{"a cause fails the gate, with the verdict on stderr", []string{exampleOld, exampleNew, "--fail-on-regression"}, exitRegression,
			"ctdiff: regressed: example.checkRules +213.3ms, of which strings.EqualFold +86.67ms"},
		{"untested findings are said on stderr", []string{small, grown, "--fail-on-regression"}, exitOK,
			"ctdiff: untested: 1 call path(s) grew by 6 or more where no test could judge them, the largest +200 in cron; they do not fail the gate"},
		{"--fail-on-untested alone is a gate", []string{small, grown, "--fail-on-untested"}, exitRegression,
			"ctdiff: regression (untested, --fail-on-untested): 1 node(s) above the threshold, the largest added +200 in cron"},
		{"warnings reach stderr under a gate", []string{small, grown, "--fail-on-regression"}, exitOK,
			"ctdiff: warning: one run on a side and too few calling contexts"},
		{"two programs are refused under a gate", []string{small, other, "--fail-on-regression"}, exitError,
			"ctdiff: the base and new runs share 0% of their time in calling contexts both have (under 20%): they look like profiles of different programs, and a gate on them judges nothing; --allow-unrelated gates them anyway"},
		{"--allow-unrelated gates them", []string{small, other, "--fail-on-regression", "--allow-unrelated"}, exitRegression, "ctdiff: warning: the base and new runs share little"},
		{"without a gate two programs are a warning", []string{small, other}, exitOK, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errOut, code := ctdiff(append([]string{"diff"}, tt.args...)...)
			if code != tt.code || !strings.Contains(errOut, tt.stderr) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, errOut, tt.code, tt.stderr)
			}
		})
	}
}
