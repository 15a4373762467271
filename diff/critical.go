package diff

import (
	"cmp"
	"math"
	"slices"
)

// criticalPair is ZAM's findCriticalGraph (Algorithm 2) for one run pair,
// given the matching baseOf (new node → base node or -1): starting from the
// matched roots, a matched child whose total grew by at least mu is added and
// explored; an unmatched child costing at least mu is added as an "added"
// cause and not explored further. The leaves are the regression-causes of
// Definition 2. Nodes are recorded by their union-tree ids.
//
// One departure: "(idle)" frames are never causes (see isIdle).
//
// Algorithm 2 does not test the root itself, while Definition 2 (condition 2)
// requires every ancestor, the root included, to regress by μ. This follows
// the algorithm: a regression in one thread is reported even when another
// thread got faster by more.
func criticalPair(a, b *run, baseOf []int32, mu int64) *graph {
	g := newGraph(0)
	stack := []int32{0}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range b.children(n) {
			c := int32(c)
			if isIdle(b.frameOf(c)) {
				continue
			}
			nv := b.total[c]
			if o := baseOf[c]; o >= 0 {
				if ov := a.total[o]; nv-ov >= mu {
					g.set(b.toU[c], gval{base: float64(ov), new: float64(nv)})
					stack = append(stack, c)
				}
			} else if nv >= mu {
				g.set(b.toU[c], gval{new: float64(nv), added: true})
			}
		}
	}
	return g
}

// thresholdGraph is Algorithm 2 on the union tree's mean values, for Stats
// mode when a side has a single run and no test is possible: a node is
// "matched" when some base run has it.
//
// It reads the tree in id order, parents before children, rather than
// walking it: explored marks the root and the regressed nodes, whose
// children Algorithm 2 examines.
//
// The nodes are marked first and the graph filled after, at its exact
// size: it can hold a quarter of the tree.
func thresholdGraph(u *union, kt *keyTable, mu int64) *graph {
	const (
		regressed = 1 + iota // in the graph and explored
		added
	)
	n := u.len()
	m := float64(mu)
	mark := make([]uint8, n)
	mark[0] = regressed
	count := 0
	for c := int32(1); int(c) < n; c++ {
		if mark[u.parent[c]] != regressed || idle(u, kt, c) {
			continue
		}
		b, nw := u.meanBase[c], u.meanNew[c]
		switch {
		case u.baseRuns(c) > 0 && nw-b >= m:
			mark[c] = regressed
			count++
		case u.baseRuns(c) == 0 && nw >= m:
			mark[c] = added
			count++
		}
	}
	g := &graph{at: make([]int32, n), xs: make([]int32, 0, count), vals: make([]gval, 0, count)}
	for c := int32(1); int(c) < n; c++ {
		switch mark[c] {
		case regressed:
			g.set(c, gval{base: u.meanBase[c], new: u.meanNew[c]})
		case added:
			g.set(c, gval{new: u.meanNew[c], added: true})
		}
	}
	return g
}

// assemble turns a graph into Result.Graph (pre-order, children by delta,
// largest first, ties by name) and Result.Causes (the leaves, by delta, ties
// by thread and path); ids are the graph nodes' union-tree nodes.
//
// It works on the graph's positions (the order of xs and vals) rather than
// on union nodes: a one-run graph can hold a quarter of a million nodes,
// and reading their values by position is sequential where looking up
// each union node's position is not.
func assemble(g *graph, u *union, kt *keyTable) (nodes []GraphNode, causes []Cause, ids []int32) {
	xs, vals := g.xs, g.vals
	delta := make([]float64, len(xs))
	for i := range xs {
		delta[i] = vals[i].new - vals[i].base
	}
	kids := graphKids(g, u)
	cmp := func(a, b int32) int {
		if da, db := delta[a], delta[b]; da != db {
			if da > db {
				return -1
			}
			return 1
		}
		return u.comparePaths(kt, xs[a], xs[b])
	}
	for s := range kids.start[:len(kids.start)-1] {
		if ch := kids.list[kids.start[s]:kids.start[s+1]]; len(ch) > 1 {
			slices.SortFunc(ch, cmp)
		}
	}
	// The order of paths by name is only needed to sort the causes: it is
	// computed beside the walk below.
	var rank []int32
	var ranked bool
	ranks := make(chan struct{})
	go func() {
		defer close(ranks)
		rank, ranked = pathRanks(g, kids, u, kt)
	}()
	leaves := 0 // the causes
	for s := 1; s+1 < len(kids.start); s++ {
		if kids.start[s] == kids.start[s+1] {
			leaves++
		}
	}
	causeAt := make([]int32, 0, leaves) // each cause's position, for its rank
	nodes = make([]GraphNode, 0, len(xs))
	ids = make([]int32, 0, len(xs))
	causes = make([]Cause, 0, leaves)
	type item struct {
		i      int32 // position
		parent int
		thread string
	}
	stack := []item{}
	roots := kids.of(-1)
	for i := len(roots) - 1; i >= 0; i-- {
		x := xs[roots[i]]
		stack = append(stack, item{roots[i], -1, threadLabel(kt.frames[u.key[x]])})
	}
	// A cause's path is its ancestors' frames, which the walk has just
	// visited: chain holds the current node's path, and causes' paths are
	// copied from it into large blocks rather than allocated one by one.
	var chain, slab []Frame
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		x, v := xs[it.i], &vals[it.i]
		d := u.depth[x]
		gn := GraphNode{
			Parent:   it.parent,
			Thread:   it.thread,
			IsThread: d == 1,
			Kind:     v.kind(),
			Base:     round(v.base),
			New:      round(v.new),
			Delta:    round(v.new) - round(v.base),
			Context:  v.context,
			Stats:    g.test(v),
		}
		chain = chain[:max(d-2, 0)]
		if !gn.IsThread {
			kf := kt.frames[u.key[x]]
			gn.Frame = kf.frame()
			chain = append(chain, gn.Frame)
		}
		ch := kids.of(it.i)
		gn.Cause = len(ch) == 0
		idx := len(nodes)
		nodes = append(nodes, gn)
		ids = append(ids, x)
		if gn.Cause {
			if len(chain) > len(slab) || slab == nil { // paths are never nil
				slab = make([]Frame, max(len(chain), 1<<14))
			}
			path := slab[:len(chain):len(chain)]
			copy(path, chain)
			slab = slab[len(chain):]
			causes = append(causes, Cause{
				Thread: it.thread, Path: path, Kind: gn.Kind,
				Base: gn.Base, New: gn.New, Delta: gn.Delta,
				Stats: gn.Stats, Node: idx,
			})
			causeAt = append(causeAt, it.i)
		}
		for i := len(ch) - 1; i >= 0; i-- {
			stack = append(stack, item{ch[i], idx, it.thread})
		}
	}
	if len(g.spreads) > 0 {
		causes, causeAt = mergeSpreads(g, causes, causeAt, kt)
	}
	<-ranks
	sortCauses(causes, func(i int) int32 {
		if !ranked {
			return 0
		}
		return rank[causeAt[i]]
	})
	return nodes, causes, ids
}

// sortCauses orders causes by delta (largest first), thread, then path:
// by rankOf, the path's precomputed place in the order of paths by names,
// when it is not 0 for all, else by comparing the paths. Ties in delta are
// common (values are multiples of the period), and tens of thousands of
// causes are sorted through small keys: comparing Cause values would read
// each one's graph node and path from all over memory.
func sortCauses(causes []Cause, rankOf func(i int) int32) {
	type sortKey struct {
		delta  int64
		thread string
		rank   int32
		i      int32
	}
	keys := make([]sortKey, len(causes))
	for i := range causes {
		c := &causes[i]
		keys[i] = sortKey{c.Delta, c.Thread, rankOf(i), int32(i)}
	}
	slices.SortFunc(keys, func(a, b sortKey) int {
		if a.delta != b.delta {
			if a.delta > b.delta {
				return -1
			}
			return 1
		}
		if c := compareStrings(a.thread, b.thread); c != 0 {
			return c
		}
		if a.rank != b.rank {
			return int(a.rank - b.rank)
		}
		if c := comparePathFrames(causes[a.i].Path, causes[b.i].Path); c != 0 {
			return c
		}
		return causes[a.i].Node - causes[b.i].Node // graph order: as a stable sort would keep them
	})
	// Put each cause in its place by following the permutation's cycles,
	// rather than through a sorted copy of all of them.
	for i := range keys {
		if keys[i].i < 0 {
			continue
		}
		c, j := causes[i], i
		for {
			from := int(keys[j].i)
			keys[j].i = -1
			if from == i {
				causes[j] = c
				break
			}
			causes[j] = causes[from]
			j = from
		}
	}
}

// pathRanks numbers the graph's nodes (by position) in the order of their
// paths by names, which is comparePathFrames's order: a pre-order walk
// that visits siblings by name. ok is false when two siblings have equal
// names (possible with call sites or renames): then the order of their
// descendants' paths depends on deeper names and no numbering gives it.
func pathRanks(g *graph, kids childLists, u *union, kt *keyTable) (rank []int32, ok bool) {
	xs := g.xs
	byName := slices.Clone(kids.list)
	byNames := func(a, b int32) int { return u.compareNames(kt, xs[a], xs[b]) }
	for s := range kids.start[:len(kids.start)-1] {
		ch := byName[kids.start[s]:kids.start[s+1]]
		if len(ch) < 2 {
			continue
		}
		slices.SortFunc(ch, byNames)
		for i := 1; i < len(ch); i++ {
			if byNames(ch[i-1], ch[i]) == 0 {
				return nil, false
			}
		}
	}
	rank = make([]int32, g.len())
	next := int32(0)
	stack := []int32{-1}
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if i >= 0 {
			rank[i] = next
			next++
		}
		ch := byName[kids.start[i+1]:kids.start[i+2]]
		for j := len(ch) - 1; j >= 0; j-- {
			stack = append(stack, ch[j])
		}
	}
	return rank, true
}

// childLists are the child lists of a graph's nodes and the root's, by
// position, in one array: position i's children (positions) are
// list[start[i+1]:start[i+2]], the root's list[start[0]:start[1]].
type childLists struct {
	start []int32
	list  []int32
}

// of returns position i's children, or the root's for -1.
func (c childLists) of(i int32) []int32 { return c.list[c.start[i+1]:c.start[i+2]] }

// graphKids returns the child lists of g's nodes. g.at is 1 + a node's
// position and 0 for the root, which is just the slot of the parent's list.
func graphKids(g *graph, u *union) childLists {
	xs := g.xs
	slot := make([]int32, len(xs)) // each node's parent's slot
	c := childLists{start: make([]int32, len(xs)+2), list: make([]int32, len(xs))}
	for i, x := range xs {
		s := g.at[u.parent[x]]
		slot[i] = s
		c.start[s+1]++
	}
	for i := 1; i < len(c.start); i++ {
		c.start[i] += c.start[i-1]
	}
	next := slices.Clone(c.start[:len(c.start)-1])
	for i, s := range slot {
		c.list[next[s]] = int32(i)
		next[s]++
	}
	return c
}

func comparePathFrames(a, b []Frame) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareStrings(a[i].Function, b[i].Function); c != 0 {
			return c
		}
		if c := compareStrings(a[i].File, b[i].File); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

// mergeSpreads turns the leaves of each spread cause (spread.go) into one
// Cause: the context that grew most stands for it, with the function's
// sums as its values and every context listed in Spread. causeAt is kept
// in step with causes.
func mergeSpreads(g *graph, causes []Cause, causeAt []int32, kt *keyTable) ([]Cause, []int32) {
	members := make([][]int, len(g.spreads))
	for i, at := range causeAt {
		if s := g.vals[at].spread; s != 0 {
			members[s-1] = append(members[s-1], i)
		}
	}
	keep := make([]bool, len(causes))
	for i, at := range causeAt {
		keep[i] = g.vals[at].spread == 0
	}
	for s, ms := range members {
		if len(ms) == 0 {
			continue // every context has a cause below it
		}
		slices.SortStableFunc(ms, func(a, b int) int {
			if c := cmp.Compare(causes[b].Delta, causes[a].Delta); c != 0 {
				return c
			}
			if c := compareStrings(causes[a].Thread, causes[b].Thread); c != 0 {
				return c
			}
			return comparePathFrames(causes[a].Path, causes[b].Path)
		})
		info := g.spreads[s]
		kf := kt.frames[info.key]
		sp := &Spread{Function: Frame{Function: kf.Function, File: kf.File}, Callers: []Frame{}, ContextCount: info.contexts, Grew: len(ms)}
		added := true
		threads := make(map[string]bool, 1)
		for _, i := range ms {
			c := &causes[i]
			threads[c.Thread] = true
			added = added && c.Kind == Added
			if n := len(c.Path); n >= 2 && !slices.Contains(sp.Callers, c.Path[n-2]) {
				sp.Callers = append(sp.Callers, c.Path[n-2])
			}
			if len(sp.Contexts) < maxSpreadContexts {
				sp.Contexts = append(sp.Contexts, SpreadContext{Thread: c.Thread, Path: c.Path, Base: c.Base, New: c.New, Delta: c.Delta})
			}
		}
		slices.SortFunc(sp.Callers, func(a, b Frame) int {
			if c := compareStrings(a.Function, b.Function); c != 0 {
				return c
			}
			return compareStrings(a.File, b.File)
		})
		sp.Threads = len(threads)
		rep := &causes[ms[0]]
		keep[ms[0]] = true
		rep.Spread = sp
		rep.Base, rep.New = round(info.base), round(info.new)
		rep.Delta = rep.New - rep.Base
		rep.Kind = Regressed
		if added {
			rep.Kind = Added
		}
		rep.Stats = &g.tests[info.test-1]
	}
	out, at := causes[:0], causeAt[:0]
	for i := range causes {
		if keep[i] {
			out = append(out, causes[i])
			at = append(at, causeAt[i])
		}
	}
	return out, at
}

// round rounds to the nearest int64, saturating: float64 cannot hold
// 2^63-1, and converting the 2^63 it rounds to wraps to -2^63.
func round(f float64) int64 {
	switch r := math.Round(f); {
	case r >= math.MaxInt64:
		return math.MaxInt64
	case r <= math.MinInt64:
		return math.MinInt64
	case r != r: // NaN
		return 0
	default:
		return int64(r)
	}
}
