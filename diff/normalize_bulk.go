package diff

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/ctdiff/ctdiff/cct"
)

// The automatic normalization (planNormalization) decides from what the
// profiles say of themselves: equal recording windows of CPU time → shares
// (the window caps the total, so a slower function takes time from the
// others), otherwise absolute values (fixed work). Two common comparisons
// break those rules, and an independent audit measured both (audit D2, D3):
//
//   - an optimisation under a window that did not cap the total (a service
//     at 1.3 of 8 cores): the total falls, so in shares every function the
//     change did not touch seems to grow, and 14-24 of 30 comparisons
//     reported regressions where nothing got slower;
//   - the same load recorded for 30 s and for 60 s: compared as fixed work,
//     every function doubled (38 causes).
//
// What tells them apart is the bulk of the program: most functions do not
// change between two versions, so the ratio of their times, new to base,
// is the scale the normalization must remove (the median-of-ratios size
// factor of RNA-seq normalization, DESeq: Anders and Huber 2010). The
// check weighs each function by its time and takes the weighted median of
// its ratio, in absolute values and in shares; the planned mode stays
// unless the bulk moved under it by more than bulkShift and the other mode
// leaves it at most half as far from 1. A regression or an optimisation,
// however large, is a minority of the time and does not move the median; a
// window that caps the total moves the bulk in absolute values as much as
// in shares (a slower function takes time from all the others), and the
// plan stays.

// recordedLonger reports whether one side's recordings of CPU time are at
// least recordingRatio times as long as the other's, every duration known.
// A wall-clock timeline is fixed work however long it was recorded (idle
// time absorbs the rest: planNormalization). Fixed
// work made uniformly slower scales every function with the totals too,
// and with the durations (a compiler that slows everything by 10%): only a
// change of length no slowdown makes says the recording changed, not the
// work. Unknown durations (folded stacks) stay fixed work.
func recordedLonger(nz *Normalization) bool {
	if !nz.cpu || len(nz.BaseDurations) == 0 || len(nz.NewDurations) == 0 || slices.Contains(nz.BaseDurations, 0) || slices.Contains(nz.NewDurations, 0) {
		return false
	}
	r := float64(meanInt(nz.NewDurations)) / float64(meanInt(nz.BaseDurations))
	return r >= recordingRatio || r <= 1/recordingRatio
}

// recordingRatio is how much longer one side's recordings must be for
// checkBulk to read a bulk that scaled with them as a longer recording.
const recordingRatio = 1.5

// bulkShift is how far the bulk may move under the planned normalization
// (a ratio of 1.05 or 1/1.05) before the other mode is considered: a
// regression of a twentieth of the total, under equal windows that did
// not cap it, is one.
const bulkShift = 0.05

// bulkCommonMin is the least share of the time (of both sides) that
// functions present on both sides must hold for the bulk to decide: below
// it the versions differ too much by name (a minifier's renames) to say
// what did not change.
const bulkCommonMin = 0.5

// A funcKey identifies a function across runs, as a flat profile does:
// by name and file, whatever its calling context.
type funcKey struct{ function, file string }

// A flatProfile sums the self values of a side's runs per function (idle
// time left out, as run totals leave it), raw: before any normalization.
// Fold.Add fills it from every goroutine that adds runs.
type flatProfile struct {
	mu   sync.Mutex
	self map[funcKey]float64
	runs int
}

// add adds run r, folded from tree t.
func (p *flatProfile) add(t *cct.Tree, r *run) {
	perFrame := make([]float64, len(r.frames))
	for n, f := range r.nframe {
		perFrame[f] += float64(r.self[n])
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.self == nil {
		p.self = map[funcKey]float64{}
	}
	p.runs++
	for f, v := range perFrame {
		fr := t.Frames[f]
		if v == 0 || fr.Kind != cct.KindFunction || isIdle(fr) {
			continue
		}
		p.self[funcKey{fr.Function, fr.File}] += v
	}
}

// bulk is what the check reads of two flat profiles: the weighted median
// ratio of the functions both sides have, in absolute values (none) and
// in shares of each side's total, and the share of the time they hold.
type bulk struct {
	none, share float64
	common      float64
}

// bulkOf returns the bulk of base b and new n; ok is false when a side is
// empty.
func bulkOf(b, n *flatProfile) (bulk, bool) {
	if b.runs == 0 || n.runs == 0 {
		return bulk{}, false
	}
	var tb, tn float64
	for _, v := range b.self {
		tb += v
	}
	for _, v := range n.self {
		tn += v
	}
	tb, tn = tb/float64(b.runs), tn/float64(n.runs)
	if !(tb > 0 && tn > 0) {
		return bulk{}, false
	}
	type point struct{ ratio, weight float64 }
	var pts []point
	var common float64
	for k, vb := range b.self {
		vn, ok := n.self[k]
		if !ok {
			continue
		}
		vb, vn = vb/float64(b.runs), vn/float64(n.runs)
		// Weights in shares: a side's scale does not weigh it more.
		w := vb/tb + vn/tn
		pts = append(pts, point{vn / vb, w})
		common += w
	}
	if len(pts) == 0 {
		return bulk{common: 0}, true
	}
	// Ties broken by weight: the order, and so the median, does not
	// depend on the map's.
	slices.SortFunc(pts, func(x, y point) int {
		if c := cmp.Compare(x.ratio, y.ratio); c != 0 {
			return c
		}
		return cmp.Compare(x.weight, y.weight)
	})
	half, acc, m := common/2, 0.0, pts[len(pts)-1].ratio
	for _, p := range pts {
		if acc += p.weight; acc >= half {
			m = p.ratio
			break
		}
	}
	return bulk{none: m, share: m * tb / tn, common: common / 2}, true
}

// checkBulk revises an automatic choice of share or none when the bulk of
// the program says the other is right (see the top of this file).
// minDeltaText is --min-delta as given: a duration rules shares out.
func (nz *Normalization) checkBulk(b, n *flatProfile, minDeltaText string) {
	if !nz.Auto || nz.Mode != NormalizeShare && nz.Mode != NormalizeNone {
		return
	}
	if _, err := ParseThreshold(minDeltaText, UnitShare); nz.Mode == NormalizeNone && minDeltaText != "" && err != nil {
		return
	}
	bk, ok := bulkOf(b, n)
	if !ok || bk.common < bulkCommonMin {
		return
	}
	if nz.Mode == NormalizeNone && !recordedLonger(nz) {
		return
	}
	far := func(r float64) float64 { return math.Abs(math.Log(r)) }
	planned, other := bk.share, bk.none
	if nz.Mode == NormalizeNone {
		planned, other = bk.none, bk.share
	}
	if far(planned) <= math.Log1p(bulkShift) || far(other) > far(planned)/2 {
		return
	}
	if nz.Mode == NormalizeShare {
		nz.Mode = NormalizeNone
		nz.Reason = fmt.Sprintf("the profiles cover equal windows, where shares of each run's total would compare, but the functions both sides have kept their absolute time (median ratio ×%.2f by time; ×%.2f in shares): the window did not cap the total, and what changed is some functions, not the load, so absolute values compare (in shares every function the change did not touch would seem to change)",
			bk.none, bk.share)
	} else {
		nz.Mode = NormalizeShare
		nz.Reason = fmt.Sprintf("the profiles cover different durations (base %s, new %s), and the functions both sides have scaled with the totals (median ratio ×%.2f by time; ×%.2f in shares): the same load recorded for another length of time, not fixed work, so shares of each run's total compare (absolute values would show every function changed)",
			fmtDuration(meanInt(nz.BaseDurations)), fmtDuration(meanInt(nz.NewDurations)), bk.none, bk.share)
	}
	nz.Unit = nz.RawUnit
	if nz.Mode == NormalizeShare {
		nz.Unit = UnitShare
	}
}
