package pprofio

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"runtime"
	"runtime/debug"

	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// A big pprof file is decoded as it is decompressed, never held whole:
// the samples (most of its bytes: a 515 MB DevTools trace converted is 3.5
// GB of profile.proto, 28.8 M samples of 38 frames) are taken one at a
// time, and each distinct stack is kept once, as its location ids, which
// the samples share (stacks.Samples.Starts), as call tree readers share a
// node's stack. What the samples name by number (locations, strings) is
// resolved at the end, since writers put the samples first. Memory then
// grows with the distinct stacks and, per sample, with what the tree needs
// (values, timestamp, thread), not with the samples' frames: ctdiff cct
// of that file went from 15.3 GB of peak RSS to 1.96 GB (BENCHMARKS.md).

// errNoSampleTypes is pprof's error (CheckValid's) for samples without
// sample types, which a profile checked without its samples passes.
var errNoSampleTypes = errors.New("not a valid pprof profile: malformed profile: missing sample type information")

// pprofStream collects the samples of a profile.proto as fields
// hands them over (add), and makes them stacks.Samples once the rest of
// the profile is known (samples).
type pprofStream struct {
	// The distinct stacks: stack k is keys[keyAt[k]:keyAt[k+1]], its
	// packed location ids as they were written, and ids[at[k]:at[k+1]],
	// the ids decoded: those below MaxInt32 as they are, others as -1-j
	// for bigIDs[j].
	keys    []byte
	keyAt   []int
	ids     []int32
	at      []int32
	bigIDs  []uint64
	bigByID map[uint64]int32
	// keysOnly leaves ids empty, at counting the ids each key holds: a
	// profile written again (PprofStream) needs only the keys, and the
	// ids of 18.5 M frames were 74 MB, and 470 MB allocated growing.
	keysOnly bool
	frames   int // the ids the keys hold
	// table is a hash table of stacks by their keys: a slot holds the
	// high 32 bits of the key's hash and k+1 (0 is empty), so that a probe
	// reads a key only when the hashes agree (the keys are tens of MB: a
	// read is a cache miss).
	table []uint64
	seed  maphash.Seed

	// Per sample, a record in recs: its stack's number, its label
	// layout's (an index in layouts), its values and its layout's
	// numbers, as varints; the values and numbers as the difference from
	// the previous sample's (of that layout, for the numbers): a few bytes
	// a sample where the arrays that come of them take 36 or more (a
	// DevTools trace's sample has a timestamp, a pid and a tid). They are
	// expanded once the count is known, into arrays of the exact size.
	recs      [][]byte
	rec       []byte // the current chunk of recs
	n         int    // samples
	nValues   int    // per sample, as the first sample has them
	badValues int    // the first sample with another number of values, plus one
	lastValue []int64
	layouts   []pprofLayout
	layoutBy  map[string]int32

	// The previous sample's layout, which the next often repeats.
	prevLayout     int32
	key, layoutKey []byte
	prevLayoutKey  []byte
	lbls           []sampleLabel
	values, nums   []int64
	r              []byte // a record
}

// recChunk is the largest chunk of pprofStream.recs.
const recChunk = 8 << 20

// A pprofLayout is the labels of samples with their numbers left out:
// the strings are those of its samples; the numbers are each sample's.
type pprofLayout struct {
	labels    []layoutLabel
	nums      int
	last      []int64 // the numbers of its last sample
	prevStack int32   // the stack of its last sample
}

// layoutLabel is one label of a layout: a string label (str set), a
// numeric one (num), or one pprof drops (neither: a zero without a unit).
type layoutLabel struct {
	key, str, unit int64
	num            bool
}

func newPprofStream() *pprofStream {
	return &pprofStream{table: make([]uint64, 1<<12), seed: maphash.MakeSeed(), nValues: -1, prevLayout: -1,
		layoutBy: map[string]int32{}, at: []int32{0}, keyAt: []int{0}}
}

// StreamStacks decodes the profile.proto r holds, decompressed, as it is
// read (pprofStream), the samples as stacks.Samples whose stacks are each
// kept once. parse is pprof's reader with the caller's checks, which says
// what is wrong with a profile the decoder refuses; from big samples on,
// memory is given back to the system between the steps. cut is as
// ReadFields's.
func StreamStacks(r io.Reader, parse func([]byte) (*profile.Profile, error), big int) (p *profile.Profile, s *stacks.Samples, cut int, err error) {
	// Decompressing takes a fifth of the time: another goroutine does it
	// ahead of the decoder.
	ra := newReadAhead(r)
	defer ra.stop()
	ps := newPprofStream()
	pr := &pprofFieldReader{r: bufio.NewReaderSize(ra, 256<<10), sample: ps.add}
	meta, counts, cut, err := pr.fields(nil)
	if err != nil {
		return nil, nil, 0, err
	}
	ra.stop() // before bytesRead is read: the goroutine counts it
	p, s, err = ps.samples(meta, counts, parse, big)
	return p, s, cut, err
}

// A readAhead reads r in a goroutine, a block ahead of its reader.
type readAhead struct {
	blocks chan readBlock
	free   chan []byte
	done   chan struct{}
	exited chan struct{}
	cur    readBlock
	off    int
}

type readBlock struct {
	b   []byte
	err error
}

const readAheadBlock = 1 << 20

func newReadAhead(r io.Reader) *readAhead {
	ra := &readAhead{blocks: make(chan readBlock, 2), free: make(chan []byte, 4), done: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		defer close(ra.exited)
		size := 64 << 10 // doubling up to readAheadBlock: a small input takes little
		for {
			var b []byte
			select {
			case b = <-ra.free:
			default:
				b = make([]byte, size)
				size = min(2*size, readAheadBlock)
			}
			n, err := io.ReadFull(r, b[:cap(b)])
			if err == io.ErrUnexpectedEOF {
				err = io.EOF
			}
			select {
			case ra.blocks <- readBlock{b[:n], err}:
			case <-ra.done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return ra
}

func (ra *readAhead) Read(p []byte) (int, error) {
	for ra.off == len(ra.cur.b) {
		if ra.cur.err != nil {
			return 0, ra.cur.err
		}
		if ra.cur.b != nil {
			select {
			case ra.free <- ra.cur.b:
			default:
			}
		}
		ra.cur, ra.off = <-ra.blocks, 0
	}
	n := copy(p, ra.cur.b[ra.off:])
	ra.off += n
	return n, nil
}

// stop ends the goroutine and waits for it: once stop returns, nothing
// reads the underlying reader.
func (ra *readAhead) stop() {
	select {
	case <-ra.done:
	default:
		close(ra.done)
	}
	<-ra.exited
}

// add takes one Sample message, found at byte at.
func (ps *pprofStream) add(b []byte, at int64) error {
	if err := ps.fields(b, at); err != nil {
		return err
	}
	key, lbls, values := ps.key, ps.lbls, ps.values
	if ps.n >= math.MaxInt32 {
		return errAtOffset(at, "more than %d samples: more than a profile may have", math.MaxInt32)
	}
	if ps.nValues < 0 {
		ps.nValues = len(values)
		ps.lastValue = make([]int64, len(values))
	} else if len(values) != ps.nValues && ps.badValues == 0 {
		ps.badValues = ps.n + 1
	}
	x := ps.layout(lbls)
	// A thread's samples often repeat its last stack: its layout's.
	lay := &ps.layouts[x]
	k, err := ps.stack(key, lay.prevStack, at)
	if err != nil {
		return err
	}
	lay.prevStack = k
	r := binary.AppendUvarint(binary.AppendUvarint(ps.r[:0], uint64(k)), uint64(x))
	if ps.badValues == 0 {
		for j, v := range values {
			r = binary.AppendVarint(r, v-ps.lastValue[j])
			ps.lastValue[j] = v
		}
	}
	last := ps.layouts[x].last
	for j, v := range ps.nums {
		r = binary.AppendVarint(r, v-last[j])
		last[j] = v
	}
	if len(ps.rec)+len(r) > cap(ps.rec) { // a chunk is never grown: a new one
		if len(ps.rec) > 0 {
			ps.recs = append(ps.recs, ps.rec)
		}
		// Chunks double up to recChunk: a small profile takes little.
		ps.rec = make([]byte, 0, max(min(2*cap(ps.rec), recChunk), 4096, len(r)))
	}
	ps.rec, ps.r = append(ps.rec, r...), r
	ps.n++
	return nil
}

// fields decodes a Sample message, found at byte at, into ps.key (its
// packed location ids), ps.lbls and ps.values.
func (ps *pprofStream) fields(b []byte, at int64) error {
	key, lbls, values := ps.key[:0], ps.lbls[:0], ps.values[:0]
	for len(b) > 0 {
		// The fields as writers write them (packed ids, values packed
		// or not, labels) without a call to next.
		switch k := b[0]; k {
		case 1<<3 | 2, 2<<3 | 2, 3<<3 | 2:
			l, w := varint(b[1:])
			if w == 0 || l > uint64(len(b)-1-w) {
				return errAtOffset(at, "not a valid pprof profile: a sample's field %d is cut off", k>>3)
			}
			p := b[1+w : 1+w+int(l)]
			b = b[1+w+int(l):]
			switch k >> 3 {
			case 1:
				if len(p) > 0 && p[len(p)-1] >= 0x80 {
					return errAtOffset(at, "not a valid pprof profile: a sample's location ids end in a cut-off varint")
				}
				key = append(key, p...)
			case 2:
				var ok bool
				if values, ok = packedInt64s(values, p); !ok {
					return errAtOffset(at, "not a valid pprof profile: a sample's values hold a malformed varint")
				}
			default:
				l, ok := labelBytes(p)
				if !ok {
					return errAtOffset(at, "not a valid pprof profile: a sample's label is malformed")
				}
				lbls = append(lbls, l)
			}
			continue
		case 2 << 3:
			if u, w := varint(b[1:]); w > 0 {
				values, b = append(values, int64(u)), b[1+w:]
				continue
			}
		}
		f, rest, ok := next(b)
		if !ok {
			return errAtOffset(at, "not a valid pprof profile: a sample's fields are malformed")
		}
		b = rest
		var err error
		if key, values, lbls, err = otherSampleField(f, key, values, lbls, at); err != nil {
			return err
		}
	}
	ps.key, ps.lbls, ps.values = key, lbls, values
	return nil
}

// otherSampleField decodes a Sample field fields does not take on its
// fast path, appending to key, values or lbls.
func otherSampleField(f field, key []byte, values []int64, lbls []sampleLabel, at int64) ([]byte, []int64, []sampleLabel, error) {
	var ok bool
	switch f.num {
	case 1:
		switch f.typ {
		case 0:
			key = appendVarintBytes(key, f.u)
		case 2:
			if len(f.data) > 0 && f.data[len(f.data)-1] >= 0x80 {
				return nil, nil, nil, errAtOffset(at, "not a valid pprof profile: a sample's location ids end in a cut-off varint")
			}
			key = append(key, f.data...)
		default:
			return nil, nil, nil, errAtOffset(at, "not a valid pprof profile: a sample's location ids have wire type %d", f.typ)
		}
	case 2:
		if values, ok = repeated(f, values); !ok {
			return nil, nil, nil, errAtOffset(at, "not a valid pprof profile: a sample's values are malformed")
		}
	case 3:
		l, ok := parseLabel(f)
		if !ok {
			return nil, nil, nil, errAtOffset(at, "not a valid pprof profile: a sample's label is malformed")
		}
		lbls = append(lbls, l)
	}
	return key, values, lbls, nil
}

// labelBytes decodes a Label message as parseLabel does, its fields of
// one-byte keys without a call to next or a closure.
func labelBytes(p []byte) (l sampleLabel, ok bool) {
	for b := p; len(b) > 0; {
		k := b[0]
		if k&7 != 0 || k >= 0x80 || k < 1<<3 {
			return parseLabel(field{num: 3, typ: 2, data: p})
		}
		u, w := varint(b[1:])
		if w == 0 {
			return l, false
		}
		b = b[1+w:]
		switch k >> 3 {
		case 1:
			l.key = int64(u)
		case 2:
			l.str = int64(u)
		case 3:
			l.num = int64(u)
		case 4:
			l.unit = int64(u)
		}
	}
	return l, true
}

// stack returns the number of the stack whose packed ids are key, adding
// it if it is new; prev is the stack to try first (-1 for none).
func (ps *pprofStream) stack(key []byte, prev int32, at int64) (int32, error) {
	if k := prev; k >= 0 && bytes.Equal(key, ps.keys[ps.keyAt[k]:ps.keyAt[k+1]]) {
		return k, nil
	}
	mask := uint64(len(ps.table) - 1)
	h := maphash.Bytes(ps.seed, key)
	for j := h & mask; ps.table[j] != 0; j = (j + 1) & mask {
		if e := ps.table[j]; e>>32 == h>>32 {
			if k := int32(uint32(e)) - 1; bytes.Equal(key, ps.keys[ps.keyAt[k]:ps.keyAt[k+1]]) {
				return k, nil
			}
		}
	}
	// A new stack: its ids decoded, and checked as pprof checks them.
	for p := key; len(p) > 0; {
		u, w := varint(p)
		if w == 0 {
			return 0, errAtOffset(at, "not a valid pprof profile: a sample's location ids hold a malformed varint")
		}
		p = p[w:]
		ps.frames++
		if ps.keysOnly {
			continue
		}
		if u < math.MaxInt32 {
			ps.ids = append(ps.ids, int32(u))
			continue
		}
		j, found := ps.bigByID[u]
		if !found {
			if ps.bigByID == nil {
				ps.bigByID = map[uint64]int32{}
			}
			j = int32(len(ps.bigIDs))
			ps.bigIDs = append(ps.bigIDs, u)
			ps.bigByID[u] = j
		}
		ps.ids = append(ps.ids, -1-j)
	}
	if ps.frames > stacks.MaxLocations {
		return 0, errAtOffset(at, "the samples' distinct stacks hold more than %d frames, the most the compact samples can address", stacks.MaxLocations)
	}
	k := int32(len(ps.at) - 1)
	ps.keys = append(ps.keys, key...)
	ps.keyAt = append(ps.keyAt, len(ps.keys))
	ps.at = append(ps.at, int32(ps.frames))
	if 2*(int(k)+1) > len(ps.table) { // at most half full
		ps.rehash(2 * len(ps.table))
	} else {
		ps.insert(k, h)
	}
	return k, nil
}

// insert puts stack k, whose key hashes to h, in the table.
func (ps *pprofStream) insert(k int32, h uint64) {
	mask := uint64(len(ps.table) - 1)
	j := h & mask
	for ps.table[j] != 0 {
		j = (j + 1) & mask
	}
	ps.table[j] = h>>32<<32 | uint64(k+1)
}

// rehash makes a table of size slots holding every stack.
func (ps *pprofStream) rehash(size int) {
	ps.table = make([]uint64, size)
	for k := range len(ps.at) - 1 {
		ps.insert(int32(k), maphash.Bytes(ps.seed, ps.keys[ps.keyAt[k]:ps.keyAt[k+1]]))
	}
}

// layout returns the number of the layout of a sample's labels, adding it
// if it is new, and sets nums to the sample's numbers.
func (ps *pprofStream) layout(lbls []sampleLabel) int32 {
	key := ps.layoutKey[:0]
	ps.nums = ps.nums[:0]
	for _, l := range lbls {
		switch {
		case l.str != 0:
			key = appendInt(appendInt(append(key, 's'), l.key), l.str)
		case l.num != 0 || l.unit != 0:
			key = appendInt(appendInt(append(key, 'n'), l.key), l.unit)
			ps.nums = append(ps.nums, l.num)
		default: // dropped, but its key is checked
			key = appendInt(append(key, 'd'), l.key)
		}
	}
	ps.layoutKey = key
	if x := ps.prevLayout; x >= 0 && bytes.Equal(key, ps.prevLayoutKey) {
		return x
	}
	x, found := ps.layoutBy[string(key)]
	if !found {
		x = int32(len(ps.layouts))
		lay := pprofLayout{prevStack: -1}
		for _, l := range lbls {
			ll := layoutLabel{key: l.key, str: l.str, unit: l.unit, num: l.str == 0 && (l.num != 0 || l.unit != 0)}
			if ll.num {
				lay.nums++
			}
			lay.labels = append(lay.labels, ll)
		}
		lay.last = make([]int64, lay.nums)
		ps.layouts = append(ps.layouts, lay)
		ps.layoutBy[string(key)] = x
	}
	ps.prevLayout = x
	ps.prevLayoutKey = append(ps.prevLayoutKey[:0], key...)
	return x
}

// samples makes the samples collected into stacks.Samples of the profile
// the other fields (meta, counted) make.
func (ps *pprofStream) samples(meta []byte, counts *Counts, parse func([]byte) (*profile.Profile, error), big int) (*profile.Profile, *stacks.Samples, error) {
	d := pprofDecoder{p: &profile.Profile{}, scratch: pprofScratches.Get().(*pprofScratch), counts: counts}
	defer d.release()
	if len(meta) == 0 || !d.top(meta) || !d.resolve() {
		// pprof says what is wrong: without the samples, the rest is small.
		if _, err := parse(meta); err != nil {
			return nil, nil, err
		}
		return nil, nil, errors.New("not a valid pprof profile: its locations, functions or strings are malformed")
	}
	p := d.p
	if err := p.CheckValid(); err != nil {
		return nil, nil, fmt.Errorf("not a valid pprof profile: %w", err)
	}
	n, types := ps.n, len(p.SampleType)
	if n > 0 && types == 0 {
		return nil, nil, errNoSampleTypes
	}
	if ps.badValues > 0 || (n > 0 && ps.nValues != types) {
		i := max(ps.badValues-1, 0)
		return nil, nil, fmt.Errorf("not a valid pprof profile: sample %d has a number of values other than its %d sample types", i, types)
	}
	// The ids become indexes in p.Location, in place. Writers number
	// locations 1, 2, 3... in order: those are found without a lookup.
	dense := int32(len(d.idxByID) - 1)
	for id, x := range d.idxByID[1:] {
		if x != int32(id) {
			dense = 0
			break
		}
	}
	for j, id := range ps.ids {
		switch {
		case id > 0 && id <= dense:
			ps.ids[j] = id - 1
			continue
		case id >= 0:
			ps.ids[j] = d.index(uint64(id))
		default:
			ps.ids[j] = d.index(ps.bigIDs[-1-id])
		}
		if ps.ids[j] < 0 {
			u := uint64(id)
			if id < 0 {
				u = ps.bigIDs[-1-id]
			}
			return nil, nil, fmt.Errorf("not a valid pprof profile: a sample names location id %d, which no location has", u)
		}
	}
	lt, err := ps.layoutThreads(&d)
	if err != nil {
		return nil, nil, err
	}
	// What finding the stacks took is garbage now; with it collected and
	// its pages given back before the samples' arrays are made (as the
	// V8 reader does), it does not add to the peak.
	ps.keys, ps.keyAt, ps.table, ps.bigByID, ps.layoutBy = nil, nil, nil, nil, nil
	if n >= big {
		debug.FreeOSMemory()
	}
	s := stacks.New(p)
	s.Locations = ps.ids
	ps.ids = nil
	ps.expand(s, types, lt)
	if n >= big {
		// The records are garbage: collected now, their pages serve
		// the tree built next instead of new ones.
		runtime.GC()
	}
	return p, s, nil
}

// A layoutThread is what a layout says of its samples' thread and time:
// the thread's strings, and which of the numbers are its pid, tid and
// timestamp (-1: none).
type layoutThread struct {
	th           stacks.Thread
	pid, tid, ts int
	x            int32 // the thread's index when the numbers add nothing, else -1
	// The pid and tid of its last sample with them, and their thread's
	// index (-1 before): samples of a thread come in runs.
	lastPID, lastTID int64
	lastX            int32
}

// layoutThreads reads the layouts' labels as threadOf does: the first
// value of a key counts.
func (ps *pprofStream) layoutThreads(d *pprofDecoder) ([]layoutThread, error) {
	ok := true
	lt := make([]layoutThread, len(ps.layouts))
	for k, lay := range ps.layouts {
		t := layoutThread{pid: -1, tid: -1, ts: -1, x: -1, lastX: -1}
		var names threadNames
		num := 0
		for _, l := range lay.labels {
			key := d.str(l.key, &ok)
			switch {
			case l.str != 0:
				names.set(&t.th, key, d.str(l.str, &ok))
			case l.num:
				if l.unit != 0 {
					d.str(l.unit, &ok)
				}
				switch {
				case key == labels.PID && t.pid < 0:
					t.pid = num
				case key == labels.TID && t.tid < 0:
					t.tid = num
				case key == labels.Timestamp && t.ts < 0:
					t.ts = num
				}
				num++
			}
		}
		if !ok {
			return nil, errors.New("not a valid pprof profile: a sample's label names a string the string table does not hold")
		}
		lt[k] = t
	}
	return lt, nil
}

// expand decodes the records into s's arrays, made at their size, and
// numbers the threads in the order of their first samples, as
// decodeStacks does. Each chunk of records is let go once read.
func (ps *pprofStream) expand(s *stacks.Samples, types int, lt []layoutThread) {
	n := ps.n
	s.Starts, s.Ends, s.SampleThreads, s.Values = make([]int32, n), make([]int32, n), make([]int32, n), make([]int64, n*types)
	timed := 0
	for _, t := range lt {
		if t.ts >= 0 {
			timed++
		}
	}
	if timed == len(lt) && n > 0 { // every sample has a time: no Timed
		s.Times = make([]int64, n)
	}
	threads := map[stacks.Thread]int32{}
	clear(ps.lastValue)
	for _, lay := range ps.layouts {
		clear(lay.last)
	}
	var num []int64
	recs := append(ps.recs, ps.rec)
	ps.recs, ps.rec = nil, nil
	i := 0
	for c, r := range recs {
		recs[c] = nil
		for len(r) > 0 {
			k, w := binary.Uvarint(r)
			r = r[w:]
			x, w := binary.Uvarint(r)
			r = r[w:]
			s.Starts[i], s.Ends[i] = ps.at[k], ps.at[k+1]
			vals := s.Values[i*types : i*types+types]
			for j := range vals {
				v, w := binary.Varint(r)
				r = r[w:]
				ps.lastValue[j] += v
				vals[j] = ps.lastValue[j]
			}
			last := ps.layouts[x].last
			num = num[:0]
			for j := range last {
				v, w := binary.Varint(r)
				r = r[w:]
				last[j] += v
				num = append(num, last[j])
			}
			t := &lt[x]
			th := t.x
			if th < 0 {
				id := t.th
				if t.pid >= 0 {
					id.PID, id.HasPID = num[t.pid], true
				}
				if t.tid >= 0 {
					id.TID, id.HasTID = num[t.tid], true
				}
				if t.lastX >= 0 && id.PID == t.lastPID && id.TID == t.lastTID {
					th = t.lastX
				} else {
					var found bool
					if th, found = threads[id]; !found {
						th = int32(len(s.ThreadList))
						s.ThreadList = append(s.ThreadList, id)
						threads[id] = th
					}
					if t.pid < 0 && t.tid < 0 {
						t.x = th
					}
					t.lastPID, t.lastTID, t.lastX = id.PID, id.TID, th
				}
			}
			s.SampleThreads[i] = th
			// As decodeStacks records them.
			var ts int64
			if t.ts >= 0 {
				ts = num[t.ts]
			}
			setSampleTime(s, i, n, ts, t.ts >= 0)
			i++
		}
	}
}
