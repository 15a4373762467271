package convert_test

import (
	"fmt"
	"strings"

	"github.com/ctdiff/ctdiff/convert"
)

// Read sniffs the format (here folded stacks, root first, with a count),
// and returns a pprof profile.
func ExampleRead() {
	folded := "main;parse 30\nmain;render;layout 20\nmain;render;paint 10\n"
	res, err := convert.Read(strings.NewReader(folded), "app.folded", convert.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	p := res.Profile
	fmt.Println("format:", res.Format)
	for _, st := range p.SampleType {
		fmt.Printf("sample type: %s/%s\n", st.Type, st.Unit)
	}
	for _, s := range p.Sample {
		var frames []string
		for i := len(s.Location) - 1; i >= 0; i-- { // pprof stacks are leaf first
			frames = append(frames, s.Location[i].Line[0].Function.Name)
		}
		fmt.Println(strings.Join(frames, ";"), s.Value)
	}
	// Output:
	// format: collapsed
	// sample type: samples/count
	// main;parse [30]
	// main;render;layout [20]
	// main;render;paint [10]
}

// Errors name the input and the position of what could not be read.
func ExampleRead_error() {
	_, err := convert.Read(strings.NewReader("main;parse 30\nmain;render x2\n"), "app.folded", convert.Options{})
	fmt.Println(err)
	// Output:
	// app.folded: line 2: expected a non-negative integer count at the end, found "x2"
}
