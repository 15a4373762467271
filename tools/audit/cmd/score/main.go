// Command score judges a ctdiff diff --format json output against the
// truth.json gen wrote, and prints one JSON line (audit.Outcome): each
// cause's verdict, the injections detected and missed, the false alarms.
//
//	go run ./tools/audit/cmd/score -truth DIR/truth.json -out DIR/out.json [-label x] [-abs]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/ctdiff/ctdiff/report"
	"github.com/ctdiff/ctdiff/tools/audit"
)

func main() {
	tp := flag.String("truth", "", "truth.json")
	op := flag.String("out", "", "ctdiff diff --format json output")
	label := flag.String("label", "", "label of the output line")
	abs := flag.Bool("abs", false, "judge growth in absolute ns (μ converted from a share at the base total)")
	flag.Parse()
	t, err := audit.ReadTruth(*tp)
	if err != nil {
		fail(err)
	}
	f, err := os.Open(*op)
	if err != nil {
		fail(err)
	}
	res, err := report.ReadDiffJSON(f, *op)
	f.Close()
	if err != nil {
		fail(err)
	}
	o := audit.Score(res, t, *abs)
	o.Label = *label
	b, err := json.Marshal(o)
	if err != nil {
		fail(err)
	}
	fmt.Println(string(b))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "score:", err)
	os.Exit(2)
}
