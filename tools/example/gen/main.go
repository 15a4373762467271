// Command gen regenerates the example profiles: CPU-profiled runs of the
// example workload's old version and of its new version (with the injected
// slowdown in validate).
//
//	go run ./tools/example/gen -o testdata/example
//	go run ./tools/example/gen -o testdata/fixed-duration -duration 2s
//
// The first does a fixed amount of work per run (-requests), so the new
// runs take longer; with -duration every run lasts the same time, as a
// fixed-duration profile of a saturated service does
// (/debug/pprof/profile?seconds=N), and the new version handles fewer
// requests. The profiles are real runtime/pprof CPU profiles, so each
// regeneration differs by sampling noise; the injected slowdown does not.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/ctdiff/ctdiff/tools/example"
)

func main() {
	out := flag.String("o", "testdata/example", "output directory")
	runs := flag.Int("runs", 3, "runs per version")
	requests := flag.Int("requests", 3000, "requests per run (fixed work)")
	duration := flag.Duration("duration", 0, "if set, every run lasts this long instead (fixed duration)")
	flag.Parse()
	versions := []struct {
		dir  string
		slow bool
	}{{"old", false}, {"new", true}}
	for _, v := range versions {
		if err := os.MkdirAll(filepath.Join(*out, v.dir), 0o755); err != nil {
			log.Fatal(err)
		}
	}
	// Runs alternate between the versions, so a change in the machine's
	// load hits both alike (benchstat's advice for benchmarks).
	for i := 1; i <= *runs; i++ {
		for _, v := range versions {
			path := filepath.Join(*out, v.dir, fmt.Sprintf("run%d.pb.gz", i))
			work := func() (int, uint64) {
				return *requests, example.Run(example.Config{Slow: v.slow, Requests: *requests})
			}
			if *duration > 0 {
				work = func() (int, uint64) { return example.RunFor(*duration, v.slow) }
			}
			n, err := profileRun(path, work)
			if err != nil {
				log.Fatal(err)
			}
			fmt.Printf("wrote %s (%d requests)\n", path, n)
		}
	}
}

func profileRun(path string, work func() (int, uint64)) (int, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return 0, err
	}
	start := time.Now()
	n, sum := work()
	pprof.StopCPUProfile()
	if sum == 42 { // keep the result alive
		fmt.Println(time.Since(start))
	}
	return n, f.Close()
}
