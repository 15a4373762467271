package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
	goldenfile "github.com/ctdiff/ctdiff/internal/golden"
)

// ctdiff runs the real CLI in-process.
func ctdiff(args ...string) (stdout, stderr string, code int) {
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// golden compares got with testdata/NAME, or rewrites it under -update.
// Corpus paths are replaced by $CORPUS so goldens do not depend on where
// the corpus lives.
func golden(t *testing.T, name, got string) {
	t.Helper()
	if d := corpus.Dir(); d != "" {
		got = strings.ReplaceAll(got, d, "$CORPUS")
	}
	got = strings.ReplaceAll(got, "../../../shared/corpus", "$CORPUS")
	goldenfile.CheckString(t, "testdata/"+name, got)
}

// lineDiff is a unified diff from want to got.
func lineDiff(want, got string) string {
	return goldenfile.Diff("want", "got", want, got)
}
