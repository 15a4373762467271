package diff

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

// benchRuns generates runs*2 trees of about nodes nodes each: one program,
// its evolved and injected new version, and noisy runs of both (the
// accuracy simulation's generator with fine sampling, so that every node
// appears).
func benchRuns(tb testing.TB, nodes, runs int) (base, nw []*cct.Tree) {
	rng := rand.New(rand.NewPCG(42, uint64(nodes)))
	p := genProg(rng, nodes)
	q := p.clone()
	evolve(rng, q)
	inject(rng, q, "loop")
	for range runs {
		base = append(base, simRun(rng, p, 1e3, 0.02, 0.3))
		nw = append(nw, simRun(rng, q, 1e3, 0.02, 0.3))
	}
	return base, nw
}

// BenchmarkCompare compares three base runs with three new runs of
// ZAM-scale trees (ZAM Section 5.3: call trees of thousands of nodes; its
// comparison step took 9.2 s on average, Table 6) and larger ones.
func BenchmarkCompare(b *testing.B) {
	for _, nodes := range []int{25_000, 250_000} {
		if nodes > 25_000 && testing.Short() {
			continue
		}
		base, nw := benchRuns(b, nodes, 3)
		for _, o := range []struct {
			name string
			opts Options
		}{
			{"stats", Options{}},
			{"intersect", Options{Aggregate: Intersect}},
			{"parcs", Options{Match: PARCS}},
		} {
			b.Run(fmt.Sprintf("nodes=%d/%s", len(base[0].Nodes), o.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Compare(base, nw, o.opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkLCS matches two similar sibling lists of 10,000 (ten edits).
func BenchmarkLCS(b *testing.B) {
	a := make([]key, 10_000)
	for i := range a {
		a[i] = key(i)
	}
	c := append([]key{}, a...)
	for i := range 5 {
		c[1000+i*1500] = key(-1 - i)                    // replaced
		c = append(c[:2000+i*1500], c[2001+i*1500:]...) // deleted
	}
	var s lcsScratch
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := s.lcs(a, c, DefaultBudget.limit(len(a), len(c)), nil); !ok {
			b.Fatal("budget exceeded")
		}
	}
}
