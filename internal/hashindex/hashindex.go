// Package hashindex finds values by hash in tables of millions: an Index
// maps 64-bit hashes to int32 ids whose keys the caller keeps (in a
// slice, an arena), and a Table interns values of a comparable type in a
// slice of its own. A slot is 8 bytes (the hash's top half and the id),
// and the index is at most three quarters full: 11-21 bytes an id, where
// a Go map keyed by the values themselves holds a copy of each key in
// every slot (a map of a million 72-byte frames was 150-250 MB).
package hashindex

import "hash/maphash"

// An Index maps hashes to ids. The zero value is empty and ready.
type Index struct {
	// slots hold the top 32 bits of an id's hash and id+1, 0 when empty.
	// The slot of a hash is found from its top bits too, so the table
	// grows without the ids' hashes being computed again.
	slots []uint64
	n     int
}

// Len returns the number of ids added.
func (x *Index) Len() int { return x.n }

// Find returns the first id added under hash h for which eq returns true.
// eq is called only for ids whose hashes agree with h in their top half.
func (x *Index) Find(h uint64, eq func(id int32) bool) (int32, bool) {
	if len(x.slots) == 0 {
		return 0, false
	}
	mask := uint64(len(x.slots) - 1)
	tag := h >> 32
	for j := tag & mask; x.slots[j] != 0; j = (j + 1) & mask {
		if e := x.slots[j]; e>>32 == tag {
			if id := int32(uint32(e)) - 1; eq(id) {
				return id, true
			}
		}
	}
	return 0, false
}

// Add adds id under hash h. It does not look for an id added before: the
// caller has found none (Find), or wants both.
func (x *Index) Add(h uint64, id int32) {
	if 4*(x.n+1) > 3*len(x.slots) {
		x.grow(max(2*len(x.slots), 16))
	}
	x.put(h>>32<<32 | uint64(uint32(id+1)))
	x.n++
}

// Reserve makes room for n ids in all without growing.
func (x *Index) Reserve(n int) {
	size := 16
	for 4*n > 3*size {
		size *= 2
	}
	if size > len(x.slots) {
		x.grow(size)
	}
}

func (x *Index) put(e uint64) {
	mask := uint64(len(x.slots) - 1)
	j := e >> 32 & mask
	for x.slots[j] != 0 {
		j = (j + 1) & mask
	}
	x.slots[j] = e
}

func (x *Index) grow(size int) {
	old := x.slots
	x.slots = make([]uint64, size)
	for _, e := range old {
		if e != 0 {
			x.put(e)
		}
	}
}

// A Seed makes the hashes of one index. The zero value makes a random
// seed when first used.
type Seed struct {
	s  maphash.Seed
	ok bool
}

// Hash returns the hash of v under seed s.
func Hash[T comparable](s *Seed, v T) uint64 {
	if !s.ok {
		s.s, s.ok = maphash.MakeSeed(), true
	}
	return maphash.Comparable(s.s, v)
}

// A Table interns values: each distinct value gets the next id, its index
// in Values. The zero value is empty and ready.
type Table[T comparable] struct {
	// Values holds the values by id. Callers may read it, not write it.
	Values []T
	index  Index
	seed   Seed
}

// Intern returns the id of v, adding it when new, and whether it was.
func (t *Table[T]) Intern(v T) (id int32, added bool) {
	h := Hash(&t.seed, v)
	if id, ok := t.index.Find(h, func(id int32) bool { return t.Values[id] == v }); ok {
		return id, false
	}
	id = int32(len(t.Values))
	t.Values = append(t.Values, v)
	t.index.Add(h, id)
	return id, true
}

// Find returns the id of v, if the table has it.
func (t *Table[T]) Find(v T) (int32, bool) {
	return t.index.Find(Hash(&t.seed, v), func(id int32) bool { return t.Values[id] == v })
}

// Len returns the number of values.
func (t *Table[T]) Len() int { return len(t.Values) }
