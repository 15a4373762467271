package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
)

var update = flag.Bool("update", false, "rewrite golden files")

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
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", name, lineDiff(string(want), got))
	}
}

// lineDiff shows the first differing lines, enough to see what changed.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return "line " + strconv.Itoa(i+1) + ":\n- " + wl + "\n+ " + gl
		}
	}
	return "(no line differs)"
}
