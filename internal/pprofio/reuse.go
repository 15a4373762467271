package pprofio

import (
	"bytes"
	"slices"

	"github.com/google/pprof/profile"

	"github.com/ctdiff/ctdiff/stacks"
)

// Buffers hold what reading a pprof profile can reuse from the profile a
// goroutine read before (Options.Buffers), as cmd/ctdiff's goroutines read
// the runs of a diff one after another:
//
//   - the arrays of its compact samples, once the caller gives them back
//     (Keep): a 20,000-stack run's are 2.8 MB, which were allocated and
//     cleared for each of 200 runs, and garbage once its tree was built;
//   - its tables (mappings, locations, functions and strings), decoded and
//     linked: where runs repeat them byte for byte (the 100 + 100 runs of
//     the synthetic diff do: 5,001 locations and functions, 5,406 strings),
//     the next profile shares them instead of decoding and allocating them
//     again. Go's runtime/pprof numbers locations in the order it meets
//     them, so its runs rarely repeat them (testdata/example's do not): for
//     those the comparison stops at the first differing byte, and keeping
//     each profile's tables is the cost. They are never modified after
//     decoding, so sharing them is safe.
//
// Not for concurrent use; the zero value is empty.
type Buffers struct {
	arrays stackArrays
	// tables are the last profile's that were valid (Profile.CheckValid),
	// pending the tables of the profile being read, until it is found
	// valid (CommitTables); reused says that profile shares tables.
	tables, pending *pprofTables
	reused          bool
}

// stackArrays are the arrays of compact samples.
type stackArrays struct {
	locs, ends, threads []int32
	values              []int64
}

// Keep gives back the arrays of samples read with these Buffers that the
// caller, and whatever shares their arrays, no longer uses: the next
// profile read overwrites them. Other samples are ignored.
func (b *Buffers) Keep(s *stacks.Samples) {
	if b == nil || s == nil || s.Starts != nil {
		return
	}
	a := &b.arrays
	if cap(s.Locations) > cap(a.locs) {
		a.locs = s.Locations[:0]
	}
	if cap(s.Ends) > cap(a.ends) {
		a.ends = s.Ends[:0]
	}
	if cap(s.SampleThreads) > cap(a.threads) {
		a.threads = s.SampleThreads[:0]
	}
	if cap(s.Values) > cap(a.values) {
		a.values = s.Values[:0]
	}
}

// takeArrays empties the arrays held, returning them (none for nil), so
// that two profiles never share arrays whatever the caller gives back.
func (b *Buffers) takeArrays() stackArrays {
	if b == nil {
		return stackArrays{}
	}
	a := b.arrays
	b.arrays = stackArrays{}
	return a
}

// lend returns s with length n, uncleared, when it has the room, else a
// new array.
func lend[T int32 | int64](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// pprofTables are a profile's tables as resolve linked them, and raw, the
// bytes of their fields (numbers 3 to 6: mapping, location, function,
// string_table) in the order the profile holds them, from which they were
// decoded: they are a function of those bytes alone.
type pprofTables struct {
	raw      []byte
	strings  []string
	mapping  []*profile.Mapping
	function []*profile.Function
	location []*profile.Location
	locByID  []*profile.Location
	locByX   map[uint64]*profile.Location
	idxByID  []int32
	idxByX   map[uint64]int32
}

// ownTables are the decoder's scratch tables, set aside while it uses
// known ones (pprofDecoder.release gives them back).
type ownTables struct {
	strings []string
	set     bool
}

// isTable says a top-level field is one of the tables.
func isTable(num int) bool { return num >= 3 && num <= 6 }

// sameTables returns the tables b holds when data's table fields are
// byte for byte the fields they were decoded from, else nil.
func (b *Buffers) sameTables(data []byte) *pprofTables {
	if b == nil {
		return nil
	}
	b.pending, b.reused = nil, false
	if b.tables == nil {
		return nil
	}
	raw := b.tables.raw
	for rest := data; len(rest) > 0; {
		if rest[0] == 2<<3|2 { // a sample, most of the fields: skipped
			l, n := varint(rest[1:])
			if n == 0 || l > uint64(len(rest)-1-n) {
				return nil
			}
			rest = rest[1+n+int(l):]
			continue
		}
		f, after, ok := next(rest)
		if !ok {
			return nil
		}
		if isTable(f.num) {
			n := len(rest) - len(after)
			if n > len(raw) || !bytes.Equal(rest[:n], raw[:n]) {
				return nil
			}
			raw = raw[n:]
		}
		rest = after
	}
	if len(raw) > 0 {
		return nil
	}
	b.reused = true
	return b.tables
}

// ReusedTables says the profile just decoded shares the tables of one
// read before, which were found valid then.
func (b *Buffers) ReusedTables() bool { return b != nil && b.reused }

// CommitTables keeps the tables of the profile just decoded, found valid,
// for the next one.
func (b *Buffers) CommitTables() {
	if b != nil && b.pending != nil {
		b.tables, b.pending = b.pending, nil
	}
}

// keepTables records the tables d decoded and linked from data, to be
// kept for the next profile (sameTables) once found valid.
func (b *Buffers) keepTables(d *pprofDecoder, data []byte) {
	if b == nil {
		return
	}
	var raw []byte
	for rest := data; len(rest) > 0; {
		if rest[0] == 2<<3|2 {
			l, n := varint(rest[1:])
			if n == 0 || l > uint64(len(rest)-1-n) {
				return
			}
			rest = rest[1+n+int(l):]
			continue
		}
		f, after, ok := next(rest)
		if !ok {
			return
		}
		if isTable(f.num) {
			raw = append(raw, rest[:len(rest)-len(after)]...)
		}
		rest = after
	}
	p := d.p
	b.pending = &pprofTables{
		raw:      raw,
		strings:  slices.Clone(d.strings),
		mapping:  slices.Clone(p.Mapping),
		function: slices.Clone(p.Function),
		location: slices.Clone(p.Location),
		locByID:  slices.Clone(d.locByID),
		locByX:   d.locByX,
		idxByID:  slices.Clone(d.idxByID),
		idxByX:   d.idxByX,
	}
}
