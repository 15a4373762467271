package diff

import "slices"

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
	// weighed counts the sibling lists whose renames read weights: a
	// matching that read none depends on the trees' shapes alone
	// (memo.go).
	weighed int

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
	// strictOf is strictCommon's match per node of the new run.
	strictOf []int32
	// callOrder: the child lists are in call order (Options.CallOrder),
	// which PARCS's relaxed matching reads; otherwise it orders them
	// itself (relaxedStatic), in ordA and ordB, the lists so ordered in
	// sortKA, sortKB, sortCA and sortCB.
	callOrder      bool
	ordA, ordB     []int32
	sortKA, sortKB []key
	sortCA, sortCB []int64
	// flags, owner, spans, w and ord are addRun's; cu and cr its call sites of
	// a list, renamed and added the keys it gives union nodes (joined
	// into the union's key set after each pass), room and at the count
	// pass's slots and the next moved list's slot, and twin the second
	// goroutine's matcher (splitRun).
	flags   []uint8
	owner   []uint8
	spans   []ordSpan
	w       []int32
	ord     []int32
	cu, cr  []int64
	renamed []key
	added   []key
	room    int
	at      int32
	twin    *matcher
	// splitMin, when set, is the least node count of a run addRun
	// splits (tests; splits).
	splitMin int
}

func newMatcher(mode Matching, budget Budget) *matcher {
	return &matcher{mode: mode, budget: budget, head: map[key]int32{}}
}

// matcher returns a matcher of o's matching, budget and sibling order.
func (o Options) matcher() *matcher {
	m := newMatcher(o.Match, o.LCS)
	m.callOrder = o.CallOrder
	return m
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
	if m.same(ka, kb, ca, cb, parentDepth, mode) {
		for i := range ka {
			m.pairs = append(m.pairs, pair{int32(i), int32(i)})
		}
		return m.pairs
	}
	if parentDepth == 0 {
		// Threads match by name and ordinal, which the
		// key holds; their order is just first appearance.
		m.pairs = m.alternate(ka, kb, m.pairs)
		return m.pairs
	}
	switch mode {
	case PARCS:
		m.counts.Relaxed++
		if m.callOrder {
			m.pairs = m.relaxed(ka, kb, ca, cb, m.pairs)
		} else {
			m.pairs = m.relaxedStatic(ka, kb, ca, cb, m.pairs)
		}
	case strict:
		m.counts.Strict++
		m.pairs = strictLevel(ka, kb, m.pairs)
	default:
		m.pairs = m.hybrid(ka, kb, parentDepth == 1, m.pairs)
	}
	return m.pairs
}

// same reports whether two non-empty sibling lists are the same: the same
// keys in the same order and, in PARCS mode, the same call sites. Every
// mode matches such lists position for position, and same then counts
// what siblings would have counted for them, so a caller may pair them
// without building pairs: the LCS is their common prefix (lcs strips it
// before Myers' algorithm and its budget), the alternate matching gives
// each child the first unused old child of its key, which is the one at
// its own position, strictLevel pairs equal positions, rule 4 of PARCS's
// Definition 2 (Section 3.2) keeps every pair when the call sites are the
// same on both sides, and a complete matching leaves nothing to rename.
// Runs of one program repeat most calling contexts (synth's 20,000-stack
// runs: most lists of a run are the union's), so most lists take this path.
func (m *matcher) same(ka, kb []key, ca, cb []int64, parentDepth int32, mode Matching) bool {
	if len(ka) != len(kb) || len(ka) == 0 || !slices.Equal(ka, kb) {
		return false
	}
	if mode == PARCS && ca != nil && cb != nil && !slices.Equal(ca, cb) {
		return false
	}
	if parentDepth == 0 {
		return true // threads: alternate, uncounted
	}
	switch mode {
	case PARCS:
		m.counts.Relaxed++
	case strict:
		m.counts.Strict++
	default:
		if parentDepth == 1 {
			m.counts.Alternate++
		} else {
			m.counts.LCS++
		}
	}
	return true
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

func resetBools[T bool | uint8](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
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
//
// The nodes of b are taken in id order rather than depth first: a child's
// id is larger than its parent's, so its match is known when it is
// reached, and each list's matching depends only on the two lists, so the
// order changes nothing but the memory access: b's arrays are read in
// order, and a's nearly so where the runs are alike (cct numbers nodes as
// samples first reach them), where a depth-first walk jumped across both
// trees (the 1.6M-stack pair's 8M nodes: a cache miss per array and node).
func (m *matcher) matchTrees(a, b *run, mode Matching) []int32 {
	baseOf := make([]int32, b.nodes())
	for i := range baseOf {
		baseOf[i] = -1
	}
	baseOf[0] = 0
	var ka []key
	var ca, cb []int64
	var keysA, keysB keySet
	if mode == ZAM && m.kt != nil {
		keysA, keysB = keysOf(a), keysOf(b)
	}
	for nb, na := range baseOf {
		sb, eb := b.kidStart[nb], b.kidStart[nb+1]
		if na < 0 || sb == eb {
			continue
		}
		chA, chB := a.children(na), b.kids[sb:eb]
		ka, ca = a.childKeys(na, ca, mode == PARCS)
		kb := b.kidKeys[sb:eb]
		if mode == PARCS {
			_, cb = b.childKeys(int32(nb), cb, true)
		}
		d := a.depth(na)
		if m.same(ka, kb, ca, cb, d, mode) {
			for i, c := range chB {
				baseOf[c] = int32(chA[i])
			}
			continue
		}
		pairs := m.siblings(ka, kb, ca, cb, d, mode)
		if mode == ZAM && d >= 1 {
			pairs = m.realignClosures(closureSide{ka,
				func(i int32) []key { k, _ := a.childKeys(int32(chA[i]), nil, false); return k },
				func(i int32) int64 { return a.total[chA[i]] }},
				closureSide{kb,
					func(j int32) []key { k, _ := b.childKeys(int32(chB[j]), nil, false); return k },
					func(j int32) int64 { return b.total[chB[j]] }}, pairs)
		}
		if m.renaming(mode, d, len(chA), len(chB), len(pairs)) {
			if lo, ln := m.renameLeftovers(ka, kb, pairs, keysA, keysB); len(lo) > 0 && len(ln) > 0 {
				m.weighed++
				pairs = m.renames(m.runCands(a, chA, lo), m.runCands(b, chB, ln), keysA, keysB, pairs)
			}
		}
		for _, q := range pairs {
			baseOf[chB[q.b]] = int32(chA[q.a])
		}
	}
	return baseOf
}
