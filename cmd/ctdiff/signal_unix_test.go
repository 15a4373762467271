//go:build unix

package main

import (
	"bufio"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"
)

// startChild runs the test binary as ctdiff in the given mode.
func startChild(t *testing.T, mode string, args ...string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^$", "--"}, args...)...)
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd, bufio.NewReader(out)
}

// waitSignaled waits for the child and checks it exited as a shell reports
// a process ended by sig.
func waitSignaled(t *testing.T, cmd *exec.Cmd, sig syscall.Signal) {
	t.Helper()
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
		t.Errorf("after %v the process ended with %v, want exit status %d", sig, err, 128+int(sig))
	}
}

// SIGINT and SIGTERM during a write remove the temporary output and leave
// the previous report as it was.
func TestSignalRemovesTemporaryOutput(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			target := writeFile(t, dir, "report.txt", "the previous report\n")
			cmd, out := startChild(t, "write", target)
			if line, err := out.ReadString('\n'); line != "ready\n" {
				t.Fatalf("child said %q, %v", line, err)
			}
			if names := dirNames(t, dir); len(names) != 2 {
				t.Fatalf("no temporary output beside the target while writing: %v", names)
			}
			cmd.Process.Signal(sig)
			waitSignaled(t, cmd, sig)
			if names := dirNames(t, dir); !slices.Equal(names, []string{"report.txt"}) {
				t.Errorf("files left after %v: %v", sig, names)
			}
			if b, _ := os.ReadFile(target); string(b) != "the previous report\n" {
				t.Errorf("the previous report became %q", b)
			}
		})
	}
}

// A profile being fetched when the run is interrupted is removed.
func TestSignalRemovesFetchInProgress(t *testing.T) {
	started := make(chan struct{})
	srv := httptest.NewServer(endless(started))
	defer srv.Close()
	dir := t.TempDir()
	cmd, _ := startChild(t, "main", "cct", "--save-dir", dir, srv.URL+"/debug/pprof/profile")
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		t.Fatal("the child never fetched")
	}
	for range 100 { // the first chunk reaches the file
		if len(dirNames(t, dir)) > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if len(dirNames(t, dir)) == 0 {
		t.Fatal("no file in --save-dir while fetching")
	}
	cmd.Process.Signal(syscall.SIGINT)
	waitSignaled(t, cmd, syscall.SIGINT)
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("files left in --save-dir: %v", names)
	}
}
