package diff

import (
	"cmp"
	"slices"
)

// Spread regressions (issue 17; ZAM Sections 5 and 6.1): a check added in
// every context of a function, ~10 ms in each of 11 contexts, is 110 ms of
// regression that no single context shows. Per-context analysis finds the
// common ancestor of the contexts (one level too high, and only when that
// ancestor's own noise allows) or nothing. Here every function with two
// calling contexts or more is also one hypothesis: the sum of its
// outermost contexts' inclusive values per run, tested like a node and
// corrected in the same family. A function kept that way is one cause,
// its contexts folded beneath it.
//
// Which functions are candidates, before any test:
//
//   - the summed growth reaches μ (as for a node);
//   - no single context grew by μ: a context that did is a cause of its
//     own, found per node and reported there (a slow call in three
//     contexts is three causes, each with its own test);
//   - the contexts' callers grew by μ too: new work makes its callers
//     slower, but a function renamed in the new version (a minifier's
//     Aia → $Dp, matched by rename in few of its 80 contexts) is "new" in
//     every context while its callers did not change (the corpus
//     harness: 2 false causes in 30 cases before this rule);
//   - the lowest wins: a candidate whose growth, less what other
//     candidates' contexts inside its own explain, is below μ (F, whose
//     contexts grew by the isStaleState calls below them) is dropped for
//     the lower ones, as Algorithm 2 keeps the lowest regressed node.

// maxSpreadCandidates bounds the functions tested as spread causes, largest
// growth first: each costs a test and a share of the correction.
const maxSpreadCandidates = 256

// maxSpreadContexts bounds the contexts listed per spread cause.
const maxSpreadContexts = 20

// A spreadGroup is one candidate function: its outermost contexts, their
// summed values per run (base runs first) and its test.
type spreadGroup struct {
	nodes  []int32
	sums   []float64
	test   int32 // 1 + index in the family
	spread spreadInfo
}

// spreadInfo is what assemble needs of a kept spread cause.
type spreadInfo struct {
	key       key
	test      int32 // as spreadGroup.test
	contexts  int
	base, new float64 // mean sums per side
}

func (g *spreadGroup) delta() float64 { return g.spread.new - g.spread.base }

// spreadGroups returns the candidate functions of the union tree, with
// the nodes skip marks (artifacts folded, idle) left out.
func spreadGroups(u *union, kt *keyTable, skip []bool, nBase int, m float64) []spreadGroup {
	n, runs := u.len(), u.runs
	nNew := runs - nBase
	nk := len(kt.frames)
	onPath := make([]int32, nk)
	topmost := make([]bool, n)
	count := make([]int32, nk)
	growth := make([]float64, nk)  // summed mean growth of the contexts
	largest := make([]float64, nk) // the largest context's growth
	pooled := make([]float64, nk)  // summed values over all runs
	callers := make([]float64, nk) // summed growth of the contexts' callers
	type visit struct {
		x    int32
		exit bool
	}
	stack := []visit{{x: 0}}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v.exit {
			onPath[u.key[v.x]]--
			continue
		}
		x := v.x
		if u.depth[x] >= 2 {
			k := u.key[x]
			if onPath[k] == 0 {
				topmost[x] = true
				d := u.meanNew[x] - u.meanBase[x]
				count[k]++
				growth[k] += d
				largest[k] = max(largest[k], d)
				pooled[k] += u.meanBase[x]*float64(nBase) + u.meanNew[x]*float64(nNew)
				if p := u.parent[x]; u.depth[p] >= 2 {
					callers[k] += u.meanNew[p] - u.meanBase[p]
				} else {
					callers[k] += d
				}
			}
			onPath[k]++
			stack = append(stack, visit{x: x, exit: true})
		}
		for _, c := range u.children(x) {
			if !skip[c] {
				stack = append(stack, visit{x: c})
			}
		}
	}
	var cands []key
	for k := range key(nk) {
		if count[k] >= 2 && growth[k] >= m && pooled[k] >= m*float64(nNew) && largest[k] < m && callers[k] >= m {
			cands = append(cands, k)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	slices.SortFunc(cands, func(a, b key) int {
		if c := cmp.Compare(growth[b], growth[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	cands = cands[:min(len(cands), maxSpreadCandidates)]
	// index is 1 + a key's place among the candidates, 0 for the others:
	// read for every node, a slice where a map cost a tenth of the walk.
	index := make([]int32, nk)
	for i, k := range cands {
		index[k] = int32(i + 1)
	}
	nodes := make([][]int32, len(cands))
	for x := int32(1); int(x) < n; x++ {
		if i := index[u.key[x]]; i > 0 && topmost[x] {
			nodes[i-1] = append(nodes[i-1], x)
		}
	}
	// The lowest wins: a candidate's growth that contexts of other
	// candidates below it explain is not its own. explained[i] sums the
	// growth of every other candidate's contexts inside candidate i's
	// contexts (a recursive ancestor counted once); i is dropped when what
	// is left is below μ. Requiring all of j's contexts inside i's would
	// keep a caller that holds two of isStaleState's eight contexts and
	// whose sum grew by their 30 ms plus noise.
	explained := make([]float64, len(cands))
	stamp := make([]int32, len(cands)) // the last context counted
	for j := range cands {
		for _, x := range nodes[j] {
			d := u.meanNew[x] - u.meanBase[x]
			for a := u.parent[x]; a > 0; a = u.parent[a] {
				if i := int(index[u.key[a]]) - 1; i >= 0 && i != j && stamp[i] != x {
					stamp[i] = x
					explained[i] += d
				}
			}
		}
	}
	drop := make([]bool, len(cands))
	for i, k := range cands {
		drop[i] = growth[k]-explained[i] < m
	}
	var groups []spreadGroup
	row := make([]float64, runs)
	for i, k := range cands {
		if drop[i] {
			continue
		}
		gr := spreadGroup{nodes: nodes[i], sums: make([]float64, runs)}
		for _, x := range nodes[i] {
			for r, v := range u.totalRow(x, row) {
				gr.sums[r] += v
			}
		}
		gr.spread = spreadInfo{key: k, contexts: int(count[k])}
		for r, v := range gr.sums {
			if r < nBase {
				gr.spread.base += v / float64(nBase)
			} else {
				gr.spread.new += v / float64(nNew)
			}
		}
		groups = append(groups, gr)
	}
	return groups
}
