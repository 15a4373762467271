package eval

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// A Kind is one of ZAM's three injected regressions (Section 5.2, RQ1),
// which follow the most common JavaScript performance root causes of
// Selakovic and Pradel.
type Kind int

const (
	// SlowAPI: "a sleep time between 100ms and 200ms is injected in the
	// chosen external API call": a function starts calling an external API
	// (a native function, such as getComputedStyle, that the profile shows
	// elsewhere) which takes the injected time. The cause is the new
	// callee, an "added" node.
	SlowAPI Kind = iota
	// LongLoop: "a for loop that executes multiple iterations ... is
	// injected at the beginning of the function": an existing function's
	// self time grows, at the start of its calls.
	LongLoop
	// RepeatedCheck: "repeated checks of the same condition": an existing
	// callee is called more often, so its whole subtree's time is
	// multiplied.
	RepeatedCheck

	// The kinds below are the case families' (family.go).

	// SpreadCallee: a new check (isStaleState) is added in every calling
	// context of a function F, a few ms in each, so that no context alone
	// grows by μ but all of them together do. Right is a leaf ending in
	// the new function, in any context or folded (Truth.Name).
	SpreadCallee
	// SpreadCallees: several distinct callees of one caller grow by a few
	// ms each; the lowest common caller is the cause.
	SpreadCallees
	// DeepSelf: one frame deep inside the profile's longest task gains
	// self time, while the task's inclusive time varies run to run by
	// more than the change (the LongTask family's noise).
	DeepSelf
)

// Kinds lists the kinds in ZAM's order.
var Kinds = []Kind{SlowAPI, LongLoop, RepeatedCheck}

func (k Kind) String() string {
	switch k {
	case SlowAPI:
		return "slow API call"
	case LongLoop:
		return "long loop"
	case RepeatedCheck:
		return "repeated check"
	case SpreadCallee:
		return "spread check"
	case SpreadCallees:
		return "spread growth"
	case DeepSelf:
		return "deep self time"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Changes are the unrelated code changes of the new version: ZAM injected
// into a version about twenty commits ahead of the baseline (Section 5.2),
// so the new timelines differ by more than the regression. They are drawn
// once per case and are the same in every new run.
type Changes struct {
	// Renames functions of minified scripts get another minified name, as
	// a new build of a minified bundle renames them.
	Renames int
	// AddCalls functions gain a call to a new function, and RemoveCalls
	// small callees (at most TinyMax in the profile) disappear.
	AddCalls, RemoveCalls int
	// TinyMin and TinyMax bound the time of an added call.
	TinyMin, TinyMax time.Duration
}

// DefaultChanges are the code changes of the published benchmark.
var DefaultChanges = Changes{Renames: 3, AddCalls: 2, RemoveCalls: 2, TinyMin: 2 * time.Millisecond, TinyMax: 8 * time.Millisecond}

// An Injection is a case's regression: what was injected and the ground
// truth, the regression-cause (ZAM Definition 2) ctdiff should report.
type Injection struct {
	Kind Kind
	// Delta is the time injected into every new run.
	Delta time.Duration
	// Thread is the cause's thread label and Path its root-first frames,
	// without the thread, as diff reports causes.
	Thread string
	Path   []Frame

	// Contexts are all the calling contexts whose leaf is right, Path's
	// first; nil means Path alone. A spread check has one per context of
	// the function that got the new callee.
	Contexts []Path
	// Name is a spread check's new function: a leaf ending in it is right
	// wherever it is (Truth.Name).
	Name string

	node   int32 // the cause's trie node
	target int32 // the existing function injected into (the caller for SlowAPI)
	stack  int32 // SlowAPI and LongLoop: the stack of the added samples
	// parts are where the case families' kinds add samples.
	parts []part
	// art is the stack of the added samples with a runtime artifact as
	// their leaf (-1: none) and artShare the share of the added samples
	// that get it (the Artifacts family).
	art      int32
	artShare float64
}

// A part adds n samples of stack into the calls of node at (at each
// call's start, or at random places in it).
type part struct {
	at, stack int32
	n         int
	atStart   bool
}

// Truth returns what counts as right for the injection.
func (in *Injection) Truth() Truth {
	if in == nil {
		return Truth{}
	}
	if len(in.Contexts) > 0 {
		return Truth{Paths: in.Contexts, Name: in.Name}
	}
	return Truth{Paths: []Path{{Thread: in.Thread, Frames: in.Path}}, Name: in.Name}
}

// maxChildDelta bounds what a function below a RepeatedCheck cause may gain
// from the injection: a callee gaining μ would itself be a lowest regressed
// function (Definition 2), so the ground truth would be ambiguous. It is
// below half of ZAM's μ = 50 ms, so noise rarely lifts such a callee over μ.
const maxChildDelta = 20 * time.Millisecond

// minCauseDelta is the least a RepeatedCheck cause must gain: clearly above
// μ = 50 ms.
const minCauseDelta = 75 * time.Millisecond

// minRepeated is the least time a RepeatedCheck target must have: a callee
// of 5 ms called 30 times more than before is the pattern's upper end.
const minRepeated = 5 * time.Millisecond

// repeatedCause returns the regression-cause (Definition 2) that
// multiplying x's subtree by (1 + delta/total(x)) makes, by expected value:
// x itself, or, when all but at most maxChildDelta of the gain goes to one
// callee, that callee's cause, recursively (x calls the function that does
// the work in a loop). ok is false when the gain splits between callees so
// that the cause would depend on noise.
func (t *template) repeatedCause(x int32, delta time.Duration) (cause int32, ok bool) {
	gain := func(n int32) float64 { return float64(delta) * float64(t.total[n]) / float64(t.total[x]) }
	for n := x; ; {
		next := int32(-1)
		for _, c := range t.kids[n] {
			g := gain(c)
			switch {
			case g <= float64(maxChildDelta):
			case g >= gain(n)-float64(maxChildDelta) && next < 0:
				next = c
			default:
				return -1, false
			}
		}
		if next < 0 {
			return n, gain(n) >= float64(minCauseDelta)
		}
		n = next
	}
}

// errNoTarget says a profile has no function that can take an injection
// kind; Run skips such cases and says so.
var errNoTarget = errors.New("no function can take the injection")

// pickInjection chooses a target for kind uniformly among the template's
// functions that can take it (ZAM picks among the functions recorded in the
// baseline timelines, ignoring anonymous and one-letter names, which cct's
// pruning removes here), and prepares the samples to add.
func pickInjection(t *template, w *world, kind Kind, delta time.Duration, rng *rand.Rand) (*Injection, error) {
	var cands []int32
	for i, n := range t.nodes {
		x := int32(i)
		if n.depth < 1 || special(t.frames[n.frame].Function) || !t.endsLoc[x] {
			continue
		}
		switch kind {
		case SlowAPI:
			if len(t.kids[x]) == 0 { // it must call something already
				continue
			}
		case RepeatedCheck:
			if n.depth < 2 || t.total[x] < int64(minRepeated) {
				continue
			}
			if _, ok := t.repeatedCause(x, delta); !ok {
				continue
			}
		}
		cands = append(cands, x)
	}
	if len(cands) == 0 {
		return nil, fmt.Errorf("%s: %w: %s", t.Name, errNoTarget, kind)
	}
	return newInjection(t, w, kind, cands[rng.IntN(len(cands))], delta, rng), nil
}

// newInjection prepares an injection of kind into node x.
func newInjection(t *template, w *world, kind Kind, x int32, delta time.Duration, rng *rand.Rand) *Injection {
	in := &Injection{Kind: kind, Delta: delta, target: x, node: x, stack: -1, art: -1}
	th := t.nodes[x].thread
	locs, _ := w.locsTo(x)
	switch kind {
	case LongLoop:
		in.stack = w.stackID(th, locs)
	case SlowAPI:
		api := pickAPI(t, w, x, t.kids[x], rng)
		in.stack = w.stackID(th, append([]int32{api}, locs...))
		in.node = w.stacks[in.stack].node
	case RepeatedCheck:
		in.node, _ = t.repeatedCause(x, delta)
	}
	in.Thread = t.thread[th].Label
	in.Path = w.path(in.node)
	return in
}

// pickAPI returns a location for the external API a SlowAPI target starts
// calling: a native function (no script URL) the profile calls elsewhere,
// else any function of another file, else a new function.
func pickAPI(t *template, w *world, x int32, kids []int32, rng *rand.Rand) int32 {
	avoid := map[int32]bool{}
	for _, c := range kids {
		avoid[t.nodes[c].frame] = true
	}
	for n := x; n >= 0 && t.nodes[n].frame >= 0; n = t.nodes[n].parent {
		avoid[t.nodes[n].frame] = true
	}
	file := t.frames[t.nodes[x].frame].File
	var native, other []int32
	for i, f := range t.frames {
		if avoid[int32(i)] || special(f.Function) || len(t.funcsOf[f]) == 0 {
			continue
		}
		switch {
		case f.File == "":
			native = append(native, int32(i))
		case f.File != file:
			other = append(other, int32(i))
		}
	}
	pool := native
	if len(pool) == 0 {
		pool = other
	}
	if len(pool) == 0 {
		return w.newFunction("fetchSync", "injected-api.js", "injected API")
	}
	f := t.frames[pool[rng.IntN(len(pool))]]
	return w.newLocationOf(t.funcsOf[f][0], f)
}

// apply adds the injection to a new run. It runs before any noise, on a
// run made from the template, so the target's calls are all there.
func (in *Injection) apply(t *template, w *world, r *run, rng *rand.Rand) {
	d := int64(in.Delta)
	if len(in.parts) > 0 {
		for _, p := range in.parts {
			spread(r, w.nodes[p.at].thread, w.subtree(p.at), sample{stack: p.stack, v: t.tick()}, p.n, p.atStart, rng)
		}
		return
	}
	th := t.nodes[in.target].thread
	mark := w.subtree(in.target)
	switch in.Kind {
	case LongLoop, SlowAPI:
		n := int((d + t.period - 1) / t.period)
		if in.art >= 0 {
			k := int(in.artShare*float64(n) + 0.5)
			spread(r, th, mark, sample{stack: in.art, v: t.tick()}, k, in.Kind == LongLoop, rng)
			n -= k
		}
		spread(r, th, mark, sample{stack: in.stack, v: t.tick()}, n, in.Kind == LongLoop, rng)
	case RepeatedCheck:
		multiply(t, r, th, mark, d, rng)
	}
}

// spread inserts n copies of s into the calls ("instances": maximal runs of
// consecutive samples within the marked subtree) of thread th, spread round
// robin from a random call, at each call's start or at a random place in
// it.
func spread(r *run, th int32, mark []bool, s sample, n int, atStart bool, rng *rand.Rand) {
	seq := r.seq[th]
	var inst [][2]int
	for i := 0; i < len(seq); i++ {
		if !marked(mark, seq[i].stack) {
			continue
		}
		j := i
		for j < len(seq) && marked(mark, seq[j].stack) {
			j++
		}
		inst = append(inst, [2]int{i, j})
		i = j
	}
	if len(inst) == 0 {
		inst = [][2]int{{len(seq), len(seq)}}
	}
	count := make([]int, len(inst))
	first := rng.IntN(len(inst))
	for k := range n {
		count[(first+k)%len(inst)]++
	}
	out := make([]sample, 0, len(seq)+n)
	prev := 0
	for k, c := range count {
		if c == 0 {
			continue
		}
		at := inst[k][0]
		if !atStart {
			at += rng.IntN(inst[k][1] - inst[k][0] + 1)
		}
		out = append(out, seq[prev:at]...)
		for range c {
			out = append(out, s)
		}
		prev = at
	}
	r.seq[th] = append(out, seq[prev:]...)
}

// multiply makes the marked subtree's calls more frequent: samples of the
// subtree, drawn uniformly, get a copy beside them until d more time is
// there, which scales every part of the subtree alike.
func multiply(t *template, r *run, th int32, mark []bool, d int64, rng *rand.Rand) {
	seq := r.seq[th]
	var idx []int
	for i, s := range seq {
		if marked(mark, s.stack) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return
	}
	copies := make([]int, len(seq))
	for sum := int64(0); sum < d; {
		i := idx[rng.IntN(len(idx))]
		copies[i]++
		sum += max(seq[i].v[t.timeIdx], 1)
	}
	out := make([]sample, 0, len(seq))
	for i, s := range seq {
		for range 1 + copies[i] {
			out = append(out, s)
		}
	}
	r.seq[th] = out
}

// A change set is a case's drawn Changes.
type changeSet struct {
	rename  map[Frame]string
	adds    []tinyCall
	removed [][]bool // stack marks of removed subtrees
}

type tinyCall struct {
	thread int32
	at     []bool // the caller's subtree
	s      sample
	n      int // samples to add
}

// minifiedName reports names a minifier makes: an identifier of two or three
// characters, after a Closure-style "s_" prefix and any "Class." qualifier
// (one-character names are pruned anyway). Real code has such names too
// ("add", "eat"), so renames are limited to minified scripts (minifiedFiles).
func minifiedName(name string) bool {
	name = strings.TrimPrefix(name, "s_")
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	if len(name) < 2 || len(name) > 3 {
		return false
	}
	for i, c := range name {
		letter := c == '_' || c == '$' || (c|0x20 >= 'a' && c|0x20 <= 'z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// minifiedFiles returns the scripts whose function names are mostly short:
// at least a third of at least six distinct names.
func minifiedFiles(frames []Frame) map[string]bool {
	all, short := map[string]int{}, map[string]int{}
	for _, f := range frames {
		if special(f.Function) {
			continue
		}
		all[f.File]++
		if minifiedName(f.Function) {
			short[f.File]++
		}
	}
	out := map[string]bool{}
	for file, n := range all {
		if file != "" && n >= 6 && 3*short[file] >= n {
			out[file] = true
		}
	}
	return out
}

// drawChanges draws a case's code changes. Nothing on the ground truth's
// path (keep) is renamed or removed: the injected function and its callers
// exist in both versions, as in ZAM's experiment.
func drawChanges(t *template, w *world, c Changes, keep *Injection, rng *rand.Rand) *changeSet {
	cs := &changeSet{rename: map[Frame]string{}}
	onPath := map[Frame]bool{}
	for _, f := range keep.pathOrNil() {
		onPath[f] = true
	}
	used := map[Frame]bool{}
	for _, f := range t.frames {
		used[f] = true
	}
	var mini []Frame
	minFiles := minifiedFiles(t.frames)
	for _, f := range t.frames {
		if minFiles[f.File] && minifiedName(f.Function) && !onPath[f] {
			mini = append(mini, f)
		}
	}
	for range c.Renames {
		if len(mini) == 0 {
			break
		}
		i := rng.IntN(len(mini))
		f := mini[i]
		mini = slices.Delete(mini, i, i+1)
		cs.rename[f] = renameMinified(f, used, rng)
	}

	// Added calls go anywhere but inside the injected function (where a
	// repeated check would multiply them too); removed ones neither there
	// nor on its callers.
	var fns, small []int32
	for i, n := range t.nodes {
		x := int32(i)
		if n.depth < 1 || special(t.frames[n.frame].Function) {
			continue
		}
		inside, above := false, false
		for _, y := range keep.targets() {
			inside = inside || t.within(x, y)
			above = above || t.within(y, x)
		}
		if t.endsLoc[x] && !inside {
			fns = append(fns, x)
		}
		if n.depth >= 2 && t.total[x] <= int64(c.TinyMax) && !inside && !above {
			small = append(small, x)
		}
	}
	names := []string{"normalizeOptions", "logDeprecation", "ensureInitialized", "validateArgs", "recordTiming", "assertState"}
	for i := range c.AddCalls {
		if len(fns) == 0 {
			break
		}
		x := fns[rng.IntN(len(fns))]
		locs, _ := w.locsTo(x)
		file := t.frames[t.nodes[x].frame].File
		callee := w.newFunction(fmt.Sprintf("%s_c%d", names[rng.IntN(len(names))], i), file, "added call")
		th := t.nodes[x].thread
		d := int64(c.TinyMin) + rng.Int64N(int64(c.TinyMax-c.TinyMin)+1)
		st := w.stackID(th, append([]int32{callee}, locs...))
		cs.adds = append(cs.adds, tinyCall{thread: th, at: w.subtree(x), s: sample{stack: st, v: t.tick()}, n: int((d + t.period - 1) / t.period)})
	}
	for range c.RemoveCalls {
		if len(small) == 0 {
			break
		}
		i := rng.IntN(len(small))
		cs.removed = append(cs.removed, w.subtree(small[i]))
		small = slices.Delete(small, i, i+1)
	}
	return cs
}

// pathOrNil returns the frames of every path of the ground truth.
func (in *Injection) pathOrNil() []Frame {
	if in == nil {
		return nil
	}
	fs := slices.Clone(in.Path)
	for _, p := range in.Contexts {
		fs = append(fs, p.Frames...)
	}
	return fs
}

// targets returns the template nodes the injection adds time into, and
// the function it is about (none for a nil injection).
func (in *Injection) targets() []int32 {
	if in == nil {
		return nil
	}
	ts := []int32{in.target}
	for _, p := range in.parts {
		ts = append(ts, p.at)
	}
	return ts
}

// renameMinified gives f a fresh minified name of the same shape.
func renameMinified(f Frame, used map[Frame]bool, rng *rand.Rand) string {
	prefix := ""
	name := f.Function
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		prefix, name = name[:i+1], name[i+1:]
	} else if rest, ok := strings.CutPrefix(name, "s_"); ok {
		prefix, name = "s_", rest
	}
	const first = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ$_"
	const next = first + "0123456789"
	for {
		b := []byte{first[rng.IntN(len(first))]}
		for len(b) < len(name) {
			b = append(b, next[rng.IntN(len(next))])
		}
		nf := Frame{Function: prefix + string(b), File: f.File, Line: f.Line, Column: f.Column}
		if !used[nf] {
			used[nf] = true
			return nf.Function
		}
	}
}

// apply makes a run of the new version: removed calls go, added calls come
// (inside their callers' calls).
func (cs *changeSet) apply(r *run, rng *rand.Rand) {
	for _, m := range cs.removed {
		for th, seq := range r.seq {
			r.seq[th] = slices.DeleteFunc(seq, func(s sample) bool { return marked(m, s.stack) })
		}
	}
	for _, a := range cs.adds {
		spread(r, a.thread, a.at, a.s, a.n, false, rng)
	}
}
