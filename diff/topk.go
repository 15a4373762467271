package diff

import "slices"

// best keeps the k first values of a stream in the order cmp, which must
// be total (no ties between distinct values) so that the result does not
// depend on the stream's order. Sorting a million candidates to report ten
// was most of PARCS's weight matching on a million-node tree; a bounded
// heap costs one comparison with its weakest member for most candidates.
type best[T any] struct {
	k   int
	cmp func(a, b T) int
	h   []T // a max-heap by cmp: h[0] is the weakest value kept
}

func newBest[T any](k int, cmp func(a, b T) int) *best[T] {
	return &best[T]{k: max(k, 0), cmp: cmp, h: make([]T, 0, max(k, 0))}
}

// add offers v.
func (b *best[T]) add(v T) {
	switch {
	case len(b.h) < b.k:
		b.h = append(b.h, v)
		b.up(len(b.h) - 1)
	case b.k > 0 && b.cmp(v, b.h[0]) < 0:
		b.h[0] = v
		b.down(0)
	}
}

// sorted returns the values kept, first first.
func (b *best[T]) sorted() []T {
	out := slices.Clone(b.h)
	slices.SortFunc(out, b.cmp)
	return out
}

func (b *best[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if b.cmp(b.h[i], b.h[p]) <= 0 {
			return
		}
		b.h[i], b.h[p] = b.h[p], b.h[i]
		i = p
	}
}

func (b *best[T]) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(b.h) {
			return
		}
		c := l
		if r := l + 1; r < len(b.h) && b.cmp(b.h[r], b.h[l]) > 0 {
			c = r
		}
		if b.cmp(b.h[c], b.h[i]) <= 0 {
			return
		}
		b.h[i], b.h[c] = b.h[c], b.h[i]
		i = c
	}
}
