package eval

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/internal/corpus"
)

func TestDebugCase(t *testing.T) {
	cfg := DefaultConfig(corpus.Dir())
	name := "devtools/speedscope-Chrome_70-worker.json"
	tm, err := loadTemplates(cfg.Corpus, []string{name}, 1)
	if err != nil {
		t.Fatal(err)
	}
	c := &Case{Profile: name, Kind: RepeatedCheck, Index: 0, Seed: caseSeed(cfg.Seed, name, int(RepeatedCheck), 0)}
	var base, nw []*cct.Tree
	cfg.Engines = []Engine{{Name: "capture", Compare: func(b, n []*cct.Tree) (Output, error) { base, nw = b, n; return Output{}, nil }}}
	if err := runCase(&cfg, tm[name], c); err != nil {
		t.Fatal(err)
	}
	_ = rand.New
	fmt.Println("truth", c.Truth(), c.Along)
	for i := range base {
		k, _ := base[i].SampleIndex("")
		for j, th := range base[i].Nodes[0].Children {
			fmt.Println("pair", i, "thread", base[i].Label(th), time.Duration(base[i].Nodes[th].Total[k]), time.Duration(nw[i].Nodes[nw[i].Nodes[0].Children[j]].Total[k]))
		}
	}
	for _, agg := range []diff.Aggregate{diff.Intersect, diff.Stats} {
		o := diff.DefaultOptions()
		o.Aggregate = agg
		o.MinDelta = diff.Threshold{Value: int64(50 * time.Millisecond)}
		res, err := diff.Compare(base, nw, o)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(agg, "causes", len(res.Causes), res.Warnings)
		for _, g := range res.Graph {
			fmt.Printf("  %d %s %v %s base %v new %v delta %v cause %v\n", g.Parent, g.Thread, g.Frame.Function, g.Kind, time.Duration(g.Base), time.Duration(g.New), time.Duration(g.Delta), g.Cause)
		}
		for i := range base {
			o.Aggregate = diff.Intersect
			res, _ := diff.Compare(base[i:i+1], nw[i:i+1], o)
			fmt.Println(" pair", i)
			for _, g := range res.Graph {
				fmt.Printf("    %d %s %v %s base %v new %v delta %v cause %v\n", g.Parent, g.Thread, g.Frame.Function, g.Kind, time.Duration(g.Base), time.Duration(g.New), time.Duration(g.Delta), g.Cause)
			}
		}
	}
}
