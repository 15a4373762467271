package diff

import "github.com/ctdiff/ctdiff/cct"

// An earlyUnion is the start of a one-run-a-side comparison made while the
// new run is still being read: the key table with the base run keyed, and
// the union as the base run's copy (copyRun). With one run a side the base
// is usually built first (it has fewer samples), and the core that built
// it idles until the new run is built; these two steps read the base run
// alone, so they move off the comparison's critical path (Fold.startEarly;
// the union stage of the 200k-stack synth pair: 54 → 35 ms, of the
// 1.6M-stack pair 445 → 329 ms; BENCHMARKS.md).
//
// They are what prepareComparison and buildUnion would do first, in the
// same order, so the result is the same as without them: the base is
// keyed first either way (keys are numbered as frames are first seen),
// and the union is the base's copy before the new run is matched onto it.
type earlyUnion struct {
	kt *keyTable
	u  *union
}

// keysAlone reports whether r's keys are the same whatever the other
// side's frames: the key table's positions give Slots to function frames
// of a script (identity.go), and a Slot can depend on the new run's frames
// whenever r has such a frame, even one without a position (slot -1 for a
// group made ambiguous by either side). Go symbols, the other kinds of
// frame and frames without a function never read a Slot.
func keysAlone(r *run) bool {
	for _, f := range r.frames {
		if f.Kind == cct.KindFunction && !cct.GoSymbol(f) {
			return false
		}
	}
	return true
}

// startUnion makes the earlyUnion of base run r for matching mode, or
// returns nil when r's keys depend on the new side (keysAlone).
func startUnion(r *run, match Matching) *earlyUnion {
	if !keysAlone(r) {
		return nil
	}
	e := &earlyUnion{kt: &keyTable{idx: map[keyFrame]key{}}, u: newUnion()}
	// On this goroutine alone: the other core is building the new run,
	// whose end the comparison waits for.
	r.keysOn(e.kt, 0, serial)
	r.toU = make([]int32, r.nodes())
	e.u.callSites = match == PARCS
	e.u.copyRunOn(r, serial)
	return e
}

// finishKeys is prepareComparison's keying with the base run already keyed
// into e.kt: the positions of both sides (for the new run's Slots; the base
// run's, keysAlone, read none) and the new run's keys.
func (e *earlyUnion) finishKeys(base, nw *run) {
	e.kt.positions([][]cct.Frame{base.frames}, [][]cct.Frame{nw.frames})
	nw.keys(e.kt, 1)
}

// finishUnion is the union e started, once normalization has scaled the
// base run's values: the weights copyRun took are taken again.
func (e *earlyUnion) finishUnion(base *run) *union {
	u := e.u
	parallel(len(base.total), func(from, to int) {
		from = max(from, 1) // the root keeps newUnion's
		copy(u.weight[from:to], base.total[from:to])
	})
	return u
}
