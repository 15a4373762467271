package diff

import (
	"github.com/ctdiff/ctdiff/cct"
)

// Rename matching: after ZAM's matching of a sibling list, children left
// unmatched on both sides are paired when one is evidently the other
// renamed. Minified bundles rename functions on every build (fB becomes _G),
// and refactorings rename functions; by identity alone the old subtree is
// "removed" and the new one "added" with its whole time, which is a false
// regression-cause (ZAM Section 2.3 lists such code changes as a source of
// noise; peers.md, item 7, as what users of every peer tool miss). PARCS
// Section 3.2 handles renames too, from bytecode; profiles carry no code, so
// the evidence here is structural:
//
//   - a child with callees is the renamed counterpart of another when most
//     of their callees are the same functions (Dice coefficient ≥ ½ over
//     the callees' identities);
//   - leaves, which have no callees to compare, pair when they are the only
//     leftover leaves of the same source file on both sides and their values
//     are within a factor of two.
//
// Rename matching is part of the ZAM mode only: PARCS's matching is kept as
// published.

// A renameCand is a sibling left unmatched, as rename matching sees it.
type renameCand struct {
	pos    int32 // position in the sibling list
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

// renames appends the rename pairs between leftover old and new siblings.
func (m *matcher) renames(old, nw []renameCand, out []pair) []pair {
	usedOld := make([]bool, len(old))
	usedNew := make([]bool, len(nw))
	index := map[key][]int32{}
	for i, c := range old {
		for _, k := range c.kids {
			if p := index[k]; len(p) < renameMaxPostings && (len(p) == 0 || p[len(p)-1] != int32(i)) {
				index[k] = append(p, int32(i))
			}
		}
	}
	shared := make([]int32, len(old))
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
			}
			shared[i] = 0
		}
		if best >= 0 && bestDice >= renameMinDice {
			usedOld[best], usedNew[j] = true, true
			out = append(out, pair{old[best].pos, c.pos})
			m.counts.Renamed++
		}
	}
	// Leaves: the single leftover leaf of a file on each side.
	type fileLeaves struct{ old, nw, nOld, nNew int }
	byFile := map[string]*fileLeaves{}
	for i, c := range old {
		if !usedOld[i] && len(c.kids) == 0 && c.file != "" {
			f := byFile[c.file]
			if f == nil {
				f = &fileLeaves{}
				byFile[c.file] = f
			}
			f.old, f.nOld = i, f.nOld+1
		}
	}
	for j, c := range nw {
		if f := byFile[c.file]; f != nil && !usedNew[j] && len(c.kids) == 0 {
			f.nw, f.nNew = j, f.nNew+1
		}
	}
	for j, c := range nw { // in new order, for a deterministic output
		f := byFile[c.file]
		if f == nil || f.nOld != 1 || f.nNew != 1 || f.nw != j {
			continue
		}
		a, b := old[f.old].weight, c.weight
		if a > 0 && b > 0 && 2*min(a, b) >= max(a, b) {
			out = append(out, pair{old[f.old].pos, c.pos})
			m.counts.Renamed++
		}
	}
	return out
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

// runCands describes leftover children of a run node for rename matching.
func (m *matcher) runCands(r *run, ch []cct.NodeID, pos []int32) []renameCand {
	out := make([]renameCand, len(pos))
	for i, p := range pos {
		c := int32(ch[p])
		kids, _ := childKeys(r, r.children(c), nil, nil, false)
		out[i] = renameCand{pos: p, file: m.kt.frames[r.key(c)].File, kids: kids, weight: r.total[c]}
	}
	return out
}

// unionCands describes leftover children of a union node.
func (m *matcher) unionCands(u *union, ch []int32, pos []int32) []renameCand {
	out := make([]renameCand, len(pos))
	for i, p := range pos {
		c := ch[p]
		kids := make([]key, len(u.children[c]))
		for j, k := range u.children[c] {
			kids[j] = u.key[k]
		}
		out[i] = renameCand{pos: p, file: m.kt.frames[u.key[c]].File, kids: kids, weight: u.weight[c]}
	}
	return out
}
