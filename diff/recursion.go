package diff

import (
	"cmp"
	"slices"
)

// recursionMoves tells, for each node of xs, whether its growth only moved
// between the depths of a recursion: a recursive walk whose
// depth varies run to run (the data's shape, not the code) has, at K = 3,
// a context 44 calls deep in no base run and in all three new ones,
// "added" at p 0.002 while the walk's outermost call did not grow. A node
// inside a recursion is growth only when its function, summed over the
// recursion (its outermost nodes below the recursion's outermost call,
// the entry), grew by μ (m) too.
//
// Both steps are linear: the entries come from one walk over xs and their
// ancestors, the sums from one scan of the outermost contexts (topmost:
// the nodes of their function with none above them, which skips what
// spreadGroups skips, folded and idle nodes). Walking the entry's
// subtree per node asked took 0.2 s per question on the 1.6 M-stack pair
// (a recursion near its root holds most of its 15 M nodes), and finding a
// node's namesakes by walking up from each ancestor was quadratic in the
// depth, which hostile stacks put at 100,000.
func recursionMoves(u *union, nk int, m float64, xs []int32, topmost []bool) []bool {
	moved := make([]bool, len(xs))
	if len(xs) == 0 {
		return moved
	}
	entry := recursionEntries(u, nk, xs)
	var queries []recursionQuery
	asked := make([]int32, len(xs)) // 1 + x's query, 0 for none
	index := map[recursionQuery]int32{}
	for i, x := range xs {
		e := entry[i]
		if e == 0 || e == x {
			continue
		}
		k := u.key[x]
		if u.key[e] == k {
			moved[i] = u.meanNew[e]-u.meanBase[e] < m
			continue
		}
		q := recursionQuery{e, k}
		j, ok := index[q]
		if !ok {
			j = int32(len(queries))
			index[q] = j
			queries = append(queries, q)
		}
		asked[i] = j + 1
	}
	if len(queries) == 0 {
		return moved
	}
	sums := recursionSums(u, nk, queries, index, topmost)
	for i, j := range asked {
		if j > 0 {
			moved[i] = sums[j-1] < m
		}
	}
	return moved
}

// A recursionQuery asks for function k's growth summed over its outermost
// nodes below entry e.
type recursionQuery struct {
	e int32
	k key
}

// recursionEntries returns the entry of each node of xs (entries[i] is
// xs[i]'s): the outermost node of its path whose function recurs on the
// path down to it, 0 for none (and for nodes above depth 2). One
// depth-first walk of xs and their ancestors keeps each function's
// outermost node on the path (first), so a node's outermost namesake is a
// lookup; the walk's child lists are those of the asked nodes' ancestor
// closure, not the union's.
//
// The closure is a bitmap over the union's nodes and a slice sorted by
// parent (a node's children are a run of it, found by binary search), not
// maps: where a comparison keeps most of a large tree (a regression under
// the root, or runs that agree exactly), maps of the closure and a child
// slice per parent made this step 250,000 allocations and a third of
// statsGraph's time (BenchmarkCriticalGraph/stats).
func recursionEntries(u *union, nk int, xs []int32) []int32 {
	seen := make([]uint64, (u.len()+63)/64)
	// A member of the closure: a node, its parent and 1 + its place in xs
	// (0 for an ancestor only). A node of xs met first as another's
	// ancestor (xs out of node order) is found in late instead.
	type member struct{ parent, id, xi int32 }
	var cl, roots []member
	late := map[int32][]int32{}
	for i, x := range xs {
		if seen[x/64]&(1<<(x%64)) != 0 {
			late[x] = append(late[x], int32(i))
			continue
		}
		xi := int32(i + 1)
		for a := x; a > 0 && seen[a/64]&(1<<(a%64)) == 0; a = u.parent[a] {
			seen[a/64] |= 1 << (a % 64)
			if m := (member{u.parent[a], a, xi}); u.depth[a] < 2 {
				roots = append(roots, m)
			} else {
				cl = append(cl, m)
			}
			xi = 0
		}
	}
	slices.SortFunc(cl, func(a, b member) int {
		if c := cmp.Compare(a.parent, b.parent); c != 0 {
			return c
		}
		return cmp.Compare(a.id, b.id)
	})
	entries := make([]int32, len(xs))
	first := make([]int32, nk)
	// The stack holds members and their parents' entries; id ^a marks
	// leaving a's subtree.
	type visit struct {
		member
		pe int32
	}
	stack := make([]visit, 0, len(roots))
	for _, r := range roots {
		stack = append(stack, visit{r, 0})
	}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		a := v.id
		if a < 0 { // leaving ^a's subtree
			if a = ^a; first[u.key[a]] == a {
				first[u.key[a]] = 0
			}
			continue
		}
		e := int32(0)
		if u.depth[a] >= 2 {
			k := u.key[a]
			e = v.pe // 0 above depth 2
			if o := first[k]; o == 0 {
				first[k] = a
			} else if e == 0 || u.depth[o] < u.depth[e] {
				e = o
			}
			stack = append(stack, visit{member{id: ^a}, 0})
		}
		if v.xi > 0 {
			entries[v.xi-1] = e
		}
		for _, i := range late[a] {
			entries[i] = e
		}
		i, _ := slices.BinarySearchFunc(cl, a, func(m member, a int32) int { return cmp.Compare(m.parent, a) })
		for ; i < len(cl) && cl[i].parent == a; i++ {
			stack = append(stack, visit{cl[i], e})
		}
	}
	return entries
}

// recursionSums answers the queries (index numbers them): the summed
// growth of function k's nodes below entry e with no node of k between.
// No node of k is above e (else x's entry would be above it), so those are
// k's outermost nodes in e's subtree: one scan of the outermost contexts
// (topmost, spreadGroups' marks) of the asked functions, each adding its
// growth to the asked entries above it, found by climbing from entry to
// entry (the nearest asked entry above a node memoized, its path
// compressed).
func recursionSums(u *union, nk int, queries []recursionQuery, index map[recursionQuery]int32, topmost []bool) []float64 {
	sums := make([]float64, len(queries))
	isAsked := make([]bool, nk)
	isEntry := map[int32]bool{}
	for _, q := range queries {
		isAsked[q.k], isEntry[q.e] = true, true
	}
	near := newAncestorMemo(u, func(a int32) bool { return u.depth[a] < 2 || isEntry[a] })
	// nearEntry is the first asked entry at or above a, 0 for none.
	nearEntry := func(a int32) int32 {
		if b := near.first(a); b != 0 && u.depth[b] >= 2 {
			return b
		}
		return 0
	}
	for c := int32(1); int(c) < u.len(); c++ {
		k := u.key[c]
		if !isAsked[k] || !topmost[c] {
			continue
		}
		for e := nearEntry(u.parent[c]); e != 0; e = nearEntry(u.parent[e]) {
			if j, ok := index[recursionQuery{e, k}]; ok {
				sums[j] += u.meanNew[c] - u.meanBase[c]
			}
		}
	}
	return sums
}

// An ancestorMemo finds the first node at or above a node for which stop
// holds (0 where the climb passes the root), memoizing every node it
// climbs past: the questions of one scan share their paths, so each node
// is climbed past once. The memo is a map while it holds few nodes and an
// array over the union's nodes once it holds a sixteenth of them: where a
// comparison keeps most of a large tree, a map of every node climbed past
// was a sixth of statsGraph's time (BenchmarkCriticalGraph/stats), and
// where it keeps a few paths of 15 M nodes, an array would be 60 MB.
type ancestorMemo struct {
	u     *union
	stop  func(int32) bool
	found map[int32]int32
	dense []int32 // 1 + the first node, 0 while unknown; nil until needed
	path  []int32
}

func newAncestorMemo(u *union, stop func(int32) bool) *ancestorMemo {
	return &ancestorMemo{u: u, stop: stop, found: map[int32]int32{}}
}

func (m *ancestorMemo) first(a int32) int32 {
	m.path = m.path[:0]
	b := int32(0)
	for ; a > 0; a = m.u.parent[a] {
		if v, ok := m.lookup(a); ok {
			b = v
			break
		}
		if m.stop(a) {
			b = a
			break
		}
		m.path = append(m.path, a)
	}
	if m.dense != nil {
		for _, p := range m.path {
			m.dense[p] = b + 1
		}
		return b
	}
	for _, p := range m.path {
		m.found[p] = b
	}
	if len(m.found) > m.u.len()/16 {
		m.dense = make([]int32, m.u.len())
		for p, v := range m.found {
			m.dense[p] = v + 1
		}
		m.found = nil
	}
	return b
}

func (m *ancestorMemo) lookup(a int32) (int32, bool) {
	if m.dense != nil {
		v := m.dense[a]
		return v - 1, v != 0
	}
	v, ok := m.found[a]
	return v, ok
}
