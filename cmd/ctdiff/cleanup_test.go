package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// An output that cannot be created is named as given, not as the
// temporary file beside it.
func TestOutputErrorNamesTarget(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.folded", "main;a 1\n")
	target := filepath.Join(dir, "nope", "x.txt")
	_, errOut, code := ctdiff("cct", "-o", target, in)
	if want := "ctdiff: -o " + target + ": no such file or directory\n"; code != exitError || errOut != want {
		t.Errorf("exit %d, stderr %q, want %q", code, errOut, want)
	}
}

// childEnv makes the test binary act as ctdiff for the signal tests: it
// runs the function named by the variable instead of the tests.
const childEnv = "CTDIFF_SIGNAL_CHILD"

// TestMain lets the signal tests run ctdiff as a process of its own, with
// main's signal handling, without building the command.
func TestMain(m *testing.M) {
	switch os.Getenv(childEnv) {
	case "":
		os.Exit(m.Run())
	case "write":
		// A report write that never ends: the temporary output exists.
		removeOnSignal()
		s := &streams{Out: os.Stdout, Err: os.Stderr}
		err := writeOutput(s, os.Args[len(os.Args)-1], false, func(w io.Writer) error {
			io.WriteString(w, "half a report")
			fmt.Println("ready")
			select {}
		})
		fmt.Fprintln(os.Stderr, "writeOutput returned:", err)
		os.Exit(3)
	case "main":
		// ctdiff itself, as main runs it.
		removeOnSignal()
		i := slices.Index(os.Args, "--")
		os.Exit(run(os.Args[i+1:], os.Stdout, os.Stderr))
	}
}

// endless serves a response that never ends, a chunk at a time, and says
// on started when it has sent the first.
func endless(started chan<- struct{}) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		chunk := make([]byte, 64<<10)
		for i := 0; ; i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			if i == 0 && started != nil {
				close(started)
			}
			select {
			case <-r.Context().Done():
				return
			case <-time.After(time.Millisecond):
			}
		}
	}
}

// Downloads stop at --max-input-size, whether the server says the length
// or streams without end, and leave nothing on disk.
func TestFetchBoundedBySizeLimit(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/sized", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "2000000")
		w.Write(make([]byte, 2000000))
	})
	mux.HandleFunc("/endless", endless(nil))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	for _, path := range []string{"/sized", "/endless"} {
		t.Run(path, func(t *testing.T) {
			dir := t.TempDir()
			start := time.Now()
			_, errOut, code := ctdiff("cct", "--max-input-size", "1000000", "--save-dir", dir, srv.URL+path)
			want := "ctdiff: fetching " + srv.URL + path + ": the response exceeds the size limit (1000000 bytes; raise it with --max-input-size)\n"
			if code != exitError || errOut != want {
				t.Errorf("exit %d, stderr %q, want %q", code, errOut, want)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
			if names := dirNames(t, dir); len(names) != 0 {
				t.Errorf("files left in --save-dir: %v", names)
			}
		})
	}
}

// A run that fails removes what it fetched, and the temporary directory it
// made for it; a run that completes keeps the profiles, named after host
// and path with a separator between them, with the mode of any new file
// (where files have a umask).
func TestFetchedProfilesKeptOnlyBySuccess(t *testing.T) {
	umask := setUmask(t, 0o022)
	profile, err := os.ReadFile(exampleOld + "/run1.pb.gz")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/profile", func(w http.ResponseWriter, r *http.Request) { w.Write(profile) })
	mux.HandleFunc("/notes", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello world\n") })
	srv := httptest.NewServer(mux)
	defer srv.Close()

	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	if _, errOut, code := ctdiff("cct", srv.URL+"/notes"); code != exitError {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if names := dirNames(t, tmp); len(names) != 0 {
		t.Errorf("a failed run left %v in the temporary directory", names)
	}
	saveDir := t.TempDir()
	if _, errOut, code := ctdiff("diff", "--save-dir", saveDir, srv.URL+"/debug/pprof/profile", srv.URL+"/notes"); code != exitError {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if names := dirNames(t, saveDir); len(names) != 0 {
		t.Errorf("a failed run left %v in --save-dir", names)
	}

	_, errOut, code := ctdiff("diff", "--save-dir", saveDir, srv.URL+"/debug/pprof/profile", srv.URL+"/debug/pprof/profile")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	names := dirNames(t, saveDir)
	if len(names) != 2 {
		t.Fatalf("saved %v, want both sides' profiles", names)
	}
	host := strings.ReplaceAll(strings.TrimPrefix(srv.URL, "http://"), ":", "_")
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(host) + `_debug_pprof_profile-\d{8}T\d{6}\.\d{3}(-2)?\.pb\.gz$`)
	for _, n := range names {
		if !re.MatchString(n) {
			t.Errorf("fetched profile named %q, want %s", n, re)
		}
		if st, err := os.Stat(filepath.Join(saveDir, n)); err != nil || umask && st.Mode().Perm() != 0o644 {
			t.Errorf("%s: mode %v (%v), want 0644 under umask 022", n, st.Mode().Perm(), err)
		}
	}
}
