// Command misses checks that more runs find what fewer runs find,
// against the ground truth of a synth pair: given the JSON results of
// `ctdiff diff` on the first few runs of a block and on more runs of the
// same block, it lists each cause of the fewer-run result that the
// more-run result does not find again, with its true change (synth's
// Expected) and how many standard errors of sampling noise that change is
// wide at each number of runs.
//
//	go run ./tools/synth/cmd/misses -stacks 20000 -runs 3,10 k3.json k10.json
//
// A cause is found again when the other result has a cause on the same
// path, on a path extending it or extended by it, or one of a spread
// cause's contexts is. The flags -seed, -functions and -stacks must be
// those the pair was generated with.
//
// It also lists the false alarms of both results: causes on a context
// whose true inclusive time did not grow (a harness that counts only what
// more runs miss would reward a test that calls everything a cause).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/ctdiff/ctdiff/tools/synth"
)

type frames []struct{ Function string }

func (f frames) key() string {
	s := make([]string, len(f))
	for i, x := range f {
		s[i] = x.Function
	}
	return strings.Join(s, ";")
}

type cause struct {
	Path   frames
	Delta  float64
	Spread *struct{ Contexts []struct{ Path frames } }
}

func load(name string) ([]cause, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var r struct{ Causes []cause }
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return r.Causes, nil
}

func main() {
	var c synth.Config
	flag.Uint64Var(&c.Seed, "seed", 1, "random seed of the pair")
	flag.IntVar(&c.Functions, "functions", 5000, "distinct functions of the pair")
	flag.IntVar(&c.Stacks, "stacks", 200_000, "distinct stacks of the pair")
	runs := flag.String("runs", "3,10", "runs per side of the two results")
	flag.Parse()
	var k1, k2 float64
	if _, err := fmt.Sscanf(*runs, "%g,%g", &k1, &k2); err != nil || flag.NArg() != 2 {
		log.Fatal("usage: misses [-seed N -functions N -stacks N] -runs FEW,MORE few.json more.json")
	}
	few, err := load(flag.Arg(0))
	if err != nil {
		log.Fatal(err)
	}
	more, err := load(flag.Arg(1))
	if err != nil {
		log.Fatal(err)
	}
	truth := map[string]synth.Context{}
	for _, x := range synth.Expected(c) {
		truth[strings.Join(x.Path, ";")] = x
	}
	var found []string
	for _, x := range more {
		found = append(found, x.Path.key())
		if x.Spread != nil {
			for _, ctx := range x.Spread.Contexts {
				found = append(found, ctx.Path.key())
			}
		}
	}
	const period = 10e6 // synth's default
	missed := 0
	for _, x := range few {
		p := x.Path.key()
		again := false
		for _, q := range found {
			if q == p || strings.HasPrefix(q, p+";") || strings.HasPrefix(p, q+";") {
				again = true
				break
			}
		}
		if again {
			continue
		}
		missed++
		t, ok := truth[p]
		if !ok {
			fmt.Printf("miss: %.0f ms at %g runs, not a context of the pair: %s\n", x.Delta/1e6, k1, p)
			continue
		}
		d := t.New - t.Base
		z := func(k float64) float64 { return d / math.Sqrt(period*(t.Base+t.New)/k) }
		fmt.Printf("miss: %.0f ms at %g runs; true change %.0f ms of %.0f ms, %.1f standard errors at %g runs, %.1f at %g: %s\n",
			x.Delta/1e6, k1, d/1e6, t.Base/1e6, z(k1), k1, z(k2), k2, p)
	}
	fa1, fa2 := falseAlarms(few, truth, k1), falseAlarms(more, truth, k2)
	fmt.Printf("%d causes at %g runs, %d at %g, %d not found again; false alarms %d and %d\n", len(few), k1, len(more), k2, missed, fa1, fa2)
}

// falseAlarms prints and counts the causes on contexts whose true
// inclusive time did not grow (for a spread cause, all of its contexts).
func falseAlarms(cs []cause, truth map[string]synth.Context, k float64) int {
	n := 0
	grew := func(p frames) bool {
		t, ok := truth[p.key()]
		return !ok || t.New > t.Base // a path not in the truth is a miss's business
	}
	for _, x := range cs {
		if grew(x.Path) {
			continue
		}
		if x.Spread != nil && slices.ContainsFunc(x.Spread.Contexts, func(c struct{ Path frames }) bool { return grew(c.Path) }) {
			continue
		}
		n++
		t := truth[x.Path.key()]
		fmt.Printf("false alarm at %g runs: %.0f ms measured, true change %.0f ms of %.0f ms: %s\n", k, x.Delta/1e6, (t.New-t.Base)/1e6, t.Base/1e6, x.Path.key())
	}
	return n
}
