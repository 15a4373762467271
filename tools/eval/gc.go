package eval

import (
	"errors"
	"math"
	"math/rand/v2"
)

// The high-variance runtime node: V8's "(garbage collector)" takes
// 3.45 s of sucrase's 22 s and varies by ±10% from run to run. In the
// NoisyGC family every run's GC time is the profile's GC base times a factor
// g drawn uniformly from [1−gcSpread, 1+gcSpread] (independently per run,
// on both sides), before sampling noise.
const (
	gcFrame  = "(garbage collector)"
	gcSpread = 0.10
	// gcShare is the least GC base as a share of the profile's busy time
	// (time outside "(idle)"): sucrase has 15.7%; profiles with less GC get
	// their GC scaled up to this.
	gcShare = 0.15
	// A shifted baseline's factors are drawn under the null (no change)
	// and kept only when the new side's mean factor exceeds the base's by
	// gcShiftLow to gcShiftHigh standard errors of that difference: a
	// pair of recordings that shows GC +2.2 SE by chance alone, which is
	// +330-360 ms on sucrase's 3.45 s at K = 3 (+330 ms at
	// adjusted p = 0.005). No cause is right: a test that uses the node's
	// own run-to-run variance sees t ≈ 2.2 on 2K−2 degrees of freedom
	// (one-sided p ≈ 0.05 at K = 3), which no correction over more than
	// one tested node lets through.
	gcShiftLow, gcShiftHigh = 2.0, 2.4
)

// gcNodes returns the template's topmost GC nodes.
func (t *template) gcNodes() []int32 {
	var out []int32
	for i, n := range t.nodes {
		if n.depth < 1 || t.frames[n.frame].Function != gcFrame {
			continue
		}
		top := true
		for p := n.parent; p >= 0 && t.nodes[p].depth >= 1; p = t.nodes[p].parent {
			if t.frames[t.nodes[p].frame].Function == gcFrame {
				top = false
				break
			}
		}
		if top {
			out = append(out, int32(i))
		}
	}
	return out
}

// busy is the template's time outside V8's "(idle)".
func (t *template) busy() int64 {
	var sum int64
	for _, r := range t.roots {
		sum += t.total[r]
	}
	for i, n := range t.nodes {
		if n.depth == 1 && t.frames[n.frame].Function == "(idle)" {
			sum -= t.total[i]
		}
	}
	return sum
}

// gcScale returns the factor that brings the template's GC time to its
// base (at least gcShare of the busy time), or 0 if it has no GC frame.
func (t *template) gcScale() float64 {
	var gc int64
	for _, x := range t.gcNodes() {
		gc += t.total[x]
	}
	if gc == 0 {
		return 0
	}
	return max(1, gcShare*float64(t.busy())/float64(gc))
}

// gcSE is the standard error of the difference of the two sides' mean GC
// factors with k runs per side.
func gcSE(k int) float64 { return gcSpread / math.Sqrt(3) * math.Sqrt(2/float64(k)) }

var errGCShift = errors.New("eval: no shifted GC draw in a million tries")

// gcDraws draws the GC factors of k runs per side; shifted keeps only
// draws whose new-side mean exceeds the base's by gcShiftLow to
// gcShiftHigh standard errors.
func gcDraws(k int, shifted bool, rng *rand.Rand) ([2][]float64, error) {
	var g [2][]float64
	for range 1_000_000 {
		var mean [2]float64
		for side := range g {
			g[side] = make([]float64, k)
			for i := range g[side] {
				g[side][i] = 1 + gcSpread*(2*rng.Float64()-1)
				mean[side] += g[side][i] / float64(k)
			}
		}
		if !shifted {
			return g, nil
		}
		if z := (mean[1] - mean[0]) / gcSE(k); z >= gcShiftLow && z <= gcShiftHigh {
			return g, nil
		}
	}
	return g, errGCShift
}
