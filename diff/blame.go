package diff

import (
	"cmp"
	"slices"
	"strings"
)

// Blame: the function a cause is charged to. A cause is ZAM's lowest node
// whose time grew (Definition 2); in a managed runtime that node is mostly
// code the program called — runtime.mallocgc below a function that now
// allocates, regexp/syntax.parse below one that compiles a pattern per
// call — and rarely the function whose code changed. The lowest frame of
// the program's own code on the cause's path (ownership.go) is that
// function: the path says it called what grew. The frames between it and
// the cause's node are the cause's breakdown.
//
// Work the runtime does on the program's behalf has no such frame: Go's
// background mark workers and sweepers run on goroutines of their own,
// V8's "(garbage collector)" and the JVM's GC threads are rooted at no
// program function, and a write barrier that flushes on the system stack
// has a stack that stops at runtime.systemstack. That work is charged by
// evidence instead: the collector to the program's functions whose
// allocation grew most (Go profiles show allocation as runtime.mallocgc
// below its caller), and where there is no allocation to read (write
// barriers, which come from pointer writes; V8 and the JVM) to the
// function whose own time grew most.

// Ways a Blame was found (Blame.By).
const (
	// ByAllocation: runtime work charged to the program's functions whose
	// allocation time grew most.
	ByAllocation = "allocation"
	// ByOwnTime: runtime work charged to the program's function whose own
	// time (with the library and runtime code it calls) grew most.
	ByOwnTime = "own time"
)

// A Blame is the function of the program's own code a cause is charged
// to.
type Blame struct {
	Frame
	// Base, New and Delta are the blamed function's mean inclusive values
	// in the cause's calling context; for work charged by evidence (By
	// set), the evidence's values: its allocation time, or its own time
	// summed over its contexts.
	Base, New, Delta int64
	// Breakdown is the cause's path below the blamed function, down to
	// the cause's node, each frame with its values: what the blamed
	// function's time grew in. Empty when the cause's node is the blamed
	// function, and for work charged by evidence.
	Breakdown []Step
	// By is "" when the blamed function is on the cause's path, else how
	// the runtime work was charged (ByAllocation, ByOwnTime).
	By string
	// Work names the runtime work charged by evidence ("background GC",
	// "write barriers", "the garbage collector"); "" on the path.
	Work string
	// Also are the next functions the runtime work is charged to, by the
	// same evidence, largest first (at most maxAlso).
	Also []Charge
}

// A Step is one frame of a blame's breakdown.
type Step struct {
	Frame
	// Base, New and Delta are the frame's mean inclusive values in the
	// cause's context; Base is 0 for a call the base runs do not make.
	Base, New, Delta int64
}

// A Charge is a function runtime work is charged to, with its evidence's
// values.
type Charge struct {
	Frame
	Base, New, Delta int64
}

// maxAlso caps Blame.Also.
const maxAlso = 4

// A blamer finds the blame of causes on one union tree.
type blamer struct {
	u     *union
	kt    *keyTable
	own   ownership
	owner []int8 // per key: Owner, or -1 until asked
	// allocators and ownGrowth are the evidence for runtime work, made
	// when a cause first needs them.
	allocators, ownGrowth []Charge
	evidence              bool
	// inBase marks the keys the base runs have (movedCall), made when
	// first needed.
	inBase []bool
}

func newBlamer(u *union, kt *keyTable, own ownership) *blamer {
	owner := make([]int8, len(kt.frames))
	for i := range owner {
		owner[i] = -1
	}
	return &blamer{u: u, kt: kt, own: own, owner: owner}
}

// ownerOf classifies key k once.
func (b *blamer) ownerOf(k key) Owner {
	if o := b.owner[k]; o >= 0 {
		return Owner(o)
	}
	o := b.own.owner(b.kt.frames[k].frame())
	b.owner[k] = int8(o)
	return o
}

// blame returns the blame of a cause whose node is union node x, nil
// when it has none (no frame of the program's on its path, and no runtime
// work to charge by evidence), and the union node it is charged to (-1
// for work charged by evidence, or none).
//
// A new call to a function the base runs already call elsewhere is its
// caller's change, not the function's: an insertion sort that calls
// score() directly, where sort.Slice's comparator called it before, adds
// the context rankPlayers → score, and it is rankPlayers whose code
// changed. Such a frame joins the breakdown and the blame moves to the
// next frame of the program's above it. A function the base runs never
// call is new code, and the blame stays on it.
func (b *blamer) blame(x int32, thread string) (*Blame, int32) {
	u := b.u
	var below []int32 // the path's nodes below the blamed frame, deepest first
	for y := x; y > 0 && u.depth[y] >= 2; y = u.parent[y] {
		if b.ownerOf(u.key[y]) == OwnerApp && !b.movedCall(y) {
			return b.onPath(y, below), y
		}
		below = append(below, y)
	}
	if bl := b.byEvidence(below, thread); bl != nil {
		return bl, -1
	}
	if y := b.lowestApp(below); y >= 0 {
		// Every frame of the program's on the path is a new call of an
		// existing function: the lowest is the best there is.
		return b.onPath(below[y], below[:y]), below[y]
	}
	return nil, -1
}

// lowestApp is the index in below (deepest first) of the deepest frame of
// the program's, -1 for none.
func (b *blamer) lowestApp(below []int32) int {
	for i, y := range below {
		if b.ownerOf(b.u.key[y]) == OwnerApp {
			return i
		}
	}
	return -1
}

// movedCall reports whether node y is a call the base runs do not make in
// this context, of a function they call elsewhere.
func (b *blamer) movedCall(y int32) bool {
	u := b.u
	if u.baseRuns(y) > 0 || u.depth[y] < 3 {
		return false
	}
	if b.inBase == nil {
		b.inBase = make([]bool, len(b.kt.frames))
		for z := int32(1); int(z) < u.len(); z++ {
			if u.baseRuns(z) > 0 {
				if k := u.key[z]; k >= 0 {
					b.inBase[k] = true
				}
			}
		}
	}
	return b.inBase[u.key[y]]
}

// onPath is the blame of frame y with the breakdown below (deepest first).
func (b *blamer) onPath(y int32, below []int32) *Blame {
	u := b.u
	bl := &Blame{Frame: b.kt.frames[u.key[y]].frame()}
	bl.Base, bl.New, bl.Delta = b.values(y)
	if len(below) > 0 {
		bl.Breakdown = make([]Step, len(below))
		for i, z := range below {
			s := &bl.Breakdown[len(below)-1-i]
			s.Frame = b.kt.frames[u.key[z]].frame()
			s.Base, s.New, s.Delta = b.values(z)
		}
	}
	return bl
}

func (b *blamer) values(x int32) (base, nw, delta int64) {
	base, nw = round(b.u.meanBase[x]), round(b.u.meanNew[x])
	return base, nw, nw - base
}

// runtimeWork names the collector's work a path without the program's
// frames (root-first frames path, thread label) is, "" for other work.
func runtimeWork(path []Frame, thread string) (work string, writeBarrier bool) {
	for i := len(path) - 1; i >= 0; i-- {
		f := path[i]
		switch {
		case isWriteBarrier(f.Function):
			return "write barriers", true
		case f.Function == "(garbage collector)":
			return "the garbage collector", false
		case RuntimeGroup(f) == groupGC:
			return "background GC", false
		}
	}
	if ThreadGroup(thread) == groupGC {
		return "the garbage collector's threads", false
	}
	return "", false
}

// byEvidence charges the collector's work on a path without the
// program's frames (below, deepest first) to the program's functions
// whose allocation grew most, or whose own time grew most where there is
// no allocation to read.
func (b *blamer) byEvidence(below []int32, thread string) *Blame {
	path := make([]Frame, len(below))
	for i, z := range below {
		path[len(below)-1-i] = b.kt.frames[b.u.key[z]].frame()
	}
	work, wb := runtimeWork(path, thread)
	if work == "" {
		return nil
	}
	b.gatherEvidence()
	by, list := ByAllocation, b.allocators
	if wb || len(list) == 0 {
		by, list = ByOwnTime, b.ownGrowth
	}
	if len(list) == 0 {
		return nil
	}
	top := list[0]
	return &Blame{Frame: top.Frame, Base: top.Base, New: top.New, Delta: top.Delta, By: by, Work: work,
		Also: slices.Clone(list[1:min(len(list), 1+maxAlso)])}
}

// gatherEvidence sums, per function of the program's, the allocation
// time below it (Go's runtime.mallocgc, charged to its nearest caller of
// the program's code) and its own time (every node's self value charged
// to its nearest frame of the program's: the function with the library
// and runtime code it calls), and keeps those that grew, largest first.
// One pass in id order: a node's parent has a smaller id.
func (b *blamer) gatherEvidence() {
	if b.evidence {
		return
	}
	b.evidence = true
	u := b.u
	n := u.len()
	app := make([]int32, n) // nearest frame of the program's, self included; 0 for none
	alloc := map[key]*[2]float64{}
	own := map[key]*[2]float64{}
	add := func(m map[key]*[2]float64, k key, base, nw float64) {
		v := m[k]
		if v == nil {
			v = &[2]float64{}
			m[k] = v
		}
		v[0] += base
		v[1] += nw
	}
	inMalloc := make([]bool, n)
	for x := int32(1); int(x) < n; x++ {
		p := u.parent[x]
		app[x] = app[p]
		if u.depth[x] < 2 {
			continue
		}
		k := u.key[x]
		if b.ownerOf(k) == OwnerApp {
			app[x] = x
		}
		inMalloc[x] = inMalloc[p]
		if a := app[x]; a > 0 {
			add(own, u.key[a], u.selfBase[x], u.selfNew[x])
			if !inMalloc[x] && b.kt.frames[k].Function == "runtime.mallocgc" {
				inMalloc[x] = true
				add(alloc, u.key[a], u.meanBase[x], u.meanNew[x])
			}
		}
	}
	b.allocators, b.ownGrowth = b.grown(alloc), b.grown(own)
}

// grown lists the functions of m whose value grew, largest growth first.
func (b *blamer) grown(m map[key]*[2]float64) []Charge {
	var out []Charge
	for k, v := range m {
		c := change(*v)
		if c.Delta > 0 {
			out = append(out, Charge{Frame: b.kt.frames[k].frame(), Base: c.Base, New: c.New, Delta: c.Delta})
		}
	}
	slices.SortFunc(out, func(a, c Charge) int {
		if d := cmp.Compare(c.Delta, a.Delta); d != 0 {
			return d
		}
		return cmp.Or(strings.Compare(a.Function, c.Function), strings.Compare(a.File, c.File))
	})
	return out
}

// orderByBlame sorts causes so that those charged to one function stand
// together, the function whose change costs most first; within a
// function, and for causes without a blame, the order stays (by delta).
// The verdict names the first: a change in one function that grew three
// library calls by 40 ms each is a 120 ms cause, ahead of an unrelated
// 60 ms one.
//
// What a function's change costs is its blamed node's inclusive delta
// (all it grew by in that context, hashing and what the new hash calls
// alike), less that of the blamed nodes below it (counted for their own
// function), and never less than the deltas of its causes; summed over
// its blamed nodes, plus the runtime work charged to it by evidence.
// nodes[i] is causes[i]'s blamed union node, -1 for none; sign is -1 for
// improvements, whose deltas fall.
func orderByBlame(causes []Cause, nodes []int32, u *union, sign float64) {
	weight := blameWeights(causes, nodes, u, sign)
	first := map[Frame]int{} // a function's place: its first cause's
	for i, c := range causes {
		if c.Blame != nil {
			if _, ok := first[c.Blame.Frame]; !ok {
				first[c.Blame.Frame] = i
			}
		}
	}
	type item struct {
		weight float64
		group  int
		i      int
	}
	items := make([]item, len(causes))
	for i, c := range causes {
		it := item{weight: sign * float64(c.Delta), group: i, i: i}
		if c.Blame != nil {
			it.weight, it.group = weight[c.Blame.Frame], first[c.Blame.Frame]
		}
		items[i] = it
	}
	slices.SortStableFunc(items, func(a, b item) int {
		return cmp.Or(cmp.Compare(b.weight, a.weight), cmp.Compare(a.group, b.group), cmp.Compare(a.i, b.i))
	})
	sorted := make([]Cause, len(causes))
	for i, it := range items {
		sorted[i] = causes[it.i]
	}
	copy(causes, sorted)
}

// blameWeights is orderByBlame's cost of each blamed function.
func blameWeights(causes []Cause, nodes []int32, u *union, sign float64) map[Frame]float64 {
	under := map[int32]float64{} // per blamed node: its causes' deltas
	for i, c := range causes {
		if y := nodes[i]; y >= 0 {
			under[y] += sign * float64(c.Delta)
		}
	}
	own := map[int32]float64{}
	for y := range under {
		own[y] += sign * (u.meanNew[y] - u.meanBase[y])
		for p := u.parent[y]; p > 0; p = u.parent[p] {
			if _, ok := under[p]; ok {
				own[p] -= sign * (u.meanNew[y] - u.meanBase[y])
				break
			}
		}
	}
	weight := map[Frame]float64{}
	for i, c := range causes {
		switch y := nodes[i]; {
		case c.Blame == nil:
		case y < 0:
			weight[c.Blame.Frame] += sign * float64(c.Delta)
		case under[y] != 0 || own[y] != 0:
			weight[c.Blame.Frame] += max(own[y], under[y])
			under[y], own[y] = 0, 0 // a node once
		}
	}
	return weight
}
