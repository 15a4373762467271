package convert

import (
	"math"
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
