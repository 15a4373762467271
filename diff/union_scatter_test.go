package diff

import (
	"math/rand/v2"
	"testing"
)

// scatter holds runs in blocks (scatterBlock), self values only for nodes
// that have any, and rows only for nodes in many runs (runValues): after
// finishValues, every row must read what each run gave each node, scaled
// by its factor, whatever the order of the runs, blocks cut short by the
// side's end or by a run out of order, the union growing between runs, and
// runs that share most nodes or few.
func TestScatterRows(t *testing.T) {
	for _, tt := range []struct {
		name        string
		nBase, nNew int
		order       func(nBase, nNew int) []int // run indices, base runs first
		compact     bool                        // float32 values: these are exact in them
		little      bool                        // runs share few nodes: each adds its own
	}{
		{"interleaved, partial blocks", 11, 10, interleaved, false, false},
		{"one block", 3, 2, interleaved, false, false},
		{"base then new", 9, 17, func(nb, nn int) []int { return seq(0, nb+nn) }, false, false},
		{"out of order", 10, 10, func(nb, nn int) []int { return append(append(seq(5, 10), seq(0, 5)...), seq(nb, nb+nn)...) }, false, false},
		{"compact, interleaved", 11, 10, interleaved, true, false},
		{"compact, out of order", 10, 10, func(nb, nn int) []int { return append(append(seq(5, 10), seq(0, 5)...), seq(nb, nb+nn)...) }, true, false},
		{"share little", 11, 10, interleaved, false, true},
		{"share little, out of order", 10, 10, func(nb, nn int) []int { return append(append(seq(5, 10), seq(0, 5)...), seq(nb, nb+nn)...) }, false, true},
		{"compact, share little", 11, 10, interleaved, true, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			runs := tt.nBase + tt.nNew
			u := newUnion()
			u.runs = runs
			u.pv = newRunValues[int64](runs)
			if tt.compact {
				u.pv = newRunValues[float32](runs)
			}
			want := map[int32][]int64{} // node -> inclusive values per run
			wantSelf := map[int32][]int64{}
			factors := make([]float64, runs)
			for ri := range factors {
				factors[ri] = 1
				if ri%3 == 1 {
					factors[ri] = 0.75
				}
			}
			for _, ri := range tt.order(tt.nBase, tt.nNew) {
				added, own := rng.IntN(3), int32(u.len())
				if tt.little {
					added = 40
				}
				for range added { // the union grows
					u.add(0, key(u.len()), 0, 0)
				}
				r := &run{}
				for x := range int32(u.len()) {
					if x > 0 && (tt.little && x < own && rng.IntN(10) > 0 || rng.IntN(4) == 0) {
						continue // not in this run
					}
					tot, self := rng.Int64N(1000)+1, int64(0)
					if rng.IntN(3) == 0 {
						self = rng.Int64N(tot) + 1
					}
					r.toU = append(r.toU, x)
					r.total, r.self = append(r.total, tot), append(r.self, self)
					if want[x] == nil {
						want[x], wantSelf[x] = make([]int64, runs), make([]int64, runs)
					}
					want[x][ri], wantSelf[x][ri] = scaled(tot, factors[ri]), scaled(self, factors[ri])
				}
				u.scatter(r, ri, ri >= tt.nBase)
			}
			u.finishValues(tt.nBase, factors)
			// Nodes in half the runs have a row; few nodes of runs
			// that share little do.
			var rows int32
			var totalAt []int32
			if v, ok := u.pv.(*runValues[int64]); ok {
				rows, totalAt = v.total.n, v.totalAt
			} else {
				v := u.pv.(*runValues[float32])
				rows, totalAt = v.total.n, v.totalAt
			}
			for x := range u.len() {
				if in := int(u.inBase[x] + u.inNew[x]); 2*in >= runs && totalAt[x] == 0 {
					t.Errorf("node %d is in %d of %d runs and has no row", x, in, runs)
				}
			}
			if tt.little && float64(rows) > 0.2*float64(u.len()) {
				t.Errorf("%d of %d nodes have a row", rows, u.len())
			}
			row := make([]float64, runs)
			for x := range int32(u.len()) {
				for name, w := range map[string][]int64{"total": want[x], "self": wantSelf[x]} {
					if w == nil {
						w = make([]int64, runs)
					}
					got := u.totalRow(x, row)
					if name == "self" {
						got = u.selfRow(x, row)
					}
					var sums [2]float64 // per side, in run order
					for ri, v := range w {
						if got[ri] != float64(v) {
							t.Fatalf("node %d run %d: %s %v, want %d", x, ri, name, got[ri], v)
						}
						sums[min(ri/tt.nBase, 1)] += float64(v)
					}
					means := [2]float64{u.meanBase[x], u.meanNew[x]}
					if name == "self" {
						means = [2]float64{u.selfBase[x], u.selfNew[x]}
					}
					if want := [2]float64{sums[0] / float64(tt.nBase), sums[1] / float64(tt.nNew)}; means != want {
						t.Fatalf("node %d: %s means %v, want %v", x, name, means, want)
					}
				}
			}
		})
	}
}

func scaled(v int64, f float64) int64 {
	if f == 1 {
		return v
	}
	return round(float64(v) * f)
}

func interleaved(nb, nn int) []int {
	var out []int
	for i := range max(nb, nn) {
		if i < nb {
			out = append(out, i)
		}
		if i < nn {
			out = append(out, nb+i)
		}
	}
	return out
}

func seq(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}
