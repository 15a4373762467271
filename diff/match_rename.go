package diff

import (
	"slices"

	"github.com/ctdiff/ctdiff/cct"
)

// Rename matching: after ZAM's matching of a sibling list, children left
// unmatched on both sides are paired when one is evidently the other
// renamed. Minified bundles rename functions on every build (fB becomes _G),
// and refactorings rename functions; by identity alone the old subtree is
// "removed" and the new one "added" with its whole time, which is a false
// regression-cause (ZAM Section 2.3 lists such code changes as a source of
// noise; go tool pprof, FlameGraph's difffolded, perf diff and PerfView
// leave a renamed function unmatched). PARCS
// Section 3.2 handles renames too, from bytecode; profiles carry no code, so
// the evidence here is structural:
//
//   - a child with callees is the renamed counterpart of another when most
//     of their callees are the same functions (Dice coefficient ≥ ½ over
//     the callees' identities) and at least two are shared — or one, when
//     it is the only callee of both and both weigh at least μ/2 within a
//     factor of two;
//   - otherwise (leaves have no callees to compare, and a renamed caller's
//     callees may have changed too) two siblings pair when each is the only
//     leftover of its source file on its side weighing at least μ/2, and
//     their weights are within a factor of two. Smaller ones could not
//     become false causes anyway, and sampling at 100 Hz makes one-sample
//     leaves come and go between runs.
//
// and in both cases only when the old function occurs nowhere in the new
// tree and the new one nowhere in the old tree: a renamed function is gone
// under its old name everywhere. Without that condition two leaves of one
// file that sampling happened to catch in one run each would pass for a
// rename.
//
// Rename matching is part of the ZAM mode only: PARCS's matching is kept as
// published.

// A renameCand is a sibling left unmatched, as rename matching sees it.
type renameCand struct {
	pos    int32 // position in the sibling list
	key    key
	file   string
	kids   []key // identities of its own children
	weight int64
}

// renameMinDice is the least Dice coefficient of callee identities for a
// rename.
const renameMinDice = 0.5

// renameMaxPostings bounds how many leftover siblings one callee identity
// may index, so that a callee every function calls (a logger) cannot make
// the matching quadratic.
const renameMaxPostings = 64

// keySet is the set of frame identities of a tree, indexed by key.
type keySet []bool

func (s keySet) has(k key) bool { return int(k) < len(s) && s[k] }

func (s *keySet) add(k key) {
	for int(k) >= len(*s) {
		*s = append(*s, false)
	}
	(*s)[k] = true
}

// keysOf returns the set of identities in a run's tree.
func keysOf(r *run) keySet {
	var s keySet
	for _, k := range r.fkey {
		s.add(k)
	}
	return s
}

// renames appends the rename pairs between leftover old and new siblings.
// oldKeys and newKeys are the identities present in the old and new trees.
func (m *matcher) renames(old, nw []renameCand, oldKeys, newKeys keySet, out []pair) []pair {
	old = slices.DeleteFunc(slices.Clone(old), func(c renameCand) bool { return newKeys.has(c.key) })
	nw = slices.DeleteFunc(slices.Clone(nw), func(c renameCand) bool { return oldKeys.has(c.key) })
	if len(old) == 0 || len(nw) == 0 {
		return out
	}
	usedOld := make([]bool, len(old))
	usedNew := make([]bool, len(nw))
	out = m.calleeRenames(old, nw, usedOld, usedNew, out)
	return m.fileRenames(old, nw, usedOld, usedNew, out)
}

// calleeRenames pairs each new candidate with the unused old one whose
// callees it shares most (Dice coefficient), marking both used.
func (m *matcher) calleeRenames(old, nw []renameCand, usedOld, usedNew []bool, out []pair) []pair {
	index := calleeIndex(old)
	shared := make([]int32, len(old))
	shared2 := make([]int32, len(old)) // shared callees of the best candidate
	var touched []int32
	for j, c := range nw {
		if len(c.kids) == 0 {
			continue
		}
		touched = touched[:0]
		for _, k := range c.kids {
			for _, i := range index[k] {
				if shared[i] == 0 {
					touched = append(touched, i)
				}
				shared[i]++
			}
		}
		best, bestDice := int32(-1), 0.0
		for _, i := range touched {
			dice := 2 * float64(shared[i]) / float64(len(old[i].kids)+len(c.kids))
			if !usedOld[i] && (dice > bestDice || dice == bestDice && i < best) {
				best, bestDice = i, dice
				shared2[i] = shared[i]
			}
			shared[i] = 0
		}
		if best >= 0 && bestDice >= renameMinDice && (shared2[best] >= 2 || m.heavy(old[best].weight, c.weight)) {
			usedOld[best], usedNew[j] = true, true
			out = append(out, pair{old[best].pos, c.pos})
			m.counts.Renamed++
		}
	}
	return out
}

// calleeIndex maps a callee identity to the old candidates that call it,
// each once and at most renameMaxPostings of them.
func calleeIndex(old []renameCand) map[key][]int32 {
	index := map[key][]int32{}
	for i, c := range old {
		for _, k := range c.kids {
			if p := index[k]; len(p) < renameMaxPostings && (len(p) == 0 || p[len(p)-1] != int32(i)) {
				index[k] = append(p, int32(i))
			}
		}
	}
	return index
}

// fileRenames pairs what remains: the single heavy leftover of a file on
// each side.
func (m *matcher) fileRenames(old, nw []renameCand, usedOld, usedNew []bool, out []pair) []pair {
	type fileCands struct{ old, nw, nOld, nNew int }
	byFile := map[string]*fileCands{}
	for i, c := range old {
		if !usedOld[i] && c.file != "" && c.weight >= m.renameMin {
			f := byFile[c.file]
			if f == nil {
				f = &fileCands{}
				byFile[c.file] = f
			}
			f.old, f.nOld = i, f.nOld+1
		}
	}
	for j, c := range nw {
		if f := byFile[c.file]; f != nil && !usedNew[j] && c.weight >= m.renameMin {
			f.nw, f.nNew = j, f.nNew+1
		}
	}
	for j, c := range nw { // in new order, for a deterministic output
		f := byFile[c.file]
		if f == nil || f.nOld != 1 || f.nNew != 1 || f.nw != j {
			continue
		}
		if m.heavy(old[f.old].weight, c.weight) {
			out = append(out, pair{old[f.old].pos, c.pos})
			m.counts.Renamed++
		}
	}
	return out
}

// heavy reports whether two weights are both at least the rename minimum
// (μ/2) and within a factor of two of each other.
func (m *matcher) heavy(a, b int64) bool {
	return a >= m.renameMin && b >= m.renameMin && a > 0 && 2*min(a, b) >= max(a, b)
}

// leftovers returns the positions not covered by pairs, old and new.
func leftovers(nOld, nNew int, pairs []pair) (old, nw []int32) {
	usedA := make([]bool, nOld)
	usedB := make([]bool, nNew)
	for _, p := range pairs {
		usedA[p.a], usedB[p.b] = true, true
	}
	for i, u := range usedA {
		if !u {
			old = append(old, int32(i))
		}
	}
	for j, u := range usedB {
		if !u {
			nw = append(nw, int32(j))
		}
	}
	return old, nw
}

// renameLeftovers is leftovers for rename matching: the positions not
// covered by pairs of the old children (keys ka) whose identity the new tree
// lacks, and of the new children (kb) whose identity the old tree lacks, the
// only ones renames keeps. When either is empty renames would find nothing,
// and the candidates need not be described: runs of one program share their
// functions, so most lists with leftovers end here (an independent pair of
// 200k-stack Go profiles: all 42,666 of them). The slices are the matcher's,
// reused by the next call.
func (m *matcher) renameLeftovers(ka, kb []key, pairs []pair, oldKeys, newKeys keySet) (old, nw []int32) {
	m.usedA = resetBools(m.usedA, len(ka))
	m.usedB = resetBools(m.usedB, len(kb))
	for _, p := range pairs {
		m.usedA[p.a], m.usedB[p.b] = true, true
	}
	old, nw = m.restA[:0], m.restB[:0]
	for i, u := range m.usedA {
		if !u && !newKeys.has(ka[i]) {
			old = append(old, int32(i))
		}
	}
	if len(old) > 0 {
		for j, u := range m.usedB {
			if !u && !oldKeys.has(kb[j]) {
				nw = append(nw, int32(j))
			}
		}
	}
	m.restA, m.restB = old, nw
	return old, nw
}

// runCands describes leftover children of a run node for rename matching.
func (m *matcher) runCands(r *run, ch []cct.NodeID, pos []int32) []renameCand {
	out := make([]renameCand, len(pos))
	for i, p := range pos {
		c := int32(ch[p])
		kids, _ := r.childKeys(c, nil, false)
		out[i] = renameCand{pos: p, key: r.key(c), file: scriptPath(m.kt.frames[r.key(c)].File), kids: kids, weight: r.total[c]}
	}
	return out
}

// unionCands describes leftover children of a union node.
func (m *matcher) unionCands(u *union, ch []int32, pos []int32) []renameCand {
	out := make([]renameCand, len(pos))
	for i, p := range pos {
		c := ch[p]
		kids := slices.Clone(u.childKeys(c))
		out[i] = renameCand{pos: p, key: u.key[c], file: scriptPath(m.kt.frames[u.key[c]].File), kids: kids, weight: u.weight[c]}
	}
	return out
}
