package pprofio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// A Rewrite is one big profile.proto read to be written out again whole
// (ctdiff convert of one input): its samples as pprofStream keeps them,
// each distinct stack once and a record of a few bytes a sample, not as a
// profile.Sample each. Read whole, the 3.5 GB profile.proto of a 515 MB
// DevTools trace (28.8 M samples) ran out of memory at 18 GB; read so and
// written again it takes 0.5 GB.
//
// What it writes is what Write writes of the profile profile.Parse reads
// from the input, byte for byte: labels sorted by key, strings interned in
// pprof's order.
type Rewrite struct {
	p    *profile.Profile // without samples
	ps   *pprofStream
	strs []string // the input's string table, which the labels index
	// With a selection of threads, the samples kept (a bit each), how
	// many, and the layouts of their labels in the order of the first
	// kept sample of each (those of no kept sample left out).
	keep  []uint64
	kept  int
	order []int32
}

// ReadRewrite reads the profile.proto r holds, decompressed: its samples
// as a Rewrite keeps them, the rest as parse (pprof's reader with the
// caller's checks) would where the decoder does not take it. cut is as
// ReadFields's. The samples are checked as Check says.
func ReadRewrite(r io.Reader, parse func([]byte) (*profile.Profile, error)) (x *Rewrite, cut int, err error) {
	// As StreamStacks reads: another goroutine decompresses ahead.
	ra := newReadAhead(r)
	defer ra.stop()
	ps := newPprofStream()
	ps.keysOnly = true
	pr := &pprofFieldReader{r: bufio.NewReaderSize(ra, 256<<10), sample: ps.add}
	meta, _, cut, err := pr.fields(nil)
	if err != nil {
		return nil, 0, err
	}
	ra.stop() // before bytesRead is read: the goroutine counts it
	p, strs, err := pprofStreamMeta(meta, parse)
	if err != nil {
		return nil, 0, err
	}
	x = &Rewrite{p: p, ps: ps, strs: strs}
	if err := x.check(); err != nil {
		return nil, 0, err
	}
	return x, cut, nil
}

// pprofStreamMeta decodes the profile's fields but its samples, as the
// fast decoder does where it can and pprof does where it cannot, and
// returns them with the string table the samples' labels index.
func pprofStreamMeta(meta []byte, parse func([]byte) (*profile.Profile, error)) (*profile.Profile, []string, error) {
	p, ok := Decode(meta, nil)
	if !ok || p.CheckValid() != nil {
		var err error // pprof's words, as parsePprof gives them
		if p, err = parse(meta); err != nil {
			return nil, nil, err
		}
	}
	var strs []string
	for b := meta; len(b) > 0; {
		f, rest, ok := next(b)
		if !ok {
			return nil, nil, errors.New("not a valid pprof profile: its fields are malformed")
		}
		if f.num == 6 {
			strs = append(strs, string(f.data))
		}
		b = rest
	}
	return p, strs, nil
}

// check checks the samples as pprof checks them, so that writing them
// cannot fail but for the writer: every sample has a value per sample
// type, names locations the profile has and strings its table has. (The
// caller checks the values: EachSample.)
func (x *Rewrite) check() error {
	ps, p := x.ps, x.p
	types := len(p.SampleType)
	if ps.n > 0 && types == 0 {
		return errNoSampleTypes
	}
	if ps.badValues > 0 || (ps.n > 0 && ps.nValues != types) {
		return fmt.Errorf("not a valid pprof profile: sample %d has a number of values other than its %d sample types", max(ps.badValues-1, 0), types)
	}
	known := map[uint64]bool{}
	for _, l := range p.Location {
		known[l.ID] = true
	}
	// The keys are whole varints (stack checked them). They become
	// pprof's encoding of the ids when one is not (a varint of more
	// bytes than it needs): the samples' field copies them.
	canonical := true
	for k := range len(ps.keyAt) - 1 {
		for key := ps.keys[ps.keyAt[k]:ps.keyAt[k+1]]; len(key) > 0; {
			u, w := varint(key)
			if w == 0 {
				return errors.New("not a valid pprof profile: a sample's location ids hold a malformed varint")
			}
			key = key[w:]
			if !known[u] {
				return fmt.Errorf("not a valid pprof profile: a sample names location id %d, which no location has", u)
			}
			canonical = canonical && w == varintLen(u)
		}
	}
	if !canonical {
		keys := make([]byte, 0, len(ps.keys))
		from := 0 // stack k's key in ps.keys, keyAt[k] before it changed
		for k := range len(ps.keyAt) - 1 {
			for key := ps.keys[from:ps.keyAt[k+1]]; len(key) > 0; {
				u, w := varint(key)
				key = key[w:]
				keys = appendVarintBytes(keys, u)
			}
			from, ps.keyAt[k+1] = ps.keyAt[k+1], len(keys)
		}
		ps.keys = keys
	}
	ps.ids, ps.table, ps.bigByID, ps.layoutBy = nil, nil, nil, nil
	for _, lay := range ps.layouts {
		for _, l := range lay.labels {
			// As postDecode reads them: a unit only of a numeric label.
			n := uint64(len(x.strs))
			if uint64(l.key) >= n || uint64(l.str) >= n || (l.num && uint64(l.unit) >= n) {
				return errors.New("not a valid pprof profile: a sample's label names a string the string table does not hold")
			}
		}
	}
	return nil
}

// EachSample calls fn with each sample in order, its number, the number
// of frames of its stack and its values (valid during the call), until
// fn returns false.
func (x *Rewrite) EachSample(fn func(i, frames int, vals []int64) bool) {
	ps := x.ps
	x.each(func(i int, k, _ int32, vals, _ []int64) bool {
		return fn(i, int(ps.at[k+1]-ps.at[k]), vals)
	})
}

// each calls fn with each sample in order: its number, its stack's and
// its layout's, its values and its layout's numbers (valid during the
// call), until fn returns false.
func (x *Rewrite) each(fn func(i int, k, lay int32, vals, nums []int64) bool) {
	ps := x.ps
	vals := make([]int64, max(ps.nValues, 0))
	clear(ps.lastValue)
	for _, lay := range ps.layouts {
		clear(lay.last)
	}
	i := 0
	for _, r := range append(ps.recs[:len(ps.recs):len(ps.recs)], ps.rec) {
		for len(r) > 0 {
			k, w := binary.Uvarint(r)
			r = r[w:]
			lay, w := binary.Uvarint(r)
			r = r[w:]
			for j := range vals {
				v, w := binary.Varint(r)
				r = r[w:]
				ps.lastValue[j] += v
				vals[j] = ps.lastValue[j]
			}
			last := ps.layouts[lay].last
			for j := range last {
				v, w := binary.Varint(r)
				r = r[w:]
				last[j] += v
			}
			if !fn(i, int32(k), int32(lay), vals, last) {
				return
			}
			i++
		}
	}
}

// Profile returns the profile without its samples.
func (x *Rewrite) Profile() *profile.Profile { return x.p }

// Len returns the number of samples (kept).
func (x *Rewrite) Len() int {
	if x.keep != nil {
		return x.kept
	}
	return x.ps.n
}

// SelectThreads keeps the samples of the threads keep says to keep: each
// sample's thread as StreamStacks makes it, a thread's samples all kept
// or all dropped. It returns the names of the threads seen and how many
// samples are kept.
func (x *Rewrite) SelectThreads(keepThread func(stacks.Thread) bool) (seen map[string]bool, kept int, err error) {
	lt, err := x.ps.layoutThreads(&pprofDecoder{strings: x.strs})
	if err != nil {
		return nil, 0, err
	}
	byThread := map[stacks.Thread]bool{}
	seen = map[string]bool{}
	first := make([]int, len(lt)) // each layout's first kept sample, plus one
	x.keep = make([]uint64, (x.ps.n+63)/64)
	x.each(func(i int, _, lay int32, _, nums []int64) bool {
		t := &lt[lay]
		id := t.th
		if t.pid >= 0 {
			id.PID, id.HasPID = nums[t.pid], true
		}
		if t.tid >= 0 {
			id.TID, id.HasTID = nums[t.tid], true
		}
		keep, known := byThread[id]
		if !known {
			seen[id.Name()] = true
			keep = keepThread(id)
			byThread[id] = keep
		}
		if keep {
			x.keep[i>>6] |= 1 << (i & 63)
			x.kept++
			if first[lay] == 0 {
				first[lay] = i + 1
				x.order = append(x.order, lay)
			}
		}
		return true
	})
	return seen, x.kept, nil
}

// Write writes the profile gzipped, as Write writes the profile
// profile.Parse reads from the input.
func (x *Rewrite) Write(w io.Writer) error {
	labels, layouts := x.labelStrings()
	return WriteEncoded(w, x.p, labels, func(ids []int64, emit func([]byte) error) error {
		for i := range layouts {
			layouts[i].encode(ids)
		}
		ps := x.ps
		var b, sub []byte
		var err error
		x.each(func(i int, k, lay int32, vals, nums []int64) bool {
			if x.keep != nil && x.keep[i>>6]&(1<<(i&63)) == 0 {
				return true
			}
			b = b[:0]
			// The location ids, as pprof's encodeUint64s writes them:
			// packed from three (the key as it is), else a field each.
			key := ps.keys[ps.keyAt[k]:ps.keyAt[k+1]]
			if ps.at[k+1]-ps.at[k] > 2 {
				b = appendVarintBytes(append(b, 1<<3|2), uint64(len(key)))
				b = append(b, key...)
			} else {
				for len(key) > 0 {
					u, w := varint(key)
					key = key[w:]
					b = appendVarintBytes(append(b, 1<<3), u)
				}
			}
			b = appendValues(b, vals)
			l := &layouts[lay]
			b = append(b, l.strs...)
			for _, n := range l.nums {
				sub = appendOptVarint(sub[:0], 1, uint64(n.key))
				sub = appendOptVarint(sub, 3, uint64(nums[n.j]))
				sub = appendOptVarint(sub, 4, uint64(n.unit))
				b = append(appendVarintBytes(append(b, 3<<3|2), uint64(len(sub))), sub...)
			}
			err = emit(b)
			return err == nil
		})
		return err
	})
}

// A labelLayout is a layout's labels as pprof writes them: its string
// labels, sorted by key, then its numeric ones, sorted by key (stable:
// the values of a key keep their order, as in pprof's Label maps).
type labelLayout struct {
	str  []labelAt // the string labels, in order
	nums []numAt   // the numeric ones, in order
	strs []byte    // the string labels encoded (encode)
}

// labelAt is a string label: the places of its key and value in the
// strings labelStrings returns.
type labelAt struct{ key, value int }

// numAt is a numeric label: the places of its key and unit in the strings
// labelStrings returns (made ids by encode), and the index of its value
// in its layout's numbers.
type numAt struct {
	keyAt, unitAt int
	key, unit     int64
	j             int
}

// labelStrings returns the strings of the samples' labels in the order
// pprof interns them (preEncode): a layout's at its first sample, and
// layouts are numbered in the order of their first samples (of those
// kept: x.order); and each layout's labels in the order pprof writes them.
func (x *Rewrite) labelStrings() ([]string, []labelLayout) {
	var out []string
	layouts := make([]labelLayout, len(x.ps.layouts))
	order := x.order
	if x.keep == nil {
		order = make([]int32, len(x.ps.layouts))
		for i := range order {
			order[i] = int32(i)
		}
	}
	for _, i := range order {
		lay := x.ps.layouts[i]
		type numLabel struct {
			l layoutLabel
			j int
		}
		var strLabels []layoutLabel
		var numLabels []numLabel
		j := 0
		for _, l := range lay.labels {
			switch {
			case l.str != 0:
				strLabels = append(strLabels, l)
			case l.num:
				numLabels = append(numLabels, numLabel{l, j})
				j++
			}
		}
		slices.SortStableFunc(strLabels, func(a, b layoutLabel) int { return strings.Compare(x.strs[a.key], x.strs[b.key]) })
		slices.SortStableFunc(numLabels, func(a, b numLabel) int { return strings.Compare(x.strs[a.l.key], x.strs[b.l.key]) })
		ll := &layouts[i]
		for _, l := range strLabels {
			ll.str = append(ll.str, labelAt{len(out), len(out) + 1})
			out = append(out, x.strs[l.key], x.strs[l.str])
		}
		for _, n := range numLabels {
			// A label without a unit has none written, as pprof pads a
			// key's units with "": "" is string 0.
			ll.nums = append(ll.nums, numAt{keyAt: len(out), unitAt: len(out) + 1, j: n.j})
			out = append(out, x.strs[n.l.key], x.strs[n.l.unit])
		}
	}
	return out, layouts
}

// encode makes l's labels' bytes and ids from the strings' ids.
func (l *labelLayout) encode(ids []int64) {
	var sub []byte
	for _, s := range l.str {
		sub = appendOptVarint(appendOptVarint(sub[:0], 1, uint64(ids[s.key])), 2, uint64(ids[s.value]))
		l.strs = append(appendVarintBytes(append(l.strs, 3<<3|2), uint64(len(sub))), sub...)
	}
	for j := range l.nums {
		n := &l.nums[j]
		n.key, n.unit = ids[n.keyAt], ids[n.unitAt]
	}
}

// appendOptVarint appends a varint field unless it is 0, as pprof's
// encodeUint64Opt.
func appendOptVarint(b []byte, tag int, u uint64) []byte {
	if u == 0 {
		return b
	}
	return appendVarintBytes(appendVarintBytes(b, uint64(tag)<<3), u)
}

// appendValues appends a sample's values as pprof's encodeInt64s: packed
// from three, else a field each.
func appendValues(b []byte, vals []int64) []byte {
	if len(vals) <= 2 {
		for _, v := range vals {
			b = appendVarintBytes(append(b, 2<<3), uint64(v))
		}
		return b
	}
	n := 0
	for _, v := range vals {
		n += varintLen(uint64(v))
	}
	b = appendVarintBytes(append(b, 2<<3|2), uint64(n))
	for _, v := range vals {
		b = appendVarintBytes(b, uint64(v))
	}
	return b
}
