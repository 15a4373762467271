package diff

import (
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/golden"
)

// Whole Results of the hand-built cases, as JSON, against
// testdata/*.golden (go test ./diff -run Golden -update rewrites them).
func TestGolden(t *testing.T) {
	zam := func(n int, lines []string) []*cct.Tree {
		out := make([]*cct.Tree, n)
		for i := range out {
			out[i] = msTree(t, true, lines)
		}
		return out
	}
	for _, tt := range []struct {
		name      string
		base, new []*cct.Tree
		opts      Options
	}{
		{"zam-figure4-intersect", zam(1, zamOld), zam(1, zamNew), Options{Aggregate: Intersect}},
		{"zam-figure4-stats", zam(3, zamOld), zam(3, zamNew), Options{}},
		{"parcs-figure5", trees(t, parcsOld), trees(t, parcsNew), Options{Match: PARCS, CallOrder: true, Aggregate: Intersect}},
		{
			"stats-noisy-runs",
			trees(t,
				"thread=main main;parse 300\nthread=main main;render;layout 200\nthread=main main;render;paint 100\nthread=gc sweep 40",
				"thread=main main;parse 310\nthread=main main;render;layout 195\nthread=main main;render;paint 104\nthread=gc sweep 38",
				"thread=main main;parse 295\nthread=main main;render;layout 205\nthread=main main;render;paint 98\nthread=gc sweep 45",
			),
			trees(t,
				"thread=main main;parse 305\nthread=main main;render;layout 320\nthread=main main;render;paint 101\nthread=gc sweep 41",
				"thread=main main;parse 298\nthread=main main;render;layout 330\nthread=main main;render;paint 99\nthread=gc sweep 39\nthread=main hover 60",
				"thread=main main;parse 302\nthread=main main;render;layout 318\nthread=main main;render;paint 103\nthread=gc sweep 44",
			),
			Options{},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			golden.Check(t, "testdata/"+tt.name+".golden", indentJSON(t, compare(t, tt.base, tt.new, tt.opts)))
		})
	}
}
