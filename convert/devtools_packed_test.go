package convert

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestPackedSamples checks that packed ids and deltas read back exactly,
// at the edges of what the reader admits, and that the usual ones are
// small (what the packing is for).
func TestPackedSamples(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ids      []int64
		deltas   []int64 // ns
		maxBytes int     // bound on the packed size, 0 for none
	}{
		{"empty", nil, nil, 0},
		{"chrome", []int64{2, 2, 1, 5000, 4999}, []int64{4520_000, -145_000, 157_000, 125_000, 0}, 16},
		{"fractions of a µs", []int64{1, 1}, []int64{1_250, -1}, 0},
		{"extreme ids", []int64{math.MaxInt64, math.MinInt64, -1, 0, math.MaxInt64}, []int64{0, 0, 0, 0, 0}, 0},
		{"extreme deltas", []int64{1, 1, 1, 1}, []int64{maxScaled, -maxScaled, maxScaled - 1, -maxScaled + 1}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a packArena
			ids, deltas := a.store(packIDs(nil, tc.ids)), a.store(packDeltas(nil, tc.deltas))
			if tc.maxBytes > 0 && len(ids)+len(deltas) > tc.maxBytes {
				t.Errorf("packed into %d bytes, want at most %d", len(ids)+len(deltas), tc.maxBytes)
			}
			ir, dr := idReader{b: ids}, deltaReader{deltas}
			var gotIDs, gotDeltas []int64
			for range tc.ids {
				gotIDs, gotDeltas = append(gotIDs, ir.next()), append(gotDeltas, dr.next())
			}
			if !slices.Equal(gotIDs, tc.ids) || !slices.Equal(gotDeltas, tc.deltas) {
				t.Errorf("read back ids %v and deltas %v, want %v and %v", gotIDs, gotDeltas, tc.ids, tc.deltas)
			}
			if len(ir.b) != 0 || len(dr.b) != 0 {
				t.Errorf("%d and %d bytes left over", len(ir.b), len(dr.b))
			}
		})
	}
}

// TestPackArena checks that stored slices do not overlap: appending to
// one must not write into the next.
func TestPackArena(t *testing.T) {
	var a packArena
	x := a.store([]byte{1, 2, 3})
	y := a.store([]byte{4, 5})
	big := a.store(make([]byte, packBlock/2)) // too big for a block: its own
	_ = append(x, 9)
	if !slices.Equal(y, []byte{4, 5}) || len(big) != packBlock/2 {
		t.Errorf("stored slices overlap: y = %v", y)
	}
	for range packBlock / 1000 {
		a.store(make([]byte, 1000))
	}
	if !slices.Equal(x, []byte{1, 2, 3}) || !slices.Equal(y, []byte{4, 5}) {
		t.Errorf("a new block overwrote stored slices: %v %v", x, y)
	}
}

// TestChunkDeltaStats: chunkProfile gives from the chunks' delta stats
// (sumDeltas) the times' first, last and least, their order, count and
// out-of-range error that reading the deltas one by one gives.
func TestChunkDeltaStats(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	read := func(deltas [][]int64, start int64, stats bool) (*v8Packed, error) {
		var a packArena
		chunks := make([]*traceChunk, len(deltas))
		for k, ds := range deltas {
			ids := make([]int64, len(ds))
			for i := range ids {
				ids[i] = 1
			}
			ch := &traceChunk{event: k, n: len(ds), ids: a.store(packIDs(nil, ids)), deltas: a.store(packDeltas(nil, ds))}
			if k == 0 {
				ch.nodes = []v8NewNode{{node: v8TreeNode{id: 1, hits: -1}, frame: v8Frame{name: "f"}}}
			}
			if stats {
				ch.stats = sumDeltas(ds)
			}
			chunks[k] = ch
		}
		p, err := chunkProfile(profileKey{pid: 1, id: "0x1"}, traceProfileStart{ts: start}, chunks)
		if err != nil {
			return nil, err
		}
		return p.packed, nil
	}
	cases := [][][]int64{
		{{}},
		{{5, 3, 0}, {}, {7}},
		{{-5, 3}, {1}},    // a first delta below 0 keeps the order
		{{5, 3}, {-1, 2}}, // a chunk's first delta below 0 does not
		{{5, -3, 9}},      // nor a later one
		{{maxScaled, 1}},  // out of range at the second sample
		{{maxScaled, -maxScaled, -maxScaled, -1}}, // and below
		{{2 * maxScaled, -2 * maxScaled}},         // deltas past the stats' bound
	}
	for range 200 {
		var c [][]int64
		for range 1 + rng.IntN(4) {
			ds := make([]int64, rng.IntN(6))
			for i := range ds {
				ds[i] = rng.Int64N(2000) - 300
				if rng.IntN(30) == 0 {
					ds[i] = (rng.Int64N(5) - 2) * (maxScaled / 2)
				}
			}
			c = append(c, ds)
		}
		cases = append(cases, c)
	}
	for k, c := range cases {
		for _, start := range []int64{0, maxScaled - 10, -maxScaled + 1000} {
			want, werr := read(c, start, false)
			got, err := read(c, start, true)
			if errText(err) != errText(werr) {
				t.Fatalf("case %d %v from %d: error %v, want %v", k, c, start, err, werr)
			}
			if werr != nil {
				continue
			}
			if got.n != want.n || got.first != want.first || got.last != want.last || got.least != want.least || got.sorted != want.sorted {
				t.Fatalf("case %d %v from %d: %+v, want %+v", k, c, start, *got, *want)
			}
		}
	}
}
