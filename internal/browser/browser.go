// Package browser runs headless Chromium for tests of the HTML report: it
// loads a page from a file and returns the DOM after the page's scripts ran,
// or takes a screenshot. Tests skip when Chromium is not installed, except
// under CI=true, where .ci/run installs it and a missing browser fails.
package browser

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// Names Chromium is installed under (Debian's package is "chromium").
var names = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}

// Find returns Chromium's path, or skips the test (fails it under CI=true)
// when there is none.
func Find(tb testing.TB) string {
	tb.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		tb.Fatal("chromium is not installed; .ci/run installs it (apt-get install chromium)")
	}
	tb.Skip("chromium not installed")
	return ""
}

// flags keep headless Chromium off the network and away from the user's
// profile; --no-sandbox because CI runs as root.
func flags(tb testing.TB) []string {
	return []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--hide-scrollbars", "--user-data-dir=" + tb.TempDir(),
	}
}

// DumpDOM loads the HTML file at path and returns the DOM as serialized
// after the load event, when the page's scripts have run.
func DumpDOM(tb testing.TB, path string) string {
	tb.Helper()
	return string(run(tb, append(flags(tb), "--dump-dom", fileURL(tb, path))...))
}

// Screenshot loads the HTML file at path in a window of width × height CSS
// pixels and writes a PNG of it to out.
func Screenshot(tb testing.TB, path, out string, width, height int) {
	tb.Helper()
	abs, err := filepath.Abs(out)
	if err != nil {
		tb.Fatal(err)
	}
	run(tb, append(flags(tb), "--screenshot="+abs, "--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height), fileURL(tb, path))...)
	if st, err := os.Stat(abs); err != nil || st.Size() == 0 {
		tb.Fatalf("chromium wrote no screenshot to %s: %v", abs, err)
	}
}

func run(tb testing.TB, args ...string) []byte {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, Find(tb), args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		tb.Fatalf("chromium %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.Bytes()
}

func fileURL(tb testing.TB, path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		tb.Fatal(err)
	}
	return "file://" + filepath.ToSlash(abs)
}
