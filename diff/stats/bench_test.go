package stats

import (
	"math/rand/v2"
	"testing"

	"github.com/ctdiff/ctdiff/internal/benchcpu"
)

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
		m, s2 := PooledStats(Floats(v[:3]), Floats(v[3:]))
		means, vars = append(means, m), append(vars, s2)
	}
	pr := FitPrior(means, vars, 4)
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
			Holm(ps)
		}
		stop()
	})
	b.Run("fit-prior", func(b *testing.B) {
		b.ReportAllocs()
		stop := benchcpu.Start(b)
		for b.Loop() {
			FitPrior(means, vars, 4)
		}
		stop()
	})
}
