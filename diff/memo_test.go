package diff

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// oneShapeRuns returns n runs of one shape (the same stacks in the same
// order), their values jittered by run; fn names the function m calls
// first.
func oneShapeRuns(n int, fn string, grow float64) []string {
	var out []string
	for i := range n {
		j := float64(i%5) - 2
		out = append(out, strings.Join([]string{
			fmt.Sprintf("m;%s;z %g", fn, (100+3*j)*grow),
			fmt.Sprintf("m;b %g", 50+2*j),
			fmt.Sprintf("thread=w w;e %g", 30-j),
		}, "\n"))
	}
	return out
}

// A stream reuses the union matching, the pair matching and the base-pair
// matching of runs of one shape (memo.go), and gives what matching every
// run gives: the same result, matcher counts included.
func TestStreamMemo(t *testing.T) {
	const nb, nn = 12, 12
	// Beyond compactMinRuns a side the values are kept compactly
	// (float32 runValues), where runs that share their toU are written alike.
	const cb, cn = compactMinRuns + 1, compactMinRuns + 2
	for _, tt := range []struct {
		name     string
		nb, nn   int
		base, nw []string
		// reused: union matchings, pairs, base pairs.
		reused [3]int
		// renames: the union, built in the stream's order, renames
		// otherwise than with every run kept (stream.go), so the result
		// is not compared with the kept runs'.
		renames bool
		// memoMax, when not 0, is the largest run memoized.
		memoMax int
	}{
		// b0 is copied (the union changes), b1 matched, then every run
		// takes its predecessor's; the first pair and the first two base
		// pairs are matched.
		{"one shape", nb, nn, oneShapeRuns(nb, "a", 1), oneShapeRuns(nn, "a", 1.6), [3]int{nb - 2 + nn - 1, nb - 1, nb - 2}, false, 0},
		{"one shape, compact", cb, cn, oneShapeRuns(cb, "a", 1), oneShapeRuns(cn, "a", 1.6), [3]int{cb - 2 + cn - 1, cb - 1, cb - 2}, false, 0},
		// Runs larger than memoMaxNodes are not memoized.
		{"one shape, runs too large", nb, nn, oneShapeRuns(nb, "a", 1), oneShapeRuns(nn, "a", 1.6), [3]int{}, false, 3},
		// n0 renames a to r in the union; b1 then adds a again (its key
		// is the union's already: no rename) and n1 and b2 are the first
		// to change nothing. Every pair's matching renames a to r, which
		// reads weights: no pair is reused; base pairs are.
		{"renamed", nb, nn, oneShapeRuns(nb, "a", 1), oneShapeRuns(nn, "r", 1.6), [3]int{nb - 3 + nn - 2, 0, nb - 2}, true, 0},
		// A run in three has another shape (y): a memo applies only
		// between two runs of the shape without y (i%3 = 1, 2), so to
		// runs 2, 5, 8 and 11 of each side and their pairs, and never to
		// a base pair (its predecessor pair has a run with y).
		{"shapes alternate", nb, nn, streamRuns(nb, false), streamRuns(nn, true), [3]int{8, 4, 0}, false, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := Options{Tree: true}
			var results [2]*Result
			for i, noMemo := range []bool{true, false} {
				f := NewFold(tt.nb, tt.nn, opts)
				f.st.noMemo = noMemo
				if tt.memoMax > 0 {
					f.st.memoMax = tt.memoMax
				}
				addAll(f, trees(t, tt.base...), trees(t, tt.nw...), f.order(), false)
				var want [3]int
				if !noMemo {
					want = tt.reused
				}
				if f.st.reused != want {
					t.Errorf("noMemo %v: reused %v, want %v", noMemo, f.st.reused, want)
				}
				res, err := f.Compare()
				if err != nil {
					t.Fatal(err)
				}
				results[i] = res
			}
			if len(results[0].Causes) == 0 {
				t.Fatal("the test's runs have no cause")
			}
			if !reflect.DeepEqual(results[0], results[1]) {
				t.Errorf("memoized result differs:\n got %v %+v\nwant %v %+v", causeLines(results[1]), results[1].Matchers, causeLines(results[0]), results[0].Matchers)
			}
			// And both are what keeping every run gives (scatter writes
			// runs that share a toU from their own arrays either way).
			if tt.renames {
				return
			}
			kept := newFold(tt.nb, tt.nn, opts, 1<<30)
			addAll(kept, trees(t, tt.base...), trees(t, tt.nw...), kept.order(), false)
			want, err := kept.Compare()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(results[1], want) {
				t.Errorf("streamed result differs from the kept runs':\n got %v %+v\nwant %v %+v", causeLines(results[1]), results[1].Overlap, causeLines(want), want.Overlap)
			}
		})
	}
}
