package diff

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/ctdiff/ctdiff/cct"
)

// The automatic normalization (planNormalization) decides from what the
// profiles say of themselves: equal recording windows of CPU time → shares
// (the window caps the total, so a slower function takes time from the
// others), otherwise absolute values (fixed work). Two common comparisons
// break those rules, as measured:
//
//   - an optimisation under a window that did not cap the total (a service
//     at 1.3 of 8 cores): the total falls, so in shares every function the
//     change did not touch seems to grow, and 14-24 of 30 comparisons
//     reported regressions where nothing got slower;
//   - the same load recorded for 30 s and for 60 s: compared as fixed work,
//     every function doubled (38 causes).
//
// What tells them apart is the bulk of the program: most functions do not
// change between two versions, so the scale under which most of the time
// is unchanged is the one the normalization must remove (the idea of the
// median-of-ratios size factor of RNA-seq normalization, DESeq: Anders and
// Huber 2010). The check counts, for absolute values and for shares, how
// much of the time of the functions both sides have changed by less than
// bulkBand; the planned mode stays unless the other leaves clearly more
// unchanged (bulkWins). A regression or an optimisation, however large,
// is a minority of the time; a window that caps the total moves the rest
// in absolute values (a slower function takes time from all the others),
// and shares stay.

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

// bulkShift is how far apart the totals must be (a ratio of 1.05) for the
// choice to matter: closer, both modes put every function alike.
const bulkShift = 0.05

// bulkWins and bulkMinUnchanged decide: the other mode must leave half as
// much time again unchanged as the planned one, and at least a third of
// the common time (a regression or an optimisation, however large, is a
// minority of the time; a window that caps the total moves the rest in
// absolute values, where shares leave it).
const (
	bulkWins         = 1.5
	bulkMinUnchanged = 1.0 / 3
)

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

// bulk is what the check reads of two flat profiles: the share of the
// time of the functions both sides have (weighted in shares of each
// side's total, so that neither side's scale weighs more) whose ratio new
// to base is within bulkBand of 1 and nearer 1 in absolute values (none)
// than in shares, the same for shares, and the share of all the time
// those functions hold (common).
//
// A weighted median ratio was tried first: where an optimisation halves a
// third of the program, the median lands at the quartile of the rest,
// whose noise (10% per calling context) put it 10% off, and 4-6 of 30
// comparisons kept shares. Counting what each mode leaves unchanged does
// not mind how far the changed functions moved.
type bulk struct {
	none, share float64
	common      float64
	// scale is the ratio of the totals, new to base: how far apart the
	// two modes put every function.
	scale float64
}

// bulkBand is how far from 1 a function's ratio may be and still count as
// unchanged: its per-context noise at a few runs a side is about as much.
const bulkBand = 0.2

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
	band := math.Log1p(bulkBand)
	shareScale := math.Log(tb / tn)
	// In the keys' order, not the map's: the sums below are of fractions,
	// whose last bits depend on their order (the totals above are sums of
	// integers, exact in any order).
	keys := make([]funcKey, 0, len(b.self))
	for k := range b.self {
		if _, ok := n.self[k]; ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(x, y funcKey) int {
		if c := strings.Compare(x.function, y.function); c != 0 {
			return c
		}
		return strings.Compare(x.file, y.file)
	})
	var bk bulk
	for _, k := range keys {
		vb, vn := b.self[k]/float64(b.runs), n.self[k]/float64(n.runs)
		w := vb/tb + vn/tn
		bk.common += w
		// A function counts for the mode that leaves it nearer 1, if
		// within the band: one that changed counts for neither.
		rn, rs := math.Abs(math.Log(vn/vb)), math.Abs(math.Log(vn/vb)+shareScale)
		switch {
		case rn <= band && rn < rs:
			bk.none += w
		case rs <= band && rs < rn:
			bk.share += w
		}
	}
	if bk.common > 0 {
		bk.none, bk.share = bk.none/bk.common, bk.share/bk.common
	}
	bk.common /= 2
	bk.scale = tn / tb
	return bk, true
}

// checkBulk revises an automatic choice of share or none when the bulk of
// the program says the other is right (see the top of this file).
// minDelta is μ as given: an amount (a duration, a size, a count) rules
// shares out, in which it could not be read.
func (nz *Normalization) checkBulk(b, n *flatProfile, minDelta Threshold) {
	if !nz.Auto || nz.Mode != NormalizeShare && nz.Mode != NormalizeNone {
		return
	}
	if nz.Mode == NormalizeNone && minDelta.absolute() {
		return
	}
	bk, ok := bulkOf(b, n)
	if !ok || bk.common < bulkCommonMin {
		return
	}
	if nz.Mode == NormalizeNone && !recordedLonger(nz) {
		return
	}
	planned, other := bk.share, bk.none
	if nz.Mode == NormalizeNone {
		planned, other = bk.none, bk.share
	}
	if other < bulkWins*planned || other < bulkMinUnchanged || !(math.Abs(math.Log(bk.scale)) > math.Log1p(bulkShift)) {
		return
	}
	nz.unsure = "" // the values settle it
	if nz.Mode == NormalizeShare {
		nz.Mode = NormalizeNone
		nz.Reason = fmt.Sprintf("the profiles cover equal windows, where shares of each run's total would compare, but the functions both sides have kept their absolute time (%.0f%% of their time unchanged within ±%.0f%%, against %.0f%% in shares): the window did not cap the total, and what changed is some functions, not the load, so absolute values compare (in shares every function the change did not touch would seem to change)",
			100*bk.none, 100*bulkBand, 100*bk.share)
	} else {
		nz.Mode = NormalizeShare
		nz.Reason = fmt.Sprintf("the profiles cover different durations (base %s, new %s), and the functions both sides have scaled with the totals (%.0f%% of their time unchanged within ±%.0f%% in shares, against %.0f%% in absolute values): the same load recorded for another length of time, not fixed work, so shares of each run's total compare (absolute values would show every function changed)",
			fmtDuration(meanInt(nz.BaseDurations)), fmtDuration(meanInt(nz.NewDurations)), 100*bk.share, 100*bulkBand, 100*bk.none)
	}
	nz.Unit = nz.RawUnit
	if nz.Mode == NormalizeShare {
		nz.Unit = UnitShare
	}
}
