package cct_test

import (
	"fmt"
	"strings"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/convert"
)

// FromProfile turns a profile into a calling-context tree: one node per
// distinct root-to-node path, under a synthetic root and one node per
// thread, with self and total values per sample type.
func ExampleFromProfile() {
	folded := "main;parse 30\nmain;render;layout 20\nmain;render;paint 10\nmain;render 5\n"
	res, err := convert.Read(strings.NewReader(folded), "app.folded", convert.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	tree, err := cct.FromProfile(res.Profile, cct.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, id := range tree.PreOrder() {
		n := tree.Node(id)
		fmt.Printf("%s%-*s self %2d total %2d\n", strings.Repeat("  ", int(n.Depth)), 20-2*int(n.Depth), tree.Label(id), tree.Self(id)[0], tree.Total(id)[0])
	}
	// Output:
	// (root)               self  0 total 65
	//   (all threads)      self  0 total 65
	//     main             self  0 total 65
	//       parse          self 30 total 30
	//       render         self  5 total 35
	//         layout       self 20 total 20
	//         paint        self 10 total 10
}
