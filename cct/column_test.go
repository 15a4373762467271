package cct

import (
	"fmt"
	"testing"
)

// A column gives back its frames in order across chunks, holds them in
// chunks of minChunk to maxChunk frames (no more room than one chunk beyond
// what it holds), and after reset refills the chunks it has without
// allocating.
func TestColumn(t *testing.T) {
	for _, n := range []int{0, 1, minChunk - 1, minChunk, minChunk + 1, 3*maxChunk + 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			c := column{ci: -1}
			fill := func(n, seed int) {
				for i := range n {
					if c.off == len(c.cur) {
						c.next()
					}
					c.cur[c.off] = FrameID(i*7 + seed)
					c.off++
				}
			}
			check := func(n, seed int) {
				t.Helper()
				if got := c.len(); got != n {
					t.Fatalf("len %d, want %d", got, n)
				}
				r := columnReader{chunks: c.chunks}
				for i := range n {
					if f := r.read(); f != FrameID(i*7+seed) {
						t.Fatalf("frame %d is %d, want %d", i, f, i*7+seed)
					}
				}
			}
			fill(n, 1)
			check(n, 1)
			room := 0
			for k, ch := range c.chunks {
				if len(ch) < minChunk || len(ch) > maxChunk {
					t.Errorf("chunk %d holds %d frames, want %d to %d", k, len(ch), minChunk, maxChunk)
				}
				room += len(ch)
			}
			if n > 0 && room-n >= maxChunk {
				t.Errorf("%d frames in room for %d: more than a chunk to spare", n, room)
			}
			// Half as many frames again: the chunks are reused.
			c.reset()
			if allocs := testing.AllocsPerRun(1, func() { c.reset(); fill(n/2, 3) }); allocs != 0 {
				t.Errorf("refilling after reset allocated %.0f times", allocs)
			}
			check(n/2, 3)
		})
	}
}

// withRoom keeps the contents and leaves a slice with room alone.
func TestWithRoom(t *testing.T) {
	s := withRoom([]int32{1, 2, 3}, 10)
	if len(s) != 3 || cap(s) < 10 || s[0] != 1 || s[2] != 3 {
		t.Fatalf("withRoom([1 2 3], 10) = %v, cap %d", s, cap(s))
	}
	if r := withRoom(s, 5); &r[0] != &s[0] {
		t.Error("withRoom reallocated a slice with room")
	}
}
