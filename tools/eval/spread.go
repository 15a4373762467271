package eval

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"time"
)

// The spread regressions: a change whose growth is spread over many
// calling contexts or over several callees, so that no single context
// grows by μ while the function or caller together does.
const (
	// spreadTotalMin and spreadTotalMax bound a spread check's total: about
	// 2μ (μ = 50 ms), as in the isStaleState example (11 contexts
	// of ~10 ms).
	spreadTotalMin = 100 * time.Millisecond
	spreadTotalMax = 120 * time.Millisecond
	// A spread check's function has spreadMinContexts to spreadMaxContexts
	// contexts (about 11), or failing that a number in the wider range.
	spreadMinContexts, spreadMaxContexts = 8, 16
	spreadWideMin, spreadWideMax         = 5, 30
	// spreadGrowthMin and spreadGrowthMax bound a spread growth's total,
	// split over callees so that none gains more than spreadPerCallee.
	spreadGrowthMin = 100 * time.Millisecond
	spreadGrowthMax = 150 * time.Millisecond
	spreadPerCallee = 18 * time.Millisecond
)

// checkNames are the new functions of spread checks.
var checkNames = []string{"isStaleState", "shouldRevalidate", "checkInvariant", "isDisposed", "assertFresh"}

// contextsOf groups the template's nodes that can take samples (a location
// ends there, a JavaScript function) by frame: each function's calling
// contexts, in node order.
func (t *template) contextsOf() map[int32][]int32 {
	out := map[int32][]int32{}
	for i, n := range t.nodes {
		if n.depth < 1 || !t.endsLoc[i] || special(t.frames[n.frame].Function) {
			continue
		}
		out[n.frame] = append(out[n.frame], int32(i))
	}
	return out
}

// pickSpreadCallee picks a function F with about 11 calling contexts and
// makes each of them call a new function (isStaleState) that takes its
// share of 100-120 ms, the same in every context.
func pickSpreadCallee(t *template, w *world, rng *rand.Rand) (*Injection, error) {
	ctx := t.contextsOf()
	var cands []int32
	for _, lo := range [][2]int{{spreadMinContexts, spreadMaxContexts}, {spreadWideMin, spreadWideMax}} {
		for f, ns := range ctx {
			if len(ns) >= lo[0] && len(ns) <= lo[1] {
				cands = append(cands, f)
			}
		}
		if len(cands) > 0 {
			break
		}
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("%s: %w: %s (no function with %d-%d calling contexts)", t.Name, errNoTarget, SpreadCallee, spreadWideMin, spreadWideMax)
	}
	slices.Sort(cands) // map order is random; the draw must not be
	f := cands[rng.IntN(len(cands))]
	ns := slices.Clone(ctx[f])
	// The first context is the largest: the one the failure listing shows.
	slices.SortStableFunc(ns, func(a, b int32) int { return cmp.Compare(t.total[b], t.total[a]) })
	span := int64(spreadTotalMax - spreadTotalMin)
	total := int64(spreadTotalMin) + rng.Int64N(span/int64(time.Millisecond)+1)*int64(time.Millisecond)
	file := t.frames[f].File
	name := checkNames[rng.IntN(len(checkNames))]
	for slices.ContainsFunc(t.frames, func(f Frame) bool { return f.Function == name && f.File == file }) {
		name += "_"
	}
	callee := w.newFunction(name, file, "spread check")
	per := total / int64(len(ns))
	in := &Injection{Kind: SpreadCallee, Delta: time.Duration(total), target: ns[0], stack: -1, art: -1, Name: name}
	for _, x := range ns {
		locs, _ := w.locsTo(x)
		st := w.stackID(t.nodes[x].thread, append([]int32{callee}, locs...))
		in.parts = append(in.parts, part{at: x, stack: st, n: int((per + t.period - 1) / t.period)})
		in.Contexts = append(in.Contexts, Path{Thread: t.thread[t.nodes[x].thread].Label, Frames: w.path(w.stacks[st].node)})
	}
	in.node = w.stacks[in.parts[0].stack].node
	in.Thread, in.Path = in.Contexts[0].Thread, in.Contexts[0].Frames
	return in, nil
}

// pickSpreadCallees picks a caller with enough callees that 100-150 ms
// split among some of them gives each at most 18 ms, and adds each one's
// share as self time at random places in its calls. The caller is the
// cause (the lowest common caller of the growth).
func pickSpreadCallees(t *template, w *world, rng *rand.Rand) (*Injection, error) {
	span := int64(spreadGrowthMax - spreadGrowthMin)
	total := int64(spreadGrowthMin) + rng.Int64N(span/int64(time.Millisecond)+1)*int64(time.Millisecond)
	m := int((total + int64(spreadPerCallee) - 1) / int64(spreadPerCallee))
	eligible := func(x int32) []int32 {
		var ks []int32
		for _, c := range t.kids[x] {
			if t.endsLoc[c] && !special(t.frames[t.nodes[c].frame].Function) {
				ks = append(ks, c)
			}
		}
		return ks
	}
	var cands []int32
	for i, n := range t.nodes {
		x := int32(i)
		if n.depth < 1 || special(t.frames[n.frame].Function) {
			continue
		}
		if len(eligible(x)) >= m {
			cands = append(cands, x)
		}
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("%s: %w: %s (no function with %d callees)", t.Name, errNoTarget, SpreadCallees, m)
	}
	x := cands[rng.IntN(len(cands))]
	ks := eligible(x)
	rng.Shuffle(len(ks), func(i, j int) { ks[i], ks[j] = ks[j], ks[i] })
	ks = ks[:m]
	slices.Sort(ks)
	per := total / int64(m)
	in := &Injection{Kind: SpreadCallees, Delta: time.Duration(total), target: x, node: x, stack: -1, art: -1}
	for _, c := range ks {
		locs, _ := w.locsTo(c)
		in.parts = append(in.parts, part{at: c, stack: w.stackID(t.nodes[c].thread, locs), n: int((per + t.period - 1) / t.period)})
	}
	in.Thread = t.thread[t.nodes[x].thread].Label
	in.Path = w.path(x)
	return in, nil
}
