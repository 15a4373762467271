// Command gen regenerates testdata/example: three CPU-profiled runs of the
// example workload's old version and three of its new version (with the
// injected slowdown in validate).
//
//	go run ./internal/example/gen -o testdata/example
//
// The profiles are real runtime/pprof CPU profiles, so each regeneration
// differs by sampling noise; the injected slowdown does not.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"runtime/pprof"

	"github.com/ctdiff/ctdiff/internal/example"
)

func main() {
	out := flag.String("o", "testdata/example", "output directory")
	runs := flag.Int("runs", 3, "runs per version")
	requests := flag.Int("requests", 3000, "requests per run")
	flag.Parse()
	for _, v := range []struct {
		dir  string
		slow bool
	}{{"old", false}, {"new", true}} {
		dir := filepath.Join(*out, v.dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			log.Fatal(err)
		}
		for i := 1; i <= *runs; i++ {
			path := filepath.Join(dir, fmt.Sprintf("run%d.pb.gz", i))
			if err := profileRun(path, example.Config{Slow: v.slow, Requests: *requests}); err != nil {
				log.Fatal(err)
			}
			fmt.Println("wrote", path)
		}
	}
}

func profileRun(path string, cfg example.Config) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return err
	}
	sum := example.Run(cfg)
	pprof.StopCPUProfile()
	if sum == 42 { // keep the result alive
		fmt.Println()
	}
	return f.Close()
}
