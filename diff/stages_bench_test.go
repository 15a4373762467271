package diff

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/benchcpu"
	"github.com/ctdiff/ctdiff/tools/synth"
)

// synthTrees are the trees of issue 9's 200,000-stack synthetic pair
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
			g, _, _ := statsGraph(p3.u, p3.kt, p3.nBase, p3.mu, DefaultAlpha, 0, statsChoices{})
			assemble(g, p3.u, p3.kt)
		}
		stop()
	})
}

// BenchmarkStats times the per-node tests of Stats mode on 100,000 nodes'
// values, three and eight runs per side: the moderated t-test (prior fitted
// once), Welch's test, Mann–Whitney U and Holm's correction.
func BenchmarkStats(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	const nodes = 100_000
	values := func(runs int) [][]int64 {
		v := make([][]int64, nodes)
		for i := range v {
			mean := 1e6 * (1 + rng.ExpFloat64()*100)
			v[i] = make([]int64, runs)
			for r := range v[i] {
				v[i][r] = int64(mean * (1 + 0.05*rng.NormFloat64()))
			}
		}
		return v
	}
	v3, v8 := values(6), values(16)
	var means, vars []float64
	for _, v := range v3 {
		m, s2 := pooledStats(v[:3], v[3:])
		means, vars = append(means, m), append(vars, s2)
	}
	pr := fitPrior(means, vars, 4)
	b.Run("moderated-t/3+3", func(b *testing.B) {
		b.ReportAllocs()
		stop := benchcpu.Start(b)
		for b.Loop() {
			for _, v := range v3 {
				test(v[:3], v[3:], pr)
			}
		}
		stop()
	})
	b.Run("welch/3+3", func(b *testing.B) {
		b.ReportAllocs()
		stop := benchcpu.Start(b)
		for b.Loop() {
			for _, v := range v3 {
				test(v[:3], v[3:], nil)
			}
		}
		stop()
	})
	b.Run("moderated-t/8+8", func(b *testing.B) {
		b.ReportAllocs()
		stop := benchcpu.Start(b)
		for b.Loop() {
			for _, v := range v8 {
				test(v[:8], v[8:], pr)
			}
		}
		stop()
	})
	ps := make([]float64, nodes)
	for i := range ps {
		ps[i] = rng.Float64()
	}
	b.Run("holm", func(b *testing.B) {
		b.ReportAllocs()
		stop := benchcpu.Start(b)
		for b.Loop() {
			holm(ps)
		}
		stop()
	})
	b.Run("fit-prior", func(b *testing.B) {
		b.ReportAllocs()
		stop := benchcpu.Start(b)
		for b.Loop() {
			fitPrior(means, vars, 4)
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
