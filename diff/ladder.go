package diff

import (
	"math"

	"github.com/ctdiff/ctdiff/diff/stats"
)

// A smaller μ must find at least what the default μ finds: every cause
// path found at the default is still covered at any smaller μ by a cause
// whose path equals it or extends it. Holm-type corrections break that on
// their own: a smaller μ admits more nodes to the family (those whose
// summed value reaches μ × new runs), every hypothesis's share of α
// shrinks, and a cause that passed at 50 ms (testdata/example's
// stringslite.Index, adjusted p 0.016) failed at 1 ms (0.03 and more as
// the family grows).
//
// So below the default, statsGraph also corrects the family of each
// threshold of a ladder from μ up to the default — 1, 2 and 5 per decade
// of the metric's unit, which holds the round values users pick, and the
// default itself — with the p-values it has (the subset of its own family
// those thresholds admit), and keeps a node that passes at any of them
// with its delta at least that threshold. Each threshold's family is
// corrected as that threshold alone would correct it, so a cause so kept
// is one that threshold finds; the Test reports the smallest adjusted
// p-value of the thresholds that kept it. At the default μ and above
// nothing changes (the accuracy measurements hold); below it, the
// family-wise error is that of the union of the nested families, at most
// the ladder's length times α and in the simulation no more false causes
// than at the default.

// A family is the hypotheses a correction adjusts: their p-values ps,
// exact[i] false where ps[i] is only a lower bound (nil: all exact), their
// forest (parent[i], -1 for a root) and sizes (stats.TreeHolm).
type family struct {
	ps     []float64
	exact  []bool
	parent []int32
	size   []float64
}

// ladderPass holds, per hypothesis of a family, the least ladder threshold
// at which it passed (+Inf for none) and the adjusted p-value it had there.
type ladderPass struct {
	level, q []float64
}

// passes reports whether hypothesis i passed at a threshold of at most
// delta.
func (lp *ladderPass) passes(i int, delta float64) bool {
	return lp != nil && lp.level[i] <= delta
}

// ladderLevels are the 1-2-5 thresholds above m and below top, then top.
func ladderLevels(m, top float64) []float64 {
	if !(m > 0) || !(top > m) {
		return nil
	}
	var out []float64
	for e := math.Floor(math.Log10(m)); ; e++ {
		for _, f := range []float64{1, 2, 5} {
			v := f * math.Pow(10, e)
			if v >= top*(1-1e-9) {
				return append(out, top)
			}
			if v > m*(1+1e-9) {
				out = append(out, v)
			}
		}
	}
}

// ladder corrects the family's subset at each ladder level up to top (the
// default μ): hypotheses
// whose summed value (size) reaches the level × nNew, with delta at least
// the level. finish makes hypothesis i's p-value exact (exact nil: all
// are). deltas are the hypotheses' deltas, groups (size unknown, parent
// -1) admitted by their delta.
func ladder(m, top, alpha float64, nNew int, fam family, deltas []float64, finish func(int)) *ladderPass {
	levels := ladderLevels(m, top)
	if len(levels) == 0 || fam.parent == nil {
		return nil
	}
	ps, exact, parent, size := fam.ps, fam.exact, fam.parent, fam.size
	lp := &ladderPass{level: make([]float64, len(ps)), q: make([]float64, len(ps))}
	for i := range lp.level {
		lp.level[i], lp.q[i] = math.Inf(1), 1
	}
	at := make([]int32, len(ps)) // 1 + index in the level's subset, 0 when out
	for _, v := range levels {
		var idx []int32
		for i := range ps {
			at[i] = 0
			if deltas[i] >= v && (parent[i] >= 0 || size[i] >= v*float64(nNew) || size[i] == 0) {
				idx = append(idx, int32(i))
				at[i] = int32(len(idx))
			}
		}
		if len(idx) == 0 {
			break
		}
		sub := make([]float64, len(idx))
		subParent := make([]int32, len(idx))
		subSize := make([]float64, len(idx))
		var subExact []bool
		if exact != nil {
			subExact = make([]bool, len(idx))
		}
		for j, i := range idx {
			sub[j], subSize[j] = ps[i], size[i]
			if subExact != nil {
				subExact[j] = exact[i]
			}
			p := parent[i]
			for p >= 0 && at[p] == 0 {
				p = parent[p]
			}
			subParent[j] = -1
			if p >= 0 {
				subParent[j] = at[p] - 1
			}
		}
		qs := correctExact(sub, subExact, subParent, subSize, func(j int) {
			finish(int(idx[j]))
			sub[j] = ps[idx[j]]
			subExact[j] = true
		})
		for j, i := range idx {
			if qs[j] <= alpha && lp.level[i] > v {
				lp.level[i] = v
			}
			lp.q[i] = min(lp.q[i], qs[j])
		}
	}
	return lp
}

// correctExact is stats.TreeHolmBounded made exact: the p-values left bounded
// whose adjusted value is below 1 are finished and the family corrected
// again.
func correctExact(ps []float64, exact []bool, parent []int32, size []float64, finish func(int)) []float64 {
	for {
		qs := stats.TreeHolmBounded(ps, exact, parent, size)
		again := false
		for i, q := range qs {
			if q < 1 && exact != nil && !exact[i] {
				finish(i)
				again = true
			}
		}
		if !again {
			return qs
		}
	}
}
