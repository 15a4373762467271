package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// ctdiff profiles itself with the hidden --cpuprofile and --memprofile,
// and reads its own profiles back.
func TestSelfProfile(t *testing.T) {
	if f := flag.Lookup("test.cpuprofile"); f != nil && f.Value.String() != "" {
		t.Skip("the test binary is being CPU-profiled already")
	}
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pb.gz"), filepath.Join(dir, "mem.pb.gz")
	_, stderr, code := ctdiff("diff", "../../testdata/example/old", "../../testdata/example/new",
		"-o", filepath.Join(dir, "report.txt"), "--cpuprofile", cpu, "--memprofile", mem)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for path, sampleType := range map[string]string{cpu: "cpu", mem: "alloc_space"} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := profile.Parse(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		found := false
		for _, st := range p.SampleType {
			found = found || st.Type == sampleType
		}
		if !found {
			t.Errorf("%s: sample types %v, want %s among them", path, p.SampleType, sampleType)
		}
		if len(p.Sample) == 0 {
			continue // a run this short may take no CPU sample
		}
		if out, stderr, code := ctdiff("cct", path); code != exitOK || !strings.Contains(out, "nodes") {
			t.Errorf("ctdiff cct %s: exit %d, %s%s", path, code, stderr, out[:min(len(out), 200)])
		}
	}
}

func TestSelfProfileErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "such", "dir", "p.pb.gz")
	for _, flagName := range []string{"--cpuprofile", "--memprofile"} {
		_, stderr, code := ctdiff("version", flagName, missing)
		if code != exitError || !strings.HasPrefix(stderr, "ctdiff: "+flagName+": open "+missing) {
			t.Errorf("%s %s: exit %d, stderr %q", flagName, missing, code, stderr)
		}
	}
}
