// Command synth writes a large synthetic profile pair for benchmarks:
//
//	go run ./internal/synth/cmd/synth -stacks 200000 -o /tmp/big   # 200k stacks, ~0.8 M nodes
//	go run ./internal/synth/cmd/synth -stacks 200000 -new-frames 8 -o /tmp/huge   # ~1.5 M nodes
//
// It writes OUT/base.pb.gz and OUT/new.pb.gz and prints the injected change.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ctdiff/ctdiff/internal/synth"
	"github.com/google/pprof/profile"
)

func main() {
	var c synth.Config
	out := flag.String("o", "synth", "output directory")
	flag.Uint64Var(&c.Seed, "seed", 1, "random seed")
	flag.IntVar(&c.Functions, "functions", 5000, "distinct functions")
	flag.IntVar(&c.Stacks, "stacks", 200_000, "distinct stacks")
	flag.IntVar(&c.MeanDepth, "depth", 30, "mean stack depth")
	flag.IntVar(&c.NewFrames, "new-frames", 4, "mean frames a stack adds to the tree")
	flag.Parse()
	pair := synth.Generate(c)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	for name, p := range map[string]*profile.Profile{"base.pb.gz": pair.Base, "new.pb.gz": pair.New} {
		f, err := os.Create(filepath.Join(*out, name))
		if err != nil {
			log.Fatal(err)
		}
		if err := p.Write(f); err != nil {
			log.Fatal(err)
		}
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Printf("injected: %s (+40%%), added callee: %s\n", pair.Injected, pair.Added)
}
