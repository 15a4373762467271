package eval

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// The growth inside a long, noisy task: sucrase's profile has an
// 18.5 s top-level call (startup); 160 ms of self time is added to one
// frame deep inside it, while the whole task's time is scaled by a factor
// drawn per run (CPU frequency, caches, JIT tiers), so that the task, the
// ancestors and the frame's own inclusive time vary by more than the
// change: only the frame's self time shows it.
const (
	// deepDelta is the self time added (+160 ms).
	deepDelta = 160 * time.Millisecond
	// minLongTask is the least time of a task the family uses; shorter
	// ones would need a factor beyond maxTaskSpread to be noisier than
	// deepDelta.
	minLongTask = 1200 * time.Millisecond
	// A task's factor is uniform in [1−s, 1+s] with s = max(minTaskSpread,
	// 1.5·deepDelta/task): ±3% on sucrase's 18.5 s (±550 ms), ±15% on a
	// 1.6 s task.
	minTaskSpread = 0.03
	maxTaskSpread = 0.20
	// deepBelow is how far below the task the frame must be.
	deepBelow = 3
)

// longTask returns the template's longest top-level JavaScript call and the
// spread of its per-run factor, or -1 if none is long enough.
func (t *template) longTask() (int32, float64) {
	best := int32(-1)
	for i, n := range t.nodes {
		if n.depth == 1 && !special(t.frames[n.frame].Function) && (best < 0 || t.total[i] > t.total[best]) {
			best = int32(i)
		}
	}
	if best < 0 || t.total[best] < int64(minLongTask) {
		return -1, 0
	}
	return best, min(max(minTaskSpread, 1.5*float64(deepDelta)/float64(t.total[best])), maxTaskSpread)
}

// pickDeep picks a frame at least deepBelow calls below the long task
// whose inclusive time varies by more than deepDelta under the task's
// factor (total·spread ≥ deepDelta) while its self time is at most
// deepDelta (so that the factor moves the self time by little), and adds
// deepDelta of self time at the start of its calls.
func pickDeep(t *template, w *world, rng *rand.Rand) (*Injection, error) {
	task, spread := t.longTask()
	if task < 0 {
		return nil, fmt.Errorf("%s: %w: %s (no top-level call of %v)", t.Name, errNoTarget, DeepSelf, minLongTask)
	}
	var cands []int32
	for i, n := range t.nodes {
		x := int32(i)
		if n.depth < t.nodes[task].depth+deepBelow || !t.endsLoc[x] || special(t.frames[n.frame].Function) ||
			float64(t.total[x])*spread < float64(deepDelta) || t.self(x) > int64(deepDelta) || !t.within(x, task) {
			continue
		}
		cands = append(cands, x)
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("%s: %w: %s (no frame %d calls below the long task of %v inclusive and at most %v self time)",
			t.Name, errNoTarget, DeepSelf, deepBelow, time.Duration(float64(deepDelta)/spread).Round(time.Millisecond), deepDelta)
	}
	x := cands[rng.IntN(len(cands))]
	locs, _ := w.locsTo(x)
	in := &Injection{Kind: DeepSelf, Delta: deepDelta, target: x, node: x, stack: -1, art: -1}
	in.parts = []part{{at: x, stack: w.stackID(t.nodes[x].thread, locs), n: int((int64(deepDelta) + t.period - 1) / t.period), atStart: true}}
	in.Thread = t.thread[t.nodes[x].thread].Label
	in.Path = w.path(x)
	return in, nil
}

// self is node x's self time in the template.
func (t *template) self(x int32) int64 {
	s := t.total[x]
	for _, c := range t.kids[x] {
		s -= t.total[c]
	}
	return s
}
