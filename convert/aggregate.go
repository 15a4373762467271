package convert

import (
	"encoding/binary"
	"hash/maphash"
	"maps"
	"slices"

	"github.com/google/pprof/profile"
)

// aggregate merges samples with the same stack and labels, adding their
// values, in place and in order of first appearance. pprof's Compact does
// the same but copies every sample's stack, which for a call tree reader's
// samples (stackpool.go: many share one array) is depth × samples; here the
// samples keep theirs, and a stack many samples share is hashed once.
func aggregate(p *profile.Profile) {
	type ident struct {
		first **profile.Location
		n     int
	}
	seed := maphash.MakeSeed()
	stackHash := map[ident]uint64{}
	buckets := map[uint64][]int{} // hash → indexes in out
	out := p.Sample[:0]
	for _, s := range p.Sample {
		h := uint64(len(s.Location))
		if len(s.Location) > 0 {
			id := ident{&s.Location[0], len(s.Location)}
			var ok bool
			if h, ok = stackHash[id]; !ok {
				var mh maphash.Hash
				mh.SetSeed(seed)
				var b [8]byte
				for _, l := range s.Location {
					mh.Write(binary.LittleEndian.AppendUint64(b[:0], l.ID))
				}
				h = mh.Sum64()
				stackHash[id] = h
			}
		}
		h ^= labelHash(seed, s)
		merged := false
		for _, i := range buckets[h] {
			if o := out[i]; slices.Equal(o.Location, s.Location) && sameLabels(o, s) {
				for j, v := range s.Value {
					o.Value[j] += v // Read checked that the totals fit
				}
				merged = true
				break
			}
		}
		if !merged {
			buckets[h] = append(buckets[h], len(out))
			// The values may be shared with another sample (a reader's
			// slab): the sum needs its own.
			s.Value = slices.Clone(s.Value)
			out = append(out, s)
		}
	}
	clear(p.Sample[len(out):])
	p.Sample = out
}

func labelHash(seed maphash.Seed, s *profile.Sample) uint64 {
	var h uint64
	for k, v := range s.Label { // XOR: map order does not matter
		h ^= maphash.String(seed, k) * 31
		for _, x := range v {
			h ^= maphash.String(seed, x)
		}
	}
	for k, v := range s.NumLabel {
		h ^= maphash.String(seed, k) * 37
		for _, x := range v {
			h ^= maphash.Comparable(seed, x)
		}
	}
	return h
}

func sameLabels(a, b *profile.Sample) bool {
	return maps.EqualFunc(a.Label, b.Label, slices.Equal) && maps.EqualFunc(a.NumLabel, b.NumLabel, slices.Equal) &&
		maps.EqualFunc(a.NumUnit, b.NumUnit, slices.Equal)
}
