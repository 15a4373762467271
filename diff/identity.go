package diff

import (
	"cmp"
	"slices"
	"strings"

	"github.com/ctdiff/ctdiff/cct"
)

// Two parts of a frame's identity across trees need more than equality
// (keyTable.intern):
//
//   - A script is identified by its URL's path, without scheme, host and
//     port: the same page served from a test host and from localhost
//     (worker.js from 172.30.3.176:7777 and from 127.0.0.1:8081 in
//     speedscope's Chrome 66 and 70 worker traces) is the same code, and
//     with the origin in the identity nothing of it matched. The origin
//     stays in what reports show (the file as first seen). This is done
//     here, where frames become keys, and not by rewriting URLs in convert:
//     converted profiles and cct trees keep what the recording said, and
//     two origins in one recording stay two scripts there.
//   - Same-named functions of one script ("(anonymous)", minified "t") are
//     different functions, which cct keeps apart by where they are defined
//     (cct.Frame.StartLine, StartColumn). Between versions those lines
//     shift, so the position itself cannot be matched; their order can.
//     On each side the positions of a (name, script) group are sorted, and
//     the two lists are aligned in order (keyTable.positions): the k-th
//     function of the base matches the k-th of the new when both have as
//     many, else the order-preserving alignment that pairs as many as
//     possible at the least displacement, after the script's own shift
//     (the median shift of its uniquely named functions) is taken out.
//     The aligned pair shares a Slot, part of the key.

// scriptPath is the part of a frame's file that identifies it across
// runs: a URL without its scheme, host and port ("/js/app.js?v=2" of
// "https://cdn.example.com:8443/js/app.js?v=2", "/" for a page itself);
// anything that is not a URL as it is.
func scriptPath(file string) string {
	i := strings.Index(file, "://")
	if i < 2 || !isScheme(file[:i]) {
		return file
	}
	rest := file[i+3:]
	if j := strings.IndexByte(rest, '/'); j >= 0 {
		return rest[j:]
	}
	return "/"
}

// isScheme reports a URL scheme (RFC 3986: a letter, then letters, digits,
// "+", "-" or "."), so that "C://x" and "a b://" are not taken for URLs.
func isScheme(s string) bool {
	for i, c := range []byte(s) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		default:
			return false
		}
	}
	return true
}

// A startKey is a function's definition position within its (name,
// script) group; line 0 stands for functions whose position is unknown.
type startKey struct {
	function, path string
	line, col      int64
}

// A position is where a function is defined.
type position struct{ line, col int64 }

func comparePositions(a, b position) int {
	if c := cmp.Compare(a.line, b.line); c != 0 {
		return c
	}
	return cmp.Compare(a.col, b.col)
}

// maxAlignCells bounds the alignment table of one (name, script) group;
// a larger group (thousands of same-named functions in one script) is
// matched by plain order.
const maxAlignCells = 1 << 20

// positions prepares the Slots of same-named functions for the base trees
// (side 0) and the new trees (side 1), given by their frames. Groups with at most one position
// per side need none: their functions get slot 0.
func (kt *keyTable) positions(base, nw [][]cct.Frame) {
	type group struct{ pos [2][]position }
	groups := map[[2]string]*group{}
	var order [][2]string // first-seen order, for determinism
	for s, trees := range [2][][]cct.Frame{base, nw} {
		for _, frames := range trees {
			for _, f := range frames {
				if f.Kind != cct.KindFunction || f.StartLine <= 0 {
					continue
				}
				k := [2]string{f.Function, scriptPath(f.File)}
				g := groups[k]
				if g == nil {
					g = &group{}
					groups[k] = g
					order = append(order, k)
				}
				g.pos[s] = append(g.pos[s], position{f.StartLine, f.StartColumn})
			}
		}
	}
	// Each script's shift: the median line shift of its functions whose
	// name occurs once on each side.
	shifts := map[string][]int64{}
	ambiguous := 0
	for _, k := range order {
		g := groups[k]
		for s := range g.pos {
			slices.SortFunc(g.pos[s], comparePositions)
			g.pos[s] = slices.Compact(g.pos[s])
		}
		a, b := g.pos[0], g.pos[1]
		switch {
		case len(a) == 1 && len(b) == 1:
			shifts[k[1]] = append(shifts[k[1]], b[0].line-a[0].line)
		case len(a) > 1 || len(b) > 1:
			ambiguous++
		}
	}
	if ambiguous == 0 {
		return
	}
	for s := range kt.slots {
		kt.slots[s] = map[startKey]int32{}
	}
	for _, k := range order {
		g := groups[k]
		a, b := g.pos[0], g.pos[1]
		if len(a) <= 1 && len(b) <= 1 {
			continue
		}
		if kt.late != nil {
			kt.ambiguous[k] = true
		}
		slotA, slotB := alignPositions(a, b, medianShift(shifts[k[1]]))
		for s, list := range [2][]position{a, b} {
			slots := [2][]int32{slotA, slotB}[s]
			for i, p := range list {
				kt.slots[s][startKey{k[0], k[1], p.line, p.col}] = slots[i]
			}
			if len(list) > 1 { // an unknown position could be any of them
				kt.slots[s][startKey{k[0], k[1], 0, 0}] = -1
			}
		}
	}
}

// slot returns the Slot of a function frame on side s.
func (kt *keyTable) slot(f cct.Frame, path string, s int) int32 {
	if kt.slots[s] == nil {
		return 0
	}
	k := startKey{f.Function, path, f.StartLine, f.StartColumn}
	v, ok := kt.slots[s][k]
	if ok || kt.late == nil || f.StartLine <= 0 || !kt.ambiguous[[2]string{f.Function, path}] {
		return v
	}
	// A streamed Fold (streamPositions) aligned the first pair only: a
	// position of an ambiguous group that pair lacks gets a slot of its
	// own, shared by both sides (a function defined at the same place in
	// both versions is the same function).
	if v, ok = kt.late[k]; !ok {
		v = -2 - int32(len(kt.late))
		kt.late[k] = v
	}
	return v
}

// streamPositions is positions for a Fold that keys each run as it
// arrives, before later runs' frames are known (stream.go): the Slots are
// aligned on the first base run's and the first new run's frames, as
// positions aligns all runs' frames. Later runs' functions at positions
// the first pair has keep those slots; a same-named function at a position
// it lacks gets a slot of its own (slot), and a group that only later runs
// make ambiguous stays one identity (slot 0), as unknown positions do. Go
// symbols, whose names are unique, never need slots: for Go profiles the
// keys are the same as with every frame known.
func (kt *keyTable) streamPositions(base, nw []cct.Frame) {
	kt.late = map[startKey]int32{}
	kt.ambiguous = map[[2]string]bool{}
	kt.positions([][]cct.Frame{base}, [][]cct.Frame{nw})
}

func medianShift(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// alignPositions aligns the sorted positions a (base) and b (new) of one
// (name, script) group in order, and numbers the result: an aligned pair
// shares its slot, an unaligned function has one of its own. With as many
// on both sides the k-th aligns with the k-th; otherwise the alignment
// pairs min(len(a), len(b)) of them (a pair always costs less than two
// gaps) with the least total displacement after shifting a by shift.
func alignPositions(a, b []position, shift int64) (slotA, slotB []int32) {
	slotA, slotB = make([]int32, len(a)), make([]int32, len(b))
	if len(a) == len(b) || len(a) == 0 || len(b) == 0 || len(a)*len(b) > maxAlignCells {
		// In order; when too large to align, the longer side's last
		// functions are left without a partner.
		for i := range slotA {
			slotA[i] = int32(i)
		}
		for j := range slotB {
			slotB[j] = int32(j)
		}
		return slotA, slotB
	}
	const gap = int64(1) << 42 // more than any pair's cost
	cost := func(p, q position) int64 {
		dl := min(abs64(q.line-p.line-shift), 1<<20)
		dc := min(abs64(q.col-p.col), 1<<20-1)
		return dl<<20 | dc
	}
	n, m := len(a), len(b)
	w := m + 1
	dp := make([]int64, (n+1)*w)
	for i := 0; i <= n; i++ {
		for j := 0; j <= m; j++ {
			switch {
			case i == 0:
				dp[j] = int64(j) * gap
			case j == 0:
				dp[i*w] = int64(i) * gap
			default:
				dp[i*w+j] = min(dp[(i-1)*w+j-1]+cost(a[i-1], b[j-1]), dp[(i-1)*w+j]+gap, dp[i*w+j-1]+gap)
			}
		}
	}
	// Walk back, then number the steps in order.
	type step struct{ i, j int } // -1: a gap on that side
	var steps []step
	for i, j := n, m; i > 0 || j > 0; {
		switch {
		case i > 0 && j > 0 && dp[i*w+j] == dp[(i-1)*w+j-1]+cost(a[i-1], b[j-1]):
			i, j = i-1, j-1
			steps = append(steps, step{i, j})
		case i > 0 && dp[i*w+j] == dp[(i-1)*w+j]+gap:
			i--
			steps = append(steps, step{i, -1})
		default:
			j--
			steps = append(steps, step{-1, j})
		}
	}
	slices.Reverse(steps)
	for k, st := range steps {
		if st.i >= 0 {
			slotA[st.i] = int32(k)
		}
		if st.j >= 0 {
			slotB[st.j] = int32(k)
		}
	}
	return slotA, slotB
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
