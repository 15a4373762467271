package diff

// A matcher pairs sibling lists and whole trees. It holds scratch buffers,
// so one matcher serves a whole comparison (it is not safe for concurrent
// use) and counts what it did.
type matcher struct {
	mode   Matching
	budget Budget
	counts MatcherCounts
	// kt, when set, enables rename matching in ZAM mode (match_rename.go);
	// renameMin is the least weight of a rename without shared callees.
	kt        *keyTable
	renameMin int64

	lcs    lcsScratch
	pairs  []pair
	head   map[key]int32 // alternate matching: first unused old position per key
	next   []int32       // alternate matching: next old position with the same key
	usedA  []bool
	usedB  []bool
	restA  []int32
	restB  []int32
	restKA []key
	restKB []key
}

func newMatcher(mode Matching, budget Budget) *matcher {
	return &matcher{mode: mode, budget: budget, head: map[key]int32{}}
}

// siblings returns the matched pairs of the child lists ka (old) and kb
// (new) of two matched parents at the given parent depth (0 for the root,
// whose children are threads; 1 for threads, whose children are top-level
// functions). ca and cb are the children's call sites, used by PARCS.
// The returned slice is reused by the next call.
func (m *matcher) siblings(ka, kb []key, ca, cb []int64, parentDepth int32, mode Matching) []pair {
	m.pairs = m.pairs[:0]
	if len(ka) == 0 || len(kb) == 0 {
		return m.pairs
	}
	if parentDepth == 0 {
		// Threads match by name and ordinal (DESIGN.md, "cct"), which the
		// key holds; their order is just first appearance.
		m.pairs = m.alternate(ka, kb, m.pairs)
		return m.pairs
	}
	switch mode {
	case PARCS:
		m.counts.Relaxed++
		m.pairs = m.relaxed(ka, kb, ca, cb, m.pairs)
	case strict:
		m.counts.Strict++
		m.pairs = strictLevel(ka, kb, m.pairs)
	default:
		m.pairs = m.hybrid(ka, kb, parentDepth == 1, m.pairs)
	}
	return m.pairs
}

// hybrid is ZAM's findMatchingNodes (Algorithm 3) without its μ filter,
// which critical.go applies: the matching itself does not depend on μ.
// Top-level functions always use the alternate (hash-map) matching, because
// their order changes from run to run (Section 3.1); other lists use LCS,
// and the alternate matching when the LCS exceeds its work budget.
//
// After a successful LCS, children it left unmatched on both sides are
// paired by identity. ZAM Section 5.3 names reordered calls as its main
// source of node mismatches: an LCS can keep only one of two swapped calls,
// and the other then looks "added" with its whole time. In a top-down CCT
// siblings have distinct identities (without call sites), so the residual
// pairing is exact; with call sites it pairs leftover calls of the same
// function in order.
func (m *matcher) hybrid(ka, kb []key, topLevel bool, out []pair) []pair {
	if topLevel {
		m.counts.Alternate++
		return m.alternate(ka, kb, out)
	}
	start := len(out)
	out, ok := m.lcs.lcs(ka, kb, m.budget.limit(len(ka), len(kb)), out)
	if !ok {
		m.counts.Fallback++
		return m.alternate(ka, kb, out[:start])
	}
	m.counts.LCS++
	if n := len(out) - start; n == len(ka) || n == len(kb) {
		return out
	}
	before := len(out)
	out = m.residual(ka, kb, out, start)
	if len(out) > before {
		m.counts.Residual++
	}
	return out
}

// alternate is ZAM's alternate matching (Algorithm 3, lines 4-22): each new
// child takes the first unused old child with the same identity. It ignores
// the overall order, so it survives reordering, and costs O(n + m).
func (m *matcher) alternate(ka, kb []key, out []pair) []pair {
	if len(ka) <= 8 {
		// Short lists (most of them) need no map.
		var used [8]bool
		for j, k := range kb {
			for i, k2 := range ka {
				if k2 == k && !used[i] {
					used[i] = true
					out = append(out, pair{int32(i), int32(j)})
					break
				}
			}
		}
		return out
	}
	clear(m.head)
	if cap(m.next) < len(ka) {
		m.next = make([]int32, len(ka))
	}
	next := m.next[:len(ka)]
	for i := len(ka) - 1; i >= 0; i-- {
		if h, ok := m.head[ka[i]]; ok {
			next[i] = h
		} else {
			next[i] = -1
		}
		m.head[ka[i]] = int32(i)
	}
	for j, k := range kb {
		if i, ok := m.head[k]; ok && i >= 0 {
			out = append(out, pair{i, int32(j)})
			m.head[k] = next[i]
		}
	}
	return out
}

// residual pairs, by identity and in order, the children that out[start:]
// leaves unmatched on both sides.
func (m *matcher) residual(ka, kb []key, out []pair, start int) []pair {
	m.usedA = resetBools(m.usedA, len(ka))
	m.usedB = resetBools(m.usedB, len(kb))
	for _, p := range out[start:] {
		m.usedA[p.a] = true
		m.usedB[p.b] = true
	}
	m.restA, m.restKA = m.restA[:0], m.restKA[:0]
	for i, u := range m.usedA {
		if !u {
			m.restA = append(m.restA, int32(i))
			m.restKA = append(m.restKA, ka[i])
		}
	}
	m.restB, m.restKB = m.restB[:0], m.restKB[:0]
	for j, u := range m.usedB {
		if !u {
			m.restB = append(m.restB, int32(j))
			m.restKB = append(m.restKB, kb[j])
		}
	}
	mid := len(out)
	out = m.alternate(m.restKA, m.restKB, out)
	for i := mid; i < len(out); i++ {
		out[i] = pair{m.restA[out[i].a], m.restB[out[i].b]}
	}
	return out
}

func resetBools(b []bool, n int) []bool {
	if cap(b) < n {
		return make([]bool, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// renaming reports whether a sibling list needs the rename pass.
func (m *matcher) renaming(mode Matching, parentDepth int32, nOld, nNew, matched int) bool {
	return mode == ZAM && m.kt != nil && parentDepth >= 1 && matched < nOld && matched < nNew
}

// matchTrees matches tree b (new) against tree a (old) top-down: the roots
// match, and the children of every matched pair are matched by siblings. It
// returns, per node of b, its match in a or -1.
func (m *matcher) matchTrees(a, b *run, mode Matching) []int32 {
	baseOf := make([]int32, b.nodes())
	for i := range baseOf {
		baseOf[i] = -1
	}
	baseOf[0] = 0
	var ka, kb []key
	var ca, cb []int64
	var keysA, keysB keySet
	if mode == ZAM && m.kt != nil {
		keysA, keysB = keysOf(a), keysOf(b)
	}
	stack := []pair{{0, 0}}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		chA, chB := a.children(p.a), b.children(p.b)
		ka, ca = a.childKeys(p.a, ca, mode == PARCS)
		kb, cb = b.childKeys(p.b, cb, mode == PARCS)
		pairs := m.siblings(ka, kb, ca, cb, a.depth(p.a), mode)
		if m.renaming(mode, a.depth(p.a), len(chA), len(chB), len(pairs)) {
			lo, ln := leftovers(len(chA), len(chB), pairs)
			pairs = m.renames(m.runCands(a, chA, lo), m.runCands(b, chB, ln), keysA, keysB, pairs)
		}
		for _, q := range pairs {
			na, nb := int32(chA[q.a]), int32(chB[q.b])
			baseOf[nb] = na
			stack = append(stack, pair{na, nb})
		}
	}
	return baseOf
}
