package diff

import (
	"slices"
	"sync"

	"github.com/ctdiff/ctdiff/cct"
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
	// pv holds the per-run values instead of total and self when a
	// stream builds the union (runvalues.go): the tests read them
	// through totalRow and selfRow either way.
	pv runStore
	// pending are the runs of each side (base, new) scatter has not yet
	// written to pv (scatterBlock).
	pending           [2]scatterPending
	selfBase          []float64
	selfNew           []float64
	inBase, inNew     []int32
	meanBase, meanNew []float64 // mean inclusive value per side
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

// grow makes room for n more nodes, and for kids more children.
//
// A large union's arrays are copied on two goroutines, a half of the bytes
// each: growing is on the comparison's critical path, and a run that adds
// much to a large union copies it all (gopair's new run adds 1.08 M nodes
// to the base's 1.41 M: 26-31 ms on one core).
func (u *union) grow(n, kids int) {
	nodes := func() {
		if !u.last {
			u.weight = slices.Grow(u.weight, n)
		}
		u.parent = slices.Grow(u.parent, n)
		u.key = slices.Grow(u.key, n)
		if u.callSites {
			u.callSite = slices.Grow(u.callSite, n)
		}
	}
	lists := func() {
		u.depth = slices.Grow(u.depth, n)
		u.kidOff = slices.Grow(u.kidOff, n)
		u.kidLen = slices.Grow(u.kidLen, n)
		if !u.last {
			u.kidCap = slices.Grow(u.kidCap, n)
		}
		u.kids = slices.Grow(u.kids, kids)
		u.kidKeys = slices.Grow(u.kidKeys, kids)
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
		// call cost more than the copying (gopair: 87k lists moved).
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
	for i := range toU {
		toU[i] = -1 // not matched (yet)
	}
	toU[0] = 0
	// flags[rn]: node rn's list was matched by siblings (not the same on
	// both sides: ordered), and something is added in its subtree (adds).
	// The run's matched children of an ordered list, in the order siblings
	// paired them, are ord[s.off:s.off+s.n] for its span s in spans (in
	// node order), found by binary search for the few nodes the second
	// pass reaches with one. A slice per list in a map cost an allocation
	// and two map accesses per list, and most lists of an independent pair
	// (gopair) are ordered; an offset per node would cost 4 bytes per
	// node (32 MB at 8M nodes), where the flags share the byte the adds
	// mark had.
	flags := resetBools(m.flags, n)
	m.flags = flags
	spans, ord := m.spans[:0], m.ord[:0]
	var cu, cr []int64
	for rn := range int32(n) {
		ux := toU[rn]
		sr, er := r.kidStart[rn], r.kidStart[rn+1]
		if ux < 0 || sr == er || u.kidLen[ux] == 0 {
			continue // nothing to match: the second pass adds them
		}
		chU, chR := u.children(ux), r.kids[sr:er]
		var kr []key
		kr, cr = r.childKeys(rn, cr, callSites)
		ku := u.childKeys(ux)
		cu = cu[:0]
		if callSites {
			for _, c := range chU {
				cu = append(cu, u.callSite[c])
			}
		}
		d := u.depth[ux]
		if m.same(ku, kr, cu, cr, d, mode) {
			for j, c := range chR {
				toU[c] = chU[j]
			}
			continue
		}
		pairs := m.siblings(ku, kr, cu, cr, d, mode)
		if m.renaming(mode, d, len(chU), len(chR), len(pairs)) {
			if lo, ln := m.renameLeftovers(ku, kr, pairs, unionKeys, runKeys); len(lo) > 0 && len(ln) > 0 {
				m.weighed++
				pairs = m.renames(m.unionCands(u, chU, lo), m.runCands(r, chR, ln), unionKeys, runKeys, pairs)
			}
		}
		flags[rn] = ordered
		spans = append(spans, ordSpan{rn, int32(len(ord)), int32(len(pairs))})
		for _, q := range pairs {
			rc, uc := int32(chR[q.b]), chU[q.a]
			if k := kr[q.b]; ku[q.a] != k {
				// Renamed: the node takes the newer name, under which
				// later runs match it directly and reports show it.
				u.rekey(ux, int(q.a), uc, k)
			}
			toU[rc] = uc
			ord = append(ord, rc)
		}
	}
	m.spans, m.ord = spans, ord

	// What is added, and the children of the union nodes that gain some
	// (their lists move: makeRoom), so that the arrays grow about once.
	// w[rn] counts the union nodes the depth-first walk adds from the
	// moment it reaches rn: rn's own subtree, rn included, if rn is new;
	// what its subtree adds if it is matched. Children have larger ids than
	// their parents, so one pass from the last node sums them.
	w := m.w
	if cap(w) < n {
		w = make([]int32, n)
	}
	w = w[:n]
	clear(w)
	// A large run's w is not kept for the next run: the matcher lives as
	// long as the comparison, and it would be live at its peak (the 1.6
	// M-stack pair's: 30 MB).
	m.w = nil
	if n < keepScratchMax {
		m.w = w
	}
	// room bounds the child slots the moved lists take (makeRoom: at
	// most twice the room they had, and their new children, or 2).
	room := 0
	for rn := n - 1; rn > 0; rn-- {
		p := r.parent[rn]
		if toU[rn] < 0 {
			w[rn]++
			if up := toU[p]; up >= 0 {
				room++
				if flags[p]&gains == 0 {
					room += 2*int(u.kidCap[up]) + 2
					flags[p] |= gains
				}
			}
			flags[p] |= adds
		} else if flags[rn]&adds != 0 {
			flags[p] |= adds
		}
		if w[rn] != 0 {
			w[p] += w[rn]
		}
	}
	if flags[0]&adds == 0 {
		return
	}
	added := int(w[0])
	m.addNew(u, r, w, added, room, callSites)
}

// keepScratchMax is the least node count of a run whose addRun scratch
// (w) the matcher does not keep.
const keepScratchMax = 1 << 20

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
// took, all over them for an independent pair (gopair: 1.08M nodes
// added); this pass reads them in order and writes the union's arrays
// out of order, which the core does not wait for.
//
// The child lists of new nodes are laid out by id: the list of the node
// whose first child has id x starts at slot base+x-old (old the union's
// size before the run). A matched node's list that gains children moves
// to the end (makeRoom), past those slots; the slots its new children
// would have had stay unused.
func (m *matcher) addNew(u *union, r *run, w []int32, added, room int, callSites bool) {
	toU, flags := r.toU, m.flags
	old := int32(u.len())
	n := int32(len(toU))
	u.grow(added, added+room)
	size := int(old) + added
	last := u.last
	if !last {
		u.weight, u.kidCap = u.weight[:size], u.kidCap[:size]
	}
	u.parent, u.key = u.parent[:size], u.key[:size]
	if callSites {
		u.callSite = u.callSite[:size]
	}
	u.depth, u.kidOff, u.kidLen = u.depth[:size], u.kidOff[:size], u.kidLen[:size]
	base := int32(len(u.kids)) - old
	u.kids = u.kids[:len(u.kids)+added]
	u.kidKeys = u.kidKeys[:len(u.kidKeys)+added]
	// w[rn] becomes f(rn) once rn's parent is taken; the root's is old.
	w[0] = old
	spans, ord := m.spans, m.ord
	si := 0
	// newChild writes run node c, the child of union node ux with key k,
	// as union node id, and sets f of c: next is the walk's next free id
	// once c is taken.
	newChild := func(ux int32, c cct.NodeID, k key, id, next int32) {
		toU[c] = id
		u.parent[id], u.key[id] = ux, k
		u.depth[id] = r.depths[c]
		if callSites {
			u.callSite[id] = r.callSite(int32(c))
		}
		kl := r.kidStart[c+1] - r.kidStart[c]
		u.kidOff[id], u.kidLen[id] = 0, kl
		if kl > 0 {
			u.kidOff[id] = base + next
		}
		if !last {
			u.keys.add(k)
			u.weight[id], u.kidCap[id] = r.total[c], kl
		}
		w[c] = next
	}
	for rn := range n {
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
			u.makeRoom(ux, int(more))
			at := u.kidOff[ux] + u.kidLen[ux]
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
			// The pairs' order: spans are in node order, as this pass.
			for spans[si].rn != rn {
				si++
			}
			sp := spans[si]
			push := ord[sp.off : sp.off+sp.n]
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

// addRun's flags per run node.
const (
	ordered uint8 = 1 << iota // its list was matched by siblings
	adds                      // something is added in its subtree
	gains                     // a matched node that gains children
)

// An ordSpan locates the matched children of run node rn's ordered list in
// addRun's ord.
type ordSpan struct{ rn, off, n int32 }

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
// are all over the union for a run that adds much (gopair's new run: 1.08M
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
	// totalRow and selfRow read instead: at gopair's 2.5M union nodes the
	// rows were 80 MB, live at the comparison's peak.
	u.rowsAreMeans = perRun && len(base) == 1 && len(nw) == 1
	if perRun && !u.rowsAreMeans {
		u.total = make([]int64, n*u.runs)
		u.self = make([]int64, n*u.runs)
	}
	perRun = perRun && !u.rowsAreMeans
	u.selfBase = make([]float64, n)
	u.selfNew = make([]float64, n)
	u.inBase = make([]int32, n)
	u.inNew = make([]int32, n)
	u.meanBase = make([]float64, n)
	u.meanNew = make([]float64, n)
	if len(base) == 1 && len(nw) == 1 && base[0] == u.copied && !perRun {
		u.valuesPair(base[0], nw[0])
		return
	}
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
// building it (gopair: 1.39 M nodes). The arrays are fresh (zero): a node
// a run lacks has 0 of it, as the gather's sums over no run.
func (u *union) valuesPair(b, nw *run) {
	parallel(b.nodes(), func(from, to int) {
		for x := from; x < to; x++ {
			u.meanBase[x], u.selfBase[x], u.inBase[x] = float64(b.total[x]), float64(b.self[x]), 1
		}
	})
	parallel(nw.nodes(), func(from, to int) {
		for i, x := range nw.toU[from:to] {
			i += from
			u.meanNew[x], u.selfNew[x], u.inNew[x] = float64(nw.total[i]), float64(nw.self[i]), 1
		}
	})
}

// totalRow fills dst (of length u.runs) with node x's inclusive values,
// one per run, base runs first, and returns it.
func (u *union) totalRow(x int32, dst []float64) []float64 {
	switch {
	case u.rowsAreMeans:
		dst[0], dst[1] = u.meanBase[x], u.meanNew[x]
		return dst
	case u.pv != nil:
		return u.pv.totalRow(x, dst)
	}
	return floatsInto(dst, u.total[int(x)*u.runs:int(x+1)*u.runs])
}

// selfRow is totalRow for self values.
func (u *union) selfRow(x int32, dst []float64) []float64 {
	switch {
	case u.rowsAreMeans:
		dst[0], dst[1] = u.selfBase[x], u.selfNew[x]
		return dst
	case u.pv != nil:
		return u.pv.selfRow(x, dst)
	}
	return floatsInto(dst, u.self[int(x)*u.runs:int(x+1)*u.runs])
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
