package diff

import (
	"cmp"
	"slices"
)

// strict is PARCS's strict common-tree matching (Definition 1). It is not
// offered as a --match mode: PARCS itself only uses it for comparison
// (Section 5.2, Figure 9), and so does Overlap.StrictCommonTree.
const strict Matching = "strict"

// strictLevel is Definition 1 at one level: n1 ≡ n2 iff they have the same
// method, the same position among their siblings, and equivalent parents
// (the caller only matches children of matched parents). One inserted call
// shifts every later sibling and so unmatches it (Figure 3a).
func strictLevel(ka, kb []key, out []pair) []pair {
	for i := range min(len(ka), len(kb)) {
		if ka[i] == kb[i] {
			out = append(out, pair{int32(i), int32(i)})
		}
	}
	return out
}

// strictCommon is the size of the strict common tree of a and b (the nodes
// of b that Definition 1 matches, without the root): matchTrees in strict
// mode, counting the matches instead of recording them. Threads match by
// name and ordinal, as in every mode (siblings). Like matchTrees, it takes
// b's nodes in id order, their matches in m.strictOf (reused: a run pair
// at a time).
func (m *matcher) strictCommon(a, b *run) int {
	n := b.nodes()
	if cap(m.strictOf) < n {
		m.strictOf = make([]int32, n)
	}
	match := m.strictOf[:n]
	for i := range match {
		match[i] = -1
	}
	match[0] = 0
	common := 0
	for _, q := range m.siblings(a.kidKeys[a.kidStart[0]:a.kidStart[1]], b.kidKeys[b.kidStart[0]:b.kidStart[1]], nil, nil, 0, strict) {
		match[b.children(0)[q.b]] = int32(a.children(0)[q.a])
		common++
	}
	for nb := 1; nb < n; nb++ {
		na := match[nb]
		sb, eb := b.kidStart[nb], b.kidStart[nb+1]
		if na < 0 || sb == eb {
			continue
		}
		sa, ea := a.kidStart[na], a.kidStart[na+1]
		ka, kb := a.kidKeys[sa:ea], b.kidKeys[sb:eb]
		k := min(len(ka), len(kb))
		for i, key := range kb[:k] {
			if key == ka[i] {
				match[b.kids[int(sb)+i]] = int32(a.kids[int(sa)+i])
				common++
			}
		}
	}
	return common
}

// relaxed is PARCS's relaxed node equivalence (Definition 2) at one level.
// Rule 3 says the previous equivalent pair is a left sibling on both sides or
// on neither: the matched children form a common subsequence. The paper does
// not say which one; this takes a longest one (Myers' LCS, as for ZAM), so an
// inserted call (F in Figure 3b) shifts nothing. Rule 4 then keeps a pair
// only if its call sites are ordered like those of the last kept pair on both
// sides, which tells a moved call from another call of the same method (I₁₀
// and I₂ in Figure 3b). Applied greedily in order, as "the last pair of
// equivalent nodes found" reads. Without call sites (all 0) rule 4 holds
// trivially.
//
// When the LCS exceeds its budget, identity matches are reduced to their
// longest order-preserving subsequence instead (increasing), which is still
// a common subsequence, so Definition 2 still holds.
func (m *matcher) relaxed(ka, kb []key, ca, cb []int64, out []pair) []pair {
	start := len(out)
	out, ok := m.lcs.lcs(ka, kb, m.budget.limit(len(ka), len(kb)), out)
	if !ok {
		m.counts.Fallback++
		out = m.alternate(ka, kb, out[:start])
		cands := out[start:]
		slices.SortFunc(cands, func(x, y pair) int { return int(x.b - y.b) })
		out = append(out[:start], increasing(slices.Clone(cands))...)
	}
	if ca == nil || cb == nil {
		return out
	}
	kept := out[:start]
	for _, p := range out[start:] {
		if n := len(kept); n > start {
			last := kept[n-1]
			if (ca[last.a] < ca[p.a]) != (cb[last.b] < cb[p.b]) {
				continue // rule 4
			}
		}
		kept = append(kept, p)
	}
	return kept
}

// relaxedStatic is relaxed for child lists that are not in call order
// (Options.CallOrder unset). Definition 2 reads the order of a node's
// children twice: rule 3 keeps a common subsequence of the two lists, and
// rule 4 compares each pair's call sites with those of the previous pair.
// PARCS's CCTs are exhaustive, and list children in the order of their
// first call. A sampled profile does not record that order: cct lists
// children as samples first reached them, which for callees called in a
// loop is whichever was sampled first, and differs between runs of one
// program, timestamps or not. An LCS over it drops calls both sides made,
// and their time reads as added on one side and removed on the other
// (testdata/example's math.log1p: +80 ms, where pprof -diff_base shows it
// 40 ms faster; on recorded JavaScript and Java runs of one program, a
// common tree of 53% and 40% where ZAM's is 85% and 59%). The order the
// profiles do record is static: call sites (the caller's line, with
// call-site CCTs) and the callees' identities. Both lists are ordered by
// call site, then identity, and matched by relaxed in that order: rule 3
// then pairs calls whose source order is kept (an inserted call shifts
// nothing; a call moved past another is told apart, as I₁₀ and I₂ in
// Figure 3b), and without call sites (all 0) every callee present on
// both sides. The pairs are returned in the lists' own positions,
// ascending in b.
func (m *matcher) relaxedStatic(ka, kb []key, ca, cb []int64, out []pair) []pair {
	m.ordA = staticOrder(m.ordA, ka, ca)
	m.ordB = staticOrder(m.ordB, kb, cb)
	m.sortKA, m.sortCA = permuted(m.sortKA, m.sortCA, m.ordA, ka, ca)
	m.sortKB, m.sortCB = permuted(m.sortKB, m.sortCB, m.ordB, kb, cb)
	start := len(out)
	out = m.relaxed(m.sortKA, m.sortKB, m.sortCA, m.sortCB, out)
	for i := start; i < len(out); i++ {
		out[i] = pair{m.ordA[out[i].a], m.ordB[out[i].b]}
	}
	slices.SortFunc(out[start:], func(x, y pair) int { return int(x.b - y.b) })
	return out
}

// staticOrder returns in ord the positions of a child list ordered by call
// site (0 for all when cs is nil), then key, then position.
func staticOrder(ord []int32, keys []key, cs []int64) []int32 {
	ord = ord[:0]
	for i := range keys {
		ord = append(ord, int32(i))
	}
	site := func(i int32) int64 {
		if cs == nil {
			return 0
		}
		return cs[i]
	}
	slices.SortFunc(ord, func(x, y int32) int {
		if sx, sy := site(x), site(y); sx != sy {
			return cmp.Compare(sx, sy)
		}
		if keys[x] != keys[y] {
			return cmp.Compare(keys[x], keys[y])
		}
		return cmp.Compare(x, y)
	})
	return ord
}

// permuted returns keys and call sites (nil when cs is nil) in the order
// ord, in the buffers sk and sc.
func permuted(sk []key, sc []int64, ord []int32, keys []key, cs []int64) ([]key, []int64) {
	sk, sc = sk[:0], sc[:0]
	for _, i := range ord {
		sk = append(sk, keys[i])
		if cs != nil {
			sc = append(sc, cs[i])
		}
	}
	if cs == nil {
		return sk, nil
	}
	return sk, sc
}
