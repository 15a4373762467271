package audit

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/pprof/profile"
)

// An Injection is a regression a case put in the after runs.
type Injection struct {
	// Context is the regressed calling context, root first, and Func the
	// function that got slower (at or below it).
	Context []string `json:"context"`
	Func    string   `json:"func"`
	// DeltaNs is the mean growth per run, absolute.
	DeltaNs float64 `json:"delta_ns"`
	Note    string  `json:"note,omitempty"`
}

// Truth is what a case changed. Its JSON form is truth.json, as the audit's
// generator wrote it.
type Truth struct {
	Case     string      `json:"case"`
	Seed     uint64      `json:"seed"`
	K        int         `json:"k"`
	Injected []Injection `json:"injected"`
	// Before and After are the expected (noiseless) mean inclusive ns of
	// every calling context "a;b;c" of a run, inline frames as their own
	// frames, threads left out.
	Before, After map[string]float64
	// TotalBefore and TotalAfter are the expected mean totals of a run, ns.
	TotalBefore float64 `json:"total_before"`
	TotalAfter  float64 `json:"total_after"`
	// Renames maps a function's new name to its old one.
	Renames map[string]string `json:"renames,omitempty"`
	// Equivalent maps an after stack to the before stack it is (inlining
	// flattened it): its inclusive time is the same.
	Equivalent map[string]string `json:"equivalent,omitempty"`
	// Threads counts the threads of each name.
	Threads map[string]int `json:"threads,omitempty"`
}

// frames turns a stack into its frames, root first, without the thread
// prefix and inline marks.
func frames(st string) []string {
	_, _, body := splitThread(st)
	fs := strings.Split(body, ";")
	for i := range fs {
		fs[i] = strings.TrimSuffix(fs[i], "+inl")
	}
	return fs
}

// inclusive returns the expected inclusive ns of every context of w in a
// run of seconds.
func inclusive(w Workload, seconds float64) map[string]float64 {
	m := map[string]float64{}
	for _, st := range w.stacks() {
		fs := frames(st)
		for i := 1; i <= len(fs); i++ {
			m[strings.Join(fs[:i], ";")] += w[st] * seconds * 1e6
		}
	}
	return m
}

// Write writes the pair as the audit's generator did: dir/before/runNN.pb.gz,
// dir/after/runNN.pb.gz (gzipped pprof, or p.Format) and dir/truth.json.
func (p *Pair) Write(dir string) error {
	for _, side := range []struct {
		name string
		runs []*profile.Profile
	}{{"before", p.Before}, {"after", p.After}} {
		d := filepath.Join(dir, side.name)
		f := p.Format
		if side.name == "after" && p.FormatAfter != "" {
			f = p.FormatAfter
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		for i, prof := range side.runs {
			if err := writeRun(filepath.Join(d, fmt.Sprintf("run%02d", i)), f, prof); err != nil {
				return err
			}
		}
	}
	b, err := json.MarshalIndent(p.Truth, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "truth.json"), b, 0o644)
}

func writeProfile(path string, p *profile.Profile) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := p.Write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// ReadTruth reads a truth.json.
func ReadTruth(path string) (Truth, error) {
	var t Truth
	b, err := os.ReadFile(path)
	if err != nil {
		return t, err
	}
	if err := json.Unmarshal(b, &t); err != nil {
		return t, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}
