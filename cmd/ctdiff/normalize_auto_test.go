package main

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// A records job does a fixed amount of work: it reads records from a
// paced source (a rate-limited queue: record i is available i periods
// after the start), parses each and scores it. Its wall time is set by the
// source, not by its CPU time, so two versions of different cost last the
// same time. The new version also validates every record, which costs 7%
// more CPU.
type recordsJob struct {
	records int
	period  time.Duration
	rounds  int // hashing rounds of score per record
	newer   bool
}

func (j recordsJob) run() {
	start := time.Now()
	for i := range j.records {
		if d := time.Until(start.Add(time.Duration(i) * j.period)); d > 0 {
			time.Sleep(d)
		}
		rec := fmt.Sprintf("id=%d,user=u%d,amount=%d.%02d,region=r%d", i, i%97, i%1000, i%100, i%7)
		fields := parseRecord(rec)
		jobSink += scoreRecord(fields, j.rounds)
		if j.newer {
			jobSink += validateRecord(fields, j.rounds*7/100)
		}
	}
	time.Sleep(time.Until(start.Add(time.Duration(j.records) * j.period)))
}

var jobSink uint64

//go:noinline
func parseRecord(rec string) map[string]string {
	m := map[string]string{}
	for _, kv := range strings.Split(rec, ",") {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

//go:noinline
func scoreRecord(f map[string]string, rounds int) uint64 {
	return hashRounds(f["user"]+f["amount"], rounds)
}

//go:noinline
func validateRecord(f map[string]string, rounds int) uint64 {
	return hashRounds(f["id"]+f["region"], rounds)
}

func hashRounds(s string, rounds int) uint64 {
	h := fnv.New64a()
	b := []byte(s)
	var x uint64
	for range rounds {
		h.Write(b)
		x += h.Sum64()
	}
	return x
}

// calibrate returns the hashing rounds per record that cost about perRecord
// of CPU on this machine.
func calibrate(perRecord time.Duration) int {
	const probe = 20000
	start := time.Now()
	jobSink += hashRounds("u12345.67", probe)
	per := time.Since(start) / probe
	return max(1, int(perRecord/max(per, time.Nanosecond)))
}

// profileJob records the CPU profile of one run of j to path.
func profileJob(t *testing.T, j recordsJob, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Skipf("cannot profile the job: %v", err) // go test -cpuprofile
	}
	j.run()
	pprof.StopCPUProfile()
}

// pacedJobProfiles records one run of each version of a records job that
// lasts 1.37 s, and returns their paths. On a machine so busy that the two
// runs' durations differ by 2% or more (the job fell behind its input),
// it records them again, up to three times.
func pacedJobProfiles(t *testing.T) (oldP, newP string) {
	dir := t.TempDir()
	oldP, newP = filepath.Join(dir, "old.pb.gz"), filepath.Join(dir, "new.pb.gz")
	var d [2]int64
	for range 3 {
		j := recordsJob{records: 274, period: 5 * time.Millisecond, rounds: calibrate(2 * time.Millisecond)}
		profileJob(t, j, oldP)
		j.newer = true
		profileJob(t, j, newP)
		d = [2]int64{profileDuration(t, oldP), profileDuration(t, newP)}
		if float64(max(d[0], d[1])) < 1.02*float64(min(d[0], d[1])) {
			return oldP, newP
		}
	}
	if os.Getenv("CI") != "true" {
		t.Skipf("the machine is too busy to pace the job: its runs lasted %v and %v", time.Duration(d[0]), time.Duration(d[1]))
	}
	t.Fatalf("the job's runs lasted %v and %v, not the same time", time.Duration(d[0]), time.Duration(d[1]))
	return "", ""
}

func profileDuration(t *testing.T, path string) int64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return p.DurationNanos
}

// One run a side of a job that does a fixed amount of work, whose new
// version costs 7% more CPU and lasts as long (its wall time is its
// input's pace): equal durations do not make it a fixed-duration profile.
// The durations, 1.37 s, are not a whole number of seconds, as a requested
// recording window is, and nothing else says the window capped the total:
// absolute values compare, and a warning says what to use if the profiles
// were fixed-duration recordings after all. The fixed-duration example
// (2 s windows, in which a side's runs did different amounts of work)
// keeps shares; one run a side of it keeps them too, with a warning, as
// its totals differ by 15%.
func TestDiffAutoNormalizationFixedWork(t *testing.T) {
	oldP, newP := pacedJobProfiles(t)
	for _, tt := range []struct {
		name     string
		old, new string
		mode     string
		warns    bool // a warning names --normalize none and --normalize share
	}{
		{"fixed work, equal durations", oldP, newP, "none", true},
		{"fixed-duration example", fixedOld, fixedNew, "share", false},
		{"fixed-duration example, one run a side", fixedOld + "/run1.pb.gz", fixedNew + "/run1.pb.gz", "share", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := diffJSON(t, tt.old, tt.new)
			if r.Normalization.Mode != tt.mode || !r.Normalization.Auto {
				t.Errorf("normalization %s (%s), want %s", r.Normalization.Mode, r.Normalization.Reason, tt.mode)
			}
			warned := false
			for _, w := range r.Warnings {
				warned = warned || strings.Contains(w, "--normalize share") && strings.Contains(w, "--normalize none")
			}
			if warned != tt.warns {
				t.Errorf("a warning names --normalize none and --normalize share: %v, want %v: %q", warned, tt.warns, r.Warnings)
			}
		})
	}
}
