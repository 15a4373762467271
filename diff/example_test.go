package diff_test

import (
	"fmt"
	"strings"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/diff"
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

// Compare three runs before a change with three runs after it: layout grew
// by about 40% in every new run, while parse and paint only vary by noise.
// The causes are the lowest functions that grew.
func ExampleCompare() {
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
	fmt.Printf("%s, μ = %d (%s of the base)\n", res.Metric, res.MinDelta, res.MinDeltaSpec)
	for _, c := range res.Causes {
		var names []string
		for _, f := range c.Path {
			names = append(names, f.Function)
		}
		fmt.Printf("%s %s: %d → %d (%+d)\n", c.Kind, strings.Join(names, ";"), c.Base, c.New, c.Delta)
	}
	// Output:
	// samples/count, μ = 6 (1% of the base)
	// regressed main;render;layout: 200 → 283 (+83)
}
