package diff

import (
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff/stats"
)

// The union tree gives every calling context one identity across all runs
// of a comparison: each run is matched onto it top-down with the chosen
// sibling matching, and what does not match is added. Statistics (Stats
// mode), path ranking and the keying of per-pair results all work on it.
//
// Node 0 is the synthetic root. Like cct.Tree, children have larger ids than
// their parents.
type union struct {
	parent []int32
	key    []key
	depth  []int32
	// callSite is the call site per node, kept in PARCS mode only (rule 4
	// of Definition 2 needs one); nil otherwise.
	callSite  []int64
	callSites bool
	// The child lists, as cct.Tree keeps them: node x's children are
	// kids[kidOff[x]:kidOff[x]+kidLen[x]], and their keys are kidKeys at
	// the same positions, which sibling matching reads as they are
	// instead of gathering the children's keys from all over u.key. A list
	// has room for kidCap[x] children; a full one moves to the end of the
	// arrays with twice the room. No pointers: nothing here is scanned.
	kidOff, kidLen, kidCap []int32
	kids                   []int32
	kidKeys                []key
	// weight is the value of the run node that created the node, and keys
	// the identities present, for rename matching; both are released
	// (release) once every run is added, and so is kidCap.
	weight []int64
	keys   keySet
	// copied is the run the union was copied from (copyRun), whose toU
	// is the identity.
	copied *run
	// last says the run being added is the last: addRun keeps neither the
	// weights nor the list capacities of the nodes it adds, and releases
	// what only adding runs needs (release) once it is done.
	last bool
	// rekeys counts the renames (rekey): with the node count, it tells a
	// stream whether the union changed (memo.go).
	rekeys int

	// Filled by values, after every run is added: per node and run the
	// inclusive and self values (total[u*runs+r], self[u*runs+r], only
	// when asked for), the mean self value per side, and on how many runs
	// of each side the node occurs.
	runs        int
	total, self []int64
	// rowsAreMeans says total and self are not kept: with one run a
	// side, totalRow and selfRow read the means (values).
	rowsAreMeans bool
	// paired says valuesPair filled the values, and inexact that a
	// run's inclusive value does not convert to float64 and back
	// (beyond ±2⁵³): dropUnionCopies keeps the runs' then.
	paired, inexact bool
	// pv holds the per-run values instead of total and self when a
	// stream builds the union (runvalues.go): the tests read them
	// through totalRow and selfRow either way.
	pv runStore
	// pending are the runs of each side (base, new) scatter has not yet
	// written to pv (scatterBlock).
	pending  [2]scatterPending
	selfBase []float64
	selfNew  []float64
	// inBase and inNew: on how many runs of each side a node occurs, read
	// through baseRuns and newRuns. Not made by valuesPair (paired): the
	// base run's nodes are the union's first pairBase, the new run's the
	// others and those pairNew marks (an independent pair of 200k-stack
	// Go profiles: 20 MB less).
	inBase, inNew     []int32
	pairBase          int32
	pairNew           []bool
	meanBase, meanNew []float64 // mean inclusive value per side

	// mirror says the sides are swapped (mirrored): what reads the union
	// as base and new reads the new runs as the base and the base runs
	// as the new, rows new runs first; nBase is the base runs of the
	// union as built, where a row's new runs start.
	mirror bool
	nBase  int
}

// mirrored returns a view of u with the sides swapped, sharing its
// arrays: the improvements are the regressions of the mirrored union,
// tested by the same code (statsGraph) in a family of their own.
func (u *union) mirrored(nBase int) *union {
	m := *u
	m.meanBase, m.meanNew = u.meanNew, u.meanBase
	m.selfBase, m.selfNew = u.selfNew, u.selfBase
	m.inBase, m.inNew = u.inNew, u.inBase
	m.mirror, m.nBase = !u.mirror, nBase
	return &m
}

// unmirror puts a row read from the union as built into the mirrored
// order: the new runs first.
func (u *union) unmirror(row []float64) []float64 {
	if !u.mirror {
		return row
	}
	slices.Reverse(row)
	slices.Reverse(row[:len(row)-u.nBase])
	slices.Reverse(row[len(row)-u.nBase:])
	return row
}

func newUnion() *union {
	return &union{parent: []int32{-1}, key: []key{-1}, depth: []int32{0}, kidOff: []int32{0}, kidLen: []int32{0}, kidCap: []int32{0}, weight: []int64{0}}
}

func (u *union) len() int { return len(u.parent) }

// children returns node x's children. The slice is the union's: it must
// not be modified, and adding a child to x may move the list.
func (u *union) children(x int32) []int32 {
	o := u.kidOff[x]
	return u.kids[o : o+u.kidLen[x] : o+u.kidLen[x]]
}

// childKeys returns the keys of node x's children, in their order.
func (u *union) childKeys(x int32) []key {
	o := u.kidOff[x]
	return u.kidKeys[o : o+u.kidLen[x] : o+u.kidLen[x]]
}

// reserveKids gives node x, which has no children yet, room for exactly n.
func (u *union) reserveKids(x int32, n int) {
	u.kidOff[x], u.kidCap[x] = int32(len(u.kids)), int32(n)
	u.kids = slices.Grow(u.kids, n)[:len(u.kids)+n]
	u.kidKeys = slices.Grow(u.kidKeys, n)[:len(u.kidKeys)+n]
}

// grow makes room for n more nodes, and for kids more children: exactly
// that for the last run, which nothing grows after, where slices.Grow's
// room (a quarter more) would be live to the end (that pair: 7 MB).
//
// A large union's arrays are copied on two goroutines, a half of the bytes
// each: growing is on the comparison's critical path, and a run that adds
// much to a large union copies it all (that pair's new run adds 1.08 M nodes
// to the base's 1.41 M: 26-31 ms on one core).
func (u *union) grow(n, kids int) {
	last := u.last
	nodes := func() {
		if !last {
			u.weight = slices.Grow(u.weight, n)
		}
		u.parent = growBy(u.parent, n, last)
		u.key = growBy(u.key, n, last)
		if u.callSites {
			u.callSite = growBy(u.callSite, n, last)
		}
	}
	lists := func() {
		u.depth = growBy(u.depth, n, last)
		u.kidOff = growBy(u.kidOff, n, last)
		u.kidLen = growBy(u.kidLen, n, last)
		if !last {
			u.kidCap = slices.Grow(u.kidCap, n)
		}
		u.kids = growBy(u.kids, kids, last)
		u.kidKeys = growBy(u.kidKeys, kids, last)
	}
	if len(u.parent)+n < parallelGrow {
		nodes()
		lists()
		return
	}
	var wg sync.WaitGroup
	wg.Go(nodes)
	lists()
	wg.Wait()
}

// growBy is slices.Grow(s, n), with room for exactly n more when exact.
func growBy[E any](s []E, n int, exact bool) []E {
	if !exact || cap(s)-len(s) >= n {
		return slices.Grow(s, n)
	}
	t := make([]E, len(s), len(s)+n)
	copy(t, s)
	return t
}

// parallelGrow is the least node count of a union grown on two
// goroutines.
const parallelGrow = 1 << 18

func (u *union) add(parent int32, k key, callSite, weight int64) int32 {
	id := int32(len(u.parent))
	u.keys.add(k)
	u.weight = append(u.weight, weight)
	u.parent = append(u.parent, parent)
	u.key = append(u.key, k)
	u.depth = append(u.depth, u.depth[parent]+1)
	if u.callSites {
		u.callSite = append(u.callSite, callSite)
	}
	u.kidOff = append(u.kidOff, 0)
	u.kidLen = append(u.kidLen, 0)
	u.kidCap = append(u.kidCap, 0)
	if u.kidLen[parent] == u.kidCap[parent] {
		u.makeRoom(parent, 1)
	}
	at := u.kidOff[parent] + u.kidLen[parent]
	u.kids[at], u.kidKeys[at] = id, k
	u.kidLen[parent]++
	return id
}

// makeRoom gives node x's child list room for n more children: a full
// list moves to the end of the arrays with at least twice the room (or
// grows in place when it is last there).
func (u *union) makeRoom(x int32, n int) {
	have, room := u.kidLen[x], max(u.kidLen[x]+int32(n), 2*u.kidCap[x], 2)
	if have+int32(n) <= u.kidCap[x] {
		return
	}
	if off := u.kidOff[x]; int(off+u.kidCap[x]) == len(u.kids) && u.kidCap[x] > 0 {
		// Last in the arrays: grow in place.
		u.kids = append(u.kids, make([]int32, room-u.kidCap[x])...)
		u.kidKeys = append(u.kidKeys, make([]key, room-u.kidCap[x])...)
	} else {
		// Copied a child at a time: the lists are short, and copy's
		// call cost more than the copying (that pair: 87k lists moved).
		from, to := int(u.kidOff[x]), len(u.kids)
		u.kids = slices.Grow(u.kids, int(room))[:to+int(room)]
		u.kidKeys = slices.Grow(u.kidKeys, int(room))[:to+int(room)]
		for j := range int(have) {
			u.kids[to+j], u.kidKeys[to+j] = u.kids[from+j], u.kidKeys[from+j]
		}
		u.kidOff[x] = int32(to)
	}
	u.kidCap[x] = room
}

// rekey gives the i-th child of x, c, the key k.
func (u *union) rekey(x int32, i int, c int32, k key) {
	u.key[c] = k
	u.kidKeys[int(u.kidOff[x])+i] = k
	u.keys.add(k)
	u.rekeys++
}

// release drops what only adding runs needs.
func (u *union) release() { u.weight, u.keys, u.kidCap = nil, nil, nil }

// addRun matches r onto the union tree and sets r.toU. The union node keeps
// the call site of the first run that created it (PARCS rule 4 needs one;
// other modes keep none).
//
// It is the top-down walk of ZAM's Algorithm 3 in two passes. The first
// matches every sibling list in the order of r's node ids: a child's id is
// larger than its parent's, so a node's match is known when it is reached;
// each list's matching depends only on the two lists (and on the keys
// present before the run, for renames), so any order gives the same
// matches, and this one reads r's arrays in order, and the union's nearly
// so, where a depth-first walk missed the cache for every node of a large
// tree (8M nodes: a miss per array and node). The second (addNew) adds the
// run's unmatched nodes to the union with the ids a depth-first walk (a
// stack of pairs: the matched children in the order siblings paired them,
// then the unmatched ones, taken last first) gives them, so the union's
// node ids are what they always were, also in r's id order.
//
// A large run's passes run on two goroutines, each over whole subtrees of
// the run (splitRun): what a pass does at a node depends on its ancestors
// only, two subtrees match or add distinct union nodes, and what they
// share (the union's key set, the slots of the lists that move) is
// gathered per goroutine and joined after. That pair's new run (1.39 M
// nodes, 1.08 M of them added) took ~150 ms on one core while the other
// idled; split, ~100-115 ms of critical path for ~35 ms more CPU.
func (m *matcher) addRun(u *union, r *run, mode Matching) {
	if u.last {
		defer u.release() // weight and kidCap lack the nodes added
	}
	n := r.nodes()
	r.toU = make([]int32, n)
	// The identities on both sides before this run: the union's keys
	// change as the run adds nodes, and a rename must be judged against
	// what existed before.
	var runKeys, unionKeys keySet
	if mode == ZAM && m.kt != nil {
		runKeys, unionKeys = keysOf(r), slices.Clone(u.keys)
	}
	callSites := mode == PARCS
	if u.len() == 1 {
		u.callSites = callSites
		u.copyRun(r)
		return
	}
	toU := r.toU
	// flags[rn]: node rn's list was matched by siblings (not the same on
	// both sides: ordered), and something is added in its subtree (adds).
	// The run's matched children of an ordered list, in the order siblings
	// paired them, are ord[s.off:s.off+s.n] for its span s in spans (in
	// node order), found by a cursor (spanCursor) for the few nodes the
	// second pass reaches with one. A slice per list in a map cost an allocation
	// and two map accesses per list, and most lists of an independent pair
	// are ordered; an offset per node would cost 4 bytes per
	// node (32 MB at 8M nodes), where the flags share the byte the adds
	// mark had.
	flags := resetBools(m.flags, n)
	m.flags = flags
	// w[rn] counts the union nodes the depth-first walk adds from the
	// moment it reaches rn (the count pass, below); splitRun sums subtree
	// sizes in it first.
	w := m.w
	if cap(w) < n {
		w = make([]int32, n)
	}
	w = w[:n]
	// A large run's w is not kept for the next run: the matcher lives as
	// long as the comparison, and it would be live at its peak (the 1.6
	// M-stack pair's: 30 MB).
	m.w = nil
	if n < keepScratchMax {
		m.w = w
	}
	a := &addState{u: u, r: r, mode: mode, callSites: callSites, unionKeys: unionKeys, runKeys: runKeys, toU: toU, flags: flags, w: w}
	for i := range toU {
		toU[i] = -1 // not matched (yet)
	}
	toU[0] = 0
	m.spans, m.ord, m.renamed = m.spans[:0], m.ord[:0], m.renamed[:0]
	// A large run's first nodes (the first samples' paths, as cct numbers
	// them) are matched on one goroutine; where many of them are not in
	// the union, the run is split and the rest matched on two.
	// Independent runs (that pair: 37% of the first 10,000 nodes added, 78%
	// of all) gain, runs of one program (synth's: all matched, most lists
	// the same) would not: their passes are a few ns a node, and split
	// runs share the cache lines of every array indexed by run node.
	probe := n
	if m.splits(n) {
		probe = max(n/probeShare, 1)
	}
	a.probe, a.first = probe, m
	var m2 *matcher // the second goroutine's, when the run is split
	if added := m.matchPass(a, 0, probe); probe < n {
		if added*addedShare >= probe || m.splitMin > 0 {
			// The split is made on another goroutine (a pass over
			// the run for the subtree sizes, one for the owners),
			// while this one goes on matching, until it is made.
			owner := resetBools(m.owner, n)
			var split []int32
			var ready atomic.Bool
			var wg sync.WaitGroup
			wg.Go(func() {
				defer ready.Store(true)
				if split = splitRun(r, owner, w); split != nil {
					// A node is in its parent's half (splitRun
					// marked the shared nodes and the second
					// half's subtrees).
					for rn := 1; rn < n; rn++ {
						owner[rn] |= owner[r.parent[rn]] & second
					}
				}
			})
			for probe < n && !ready.Load() {
				to := min(probe+splitStep, n)
				m.matchPass(a, probe, to)
				probe = to
			}
			wg.Wait()
			if split != nil {
				m2 = m.twinMatcher()
				a.shared, a.owner = split, owner
			}
			m.owner = owner
			if n >= keepScratchMax {
				m.owner = nil
			}
		}
		a.probe, a.preSpans = probe, len(m.spans)
		if m2 == nil {
			m.matchPass(a, probe, n)
		} else {
			a.own = shared
			m.matchPass(a, probe, n)
			halves(m, m2, func(m *matcher, own uint8) {
				b := *a
				b.own = own
				m.matchPass(&b, probe, n)
			})
			m.counts, m.weighed = m.counts.plus(m2.counts), m.weighed+m2.weighed
		}
	}
	if m2 == nil {
		a.probe, a.preSpans = n, len(m.spans)
	}
	for _, mm := range []*matcher{m, m2} {
		if mm == nil {
			continue
		}
		for _, k := range mm.renamed {
			u.keys.add(k)
		}
		u.rekeys += len(mm.renamed)
	}

	// What is added, and the children of the union nodes that gain some
	// (their lists move), so that the arrays grow about once. Children
	// have larger ids than their parents, so one pass from the last node
	// sums w.
	clear(w)
	if m2 == nil {
		m.countPass(a)
	} else {
		halves(m, m2, func(m *matcher, own uint8) {
			b := *a
			b.own = own
			m.countPass(&b)
		})
		// The shared nodes, from the last: their children's share
		// (countPass leaves it where both goroutines would write the
		// parent), then their own. Their slots are the first
		// goroutine's, which adds under them first.
		for i := len(a.shared) - 1; i >= 0; i-- {
			s := a.shared[i]
			for _, c := range r.kids[r.kidStart[s]:r.kidStart[s+1]] {
				if a.owner[c] != shared {
					m.room += a.tallyUp(int32(c), s)
				}
			}
			if s > 0 {
				if toU[s] < 0 {
					w[s]++
				}
				m.room += a.tallyUp(s, int32(r.parent[s]))
			}
		}
	}
	if flags[0]&adds == 0 {
		return
	}
	m.addNew(a, m2, int(w[0]))
}

// parallelAddRun is the least node count of a run addRun splits over two
// goroutines: a stream's runs (100 + 100 of 20,000 stacks: 100 k nodes
// each) are matched beside the builds of the next runs, which would wait.
const parallelAddRun = 1 << 18

// A run is split when at least one in addedShare of its first nodes, one
// in probeShare of them, is not in the union; while the split is made,
// the first goroutine matches splitStep nodes at a time.
const (
	probeShare = 32
	addedShare = 8
	splitStep  = 4096
)

// splits reports whether addRun may split a run of n nodes over two
// goroutines: splitMin, when set (tests: then whatever the first nodes
// find), else parallelAddRun with two cores or more.
func (m *matcher) splits(n int) bool {
	if m.splitMin > 0 {
		return n >= m.splitMin
	}
	return n >= parallelAddRun && runtime.GOMAXPROCS(0) > 1
}

// keepScratchMax is the least node count of a run whose addRun scratch
// (w) the matcher does not keep.
const keepScratchMax = 1 << 20

// addState is what addRun's passes over a run share.
type addState struct {
	u                  *union
	r                  *run
	mode               Matching
	callSites          bool
	unionKeys, runKeys keySet
	toU                []int32
	flags              []uint8
	w                  []int32
	// shared are the nodes above the split, in id order, and owner
	// says per node whose it is (splitRun); nil when the run is not
	// split. Not in flags, which both goroutines write. A pass over a
	// split run takes the nodes owner gives own.
	shared []int32
	owner  []uint8
	own    uint8
	// The first pass matches the nodes before probe on one goroutine,
	// with matcher first, whose spans before preSpans are theirs: both
	// goroutines read them.
	probe    int
	first    *matcher
	preSpans int
	// The second pass's: the union's size before the run, the child slot
	// of the list of the new node whose first child has id 0, and
	// whether this run is the last (u.last).
	old, base int32
	last      bool
}

// addRun's flags per run node.
const (
	ordered uint8 = 1 << iota // its list was matched by siblings
	adds                      // something is added in its subtree
	gains                     // a matched node that gains children
)

// Whose a run node is in a split addRun (addState.owner).
const (
	first  uint8 = iota // the first goroutine's subtrees
	second              // the second goroutine's
	shared              // above the split: the first goroutine's, before the halves
)

// An ordSpan locates the matched children of run node rn's ordered list in
// addRun's ord.
type ordSpan struct{ rn, off, n int32 }

// matchPass is addRun's first pass over run nodes from to to that are
// a.own's (all of them when the run is not split): each node's children
// are matched onto its union node's, or left unmatched (toU -1). It
// returns how many of the nodes are unmatched.
func (m *matcher) matchPass(a *addState, from, to int) (unmatched int) {
	u, r, toU, owner, own := a.u, a.r, a.toU, a.owner, a.own
	for rn := int32(from); rn < int32(to); rn++ {
		if owner != nil && owner[rn] != own {
			continue
		}
		ux := toU[rn]
		if ux < 0 {
			unmatched++
			continue // the second pass adds it
		}
		sr, er := r.kidStart[rn], r.kidStart[rn+1]
		if sr == er || u.kidLen[ux] == 0 {
			continue // nothing to match: the second pass adds them
		}
		chU, chR := u.children(ux), r.kids[sr:er]
		var kr []key
		kr, m.cr = r.childKeys(rn, m.cr, a.callSites)
		ku := u.childKeys(ux)
		cu := m.cu[:0]
		if a.callSites {
			for _, c := range chU {
				cu = append(cu, u.callSite[c])
			}
		}
		m.cu = cu
		d := u.depth[ux]
		if m.same(ku, kr, cu, m.cr, d, a.mode) {
			for j, c := range chR {
				toU[c] = chU[j]
			}
			continue
		}
		pairs := m.siblings(ku, kr, cu, m.cr, d, a.mode)
		if a.mode == ZAM && d >= 1 {
			pairs = m.realignClosures(closureSide{ku,
				func(i int32) []key { return u.childKeys(chU[i]) },
				func(i int32) int64 { return u.weight[chU[i]] }},
				closureSide{kr,
					func(j int32) []key { k, _ := r.childKeys(int32(chR[j]), nil, false); return k },
					func(j int32) int64 { return r.total[chR[j]] }}, pairs)
		}
		if m.renaming(a.mode, d, len(chU), len(chR), len(pairs)) {
			if lo, ln := m.renameLeftovers(ku, kr, pairs, a.unionKeys, a.runKeys); len(lo) > 0 && len(ln) > 0 {
				m.weighed++
				pairs = m.renames(m.unionCands(u, chU, lo), m.runCands(r, chR, ln), a.unionKeys, a.runKeys, pairs)
			}
		}
		a.flags[rn] |= ordered
		m.spans = append(m.spans, ordSpan{rn, int32(len(m.ord)), int32(len(pairs))})
		rekey := renamesKeepKeysDistinct(ku, kr, pairs)
		for _, q := range pairs {
			rc, uc := int32(chR[q.b]), chU[q.a]
			if k := kr[q.b]; ku[q.a] != k && rekey {
				// Renamed: the node takes the newer name, under which
				// later runs match it directly and reports show it
				// (rekey; the key set takes it after the pass).
				u.key[uc] = k
				u.kidKeys[int(u.kidOff[ux])+int(q.a)] = k
				m.renamed = append(m.renamed, k)
			}
			toU[rc] = uc
			m.ord = append(m.ord, rc)
		}
	}
	return unmatched
}

// countPass is addRun's count pass over the run nodes that are a.own's
// (all of them when the run is not split), from the last: w[rn] is
// complete when rn is reached (its children were counted), and goes to
// its parent (tallyUp), but where the parent is shared, which both
// goroutines would write: addRun adds those after. m.room is the child
// slots the lists it moves take.
func (m *matcher) countPass(a *addState) {
	r, toU, flags, w, owner, own := a.r, a.toU, a.flags, a.w, a.owner, a.own
	room := 0
	for rn := int32(len(toU)) - 1; rn > 0; rn-- {
		if owner != nil && owner[rn] != own {
			continue
		}
		if toU[rn] < 0 {
			w[rn]++
		} else if flags[rn]&adds == 0 {
			continue // matched, nothing added below: nothing to give
		}
		p := int32(r.parent[rn])
		if owner != nil && owner[p] == shared {
			continue
		}
		room += a.tallyUp(rn, p)
	}
	m.room = room
}

// tallyUp adds run node rn's count (w[rn], complete) and adds mark to its
// parent p, and returns the slots p's list takes for it (gained).
func (a *addState) tallyUp(rn, p int32) int {
	room := 0
	if a.toU[rn] < 0 {
		if a.toU[p] >= 0 {
			room = a.gained(p)
		}
		a.flags[p] |= adds
	} else if a.flags[rn]&adds != 0 {
		a.flags[p] |= adds
	}
	if a.w[rn] != 0 {
		a.w[p] += a.w[rn]
	}
	return room
}

// gained counts the slots matched node p's list takes for a new child:
// the child's, and the first time, room for the list to move with at
// least twice the room it had, or 2 (moveList). Not inlined, so that
// tallyUp is: a new child of a matched node is rare.
//
//go:noinline
func (a *addState) gained(p int32) int {
	if a.flags[p]&gains != 0 {
		return 1
	}
	a.flags[p] |= gains
	return 2*int(a.u.kidCap[a.toU[p]]) + 3
}

// splitRun divides run r's nodes between two goroutines by whole
// subtrees, for addRun's passes, and returns the shared nodes above the
// split, in id order, or nil where no split is near balanced. The largest
// subtree is split into its children (its root shared) until none holds
// more than a third of the nodes; the subtrees are then dealt, largest
// first, to the half with fewer nodes, the second half's roots marked
// second in owner (addRun marks their descendants). size is scratch of
// r's node count: the subtree sizes. That pair's runs split 3 nodes deep,
// synth's 19.
func splitRun(r *run, owner []uint8, size []int32) []int32 {
	n := len(size)
	clear(size)
	for rn := n - 1; rn > 0; rn-- {
		size[rn]++
		size[r.parent[rn]] += size[rn]
	}
	size[0]++
	type sub struct{ x, size int32 }
	open := []sub{{0, size[0]}}
	var sharedNodes []int32
	for {
		big := 0
		for i, s := range open {
			if s.size > open[big].size {
				big = i
			}
		}
		if 3*int(open[big].size) <= n {
			break
		}
		if len(sharedNodes) == splitMaxShared {
			return nil // a chain: no subtrees to share out
		}
		x := open[big].x
		open[big] = open[len(open)-1]
		open = open[:len(open)-1]
		sharedNodes = append(sharedNodes, x)
		for _, c := range r.kids[r.kidStart[x]:r.kidStart[x+1]] {
			open = append(open, sub{int32(c), size[c]})
		}
	}
	slices.SortFunc(open, func(a, b sub) int {
		if a.size != b.size {
			return int(b.size - a.size)
		}
		return int(a.x - b.x)
	})
	var h0, h1 int
	for _, s := range open {
		if h1 < h0 {
			owner[s.x] = second
			h1 += int(s.size)
		} else {
			h0 += int(s.size)
		}
	}
	for _, x := range sharedNodes {
		owner[x] = shared
	}
	slices.Sort(sharedNodes)
	return sharedNodes
}

// splitMaxShared bounds the shared nodes of a split.
const splitMaxShared = 256

// halves runs one of addRun's passes on both halves of a split run: the
// second's on another goroutine with m2, the first's here with m.
func halves(m, m2 *matcher, pass func(m *matcher, own uint8)) {
	var wg sync.WaitGroup
	wg.Go(func() { pass(m2, second) })
	pass(m, first)
	wg.Wait()
}

// twinMatcher returns the matcher of the second goroutine of a split
// addRun: m's settings, its own scratch, nothing counted.
func (m *matcher) twinMatcher() *matcher {
	if m.twin == nil {
		m.twin = newMatcher(m.mode, m.budget)
	}
	t := m.twin
	t.mode, t.budget, t.kt, t.renameMin, t.callOrder = m.mode, m.budget, m.kt, m.renameMin, m.callOrder
	t.counts, t.weighed = MatcherCounts{}, 0
	t.spans, t.ord, t.renamed = t.spans[:0], t.ord[:0], t.renamed[:0]
	return t
}

// addNew is addRun's second pass: it adds the run's unmatched nodes to the
// union with the ids a depth-first walk from the root gives them (a stack
// of pairs: a node's matched children that add something, in the order
// siblings paired them, then its unmatched ones, taken last first; the
// ids of a node's new children are consecutive, given when the walk takes
// the node), so that the union's ids are what they always were: ties in
// the reports are broken by id.
//
// It does not walk. The walk's next free id when it takes node rn, f(rn),
// follows from its parent's and from what the walk adds under the
// siblings taken before rn (w, addRun), so one pass in the run's id order
// (parents first) knows f of every node it reaches and writes each new
// node where its id says. The walk read the run's arrays at the node it
// took, all over them for an independent pair (that pair: 1.08M nodes
// added); this pass reads them in order and writes the union's arrays
// out of order, which the core does not wait for.
//
// The child lists of new nodes are laid out by id: the list of the node
// whose first child has id x starts at slot base+x-old (old the union's
// size before the run). A matched node's list that gains children moves
// past those slots (moveList), into its goroutine's share of the room
// the count pass found; the slots its new children would have had stay
// unused.
func (m *matcher) addNew(a *addState, m2 *matcher, added int) {
	u := a.u
	old := int32(u.len())
	room := m.room
	if m2 != nil {
		room += m2.room
	}
	u.grow(added, added+room)
	size := int(old) + added
	a.old, a.last = old, u.last
	if !a.last {
		u.weight, u.kidCap = u.weight[:size], u.kidCap[:size]
	}
	u.parent, u.key = u.parent[:size], u.key[:size]
	if a.callSites {
		u.callSite = u.callSite[:size]
	}
	u.depth, u.kidOff, u.kidLen = u.depth[:size], u.kidOff[:size], u.kidLen[:size]
	a.base = int32(len(u.kids)) - old
	m.at = int32(len(u.kids) + added)
	u.kids = u.kids[:int(m.at)+room]
	u.kidKeys = u.kidKeys[:int(m.at)+room]
	// w[rn] becomes f(rn) once rn's parent is taken; the root's is old.
	a.w[0] = old
	m.added = m.added[:0]
	end := &m.at
	if m2 == nil {
		m.addPass(a)
	} else {
		m2.added = m2.added[:0]
		m2.at = m.at + int32(m.room)
		end = &m2.at
		a.own = shared
		m.addPass(a)
		halves(m, m2, func(m *matcher, own uint8) {
			b := *a
			b.own = own
			m.addPass(&b)
		})
	}
	u.kids, u.kidKeys = u.kids[:*end], u.kidKeys[:*end]
	for _, mm := range []*matcher{m, m2} {
		if mm != nil {
			for _, k := range mm.added {
				u.keys.add(k)
			}
		}
	}
}

// addPass is addNew over the run nodes that are a.own's (all of them
// when the run is not split): it adds each node's unmatched children (all
// of them when the node is new) and sets f of its children that add.
func (m *matcher) addPass(a *addState) {
	u, r, toU, flags, w, owner, own := a.u, a.r, a.toU, a.flags, a.w, a.owner, a.own
	// The ordered lists' pairs: the first matcher's spans made before
	// the split (all of them, when the run is not split), and this
	// matcher's after it, each in node order. A cursor finds a node's
	// span by stepping over the spans of nodes this pass does not take.
	mm := a.first
	pre := spanCursor{spans: mm.spans[:a.preSpans], ord: mm.ord}
	after := spanCursor{spans: m.spans, ord: m.ord}
	if m == mm {
		after.spans = m.spans[a.preSpans:]
	}
	old, base, last := a.old, a.base, a.last
	// newChild writes run node c, the child of union node ux with key
	// k, as union node id, and sets f of c: next is the walk's next
	// free id once c is taken.
	newChild := func(ux int32, c cct.NodeID, k key, id, next int32) {
		toU[c] = id
		u.parent[id], u.key[id] = ux, k
		u.depth[id] = r.depths[c]
		if a.callSites {
			u.callSite[id] = r.callSite(int32(c))
		}
		kl := r.kidStart[c+1] - r.kidStart[c]
		u.kidOff[id], u.kidLen[id] = 0, kl
		if kl > 0 {
			u.kidOff[id] = base + next
		}
		if !last {
			if owner == nil {
				u.keys.add(k)
			} else {
				m.added = append(m.added, k)
			}
			u.weight[id], u.kidCap[id] = r.total[c], kl
		}
		w[c] = next
	}
	for rn := range int32(len(toU)) {
		if owner != nil && owner[rn] != own {
			continue
		}
		ux := toU[rn]
		if ux < old && flags[rn]&adds == 0 {
			continue // matched, and nothing added below: not reached
		}
		sr, er := r.kidStart[rn], r.kidStart[rn+1]
		if sr == er {
			continue
		}
		f := w[rn]
		chR, kr := r.kids[sr:er], r.kidKeys[sr:er]
		if ux >= old || u.kidLen[ux] == 0 {
			// Every child is new: ids f, f+1, ...; taken last first.
			if ux < old { // a union leaf gains the list
				u.kidOff[ux], u.kidLen[ux], u.kidCap[ux] = base+f, int32(len(chR)), int32(len(chR))
			}
			o := base + f
			next := f + int32(len(chR))
			for j := len(chR) - 1; j >= 0; j-- {
				c, id := chR[j], f+int32(j)
				u.kids[o+int32(j)], u.kidKeys[o+int32(j)] = id, kr[j]
				sz := w[c]
				newChild(ux, c, kr[j], id, next)
				next += sz - 1
			}
			continue
		}
		// A matched node: its unmatched children get ids f, f+1, ... in
		// their order and are taken first, last first; then its matched
		// children that add, last pushed first.
		more := int32(0)
		for _, c := range chR {
			if toU[c] < 0 {
				more++
			}
		}
		next := f + more
		if more > 0 {
			at := m.moveList(u, ux, more)
			id := f + more
			for j := len(chR) - 1; j >= 0; j-- {
				c := chR[j]
				if toU[c] >= 0 {
					continue
				}
				id--
				u.kids[at+id-f], u.kidKeys[at+id-f] = id, kr[j]
				sz := w[c]
				newChild(ux, c, kr[j], id, next)
				next += sz - 1
			}
			u.kidLen[ux] += more
		}
		if flags[rn]&ordered != 0 {
			// The pairs' order.
			var push []int32
			if int(rn) < a.probe {
				push = pre.pairs(rn)
			} else {
				push = after.pairs(rn)
			}
			for j := len(push) - 1; j >= 0; j-- {
				if c := push[j]; flags[c]&adds != 0 {
					sz := w[c]
					w[c] = next
					next += sz
				}
			}
		} else {
			// The same list on both sides: every child is matched.
			for j := len(chR) - 1; j >= 0; j-- {
				if c := chR[j]; flags[c]&adds != 0 {
					sz := w[c]
					w[c] = next
					next += sz
				}
			}
		}
	}
}

// A spanCursor finds the matched children of ordered lists (ordSpan) in
// node order.
type spanCursor struct {
	spans []ordSpan
	ord   []int32
	i     int
}

// pairs returns the matched children of run node rn's ordered list, in
// the order siblings paired them. rn's span is at the cursor or after it.
func (c *spanCursor) pairs(rn int32) []int32 {
	for c.spans[c.i].rn != rn {
		c.i++
	}
	sp := c.spans[c.i]
	return c.ord[sp.off : sp.off+sp.n]
}

// moveList gives matched union node x's list room for more children and
// returns the slot of its first free one. A full list moves to slot m.at
// (this goroutine's share of the room addRun's count pass found) with at
// least twice the room it had, as makeRoom moves it.
func (m *matcher) moveList(u *union, x, more int32) int32 {
	have, capacity := u.kidLen[x], u.kidCap[x]
	if have+more <= capacity {
		return u.kidOff[x] + have
	}
	room := max(have+more, 2*capacity, 2)
	from, to := u.kidOff[x], m.at
	// A child at a time: the lists are short, and copy's call cost more
	// than the copying (that pair: 87k lists moved).
	for j := range have {
		u.kids[to+j], u.kidKeys[to+j] = u.kids[from+j], u.kidKeys[from+j]
	}
	u.kidOff[x], u.kidCap[x] = to, room
	m.at += room
	return to + have
}

// copyRun makes the empty union a copy of the first run, node for node:
// union node i is the run's node i (cct ids, like union ids, are larger
// than their parents'). Matching against an empty union adds every node
// anyway; copying the arrays costs a tenth of walking the tree.
func (u *union) copyRun(r *run) { u.copyRunOn(r, parallel) }

// copyRunOn is copyRun with the nodes split over goroutines by each
// (parallel, or serial for one goroutine).
func (u *union) copyRunOn(r *run, each func(n int, work func(from, to int))) {
	n := r.nodes()
	if u.callSites {
		u.callSite = make([]int64, 1, n)
	}
	u.grow(n-1, 0)
	u.parent = u.parent[:n]
	u.key = u.key[:n]
	u.depth = u.depth[:n]
	u.weight = u.weight[:n]
	if u.callSites {
		u.callSite = u.callSite[:n]
	}
	u.kidOff, u.kidLen, u.kidCap = u.kidOff[:n], u.kidLen[:n], u.kidCap[:n]
	u.copied = r
	// Room for what later runs add (a sixteenth): a run of the same
	// program adds few nodes, and without room the first would copy both
	// arrays (8M nodes: 70 MB).
	room := len(r.kids) + len(r.kids)/16
	u.kids = make([]int32, len(r.kids), room)
	u.kidKeys = make([]key, len(r.kidKeys), room)
	// On every core: the union is built on the comparison's critical
	// path, and a copy of 8M nodes is 300 MB written.
	each(n, func(from, to int) {
		for i := from; i < to; i++ {
			r.toU[i] = int32(i)
			u.kidOff[i] = r.kidStart[i]
			u.kidLen[i] = r.kidStart[i+1] - r.kidStart[i]
			u.kidCap[i] = u.kidLen[i]
		}
		ks, ke := r.kidStart[from], r.kidStart[to]
		for i, c := range r.kids[ks:ke] {
			u.kids[int(ks)+i] = int32(c)
		}
		copy(u.kidKeys[ks:ke], r.kidKeys[ks:ke])
		from = max(from, 1) // the root keeps newUnion's
		for i := from; i < to; i++ {
			u.parent[i] = int32(r.parent[i])
		}
		copy(u.key[from:to], r.nkey[from:to])
		copy(u.depth[from:to], r.depths[from:to])
		copy(u.weight[from:to], r.total[from:to])
		if u.callSites {
			for i := from; i < to; i++ {
				u.callSite[i] = r.callSite(int32(i))
			}
		}
	})
	for _, k := range r.fkey {
		u.keys.add(k)
	}
}

// values fills the per-node values from the runs, base runs first. It
// runs on the comparison's critical path.
//
// It gathers: each node's row (its value in every run, when perRun asks
// for them, as the significance tests of Stats mode do), its sums per
// side and its counts of runs are written at once, node after node, on
// every core, from each run's node for it (fromU, the inverse of toU).
// Scattering run by run wrote five arrays at the run's union nodes, which
// are all over the union for a run that adds much (that pair's new run: 1.08M
// of its 1.39M nodes added, in depth-first order), two of them rows shared
// by both sides' goroutines; a gather writes every array in order and
// reads two (the run's total and self) where fromU says. The run the union
// was copied from (copyRun) is its own inverse. The sums are taken in run
// order from 0, adding 0 for runs without the node, which gives the sums
// the scatter gave.
func (u *union) values(base, nw []*run, perRun bool) {
	n := u.len()
	runs := append(base[:len(base):len(base)], nw...)
	u.runs = len(runs)
	// With one run a side a node's row is its two means (a value over
	// one run, exact: values are integers far below 2⁵³), which
	// totalRow and selfRow read instead: at that pair's 2.5M union nodes the
	// rows were 80 MB, live at the comparison's peak.
	u.rowsAreMeans = perRun && len(base) == 1 && len(nw) == 1
	if perRun && !u.rowsAreMeans {
		u.total = make([]int64, n*u.runs)
		u.self = make([]int64, n*u.runs)
	}
	perRun = perRun && !u.rowsAreMeans
	u.paired, u.pairNew = false, nil
	u.selfBase = make([]float64, n)
	u.selfNew = make([]float64, n)
	u.meanBase = make([]float64, n)
	u.meanNew = make([]float64, n)
	if len(base) == 1 && len(nw) == 1 && base[0] == u.copied && !perRun {
		u.valuesPair(base[0], nw[0])
		return
	}
	u.inBase = make([]int32, n)
	u.inNew = make([]int32, n)
	fromU := make([][]int32, len(runs)) // nil: the identity (copyRun)
	var wg sync.WaitGroup
	for ri, r := range runs {
		if r == u.copied {
			continue
		}
		wg.Go(func() {
			f := make([]int32, n)
			for i := range f {
				f[i] = -1
			}
			for i, x := range r.toU {
				f[x] = int32(i)
			}
			fromU[ri] = f
		})
	}
	wg.Wait()
	nb := len(base)
	kb, kn := float64(len(base)), float64(len(nw))
	parallel(n, func(from, to int) {
		for x := from; x < to; x++ {
			var tb, tn, sb, sn float64
			var ib, in int32
			for ri, r := range runs {
				i := x
				if f := fromU[ri]; f != nil {
					i = int(f[x])
				} else if x >= len(r.total) {
					i = -1
				}
				var t, s int64
				if i >= 0 {
					t, s = r.total[i], r.self[i]
					if ri < nb {
						ib++
					} else {
						in++
					}
				}
				if perRun {
					u.total[x*u.runs+ri], u.self[x*u.runs+ri] = t, s
				}
				if ri < nb {
					tb += float64(t)
					sb += float64(s)
				} else {
					tn += float64(t)
					sn += float64(s)
				}
			}
			u.meanBase[x], u.meanNew[x] = tb/kb, tn/kn
			u.selfBase[x], u.selfNew[x] = sb/kb, sn/kn
			u.inBase[x], u.inNew[x] = ib, in
		}
	})
}

// valuesPair is values for one run a side, the union copied from the base
// run b (node x is b's node x): b's values are copied in order, and nw's
// written at its union nodes (toU). A run's values at its union nodes are
// four independent writes a node, which the core does not wait for, where
// the gather read them through the inverse of toU, out of order, after
// building it (that pair: 1.39 M nodes). The arrays are fresh (zero): a node
// a run lacks has 0 of it, as the gather's sums over no run. Which nodes
// each run has is told by the ids (baseRuns, newRuns) and pairNew, a byte
// for each of the base run's nodes (distinct bytes: the goroutines do not
// share a word).
func (u *union) valuesPair(b, nw *run) {
	nb := b.nodes()
	u.pairBase, u.pairNew = int32(nb), make([]bool, nb)
	var inexact atomic.Bool
	parallel(nb, func(from, to int) {
		big := false
		for x := from; x < to; x++ {
			t := b.total[x]
			u.meanBase[x], u.selfBase[x] = float64(t), float64(b.self[x])
			big = big || t > maxExact || t < -maxExact
		}
		if big {
			inexact.Store(true)
		}
	})
	parallel(nw.nodes(), func(from, to int) {
		big := false
		for i, x := range nw.toU[from:to] {
			i += from
			t := nw.total[i]
			u.meanNew[x], u.selfNew[x] = float64(t), float64(nw.self[i])
			if int(x) < nb {
				u.pairNew[x] = true
			}
			big = big || t > maxExact || t < -maxExact
		}
		if big {
			inexact.Store(true)
		}
	})
	u.paired, u.inexact = true, inexact.Load()
}

// baseRuns returns on how many base runs node x occurs.
func (u *union) baseRuns(x int32) int32 {
	if u.paired && u.mirror {
		return u.pairedNewRuns(x)
	}
	return u.pairedBaseRuns(x)
}

// newRuns returns on how many new runs node x occurs.
func (u *union) newRuns(x int32) int32 {
	if u.paired && u.mirror {
		return u.pairedBaseRuns(x)
	}
	return u.pairedNewRuns(x)
}

// pairedBaseRuns is baseRuns of the union as built.
func (u *union) pairedBaseRuns(x int32) int32 {
	if u.paired {
		if x < u.pairBase {
			return 1
		}
		return 0
	}
	return u.inBase[x]
}

// pairedNewRuns is newRuns of the union as built.
func (u *union) pairedNewRuns(x int32) int32 {
	if u.paired {
		if x >= u.pairBase || u.pairNew[x] {
			return 1
		}
		return 0
	}
	return u.inNew[x]
}

// maxExact bounds the integers a float64 holds exactly, all of them up to
// it: 2⁵³.
const maxExact = 1 << 53

// dropUnionCopies drops, once valuesPair has filled the union's values and
// every matching is made, what of a one-run-a-side comparison's runs the
// union holds as well: the base run's values and its toU (the union is its
// copy: the identity), and the new run's inclusive values. What reads them
// after (PARCS: pweightsOf, collectRoots) reads the union's (run.uTotal,
// uSelf). That pair: 34 MB, live at the comparison's peak. Not when a total
// would not come back from float64 exact (u.inexact).
func (u *union) dropUnionCopies(b, nw *run) {
	if !u.paired || u.inexact || u.copied != b {
		return
	}
	nb := b.nodes()
	b.uTotal, b.uSelf = u.meanBase[:nb:nb], u.selfBase[:nb:nb]
	b.total, b.self, b.toU = nil, nil, nil
	nw.uTotal, nw.total = u.meanNew, nil
}

// totalRow fills dst (of length u.runs) with node x's inclusive values,
// one per run, base runs first, and returns it.
func (u *union) totalRow(x int32, dst []float64) []float64 {
	switch {
	case u.rowsAreMeans:
		dst[0], dst[1] = u.meanBase[x], u.meanNew[x]
		return dst
	case u.pv != nil:
		return u.unmirror(u.pv.totalRow(x, dst))
	}
	return u.unmirror(stats.FloatsInto(dst, u.total[int(x)*u.runs:int(x+1)*u.runs]))
}

// selfRow is totalRow for self values.
func (u *union) selfRow(x int32, dst []float64) []float64 {
	switch {
	case u.rowsAreMeans:
		dst[0], dst[1] = u.selfBase[x], u.selfNew[x]
		return dst
	case u.pv != nil:
		return u.unmirror(u.pv.selfRow(x, dst))
	}
	return u.unmirror(stats.FloatsInto(dst, u.self[int(x)*u.runs:int(x+1)*u.runs]))
}

// foldedSelf are the union's self values with the artifacts' inclusive
// values added to their callers' (statsGraph): the callers' rows are
// kept aside, the rest read from the union.
type foldedSelf struct {
	u     *union
	extra map[int32][]float64
}

// addTotal adds node x's inclusive values to node p's self values.
func (fs *foldedSelf) addTotal(p, x int32) {
	ps := fs.extra[p]
	if ps == nil {
		if fs.extra == nil {
			fs.extra = map[int32][]float64{}
		}
		ps = fs.u.selfRow(p, make([]float64, fs.u.runs))
		fs.extra[p] = ps
	}
	for r, v := range fs.u.totalRow(x, make([]float64, fs.u.runs)) {
		ps[r] += v
	}
}

// row is selfRow with the artifacts folded.
func (fs *foldedSelf) row(x int32, dst []float64) []float64 {
	if ps, ok := fs.extra[x]; ok {
		return append(dst[:0], ps...)
	}
	return fs.u.selfRow(x, dst)
}

// describe returns the thread label and the root-first function frames of
// union node x (without root and thread).
func (u *union) describe(kt *keyTable, x int32) (thread string, path []Frame) {
	if x <= 0 {
		return "", []Frame{}
	}
	d := u.depth[x]
	path = make([]Frame, max(d-1, 0))
	for ; d > 1; d-- {
		kf := kt.frames[u.key[x]]
		path[d-2] = kf.frame()
		x = u.parent[x]
	}
	return threadLabel(kt.frames[u.key[x]]), path
}

// compareNames orders two union nodes by function name, then file (thread
// label for threads), without allocating.
func (u *union) compareNames(kt *keyTable, x, y int32) int {
	fx, fy := kt.frames[u.key[x]], kt.frames[u.key[y]]
	if fx.Kind == cct.KindThread || fy.Kind == cct.KindThread {
		return compareStrings(threadLabel(fx), threadLabel(fy))
	}
	if c := compareStrings(fx.Function, fy.Function); c != 0 {
		return c
	}
	return compareStrings(fx.File, fy.File)
}

func threadLabel(kf keyFrame) string {
	return cct.ThreadLabel(cct.Frame{Thread: kf.Thread, Process: kf.Process, Ordinal: kf.Ordinal, Kind: kf.Kind})
}

// compareCheap orders two union nodes by name, then by id: deterministic and
// O(1), for sorting many nodes where the order of ties does not show.
func (u *union) compareCheap(kt *keyTable, x, y int32) int {
	if c := u.compareNames(kt, x, y); c != 0 || x == y {
		return c
	}
	return int(x - y)
}

// comparePaths orders two union nodes by their root-first paths of names,
// for stable tie-breaking: a path sorts before its extensions, and paths
// differ first just below their lowest common ancestor. Siblings with equal
// names (calls of one function from several call sites) fall back to their
// ids, which are deterministic too. O(depth), no allocation.
func (u *union) comparePaths(kt *keyTable, x, y int32) int {
	if x == y {
		return 0
	}
	a, b := x, y
	for u.depth[a] > u.depth[b] {
		a = u.parent[a]
	}
	for u.depth[b] > u.depth[a] {
		b = u.parent[b]
	}
	if a == b { // one path is a prefix of the other
		return int(u.depth[x] - u.depth[y])
	}
	for u.parent[a] != u.parent[b] {
		a, b = u.parent[a], u.parent[b]
	}
	if c := u.compareNames(kt, a, b); c != 0 {
		return c
	}
	return int(a - b)
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func floatSum(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s
}
