package diff

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/benchcpu"
	"github.com/ctdiff/ctdiff/tools/synth"
)

// synthTrees are the trees of the 200,000-stack synthetic pair
// (tools/synth: about a million nodes each), built once per test binary.
var synthTrees = sync.OnceValues(func() (*cct.Tree, *cct.Tree) {
	pair := synth.Generate(synth.Config{Seed: 1})
	base, err := cct.FromProfile(pair.Base, cct.Options{Prune: true})
	if err != nil {
		panic(err)
	}
	nw, err := cct.FromProfile(pair.New, cct.Options{Prune: true})
	if err != nil {
		panic(err)
	}
	return base, nw
})

// BenchmarkCompareSynth is everything Compare does on the synthetic pair,
// one run per side, as `ctdiff diff base.pb.gz new.pb.gz` runs it after
// building the trees.
func BenchmarkCompareSynth(b *testing.B) {
	base, nw := synthTrees()
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	for b.Loop() {
		if _, err := Compare([]*cct.Tree{base}, []*cct.Tree{nw}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
	stop()
}

// prepared is the state of a comparison of the synthetic pair up to the
// union tree, for benchmarking the stages after it.
type prepared struct {
	kt         *keyTable
	base, nw   *run
	u          *union
	baseOf     []int32
	mu         int64
	nBase, nNw int
}

func prepare(tb testing.TB, runsPerSide int) *prepared {
	tb.Helper()
	bt, nt := synthTrees()
	m, err := SampleMetric("", bt, nt)
	if err != nil {
		tb.Fatal(err)
	}
	p := &prepared{kt: newKeyTable(), mu: 50e6}
	var bRuns, nRuns []*run
	for range runsPerSide {
		bRuns = append(bRuns, newRun(bt, p.kt, m))
		nRuns = append(nRuns, newRun(nt, p.kt, m))
	}
	p.base, p.nw = bRuns[0], nRuns[0]
	mt := newMatcher(ZAM, DefaultBudget)
	mt.kt, mt.renameMin = p.kt, p.mu/2
	p.u = newUnion()
	for _, r := range append(append([]*run{}, bRuns...), nRuns...) {
		mt.addRun(p.u, r, ZAM)
	}
	p.u.values(bRuns, nRuns, true)
	p.baseOf = mt.matchTrees(p.base, p.nw, ZAM)
	p.nBase, p.nNw = len(bRuns), len(nRuns)
	return p
}

// BenchmarkUnion matches both trees of the synthetic pair onto a union
// tree (ZAM hybrid matching: LCS per sibling list, alternate matching for
// top-level calls and over-budget lists, renames).
func BenchmarkUnion(b *testing.B) {
	p := prepare(b, 1)
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	for b.Loop() {
		mt := newMatcher(ZAM, DefaultBudget)
		mt.kt, mt.renameMin = p.kt, p.mu/2
		u := newUnion()
		mt.addRun(u, p.base, ZAM)
		mt.addRun(u, p.nw, ZAM)
		u.values([]*run{p.base}, []*run{p.nw}, true)
	}
	stop()
}

// BenchmarkMatchTrees matches the new tree against the base tree, with
// ZAM's hybrid matching and with PARCS's relaxed matching.
func BenchmarkMatchTrees(b *testing.B) {
	p := prepare(b, 1)
	for _, mode := range []Matching{ZAM, PARCS, strict} {
		b.Run(string(mode), func(b *testing.B) {
			b.ReportAllocs()
			stop := benchcpu.Start(b)
			for b.Loop() {
				mt := newMatcher(mode, DefaultBudget)
				mt.kt, mt.renameMin = p.kt, p.mu/2
				mt.matchTrees(p.base, p.nw, mode)
			}
			stop()
		})
	}
}

// BenchmarkAlternate is ZAM's alternate (hash-map) matching of two sibling
// lists of 10,000 calls in different orders.
func BenchmarkAlternate(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	ka := make([]key, 10_000)
	for i := range ka {
		ka[i] = key(rng.IntN(5000))
	}
	kb := append([]key{}, ka...)
	rng.Shuffle(len(kb), func(i, j int) { kb[i], kb[j] = kb[j], kb[i] })
	m := newMatcher(ZAM, DefaultBudget)
	var out []pair
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	for b.Loop() {
		out = m.alternate(ka, kb, out[:0])
	}
	stop()
}

// BenchmarkCriticalGraph computes the critical graph of the synthetic pair
// (ZAM Algorithm 2) and assembles the report's graph and causes: per run
// pair (intersect), on mean values (one run per side) and with per-node
// tests (three runs per side, the same trees each time).
func BenchmarkCriticalGraph(b *testing.B) {
	p := prepare(b, 1)
	b.Run("pair", func(b *testing.B) {
		b.ReportAllocs()
		stop := benchcpu.Start(b)
		for b.Loop() {
			g := criticalPair(p.base, p.nw, p.baseOf, p.mu)
			assemble(g, p.u, p.kt)
		}
		stop()
	})
	b.Run("threshold", func(b *testing.B) {
		b.ReportAllocs()
		stop := benchcpu.Start(b)
		for b.Loop() {
			assemble(thresholdGraph(p.u, p.kt, p.mu), p.u, p.kt)
		}
		stop()
	})
	p3 := prepare(b, 3)
	b.Run("stats", func(b *testing.B) {
		b.ReportAllocs()
		stop := benchcpu.Start(b)
		for b.Loop() {
			g, _, _ := statsGraph(statsInput{u: p3.u, kt: p3.kt, nBase: p3.nBase, mu: p3.mu, alpha: DefaultAlpha})
			assemble(g, p3.u, p3.kt)
		}
		stop()
	})
}

// BenchmarkRankPaths is IntroPerf's differential path ranking over the
// union tree of the synthetic pair.
func BenchmarkRankPaths(b *testing.B) {
	p := prepare(b, 1)
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	for b.Loop() {
		rankPaths(p.u, p.kt, DefaultTop)
	}
	stop()
}
