package diff

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

// rows returns every node's row as read returns it, nil without rows.
func (u *union) rows(perRun bool, read func(x int32, dst []float64) []float64) []float64 {
	if !perRun {
		return nil
	}
	var out []float64
	for x := range int32(u.len()) {
		out = append(out, read(x, make([]float64, u.runs))...)
	}
	return out
}

// values gathers each node's values from the runs (fromU) where it
// scattered each run's values to its union nodes: every array must be the
// scatter's, bit for bit (the sums in the same order), with and without
// the per-run rows (read as the tests read them: one run a side, they are
// the means), one run a side (the base run copied: its own inverse)
// or several, runs that add nodes to the union, and a side whose runs
// lack nodes the other side has.
func TestValuesGather(t *testing.T) {
	type valuesCase struct {
		name        string
		trees       []*cct.Tree
		nBase, nNew int
	}
	var cases []valuesCase
	for _, nodes := range []int{300, 3000} {
		for _, k := range []int{1, 3} {
			base, nw := benchRuns(t, nodes, k)
			cases = append(cases, valuesCase{fmt.Sprintf("evolved-%d-%d+%d", nodes, k, k), append(base, nw...), k, k})
		}
	}
	base, nw := benchRuns(t, 500, 4)
	cases = append(cases, valuesCase{"evolved-500-4+2", append(base, nw[:2]...), 4, 2})
	cases = append(cases, valuesCase{"renamed", trees(t,
		"m;render;layout 100\nm;render;paint 50\nm;parse 80",
		"m;renderPage;layout 100\nm;parse 80\nm;parse;lex 5",
		"m;fB@app.min.js 100\nm;x@app.min.js 5\nm;render;paint 7"), 1, 2})
	for _, c := range cases {
		for _, perRun := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/perRun=%v", c.name, perRun), func(t *testing.T) {
				m, err := SampleMetric("", c.trees...)
				if err != nil {
					t.Fatal(err)
				}
				u, runs := zamUnion(c.trees, c.nBase, m)
				if u.len() <= runs[0].nodes() {
					t.Fatalf("the new runs added no node to the union: the case tests nothing")
				}
				want := *u
				want.valuesScatter(runs[:c.nBase], runs[c.nBase:], perRun)
				u.values(runs[:c.nBase], runs[c.nBase:], perRun)
				for name, f := range map[string]func(u *union) any{
					"total": func(u *union) any { return u.rows(perRun, u.totalRow) }, "self": func(u *union) any { return u.rows(perRun, u.selfRow) },
					"selfBase": func(u *union) any { return u.selfBase }, "selfNew": func(u *union) any { return u.selfNew },
					"meanBase": func(u *union) any { return u.meanBase }, "meanNew": func(u *union) any { return u.meanNew },
					"inBase": func(u *union) any { return u.runsOf(u.baseRuns) }, "inNew": func(u *union) any { return u.runsOf(u.newRuns) },
				} {
					if !reflect.DeepEqual(f(u), f(&want)) {
						t.Errorf("%s differs from the scatter's", name)
					}
				}
				if oneEach := c.nBase == 1 && c.nNew == 1; (u.total != nil || u.self != nil) != (perRun && !oneEach) {
					t.Errorf("rows kept: %v, want %v", u.total != nil || u.self != nil, perRun && !oneEach)
				}
				if u.runs != want.runs {
					t.Errorf("runs %d, want %d", u.runs, want.runs)
				}
			})
		}
	}
}

// valuesScatter is values as it was: each run's values scattered to its
// union nodes, a side per goroutine, then the means.
func (u *union) valuesScatter(base, nw []*run, perRun bool) {
	n := u.len()
	u.runs = len(base) + len(nw)
	if perRun {
		u.total = make([]int64, n*u.runs)
		u.self = make([]int64, n*u.runs)
	}
	u.selfBase = make([]float64, n)
	u.selfNew = make([]float64, n)
	u.inBase = make([]int32, n)
	u.inNew = make([]int32, n)
	u.meanBase = make([]float64, n)
	u.meanNew = make([]float64, n)
	scatter := func(runs []*run, first int, self, mean []float64, in []int32) {
		for j, r := range runs {
			ri := first + j
			for i, x := range r.toU {
				if perRun {
					u.total[int(x)*u.runs+ri] = r.total[i]
					u.self[int(x)*u.runs+ri] = r.self[i]
				} else {
					mean[x] += float64(r.total[i])
				}
				self[x] += float64(r.self[i])
				in[x]++
			}
		}
	}
	scatter(base, 0, u.selfBase, u.meanBase, u.inBase)
	scatter(nw, len(base), u.selfNew, u.meanNew, u.inNew)
	kb, kn := float64(len(base)), float64(len(nw))
	for x := range n {
		u.selfBase[x] /= kb
		u.selfNew[x] /= kn
		if !perRun {
			u.meanBase[x] /= kb
			u.meanNew[x] /= kn
			continue
		}
		var sb, sn float64
		for ri, v := range u.total[x*u.runs : (x+1)*u.runs] {
			if ri < len(base) {
				sb += float64(v)
			} else {
				sn += float64(v)
			}
		}
		u.meanBase[x], u.meanNew[x] = sb/kb, sn/kn
	}
}

// zamUnion is the union of trees (the first nBase the base runs) as a
// comparison makes it: keyed and matched run by run with ZAM, its values
// not gathered yet.
func zamUnion(trees []*cct.Tree, nBase int, m Metric) (*union, []*run) {
	kt := newKeyTable(trees[:nBase], trees[nBase:])
	runs := newRuns(trees, nBase, kt, m)
	um := newMatcher(ZAM, DefaultBudget)
	um.kt, um.renameMin = kt, 1
	u := newUnion()
	for _, r := range runs {
		um.addRun(u, r, ZAM)
	}
	return u, runs
}

// runsOf lists in of every node (baseRuns, newRuns).
func (u *union) runsOf(in func(x int32) int32) []int32 {
	out := make([]int32, u.len())
	for x := range out {
		out[x] = in(int32(x))
	}
	return out
}
