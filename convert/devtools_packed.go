package convert

import (
	"encoding/binary"
)

// A trace's samples are kept packed from the moment their chunk is read
// until they become stacks.Samples: a 500 MB trace holds 28.8 M
// samples, and as two int64 arrays per chunk (node id and time delta) they
// were 460 MB of a reader that is meant to stay under node's memory for
// JSON.parse. Packed, a sample takes the bytes of two varints, 4-6 in
// Chrome's traces, and no pointer the garbage collector scans.
//
// A sample's node id is written as its difference from the previous
// sample's in the chunk (samples of one node often follow one another),
// its time delta in µs when it is a whole number of them (Chrome writes
// integral µs), else in ns; both zigzag-encoded (encoding/binary's
// varints).

// packArena hands out the bytes of packed chunks from large blocks, so that
// a chunk costs no allocation of its own.
type packArena struct {
	block []byte
}

// packBlock is the size of an arena block: large enough that the blocks
// are a few hundred objects for a 500 MB trace, small enough that the last
// one wastes little.
const packBlock = 1 << 20

// store returns a copy of b in the arena's memory.
func (a *packArena) store(b []byte) []byte {
	if len(b) > packBlock/4 {
		return append([]byte(nil), b...)
	}
	if cap(a.block)-len(a.block) < len(b) {
		a.block = make([]byte, 0, packBlock)
	}
	n := len(a.block)
	a.block = append(a.block, b...)
	return a.block[n:len(a.block):len(a.block)]
}

// packIDs appends the node ids, each as its difference from the previous.
func packIDs(dst []byte, ids []int64) []byte {
	prev := int64(0)
	for _, id := range ids {
		dst = binary.AppendVarint(dst, id-prev) // should it wrap, idReader's sum wraps back
		prev = id
	}
	return dst
}

// packDeltas appends time deltas (ns, |d| <= maxScaled): d/1000 with a 0
// bit when d is whole µs, else d with a 1 bit.
func packDeltas(dst []byte, deltas []int64) []byte {
	for _, d := range deltas {
		if d%1000 == 0 {
			dst = binary.AppendVarint(dst, d/1000*2)
		} else {
			dst = binary.AppendVarint(dst, d*2+1)
		}
	}
	return dst
}

// deltaStats sum up a chunk's time deltas, so that chunkProfile need not
// read them one by one (28.8 M in a 525 MB trace) for the times' range and
// order.
type deltaStats struct {
	sum    int64 // of the deltas
	lo, hi int64 // the least and greatest running sum, the first delta's included
	first  int64 // the first delta
	dips   bool  // a delta after the first is negative
	// ok says the stats were counted: not when there are no deltas or
	// a running sum or a delta is beyond ±2^61; the deltas are then read
	// one by one.
	ok bool
}

// sumDeltas returns the stats of deltas (ns).
func sumDeltas(deltas []int64) deltaStats {
	const bound = 2 * maxScaled // running sums stay far from overflowing
	s := deltaStats{ok: len(deltas) > 0}
	for k, d := range deltas {
		if d > bound || d < -bound {
			return deltaStats{}
		}
		s.sum += d
		if s.sum > bound || s.sum < -bound {
			return deltaStats{}
		}
		if k == 0 {
			s.first, s.lo, s.hi = d, s.sum, s.sum
			continue
		}
		s.lo, s.hi = min(s.lo, s.sum), max(s.hi, s.sum)
		s.dips = s.dips || d < 0
	}
	return s
}

// idReader reads the ids packIDs wrote.
type idReader struct {
	b    []byte
	prev int64
}

func (r *idReader) next() int64 {
	v, n := binary.Varint(r.b)
	r.b = r.b[n:]
	r.prev += v
	return r.prev
}

// deltaReader reads the deltas packDeltas wrote.
type deltaReader struct{ b []byte }

func (r *deltaReader) next() int64 {
	v, n := binary.Varint(r.b)
	r.b = r.b[n:]
	if v&1 == 0 {
		return v / 2 * 1000
	}
	return (v - 1) / 2
}
