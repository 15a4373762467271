package diff

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

// A recursion that goes deeper in the new runs, with the same work spread
// over more depths, is no regression: the deep calls are "added" in every
// new run, but the walk's outermost call did not grow. The
// same shape with the deepest calls slower is one.
func TestTimeMovedBetweenRecursionDepths(t *testing.T) {
	walk := func(depth int) string { return "m;h" + strings.Repeat(";w", depth) }
	runs := func(work func(i int) []int, extra int) []*cct.Tree {
		var rs []string
		for i := range 5 {
			var b strings.Builder
			for d, v := range work(i) {
				if d == len(work(i))-1 {
					v += extra
				}
				fmt.Fprintf(&b, "%s;v %d\n", walk(d+1), v)
			}
			fmt.Fprintf(&b, "m;g;x %d\nm;g;y %d\nm;o %d", 300+7*i, 200-5*i, 150+3*(i%3))
			rs = append(rs, b.String())
		}
		return trees(t, rs...)
	}
	base := runs(func(i int) []int { return []int{300 + i, 200 - i, 100} }, 0)
	deeper := func(i int) []int { return []int{150 + i, 150 - i, 100, 100, 100} }
	opts := Options{MinDelta: Threshold{Value: 50 * ms}, Normalize: Normalize{Mode: NormalizeNone}}
	if got := causeLines(compare(t, base, runs(deeper, 0), opts)); got != nil {
		t.Errorf("deeper: causes %q, want none", got)
	}
	got := causeLines(compare(t, base, runs(deeper, 200), opts))
	if want := "added 300 " + walk(5) + ";v"; !slices.Contains(got, want) {
		t.Errorf("deeper and slower: causes %q, want %q", got, want)
	}
}
