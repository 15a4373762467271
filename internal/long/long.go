// Package long gates the tests that take minutes: sweeps over the whole
// corpus of real profiles and inputs pushed to their size limits. `go test
// ./...` leaves them out, so that the everyday test command stays short;
// .ci/run sets CTDIFF_LONG=1 and runs every one of them.
package long

import (
	"os"
	"testing"
)

// Env is the environment variable that turns the long tests on.
const Env = "CTDIFF_LONG"

// Enabled reports whether the long tests run: CTDIFF_LONG=1.
func Enabled() bool { return os.Getenv(Env) == "1" }

// Skip skips tb unless the long tests run, saying what it leaves out.
func Skip(tb testing.TB, what string) {
	tb.Helper()
	if !Enabled() {
		tb.Skipf("%s: a long test, run with %s=1 (.ci/run sets it)", what, Env)
	}
}

// LargeFile is the size above which a file of the corpus is read only by
// the long tests: the few traces of megabytes take most of a corpus
// sweep's time, and the many smaller files cover the same readers.
const LargeFile = 800 << 10

// File skips tb unless the long tests run, when the file at path is larger
// than LargeFile.
func File(tb testing.TB, path string) {
	tb.Helper()
	if Enabled() {
		return
	}
	if st, err := os.Stat(path); err == nil && st.Size() > LargeFile {
		tb.Skipf("%s: %d bytes, read by the long tests only (%s=1; .ci/run sets it)", path, st.Size(), Env)
	}
}
