package diff

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Closure realignment: compilers number anonymous functions by their place
// in the enclosing function (Go's handle.func1, handle.func2; Java's
// lambda$handle$0), so a closure added above others renumbers them between
// two versions: handle.func1 is handle.func2 after, and handle.func2 is
// handle.func3. Both names exist on both sides, so matching by identity
// pairs different closures (the old encoder with the new logger, the old
// query with the new encoder) and rename matching, which pairs only names
// gone from the other side, cannot undo it: with a closure added above
// the others, every closure's callees were reported "added" in 30 of 30
// null comparisons.
//
// So where the numbered closures of one enclosing function under a parent
// are not the same set on both sides, they are paired again by what they
// call: an order-preserving alignment of the old list with the new (the
// numbering keeps the source order, which a closure added or removed does
// not change), maximizing the sum of each pair's similarity: the Dice
// coefficient of their callees' identities, or for two leaves ½ when both
// weigh at least μ/2 within a factor of two (rename matching's rule), plus
// ½ when the names are the same. A pair counts only when its similarity is
// at least ½. The bonus makes the names decide unless the callees say
// otherwise: a closure that one run did not sample changes the set too,
// and its neighbours keep their names' pairs.

// A closureTag says where a key's function is a numbered closure: group is
// 1 + the enclosing function's index in keyTable.groups (0 when the key is
// no closure), num its number.
type closureTag struct{ group, num int32 }

// closureName matches the numbered closures: Go's F.func2 and nested
// F.func1.3, F.gowrap1, F.deferwrap1, and Java's lambda$f$2.
var closureName = regexp.MustCompile(`^(.*(?:\.func|\.gowrap|\.deferwrap|\.func[0-9]+\.|lambda\$[^$]*\$))([0-9]+)$`)

// tagClosure tags key k of function name and file identity.
func (kt *keyTable) tagClosure(k key, name, file string) {
	for len(kt.closures) <= int(k) {
		kt.closures = append(kt.closures, closureTag{})
	}
	// Most names end in a letter: no regular expression for them (a key
	// table interns every function of both sides).
	if n := len(name); n == 0 || name[n-1] < '0' || name[n-1] > '9' {
		return
	}
	m := closureName.FindStringSubmatch(name)
	if m == nil {
		return
	}
	// A Go closure's enclosing function has a name of its own: pkg.F.func1,
	// not a function named func1 (pkg.func1: the last path element holds
	// one dot, between the package and the name).
	if outer := m[1][strings.LastIndexByte(m[1], '/')+1:]; !strings.Contains(outer, "lambda$") && strings.Count(outer, ".") < 2 {
		return
	}
	n, err := strconv.ParseInt(m[2], 10, 32)
	if err != nil {
		return
	}
	if kt.groups == nil {
		kt.groups = map[string]int32{}
	}
	g := m[1] + "\x00" + file
	id, ok := kt.groups[g]
	if !ok {
		id = int32(len(kt.groups) + 1)
		kt.groups[g] = id
	}
	kt.closures[k] = closureTag{id, int32(n)}
}

// closureOf is k's tag.
func (kt *keyTable) closureOf(k key) closureTag {
	if int(k) < len(kt.closures) {
		return kt.closures[k]
	}
	return closureTag{}
}

// A closureSide describes one side's children for realignClosures: their
// keys, and their callees' keys and weights on demand.
type closureSide struct {
	keys   []key
	kids   func(i int32) []key
	weight func(i int32) int64
}

// realignClosures returns pairs with the numbered closures of each
// enclosing function re-paired where their sets differ (see the top of
// this file). Lists without closures on both sides return at once.
func (m *matcher) realignClosures(a, b closureSide, pairs []pair) []pair {
	if m.kt == nil || len(m.kt.groups) == 0 {
		return pairs
	}
	groupsA := m.closureGroups(a.keys)
	if len(groupsA) == 0 {
		return pairs
	}
	groupsB := m.closureGroups(b.keys)
	for _, g := range groupsA {
		if !slices.Contains(groupsB, g) {
			continue
		}
		oa, ob := m.members(a.keys, g), m.members(b.keys, g)
		if slices.EqualFunc(oa, ob, func(i, j int32) bool { return a.keys[i] == b.keys[j] }) {
			continue
		}
		aligned := m.alignClosures(a, b, oa, ob)
		pairs = slices.DeleteFunc(pairs, func(p pair) bool {
			return m.kt.closureOf(a.keys[p.a]).group == g || m.kt.closureOf(b.keys[p.b]).group == g
		})
		pairs = append(pairs, aligned...)
		m.counts.Renamed += countRenamed(a.keys, b.keys, aligned)
	}
	return pairs
}

// countRenamed counts the pairs whose keys differ.
func countRenamed(ka, kb []key, ps []pair) int {
	n := 0
	for _, p := range ps {
		if ka[p.a] != kb[p.b] {
			n++
		}
	}
	return n
}

// closureGroups returns the closure groups present in keys, each once.
func (m *matcher) closureGroups(keys []key) []int32 {
	var gs []int32
	for _, k := range keys {
		if g := m.kt.closureOf(k).group; g != 0 && !slices.Contains(gs, g) {
			gs = append(gs, g)
		}
	}
	return gs
}

// members returns the positions of group g's closures in keys, in the
// order of their numbers.
func (m *matcher) members(keys []key, g int32) []int32 {
	var ps []int32
	for i, k := range keys {
		if m.kt.closureOf(k).group == g {
			ps = append(ps, int32(i))
		}
	}
	slices.SortStableFunc(ps, func(i, j int32) int {
		return int(m.kt.closureOf(keys[i]).num) - int(m.kt.closureOf(keys[j]).num)
	})
	return ps
}

// maxClosureGroup bounds the alignment's table (its cost is the product of
// the two lists' lengths): a longer group keeps its names' pairs.
const maxClosureGroup = 256

// alignClosures aligns old closures oa with new ones ob in order,
// maximizing the summed similarity of the pairs (a weighted LCS).
func (m *matcher) alignClosures(a, b closureSide, oa, ob []int32) []pair {
	if len(oa) > maxClosureGroup || len(ob) > maxClosureGroup {
		var out []pair
		for _, i := range oa {
			for _, j := range ob {
				if a.keys[i] == b.keys[j] {
					out = append(out, pair{i, j})
				}
			}
		}
		return out
	}
	// The callees sorted, for dice's merge.
	kidsA := make([][]key, len(oa))
	for x, i := range oa {
		kidsA[x] = slices.Sorted(slices.Values(a.kids(i)))
	}
	kidsB := make([][]key, len(ob))
	for y, j := range ob {
		kidsB[y] = slices.Sorted(slices.Values(b.kids(j)))
	}
	sim := func(x, y int) float64 {
		s := 0.0
		switch ka, kb := kidsA[x], kidsB[y]; {
		case len(ka) > 0 && len(kb) > 0:
			s = dice(ka, kb)
		case len(ka) == 0 && len(kb) == 0 && m.heavy(a.weight(oa[x]), b.weight(ob[y])):
			s = 0.5
		}
		if a.keys[oa[x]] == b.keys[ob[y]] {
			s += 0.5
		}
		if s < renameMinDice {
			return 0
		}
		return s
	}
	// best[x][y] is the best sum aligning oa[x:] with ob[y:].
	w := len(ob) + 1
	best := make([]float64, (len(oa)+1)*w)
	for x := len(oa) - 1; x >= 0; x-- {
		for y := len(ob) - 1; y >= 0; y-- {
			v := max(best[(x+1)*w+y], best[x*w+y+1])
			if s := sim(x, y); s > 0 {
				v = max(v, s+best[(x+1)*w+y+1])
			}
			best[x*w+y] = v
		}
	}
	var out []pair
	usedA, usedB := make([]bool, len(oa)), make([]bool, len(ob))
	for x, y := 0, 0; x < len(oa) && y < len(ob); {
		switch s := sim(x, y); {
		case s > 0 && best[x*w+y] == s+best[(x+1)*w+y+1]:
			out = append(out, pair{oa[x], ob[y]})
			usedA[x], usedB[y] = true, true
			x, y = x+1, y+1
		case best[x*w+y] == best[(x+1)*w+y]:
			x++
		default:
			y++
		}
	}
	// Closures of the same name that neither side's alignment took pair
	// as their names say: two siblings must not end with one name.
	for x, i := range oa {
		for y, j := range ob {
			if !usedA[x] && !usedB[y] && a.keys[i] == b.keys[j] {
				out = append(out, pair{i, j})
				usedA[x], usedB[y] = true, true
			}
		}
	}
	return out
}

// dice is the Dice coefficient of two sorted lists of distinct keys.
func dice(a, b []key) float64 {
	shared := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			shared++
			i, j = i+1, j+1
		}
	}
	return 2 * float64(shared) / float64(len(a)+len(b))
}

// renamesKeepKeysDistinct reports whether giving each paired union child
// (keys ku) its run child's key (kr) leaves the union's children with
// distinct keys. Rename matching pairs only names the other side lacks, so
// its renames always do; a closure realigned onto a name another union
// child still holds (a base run matched after a new one, which renumbered
// the closures, as a stream of many runs orders them) keeps its union
// name instead.
func renamesKeepKeysDistinct(ku, kr []key, pairs []pair) bool {
	renamed := false
	for _, p := range pairs {
		if ku[p.a] != kr[p.b] {
			renamed = true
			break
		}
	}
	if !renamed {
		return true
	}
	final := slices.Clone(ku)
	for _, p := range pairs {
		final[p.a] = kr[p.b]
	}
	slices.Sort(final)
	return len(slices.Compact(final)) == len(ku)
}
