package diff

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func rankLines(res *Result) []string {
	var out []string
	for _, p := range res.RankedPaths {
		var nodes []string
		for _, n := range p.Path {
			nodes = append(nodes, fmt.Sprintf("%s(%+d #%d)", n.Function, n.Cost/ms, n.Rank))
		}
		out = append(out, fmt.Sprintf("%d %+d %s", p.Rank, p.Cost/ms, strings.Join(nodes, ";")))
	}
	return out
}

// IntroPerf Algorithm 3 (DiffRankPaths) on a small pair.
func TestRankPaths(t *testing.T) {
	base := "main;a;x 100\nmain;a;y 50\nmain;b 200"
	for _, tt := range []struct {
		name string
		new  string
		top  int
		want []string
	}{
		{
			// y's own time grew by 100; the path main;c;z is new, so its
			// base is 0 (the paper's "otherwise" case); b got faster and x
			// did not change, so their paths are not ranked.
			name: "differential costs, new paths at full cost",
			new:  "main;a;x 100\nmain;a;y 150\nmain;b 190\nmain;c;z 80",
			want: []string{
				"1 +100 main(+0 #2);a(+0 #3);y(+100 #1)",
				"2 +80 main(+0 #2);c(+0 #3);z(+80 #1)",
			},
		},
		{
			name: "top N",
			new:  "main;a;x 100\nmain;a;y 150\nmain;b 190\nmain;c;z 80",
			top:  1,
			want: []string{"1 +100 main(+0 #2);a(+0 #3);y(+100 #1)"},
		},
		{
			// a's own time grew: it counts on every path through a, and is
			// the hottest node of each.
			name: "an inner node's own delta is on all its paths; ties by name",
			new:  "main;a 40\nmain;a;x 100\nmain;a;y 50\nmain;b 200",
			want: []string{
				"1 +40 main(+0 #2);a(+40 #1);x(+0 #3)",
				"2 +40 main(+0 #2);a(+40 #1);y(+0 #3)",
			},
		},
		{
			// Equivalent paths come from the matching, not from names only:
			// the reordered calls below a are the same paths.
			name: "reordered siblings are the same paths",
			new:  "main;a;y 50\nmain;a;x 160\nmain;b 200",
			want: []string{"1 +60 main(+0 #2);a(+0 #3);x(+60 #1)"},
		},
		{
			// "(idle)" is no work: its paths are not ranked, and c, whose
			// only callee it is, is no leaf.
			name: "idle paths are not ranked",
			new:  "main;a;x 100\nmain;a;y 150\nmain;b 200\nmain;(idle) 500\nmain;c;(idle) 300",
			want: []string{"1 +100 main(+0 #2);a(+0 #3);y(+100 #1)"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := compare(t, trees(t, base), trees(t, tt.new), Options{Top: tt.top})
			if got := rankLines(res); !slices.Equal(got, tt.want) {
				t.Errorf("ranked paths\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
