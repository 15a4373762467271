package main

import (
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// busy burns CPU until stop is set, so a live CPU profile has samples.
func busy(stop *atomic.Bool) {
	x := 0
	for !stop.Load() {
		for i := range 100000 {
			x += i * i
		}
	}
	_ = x
}

// TestLiveEndpoint profiles this test process through a real
// net/http/pprof handler and reads the result through the CLI.
func TestLiveEndpoint(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	var stop atomic.Bool
	defer stop.Store(true)
	go busy(&stop)

	dir := t.TempDir()
	out := filepath.Join(dir, "tree.json")
	_, errOut, code := ctdiff("cct", "--seconds", "1", "--format", "json", "-o", out, srv.URL+"/debug/pprof/profile")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "ctdiff: fetched "+srv.URL+"/debug/pprof/profile?seconds=1 → "+dir) {
		t.Errorf("stderr does not say where the fetched profile went: %q", errOut)
	}
	saved, _ := filepath.Glob(filepath.Join(dir, "127.0.0.1*debug_pprof_profile-*.pb.gz"))
	if len(saved) != 1 {
		t.Fatalf("fetched profile not kept beside the report: %v", saved)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.Contains(string(b), "TestLiveEndpoint") && !strings.Contains(string(b), "cmd/ctdiff.busy") {
		t.Errorf("the tree does not show this test's busy loop (err %v)", err)
	}
}

func TestFetchErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "profiling disabled", http.StatusForbidden)
	}))
	defer srv.Close()
	_, errOut, code := ctdiff("cct", "--save-dir", t.TempDir(), srv.URL+"/debug/pprof/profile")
	want := "ctdiff: fetching " + srv.URL + "/debug/pprof/profile: 403 Forbidden: profiling disabled\n"
	if code != exitError || errOut != want {
		t.Errorf("exit %d, stderr %q\nwant %q", code, errOut, want)
	}
}

func TestProfileURL(t *testing.T) {
	tests := []struct {
		in      string
		seconds int
		want    string
	}{
		{"http://h/debug/pprof/profile", 30, "http://h/debug/pprof/profile?seconds=30"},
		{"http://h/debug/pprof/profile?seconds=5", 30, "http://h/debug/pprof/profile?seconds=5"},
		{"http://h/debug/pprof/heap", 0, "http://h/debug/pprof/heap"},
	}
	for _, tt := range tests {
		if got, err := profileURL(tt.in, tt.seconds); err != nil || got != tt.want {
			t.Errorf("profileURL(%q, %d) = %q, %v; want %q", tt.in, tt.seconds, got, err, tt.want)
		}
	}
}
