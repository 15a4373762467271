package diff

import (
	"math/rand/v2"
	"testing"
)

// scatter holds runs in blocks (scatterBlock) and self values only for
// nodes that have any: after finishValues, every row must read what each
// run gave each node, scaled by its factor, whatever the order of the
// runs, blocks cut short by the side's end or by a run out of order, and
// the union growing between runs.
func TestScatterRows(t *testing.T) {
	for _, tt := range []struct {
		name        string
		nBase, nNew int
		order       func(nBase, nNew int) []int // run indices, base runs first
		compact     bool                        // float32 values (compactRuns): these are exact in them
	}{
		{"interleaved, partial blocks", 11, 10, interleaved, false},
		{"one block", 3, 2, interleaved, false},
		{"base then new", 9, 17, func(nb, nn int) []int { return seq(0, nb+nn) }, false},
		{"out of order", 10, 10, func(nb, nn int) []int { return append(append(seq(5, 10), seq(0, 5)...), seq(nb, nb+nn)...) }, false},
		{"compact, interleaved", 11, 10, interleaved, true},
		{"compact, out of order", 10, 10, func(nb, nn int) []int { return append(append(seq(5, 10), seq(0, 5)...), seq(nb, nb+nn)...) }, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			runs := tt.nBase + tt.nNew
			u := newUnion()
			u.runs = runs
			if tt.compact {
				u.cv = &compactRuns{runs: runs}
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
				for range rng.IntN(3) { // the union grows
					u.add(0, key(u.len()), 0, 0)
				}
				r := &run{}
				for x := range int32(u.len()) {
					if x > 0 && rng.IntN(4) == 0 {
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
					for ri, v := range w {
						if got[ri] != float64(v) {
							t.Fatalf("node %d run %d: %s %v, want %d", x, ri, name, got[ri], v)
						}
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
