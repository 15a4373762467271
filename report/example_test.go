package report_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/report"
)

// exampleTrees builds one tree per run from folded stacks, runs separated by "|".
func exampleTrees(runs string) []*cct.Tree {
	var out []*cct.Tree
	for _, run := range strings.Split(runs, "|") {
		res, err := convert.Read(strings.NewReader(run), "run.folded", convert.Options{})
		if err != nil {
			panic(err)
		}
		t, err := cct.FromProfile(res.Profile, cct.Options{Prune: true})
		if err != nil {
			panic(err)
		}
		out = append(out, t)
	}
	return out
}

// WriteDiff in Text writes what ctdiff diff prints: the verdict, the causes
// with their paths, and the supporting numbers.
func ExampleWriteDiff() {
	base := exampleTrees("main;parse 300\nmain;render;layout 200\nmain;render;paint 100\n" +
		"|main;parse 310\nmain;render;layout 195\nmain;render;paint 104\n" +
		"|main;parse 295\nmain;render;layout 205\nmain;render;paint 98\n")
	nw := exampleTrees("main;parse 305\nmain;render;layout 280\nmain;render;paint 101\n" +
		"|main;parse 298\nmain;render;layout 290\nmain;render;paint 99\n" +
		"|main;parse 302\nmain;render;layout 278\nmain;render;paint 103\n")
	res, err := diff.Compare(base, nw, diff.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := report.WriteDiff(os.Stdout, res, report.Text, report.DiffOptions{}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// Regressed: layout +83 (95% CI +69..+96, adjusted p 0.00028)
	//
	// ctdiff diff: samples/count, 3 base runs vs 3 new runs
	// Total: 602 → 685 (+83, +13.79%)
	//
	// Regression causes: 1
	//   1. layout +83  200 → 283
	//      [(all threads)] main → render → layout
	//      95% CI +69..+96, adjusted p 0.00028 (welch)
	//
	// Normalization: none (chosen: the inputs do not record their durations,
	//   so nothing says the work was not fixed: absolute values compare)
	// Method: stats (per-node tests, Holm α=0.05), zam matching; min delta 6 (1% of the base total)
	// Similarity: overlap 91.97% (noise floor 98.21%),
	//   common tree 100.00% (strict 100.00%), matching score 91.97%
	// Critical graph: 4 of 6 nodes
	//
	// Top paths (IntroPerf differential ranking; * marks the costliest node): 1
	//   1. +83  (hottest layout +83)
	//      [(all threads)] main → render → *layout
	//
	// Topology (in every run pair): 0 added, 0 removed subtrees
	//
	// Weight differences (PARCS weight matching, up to the noise floor: overlap 91.97% → 100.00%): 1
	//   +8.03 pts (33.21% → 41.24%)  [(all threads)] main → render → layout
	//
	// Matching: 10 LCS, 5 alternate (threads and top level),
	//   0 over the LCS budget, 0 residual (reordered calls), 0 renamed
}

// WriteTree in Text writes one tree like pprof -tree, hottest siblings first.
func ExampleWriteTree() {
	t := exampleTrees("main;parse 30\nmain;render;layout 20\nmain;render;paint 10\nmain;render 5\n")[0]
	if err := report.WriteTree(os.Stdout, t, report.Text, report.TreeOptions{Inputs: []string{"app.folded"}}); err != nil {
		fmt.Println(err)
	}
	// Output:
	// Type: samples/count
	// Inputs: app.folded
	// View: top-down; total 65; 6 nodes
	//
	//       self   self%      total  total%
	//          0   0.00%         65 100.00%  [(all threads)]
	//          0   0.00%         65 100.00%  └─ main
	//          5   7.69%         35  53.85%     ├─ render
	//         20  30.77%         20  30.77%     │  ├─ layout
	//         10  15.38%         10  15.38%     │  └─ paint
	//         30  46.15%         30  46.15%     └─ parse
}
