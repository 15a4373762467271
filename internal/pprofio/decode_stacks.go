package pprofio

import (
	"encoding/binary"
	"math/bits"

	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// DecodeStacks is Decode for convert's Options.Stacks: the profile without
// samples, and the samples as stacks.Samples. Labels are read as
// profile.ParseData reads them (a numeric label of 0 without a unit is
// dropped; the first value of a key counts); only the thread labels and
// the timestamp are kept. ok is false where Decode's would be, and
// for a location id no location has or a sample whose values do not match
// the sample types (which CheckValid rejects).
//
// counts are data's fields counted, or nil; bufs, when not nil, lend
// what they hold.
func DecodeStacks(data []byte, counts *Counts, bufs *Buffers) (*profile.Profile, *stacks.Samples, bool) {
	if len(data) == 0 {
		return nil, nil, false
	}
	d := pprofDecoder{p: &profile.Profile{}, scratch: pprofScratches.Get().(*pprofScratch), counts: counts, bufs: bufs}
	defer d.release()
	d.known = bufs.sameTables(data)
	if !d.top(data) || !d.resolve() {
		return nil, nil, false
	}
	s, ok := d.stacks()
	if !ok {
		return nil, nil, false
	}
	return d.p, s, true
}

func (d *pprofDecoder) stacks() (*stacks.Samples, bool) {
	n, types := len(d.sampleAt), len(d.p.SampleType)
	s := stacks.New(d.p)
	// Every element of Ends and SampleThreads is written below, and
	// Values and Locations are appended to: lent arrays need no clearing.
	// Lent locations are not counted first: runs of one program are of
	// about one size, and one that holds more grows the array once.
	a := d.bufs.takeArrays()
	frames := cap(a.locs)
	if frames == 0 {
		for i := range d.sampleAt {
			frames += locationCount(d.sample(i))
		}
	}
	if frames > stacks.MaxLocations {
		return nil, false // the general path reads it
	}
	s.Ends, s.SampleThreads = lend(a.ends, n), lend(a.threads, n)
	s.Values, s.Locations = lend(a.values, n*types)[:0], lend(a.locs, frames)[:0]
	// Writers number locations 1, 2, 3... in order, so that the index is
	// the id - 1: ids 1 to d.dense are read so.
	d.dense = uint64(len(d.idxByID) - 1)
	for id, x := range d.idxByID[1:] {
		if x != int32(id) {
			d.dense = 0
			break
		}
	}
	threads := map[stacks.Thread]int32{}
	var last stacks.Thread // the previous sample's thread, number lastX
	var lastX int32
	var lbls []sampleLabel
	for i := range d.sampleAt {
		var ok bool
		if lbls, ok = d.sampleInto(s, d.sample(i), lbls[:0]); !ok || len(s.Values) != (i+1)*types {
			return nil, false
		}
		if len(s.Locations) > stacks.MaxLocations {
			return nil, false
		}
		s.Ends[i] = int32(len(s.Locations))
		var th stacks.Thread // no labels: no thread, no time
		var ts int64
		var hasTS bool
		if len(lbls) > 0 {
			if th, ts, hasTS, ok = d.threadOf(lbls); !ok {
				return nil, false
			}
		}
		// Samples come in runs of one thread: hash only when it changes.
		if i == 0 || th != last {
			var found bool
			if lastX, found = threads[th]; !found {
				lastX = int32(len(s.ThreadList))
				s.ThreadList = append(s.ThreadList, th)
				threads[th] = lastX
			}
			last = th
		}
		s.SampleThreads[i] = lastX
		setSampleTime(s, i, n, ts, hasTS)
	}
	return s, true
}

// sampleInto decodes one Sample message as parseSample does, appending its
// stack (as location indexes) and values to s directly and returning its
// labels: the loop that reads most of a profile's bytes. The packed ids
// and values that writers put in every sample, and values unpacked (both
// runtime/pprof and profile.Write pack a repeated field only when it holds
// more than two: a CPU profile's two values are two fields), are read
// without a call to next.
func (d *pprofDecoder) sampleInto(s *stacks.Samples, b []byte, lbls []sampleLabel) ([]sampleLabel, bool) {
	for len(b) > 0 {
		if k := b[0]; k == 1<<3|2 || k == 2<<3|2 {
			l, n := varint(b[1:])
			if n == 0 || l > uint64(len(b)-1-n) {
				return lbls, false
			}
			p := b[1+n : 1+n+int(l)]
			b = b[1+n+int(l):]
			var ok bool
			if k == 1<<3|2 {
				s.Locations, ok = d.appendIndexes(s.Locations, p)
			} else {
				s.Values, ok = packedInt64s(s.Values, p)
			}
			if !ok {
				return lbls, false
			}
			continue
		}
		if b[0] == 2<<3 { // a value unpacked, as writers put two or fewer
			u, n := varint(b[1:])
			if n == 0 {
				return lbls, false
			}
			s.Values, b = append(s.Values, int64(u)), b[1+n:]
			continue
		}
		f, rest, ok := next(b)
		if !ok {
			return lbls, false
		}
		b = rest
		switch f.num {
		case 1:
			switch f.typ {
			case 0:
				x := d.index(f.u)
				if x < 0 {
					return lbls, false
				}
				s.Locations = append(s.Locations, x)
			case 2:
				if s.Locations, ok = d.appendIndexes(s.Locations, f.data); !ok {
					return lbls, false
				}
			default:
				return lbls, false
			}
		case 2:
			if s.Values, ok = repeated(f, s.Values); !ok {
				return lbls, false
			}
		case 3:
			l, ok := parseLabel(f)
			if !ok {
				return lbls, false
			}
			lbls = append(lbls, l)
		}
	}
	return lbls, true
}

// packedInt64s appends the varints of a packed repeated int64 field.
func packedInt64s(out []int64, p []byte) ([]int64, bool) {
	for len(p) > 0 {
		u, n := varint(p)
		if n == 0 {
			return out, false
		}
		out, p = append(out, int64(u)), p[n:]
	}
	return out, true
}

// appendIndexes appends the indexes of a packed run of location ids: the
// innermost loop of reading a profile. Ids are small, one or two bytes as
// varints, in no predictable mix: each is decoded from its two bytes
// without a branch on its length (a mispredicted branch per id was half
// of the loop's time), and longer ones fall to varint.
func (d *pprofDecoder) appendIndexes(locs []int32, p []byte) ([]int32, bool) {
	dense := d.dense
	i := 0
	for i+1 < len(p) {
		c0, c1 := uint64(p[i]), uint64(p[i+1])
		two := c0 >> 7 // 1 when the id takes two bytes
		u := c0&0x7f | c1<<7&-two
		if two&(c1>>7) != 0 { // three bytes or more
			v, n := varint(p[i:])
			if n == 0 {
				return locs, false
			}
			u, two = v, uint64(n-1)
		}
		i += 1 + int(two)
		x := int32(u - 1)
		if u-1 >= dense {
			if x = d.index(u); x < 0 {
				return locs, false
			}
		}
		locs = append(locs, x)
	}
	if i < len(p) { // a last one-byte id
		u := uint64(p[i])
		if u >= 0x80 {
			return locs, false
		}
		x := int32(u - 1)
		if u-1 >= dense {
			if x = d.index(u); x < 0 {
				return locs, false
			}
		}
		locs = append(locs, x)
	}
	return locs, true
}

// index returns the index in p.Location of the location with this id, or
// -1 when there is none.
func (d *pprofDecoder) index(id uint64) int32 {
	if id < uint64(len(d.idxByID)) {
		return d.idxByID[id]
	}
	if x, found := d.idxByX[id]; found {
		return x
	}
	return -1
}

// locationCount counts a Sample message's location ids, to size
// Stacks.Locations: an estimate, as what it misses only costs a copy. Where
// the message starts with packed ids, as runtime/pprof and profile.Write
// write it, it counts those and reads no further; otherwise it counts the
// ids of every field 1 (approximately if the message is malformed, which
// the decoding then finds).
func locationCount(b []byte) int {
	if len(b) > 1 && b[0] == 1<<3|2 {
		if l, n := varint(b[1:]); n > 0 && l <= uint64(len(b)-1-n) {
			return varintEnds(b[1+n : 1+n+int(l)])
		}
	}
	n := 0
	for len(b) > 0 {
		f, rest, ok := next(b)
		if !ok {
			break
		}
		if f.num == 1 {
			if f.typ == 2 {
				n += varintEnds(f.data)
			} else {
				n++
			}
		}
		b = rest
	}
	return n
}

// varintEnds counts the bytes below 0x80 in b, the last bytes of varints,
// eight at a time.
func varintEnds(b []byte) int {
	n := 0
	for ; len(b) >= 8; b = b[8:] {
		n += 8 - bits.OnesCount64(binary.LittleEndian.Uint64(b)&0x8080808080808080)
	}
	for _, c := range b {
		if c < 0x80 {
			n++
		}
	}
	return n
}

// threadOf returns the thread identity and timestamp a sample's labels
// give, as the labels profile.ParseData makes of them would.
func (d *pprofDecoder) threadOf(lbls []sampleLabel) (th stacks.Thread, ts int64, hasTS, ok bool) {
	ok = true
	var names threadNames
	for _, l := range lbls {
		key := d.str(l.key, &ok)
		switch {
		case l.str != 0:
			names.set(&th, key, d.str(l.str, &ok))
		case l.num != 0 || l.unit != 0:
			if l.unit != 0 {
				d.str(l.unit, &ok)
			}
			switch {
			case key == labels.PID && !th.HasPID:
				th.PID, th.HasPID = l.num, true
			case key == labels.TID && !th.HasTID:
				th.TID, th.HasTID = l.num, true
			case key == labels.Timestamp && !hasTS:
				ts, hasTS = l.num, true
			}
		}
	}
	return th, ts, hasTS, ok
}

// threadNames applies a sample's string labels that name its thread and
// process to a stacks.Thread: the first value of a key counts, as in the
// labels profile.ParseData makes. Both pprof decoders read them so.
type threadNames struct{ hasThread, hasProcess bool }

func (n *threadNames) set(th *stacks.Thread, key, v string) {
	switch {
	case key == labels.Thread && !n.hasThread:
		th.Thread, n.hasThread = v, true
	case key == labels.Process && !n.hasProcess:
		th.Process, n.hasProcess = v, true
	}
}

// setSampleTime records sample i's timestamp, of n samples read in order:
// Samples.Times is made at the first timed sample, and Samples.Timed only
// when some samples have a time and others not (stacks.Samples.Times).
func setSampleTime(s *stacks.Samples, i, n int, ts int64, hasTS bool) {
	switch {
	case hasTS && s.Times == nil:
		s.Times = make([]int64, n)
		if i > 0 {
			s.Timed = make([]bool, n)
		}
	case !hasTS && s.Times != nil && s.Timed == nil:
		s.Timed = make([]bool, n)
		for j := range i {
			s.Timed[j] = true
		}
	}
	if hasTS {
		s.Times[i] = ts
	}
	if s.Timed != nil {
		s.Timed[i] = hasTS
	}
}
