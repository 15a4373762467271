package diff

// recursionMoves tells a node's growth that only moved between the depths
// of a recursion from growth of the recursion (audit R1): a recursive walk
// whose depth varies run to run (the data's shape, not the code) has,
// at K = 3, a context 44 calls deep in no base run and in all three new
// ones, "added" at p 0.002 while the walk's outermost call did not grow.
// A node inside a recursion is growth only when its function, summed over
// the recursion (its outermost nodes below the recursion's outermost
// call), grew by μ too. The maps hold only the nodes asked about and their
// ancestors: most comparisons ask about a few causes' paths.
type recursionMoves struct {
	u *union
	m float64
	// outer[x]: the outermost proper ancestor of x of x's function, 0 for
	// none; entry[x]: the outermost node of x's path whose function recurs
	// on the path down to x, 0 for none.
	outer, entry map[int32]int32
	sums         map[[2]int32]float64
}

func newRecursionMoves(u *union, m float64) *recursionMoves {
	return &recursionMoves{u: u, m: m, outer: map[int32]int32{}, entry: map[int32]int32{}, sums: map[[2]int32]float64{}}
}

// moved reports whether x lies inside a recursion in which x's function
// did not grow by μ.
func (r *recursionMoves) moved(x int32) bool {
	e := r.entryOf(x)
	if e == 0 || e == x {
		return false
	}
	return r.sum(e, r.u.key[x]) < r.m
}

// outerOf is outer[x], by the chain of nearest namesakes (x's nearest
// proper ancestor of its function, that one's, ...), iteratively: stacks
// may be 100,000 frames deep.
func (r *recursionMoves) outerOf(x int32) int32 {
	u := r.u
	var chain []int32 // nodes whose outer is not known yet, deepest first
	top := int32(0)
	for a := x; ; {
		if v, ok := r.outer[a]; ok {
			top = v
			if top == 0 {
				top = a
			}
			break
		}
		chain = append(chain, a)
		n := int32(0)
		for p := u.parent[a]; p > 0 && u.depth[p] >= 2; p = u.parent[p] {
			if u.key[p] == u.key[a] {
				n = p
				break
			}
		}
		if n == 0 {
			top = a
			break
		}
		a = n
	}
	for _, c := range chain {
		if c == top {
			r.outer[c] = 0
		} else {
			r.outer[c] = top
		}
	}
	return r.outer[x]
}

// entryOf is entry[x]: the shallower of the parent's entry and x's
// outermost namesake. The ancestors not yet known are filled root first.
func (r *recursionMoves) entryOf(x int32) int32 {
	u := r.u
	var todo []int32
	for a := x; a > 0 && u.depth[a] >= 2; a = u.parent[a] {
		if _, ok := r.entry[a]; ok {
			break
		}
		todo = append(todo, a)
	}
	for i := len(todo) - 1; i >= 0; i-- {
		a := todo[i]
		e := r.entry[u.parent[a]] // 0 above depth 2
		if o := r.outerOf(a); o != 0 && (e == 0 || u.depth[o] < u.depth[e]) {
			e = o
		}
		r.entry[a] = e
	}
	return r.entry[x]
}

// sum is the mean growth of function k's outermost nodes in e's subtree
// (e itself when it is k's).
func (r *recursionMoves) sum(e int32, k key) float64 {
	u := r.u
	if u.key[e] == k {
		return u.meanNew[e] - u.meanBase[e]
	}
	if s, ok := r.sums[[2]int32{e, k}]; ok {
		return s
	}
	s := 0.0
	stack := []int32{e}
	for len(stack) > 0 {
		y := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, c := range u.children(y) {
			if u.key[c] == k {
				s += u.meanNew[c] - u.meanBase[c]
				continue
			}
			stack = append(stack, c)
		}
	}
	r.sums[[2]int32{e, k}] = s
	return s
}
