package diff

import (
	"github.com/ctdiff/ctdiff/cct"

	"cmp"
	"math"
	"slices"
	"sync"
)

// Spread regressions (ZAM Sections 5 and 6.1): a check added in
// every context of a function, ~10 ms in each of 11 contexts, is 110 ms of
// regression that no single context shows. Per-context analysis finds the
// common ancestor of the contexts (one level too high, and only when that
// ancestor's own noise allows) or nothing. Here every function with two
// calling contexts or more is also one hypothesis: the sum of its
// outermost contexts' inclusive values per run, tested like a node and
// corrected in the same family. A function kept that way is one cause,
// its contexts folded beneath it.
//
// Which functions are candidates, before any test:
//
//   - the summed growth reaches μ (as for a node);
//   - no single context grew by μ: a context that did is a cause of its
//     own, found per node and reported there (a slow call in three
//     contexts is three causes, each with its own test). Unless its test
//     did not keep it: in a pool of threads of one name that split the same
//     work differently in every run, a function's contexts (one per thread
//     ordinal) move by μ from the split alone, too noisy to pass, while
//     their sum is steady (+2 s found in only 3 of 30 seeds without it). Such a
//     function is a candidate too when its contexts run on two threads of
//     one pool (inPools), dropped when one of its contexts is in the graph
//     of its own (statsGraph). Not every function: most that grew by μ in
//     one context (every caller of a regression) would join the family,
//     which cost the 1.6 M-stack pair 2.5 s of walks (explained, below);
//     and not where threads do not pool: there a context's swing is its
//     own;
//   - the contexts' callers grew by μ too: new work makes its callers
//     slower, but a function renamed in the new version (a minifier's
//     Aia → $Dp, matched by rename in few of its 80 contexts) is "new" in
//     every context while its callers did not change (the corpus
//     harness: 2 false causes in 30 cases before this rule);
//   - the lowest wins: a candidate whose growth, less what other
//     candidates' contexts inside its own explain, is below μ (F, whose
//     contexts grew by the isStaleState calls below them) is dropped for
//     the lower ones, as Algorithm 2 keeps the lowest regressed node.

// maxSpreadCandidates bounds the functions tested as spread causes, largest
// growth first: each costs a test and a share of the correction.
const maxSpreadCandidates = 256

// maxSpreadContexts bounds the contexts listed per spread cause.
const maxSpreadContexts = 20

// A spreadGroup is one candidate function: its outermost contexts, their
// summed values per run (base runs first) and its test.
type spreadGroup struct {
	nodes []int32
	sums  []float64
	test  int32 // 1 + index in the family
	// large: a context grew by μ alone (the group yields to it when kept).
	large  bool
	spread spreadInfo
}

// spreadInfo is what assemble needs of a kept spread cause.
type spreadInfo struct {
	key       key
	test      int32 // as spreadGroup.test
	contexts  int
	base, new float64 // mean sums per side
}

func (g *spreadGroup) delta() float64 { return g.spread.new - g.spread.base }

// spreadGroups returns the candidate functions of the union tree, with
// the nodes skip marks (artifacts folded, idle) left out, and the
// outermost contexts it marked (tallyContexts), which recursionMoves reads.
func spreadGroups(u *union, kt *keyTable, skip []bool, nBase int, m float64) ([]spreadGroup, []bool) {
	n, runs := u.len(), u.runs
	nNew := runs - nBase
	nk := len(kt.frames)
	t, topmost := tallyContexts(u, skip, nBase, nk)
	count := func(k key) int32 { return t[k].count }
	growth := func(k key) float64 { return t[k].growth }
	var cands, large []key
	for k := range key(nk) {
		if c := &t[k]; c.count >= 2 && c.growth >= m && c.pooled >= m*float64(nNew) && c.callers >= m {
			if c.largest < m {
				cands = append(cands, k)
			} else {
				large = append(large, k)
			}
		}
	}
	cands = append(cands, inPools(u, kt, large, topmost)...)
	if len(cands) == 0 {
		return nil, topmost
	}
	slices.SortFunc(cands, func(a, b key) int {
		if c := cmp.Compare(growth(b), growth(a)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	cands = cands[:min(len(cands), maxSpreadCandidates)]
	// index is 1 + a key's place among the candidates, 0 for the others:
	// read for every node, a slice where a map cost a tenth of the walk.
	index := make([]int32, nk)
	for i, k := range cands {
		index[k] = int32(i + 1)
	}
	nodes := make([][]int32, len(cands))
	for x := int32(1); int(x) < n; x++ {
		if i := index[u.key[x]]; i > 0 && topmost[x] {
			nodes[i-1] = append(nodes[i-1], x)
		}
	}
	// The lowest wins: a candidate's growth that contexts of other
	// candidates below it explain is not its own. explained[i] sums the
	// growth of every other candidate's contexts inside candidate i's
	// contexts (a recursive ancestor counted once); i is dropped when what
	// is left is below μ. Requiring all of j's contexts inside i's would
	// keep a caller that holds two of isStaleState's eight contexts and
	// whose sum grew by their 30 ms plus noise.
	explained := make([]float64, len(cands))
	stamp := make([]int32, len(cands)) // the last context counted
	for j := range cands {
		for _, x := range nodes[j] {
			d := u.meanNew[x] - u.meanBase[x]
			for a := u.parent[x]; a > 0; a = u.parent[a] {
				if i := int(index[u.key[a]]) - 1; i >= 0 && i != j && stamp[i] != x {
					stamp[i] = x
					explained[i] += d
				}
			}
		}
	}
	drop := make([]bool, len(cands))
	for i, k := range cands {
		drop[i] = growth(k)-explained[i] < m
	}
	var groups []spreadGroup
	row := make([]float64, runs)
	for i, k := range cands {
		if drop[i] {
			continue
		}
		gr := spreadGroup{nodes: nodes[i], sums: make([]float64, runs), large: t[k].largest >= m}
		for _, x := range nodes[i] {
			for r, v := range u.totalRow(x, row) {
				gr.sums[r] += v
			}
		}
		gr.spread = spreadInfo{key: k, contexts: int(count(k))}
		for r, v := range gr.sums {
			if r < nBase {
				gr.spread.base += v / float64(nBase)
			} else {
				gr.spread.new += v / float64(nNew)
			}
		}
		groups = append(groups, gr)
	}
	return groups, topmost
}

// A contextTally is what spreadGroups needs of one function's outermost
// contexts (the nodes of its key with no node of that key above them): how
// many, their summed mean growth, the largest one's, their values summed
// over all runs, and their callers' summed growth (a context's own where
// its caller is a thread). abs sums the three sums' terms' magnitudes, for
// tallyContexts's exactness bound. One struct per key: the walk reads and
// writes them together for each context.
type contextTally struct {
	count                                 int32
	growth, largest, pooled, callers, abs float64
}

// add adds context x's terms (its caller's growth is cg).
func (c *contextTally) add(g, pooled, cg float64) {
	c.count++
	c.growth += g
	c.largest = max(c.largest, g)
	c.pooled += pooled
	c.callers += cg
	c.abs += math.Abs(g) + math.Abs(pooled) + math.Abs(cg)
}

// tallyContexts marks the outermost contexts (topmost: a node at depth 2
// or more, reached from the root without passing a node skip marks, with
// no node of its key between it and depth 2) and tallies them per key.
//
// The walk is depth first, keeping the count of each key on the path from
// the root (the first node of a key with none on the path is an outermost
// context). It was one goroutine's, 0.9 s of the 4.5 s of CPU of a
// 1.6 M-stack comparison, reading every array out of order. With one run
// a side the outermost contexts are now found in preorder, without the
// walk (outermostContexts), and the tallies are made in id order, in
// ranges on every core, added at the end (tallyShared). Which nodes are topmost
// depends on the tree alone; the sums, in general, on the order of their
// terms, in the last bits. Not here: with one run a side every term is an
// integer (a mean of one run, a difference or sum of two), and while a
// key's terms' magnitudes add up to less than 2⁵³ each partial sum is the
// exact integer, in any order and any split, the one the walk on one
// goroutine made. Where a term is not an integer or a key's sum could
// round (means of several runs, totals near 2⁵³; both checked), the walk
// is the one-goroutine walk in child order (tallyOrdered), whose order
// the sums then keep.
func tallyContexts(u *union, skip []bool, nBase, nk int) ([]contextTally, []bool) {
	if u.runs == 2 {
		if t, topmost := tallyShared(u, skip, nk); t != nil {
			return t, topmost
		}
	}
	return tallyOrdered(u, skip, nBase, nk)
}

// exactSum bounds a key's terms' magnitudes for tallyShared's sums: below
// 2⁵³ a float64 sum of integers is exact, and the bound's own sum may be a
// little below its exact value.
const exactSum = 1 << 52

// tallyShared is tallyContexts with one run a side (both values are then
// each node's only run's), or nil where its sums may not be exact: topmost
// marked in preorder (outermostContexts), then the tallies in id order, in
// ranges, on every core.
func tallyShared(u *union, skip []bool, nk int) ([]contextTally, []bool) {
	topmost := outermostContexts(u, skip, nk)
	var mu sync.Mutex
	// The tallies, in id order on every core.
	var parts [][]contextTally
	exact := true
	parallel(u.len(), func(from, to int) {
		t := make([]contextTally, nk)
		ok := true
		for x := from; x < to; x++ {
			if !topmost[x] {
				continue
			}
			g := u.meanNew[x] - u.meanBase[x]
			cg := g
			// The parent's depth is one less: read in order, where the
			// parent's was a read out of order for a node in five.
			if u.depth[x] > 2 {
				p := u.parent[x]
				cg = u.meanNew[p] - u.meanBase[p]
			}
			pl := u.meanBase[x] + u.meanNew[x]
			t[u.key[x]].add(g, pl, cg)
			ok = ok && g == math.Trunc(g) && pl == math.Trunc(pl) && cg == math.Trunc(cg)
		}
		mu.Lock()
		parts, exact = append(parts, t), exact && ok
		mu.Unlock()
	})
	if !exact {
		return nil, nil
	}
	t := parts[0]
	for _, o := range parts[1:] {
		for k := range t {
			c, o := &t[k], &o[k]
			c.count += o.count
			c.growth += o.growth
			c.largest = max(c.largest, o.largest)
			c.pooled += o.pooled
			c.callers += o.callers
			c.abs += o.abs
		}
	}
	for k := range t {
		if !(t[k].abs < exactSum) {
			return nil, nil
		}
	}
	return t, topmost
}

// outermostContexts marks the nodes tallyContexts counts: at depth 2 or
// more, reached from the root without passing a node skip marks, with no
// node of its key between it and depth 2.
//
// It reads the nodes in a preorder made without walking the child lists:
// subtree sizes summed in reverse id order and each node placed after its
// parent and its earlier siblings' subtrees in id order (a node's parent
// has a smaller id: copyRun, add). In preorder a node's subtree is the
// interval of its size after it, and a node is an outermost context of
// its key when it lies past the end of the last outermost context of that
// key read (the subtrees of a key's outermost contexts are disjoint, and
// any node of the key above it would be inside one of them). A skipped
// node's subtree is left out of the preorder. Each pass reads the arrays
// about in order: the depth-first walk by child lists it replaces read
// them out of order, 0.8 s of CPU on the 1.6 M-stack pair's 7.6 M nodes,
// on two goroutines handing each other work.
func outermostContexts(u *union, skip []bool, nk int) []bool {
	n := u.len()
	topmost := make([]bool, n)
	size, reached := reachedSizes(u, skip)
	// next[x] is where x's next child goes in preorder, and once x's
	// children are placed, the end of its subtree there; order is the
	// nodes reached in preorder, the root's children (depth 1, the
	// threads) as ^x: the last pass then reads no node's depth, which
	// was a read out of order for every node (a third of its misses).
	// next is size's array: a node's size is read once, where it is placed
	// (after its parent, before its children), and its slot is its next
	// from then on (an independent pair of 200k-stack Go profiles: 10 MB
	// less, live at the comparison's peak).
	next, order := size, make([]int32, reached)
	next[0] = 1
	for x := int32(1); int(x) < n; x++ {
		sz := size[x]
		if sz == 0 {
			continue
		}
		p := u.parent[x]
		at := next[p]
		next[p] += sz
		o := x
		if p == 0 {
			o = ^x
		}
		order[at], next[x] = o, at+1
	}
	// Per key, the end of its last outermost context.
	end := make([]int32, nk)
	for i, x := range order[1:] {
		if x >= 0 { // depth 2 or more
			if k, i := u.key[x], int32(i+1); i >= end[k] {
				topmost[x], end[k] = true, next[x]
			}
		}
	}
	return topmost
}

// reachedSizes returns the size of every node's subtree of reached nodes
// (0 for a node not reached) and how many are reached: only the nodes with
// no skipped node from the root to them are (1+1: the nodes of one side
// only are folded, skip: most of an independent pair's union); a skipped
// node's subtree is stepped over.
func reachedSizes(u *union, skip []bool) (size []int32, reached int32) {
	n := u.len()
	size = make([]int32, n)
	size[0] = 1
	reached = 1
	for x := 1; x < n; x++ {
		if !skip[x] && size[u.parent[x]] != 0 {
			size[x] = 1
			reached++
		}
	}
	for x := n - 1; x >= 1; x-- {
		if size[x] != 0 {
			size[u.parent[x]] += size[x]
		}
	}
	return size, reached
}

// tallyOrdered is tallyContexts on one goroutine, in the order of the walk
// by child lists that spreadGroups always made (a child pushed after its
// siblings is read first): its sums are those of that order.
func tallyOrdered(u *union, skip []bool, nBase, nk int) ([]contextTally, []bool) {
	nb, nn := float64(nBase), float64(u.runs-nBase)
	t := make([]contextTally, nk)
	topmost := walkOutermost(u, skip, nk, func(x int32) {
		g := u.meanNew[x] - u.meanBase[x]
		cg := g
		if p := u.parent[x]; u.depth[p] >= 2 {
			cg = u.meanNew[p] - u.meanBase[p]
		}
		t[u.key[x]].add(g, u.meanBase[x]*nb+u.meanNew[x]*nn, cg)
	})
	return t, topmost
}

// walkOutermost walks the union depth first by child lists (a child pushed
// after its siblings is read first), below no node skip marks (nil: none),
// and marks each function's outermost contexts: the nodes at depth 2 or
// more with no node of their key above them. at, when not nil, is called
// on each such node in the walk's order.
func walkOutermost(u *union, skip []bool, nk int, at func(x int32)) []bool {
	topmost := make([]bool, u.len())
	onPath := make([]int32, nk)
	type visit struct {
		x    int32
		exit bool
	}
	stack := []visit{{x: 0}}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v.exit {
			onPath[u.key[v.x]]--
			continue
		}
		x := v.x
		if u.depth[x] >= 2 {
			k := u.key[x]
			if onPath[k] == 0 {
				topmost[x] = true
				if at != nil {
					at(x)
				}
			}
			onPath[k]++
			stack = append(stack, visit{x: x, exit: true})
		}
		for _, c := range u.children(x) {
			if skip == nil || !skip[c] {
				stack = append(stack, visit{x: c})
			}
		}
	}
	return topmost
}

// inPools returns the functions of ks (their outermost contexts marked in
// topmost) with contexts on two threads of one pool: threads whose names
// are the same but for numbers ("worker", "worker #2"; "pool-1-thread-3",
// "pool-1-thread-7"). None when no two threads of the union pool.
func inPools(u *union, kt *keyTable, ks []key, topmost []bool) []key {
	if len(ks) == 0 {
		return nil
	}
	pool := map[int32]string{} // a thread node's pool, for pooling threads
	byName := map[string][]int32{}
	for _, th := range u.children(0) {
		kf := kt.frames[u.key[th]]
		name := kf.Process + "\x00" + digitless(kf.Thread)
		byName[name] = append(byName[name], th)
	}
	for name, ths := range byName {
		if len(ths) >= 2 {
			for _, th := range ths {
				pool[th] = name
			}
		}
	}
	if len(pool) == 0 {
		return nil
	}
	asked := make([]int32, len(kt.frames)) // 1 + the key's place in ks
	for i, k := range ks {
		asked[k] = int32(i + 1)
	}
	threads := newAncestorMemo(u, func(a int32) bool { return u.depth[a] <= 1 })
	seen := make([]map[string]int32, len(ks)) // per function, a thread per pool
	pooled := make([]bool, len(ks))
	for x := int32(1); int(x) < u.len(); x++ {
		i := asked[u.key[x]] - 1
		if i < 0 || pooled[i] || !topmost[x] {
			continue
		}
		th := threads.first(x)
		name, ok := pool[th]
		if !ok {
			continue
		}
		if seen[i] == nil {
			seen[i] = map[string]int32{}
		}
		if other, ok := seen[i][name]; !ok {
			seen[i][name] = th
		} else if other != th {
			pooled[i] = true
		}
	}
	var out []key
	for i, k := range ks {
		if pooled[i] {
			out = append(out, k)
		}
	}
	return out
}

// digitless is a thread name with its runs of digits as one "#": the
// name of the pool it belongs to (cct.PoolName).
func digitless(s string) string { return cct.PoolName(s) }
