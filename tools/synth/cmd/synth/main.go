// Command synth writes a large synthetic profile pair for benchmarks:
//
//	go run ./tools/synth/cmd/synth -stacks 200000 -o /tmp/big   # 200k stacks, ~0.8 M nodes
//	go run ./tools/synth/cmd/synth -stacks 200000 -new-frames 8 -o /tmp/huge   # ~1.5 M nodes
//	go run ./tools/synth/cmd/synth -runs 3 -o /tmp/runs   # three runs per side
//
// It writes OUT/base.pb.gz and OUT/new.pb.gz, or with -runs N > 1
// OUT/base/1.pb.gz ... OUT/new/N.pb.gz (ctdiff diff OUT/base OUT/new), and
// prints the injected change. -expected FILE also writes the ground truth:
// every calling context with its expected inclusive time on each side
// (synth.Expected), a line each: base ns, new ns and the path, tab-separated,
// functions joined by ";".
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctdiff/ctdiff/tools/synth"
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
	flag.IntVar(&c.Runs, "runs", 1, "runs per side")
	expected := flag.String("expected", "", "also write every calling context's expected values to this file")
	flag.Parse()
	write := func(name string, p *profile.Profile) {
		path := filepath.Join(*out, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			log.Fatal(err)
		}
		f, err := os.Create(path)
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
	// Each run is written as it is made (GenerateEach), so -runs 1000
	// needs the memory of one run.
	pair := synth.GenerateEach(c, func(i int, base, nw *profile.Profile) {
		if c.Runs > 1 {
			write(fmt.Sprintf("base/%d.pb.gz", i+1), base)
			write(fmt.Sprintf("new/%d.pb.gz", i+1), nw)
		} else {
			write("base.pb.gz", base)
			write("new.pb.gz", nw)
		}
	})
	fmt.Printf("injected: %s (+40%%), added callee: %s\n", pair.Injected, pair.Added)
	if *expected != "" {
		if err := writeExpected(*expected, c); err != nil {
			log.Fatal(err)
		}
	}
}

func writeExpected(name string, c synth.Config) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, x := range synth.Expected(c) {
		fmt.Fprintf(w, "%.0f\t%.0f\t%s\n", x.Base, x.New, strings.Join(x.Path, ";"))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
