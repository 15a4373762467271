package diff

import (
	"slices"

	"github.com/ctdiff/ctdiff/cct"
)

// A shapeMemo is what a stream keeps of the last run it took of a side
// once the run is released: its shape, its keys and its place in the
// union. A run of the same shape (the same frames, node for node, and the
// same child lists) has the same keys, since interning is a function of
// the frame and the side; and it matches the union as the memo's run did
// when that run changed nothing (every node matched, nothing renamed) and
// nothing changed the union since: matching reads the two trees' keys and
// lists (and call sites, part of the frames), and weights only to rename a
// leftover child, which a run whose every child matched has none of.
type shapeMemo struct {
	frames       []cct.Frame
	nframe       []cct.FrameID
	parent, kids []cct.NodeID
	depths       []int32
	kidStart     []int32
	fkey, nkey   []key
	kidKeys      []key
	toU          []int32
	// uLen and uRekeys are the union's size and renames after the run was
	// added; clean says adding it changed neither, and counts are what it
	// added to the union matcher's counts.
	uLen, uRekeys int
	clean         bool
	counts        MatcherCounts
}

// sameShape reports whether run r has the memo's shape. A run folded
// with a memo's arrays (foldTreeLike) has it without comparing: the
// arrays are shared only by runs whose trees had their owner's shape,
// frames included.
func (p *shapeMemo) sameShape(r *run) bool {
	if p == nil || len(p.nframe) != len(r.nframe) || len(p.kids) != len(r.kids) || len(p.frames) != len(r.frames) {
		return false
	}
	if &p.nframe[0] == &r.nframe[0] && &p.parent[0] == &r.parent[0] && (len(p.kids) == 0 || &p.kids[0] == &r.kids[0]) {
		return true
	}
	return slices.Equal(p.parent, r.parent) && slices.Equal(p.kids, r.kids) &&
		slices.Equal(p.nframe, r.nframe) && slices.Equal(p.frames, r.frames)
}

// hasShapeOf reports whether tree t has the memo's shape: the same frames,
// and node for node the same frame, parent, depth and children.
func (p *shapeMemo) hasShapeOf(t *cct.Tree) bool {
	if p == nil || len(p.nframe) != len(t.Nodes) || !slices.Equal(p.frames, t.Frames) {
		return false
	}
	for i := range t.Nodes {
		nd := &t.Nodes[i]
		if nd.Frame != p.nframe[i] || nd.Parent != p.parent[i] || nd.Depth != p.depths[i] {
			return false
		}
		kids := p.kids[p.kidStart[i]:p.kidStart[i+1]]
		ch := t.Children(cct.NodeID(i))
		if len(ch) != len(kids) {
			return false
		}
		for j, c := range ch {
			if c != kids[j] {
				return false
			}
		}
	}
	return true
}

// shapeOf is the memo of run r, just added to the union.
func (st *stream) shapeOf(r *run, clean bool, counts MatcherCounts) *shapeMemo {
	return &shapeMemo{frames: r.frames, nframe: r.nframe, parent: r.parent, kids: r.kids,
		depths: r.depths, kidStart: r.kidStart,
		fkey: r.fkey, nkey: r.nkey, kidKeys: r.kidKeys, toU: r.toU,
		uLen: st.u.len(), uRekeys: st.u.rekeys, clean: clean, counts: counts}
}

// addRun matches run r onto the union, or takes prev's matching when r has
// its shape (same) and prev's is still what matching r would give. It
// reports whether the union is unchanged, and what the union matcher
// counted.
func (st *stream) addRun(r *run, prev *shapeMemo, same bool) (clean bool, counts MatcherCounts) {
	u, m := st.u, st.um
	if same && prev.clean && u.len() == prev.uLen && u.rekeys == prev.uRekeys {
		r.toU = prev.toU // read only
		m.counts = m.counts.plus(prev.counts)
		st.reused[0]++
		return true, prev.counts
	}
	n, k, c, w := u.len(), u.rekeys, m.counts, m.weighed
	m.addRun(u, r, st.o.Match)
	return u.len() == n && u.rekeys == k && m.weighed == w, m.counts.minus(c)
}

// A matchMemo is the last matching of two runs a stream made with one
// matcher: the next two runs, each of the shape of its predecessor, match
// alike unless weights decided a rename (matcher.weighed).
type matchMemo struct {
	baseOf []int32
	// common is the strict common tree's size, when asked for.
	common               int
	counts, strictCounts MatcherCounts
	valid                bool
}

// match returns m's matching of b onto a (matcher.matchTrees) and, with
// sm, the size of their strict common tree (matcher.strictCommon). same
// says a and b have the shapes of the memo's runs; reused counts the
// matchings the memo gives.
func (mm *matchMemo) match(m *matcher, a, b *run, mode Matching, same bool, sm *matcher, reused *int) ([]int32, int) {
	if same && mm.valid {
		*reused++
		m.counts = m.counts.plus(mm.counts)
		if sm != nil {
			sm.counts = sm.counts.plus(mm.strictCounts)
		}
		return mm.baseOf, mm.common // read only
	}
	c, w := m.counts, m.weighed
	baseOf := m.matchTrees(a, b, mode)
	*mm = matchMemo{baseOf: baseOf, counts: m.counts.minus(c), valid: m.weighed == w}
	if sm != nil {
		c = sm.counts
		mm.common = sm.strictCommon(a, b)
		mm.strictCounts = sm.counts.minus(c)
	}
	return baseOf, mm.common
}

// plus returns the counts of c and d together.
func (c MatcherCounts) plus(d MatcherCounts) MatcherCounts {
	return MatcherCounts{LCS: c.LCS + d.LCS, Alternate: c.Alternate + d.Alternate, Fallback: c.Fallback + d.Fallback,
		Residual: c.Residual + d.Residual, Relaxed: c.Relaxed + d.Relaxed, Strict: c.Strict + d.Strict, Renamed: c.Renamed + d.Renamed}
}

// minus returns what c counts beyond d.
func (c MatcherCounts) minus(d MatcherCounts) MatcherCounts {
	return MatcherCounts{LCS: c.LCS - d.LCS, Alternate: c.Alternate - d.Alternate, Fallback: c.Fallback - d.Fallback,
		Residual: c.Residual - d.Residual, Relaxed: c.Relaxed - d.Relaxed, Strict: c.Strict - d.Strict, Renamed: c.Renamed - d.Renamed}
}
