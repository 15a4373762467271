package cct_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/cctest"
)

// The recursive example: main calls fib, which recurses; fib calls add.
var recursive = []string{
	"main;fib;fib;fib 4",
	"main;fib;fib;add 2",
	"main;fib 1",
	"main;parse 3",
}

func TestFlatCountsRecursionOncePerStack(t *testing.T) {
	tr := cctest.Tree(t, cct.Options{}, recursive...)
	var got []string
	for _, e := range cct.Flat(tr) {
		got = append(got, fmt.Sprintf("%s self=%d total=%d", e.Function, e.Self[0], e.Total[0]))
	}
	want := []string{
		"main self=0 total=10",
		"fib self=5 total=7", // 4+2+1 samples contain fib, whatever its depth
		"add self=2 total=2",
		"parse self=3 total=3",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("flat:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestBottomUp(t *testing.T) {
	tr := cctest.Tree(t, cct.Options{}, recursive...)
	up := cct.BottomUp(tr)
	if err := up.Validate(); err != nil {
		t.Fatal(err)
	}
	// Top level: functions with self time, totals = their flat self; callers
	// in order of a pre-order walk of the top-down tree.
	want := `(all threads) 0 10
  fib 0 5
    main 1 1
    fib 0 4
      fib 0 4
        main 4 4
  add 0 2
    fib 0 2
      fib 0 2
        main 2 2
  parse 0 3
    main 3 3
`
	if got := cctest.Dump(up, 0); got != want {
		t.Errorf("bottom-up:\n%s\nwant:\n%s", got, want)
	}
}
