package diff

import "slices"

// A pair matches position A of the old sibling list with position B of the
// new one.
type pair struct{ a, b int32 }

// lcsScratch holds buffers reused across LCS computations.
type lcsScratch struct {
	v     []int32 // Myers' V array, indexed by diagonal + offset
	trace []int32 // V snapshots, one per edit distance d
	offs  []int   // start of each snapshot in trace
}

// lcs appends to out the pairs of a longest common subsequence of a and b,
// ascending in both positions. It uses Myers' O(ND) greedy algorithm ("An
// O(ND) difference algorithm and its variations", 1986, cited by PARCS as
// [13]), after stripping the common prefix and suffix, so similar sequences
// cost time linear in their length. It gives up and returns ok=false when
// the work — comparisons, snake steps and snapshot copies — exceeds budget.
// ZAM Section 4 gives up after 10 seconds of wall-clock time instead; a step
// count keeps the result independent of the machine.
func (s *lcsScratch) lcs(a, b []key, budget int, out []pair) (_ []pair, ok bool) {
	n, m := len(a), len(b)
	pre := 0
	for pre < n && pre < m && a[pre] == b[pre] {
		out = append(out, pair{int32(pre), int32(pre)})
		pre++
	}
	suf := 0
	for suf < n-pre && suf < m-pre && a[n-1-suf] == b[m-1-suf] {
		suf++
	}
	mid := len(out)
	out, ok = s.myers(a[pre:n-suf], b[pre:m-suf], budget-pre-suf, out)
	if !ok {
		return out[:mid], false
	}
	for i := mid; i < len(out); i++ {
		out[i].a += int32(pre)
		out[i].b += int32(pre)
	}
	for i := suf; i > 0; i-- {
		out = append(out, pair{int32(n - i), int32(m - i)})
	}
	return out, true
}

// myers is the core of lcs on sequences without a common prefix or suffix.
func (s *lcsScratch) myers(a, b []key, budget int, out []pair) ([]pair, bool) {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return out, true
	}
	if budget <= 0 {
		return out, false
	}
	maxD := n + m
	off := maxD + 1
	if cap(s.v) < 2*maxD+3 {
		s.v = make([]int32, 2*maxD+3)
	}
	v := s.v[:2*maxD+3]
	v[off+1] = 0
	s.trace, s.offs = s.trace[:0], s.offs[:0]
	work := 0
	for d := 0; d <= maxD; d++ {
		// Snapshot V before step d: backtracking needs V[k±1] of step d-1.
		s.offs = append(s.offs, len(s.trace))
		s.trace = append(s.trace, v[off-d-1:off+d+2]...)
		work += 2*d + 3
		for k := -d; k <= d; k += 2 {
			var x int32
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1] // down: b[y] is inserted
			} else {
				x = v[off+k-1] + 1 // right: a[x] is deleted
			}
			y := x - int32(k)
			x0 := x
			for int(x) < n && int(y) < m && a[x] == b[y] {
				x++
				y++
			}
			work += int(x-x0) + 1
			v[off+k] = x
			if int(x) >= n && int(y) >= m {
				return s.backtrack(d, n, m, out), true
			}
			if work > budget {
				return out, false
			}
		}
	}
	panic("unreachable: Myers' algorithm ends by d = n + m")
}

// backtrack walks the snapshots from (n, m) back to (0, 0) and appends the
// diagonal moves — the matched pairs — in ascending order.
func (s *lcsScratch) backtrack(dEnd, n, m int, out []pair) []pair {
	start := len(out)
	x, y := int32(n), int32(m)
	for d := dEnd; d > 0; d-- {
		vs := s.trace[s.offs[d]:]
		at := func(k int) int32 { return vs[k+d+1] }
		k := int(x - y)
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - int32(pk)
		for x > px && y > py {
			x--
			y--
			out = append(out, pair{x, y})
		}
		x, y = px, py
	}
	for x > 0 && y > 0 {
		x--
		y--
		out = append(out, pair{x, y})
	}
	slices.Reverse(out[start:])
	return out
}

// increasing keeps, of candidate pairs sorted by b, a longest subsequence
// whose a positions increase too (patience sorting, O(n log n)). It turns
// identity matches into an order-preserving common subsequence, exact when
// identities are unique among siblings, without any budget.
func increasing(cands []pair) []pair {
	if len(cands) < 2 {
		return cands
	}
	tails := make([]int, 0, len(cands)) // index in cands of the smallest tail per length
	prev := make([]int, len(cands))
	for i, c := range cands {
		j, _ := slices.BinarySearchFunc(tails, c.a, func(t int, a int32) int {
			switch {
			case cands[t].a < a:
				return -1
			case cands[t].a > a:
				return 1
			}
			return 0
		})
		prev[i] = -1
		if j > 0 {
			prev[i] = tails[j-1]
		}
		if j == len(tails) {
			tails = append(tails, i)
		} else {
			tails[j] = i
		}
	}
	out := make([]pair, len(tails))
	for i, j := len(tails)-1, tails[len(tails)-1]; i >= 0; i, j = i-1, prev[j] {
		out[i] = cands[j]
	}
	return out
}
