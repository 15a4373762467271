package convert

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// A mergeIndex finds the merged sample of a thread and stack as a reader
// reads its samples (Options.MergeSamples): memory then follows the
// distinct stacks, not the samples. The reader writes a key of the thread
// and stack (appendLocKey, appendMetaKey) and calls find, which numbers
// the keys in the order they first appear.
type mergeIndex struct {
	byKey map[string]int32
	key   []byte
	// seq counts the samples find was called for; time and first are, per
	// merged sample, the earliest timestamp and the number of the first
	// sample that has it, timed whether every sample had one.
	seq   int64
	time  []int64
	first []int64
	timed bool
}

func newMergeIndex() *mergeIndex {
	return &mergeIndex{byKey: map[string]int32{}, timed: true}
}

// newKey returns the key buffer, empty, for the reader to append to.
func (m *mergeIndex) newKey() []byte { return m.key[:0] }

// find returns the number of the merged sample of key (m.key's bytes as
// newKey's buffer grew them) and whether it existed before; ts is the
// sample's timestamp when timed.
func (m *mergeIndex) find(key []byte, ts int64, timed bool) (int, bool) {
	m.key = key
	seq := m.seq
	m.seq++
	m.timed = m.timed && timed
	if x, ok := m.byKey[string(key)]; ok { // no allocation: the key is only looked up
		if timed && ts < m.time[x] {
			m.time[x], m.first[x] = ts, seq
		}
		return int(x), true
	}
	x := len(m.time)
	m.byKey[string(key)] = int32(x)
	m.time = append(m.time, ts)
	m.first = append(m.first, seq)
	return x, false
}

// order returns the merged samples' numbers in the order they are to be
// added: when every sample had a timestamp, by (earliest time, the first
// sample at that time), which is where the tree builder, visiting samples
// in time order, first meets each of them; else in the order they first
// appeared, where it meets them in file order.
func (m *mergeIndex) order() []int32 {
	out := make([]int32, len(m.time))
	for i := range out {
		out[i] = int32(i)
	}
	if m.timed {
		slices.SortFunc(out, func(a, b int32) int {
			return cmp.Or(cmp.Compare(m.time[a], m.time[b]), cmp.Compare(m.first[a], m.first[b]))
		})
	}
	return out
}

// appendLocKey appends a stack's location ids to a key.
func appendLocKey(key []byte, stack []*profile.Location) []byte {
	key = binary.AppendUvarint(key, uint64(len(stack)))
	for _, l := range stack {
		key = binary.AppendUvarint(key, l.ID)
	}
	return key
}

// appendIdxKey appends a stack's location indexes to a key.
func appendIdxKey(key []byte, stack []int32) []byte {
	key = binary.AppendUvarint(key, uint64(len(stack)))
	for _, x := range stack {
		key = binary.AppendUvarint(key, uint64(x))
	}
	return key
}

// appendMetaKey appends the thread identity of a sample (what
// stacks.Thread keeps) to a key.
func appendMetaKey(key []byte, m *sampleMeta) []byte {
	key = binary.AppendUvarint(key, uint64(len(m.Thread)))
	key = append(key, m.Thread...)
	key = binary.AppendUvarint(key, uint64(len(m.Process)))
	key = append(key, m.Process...)
	var flags byte
	if m.HasPID {
		flags |= 1
	}
	if m.HasTID {
		flags |= 2
	}
	key = append(key, flags)
	key = binary.AppendVarint(key, m.PID)
	return binary.AppendVarint(key, m.TID)
}

// addValues adds a sample's values to its merged sample's. It returns the
// index of a value whose sum would not fit in an int64 (values are not
// negative), else -1.
func addValues(sum, v []int64) int {
	for j, x := range v {
		s := sum[j] + x
		if s < sum[j] {
			return j
		}
		sum[j] = s
	}
	return -1
}

// errMergedTotal is the error for merged values of sample type j that
// overflow, as checkSamples words it.
func errMergedTotal(st []*profile.ValueType, j int) error {
	name := fmt.Sprintf("value %d", j)
	if j < len(st) && st[j] != nil {
		name = st[j].Type + "/" + st[j].Unit
	}
	return fmt.Errorf("the %s values add up to more than %d", name, int64(math.MaxInt64))
}

// A timeSpan is the earliest start and the latest end of timed samples.
type timeSpan struct {
	lo, hi int64
	set    bool
}

func (s *timeSpan) add(start, end int64) {
	if !s.set {
		s.lo, s.hi, s.set = start, end, true
		return
	}
	s.lo, s.hi = min(s.lo, start), max(s.hi, end)
}

// mergedInOrder returns the merged ETW samples in the order m gives, each
// with its earliest timestamp.
func mergedInOrder(m *mergeIndex, samples []etwSample) []etwSample {
	out := make([]etwSample, 0, len(samples))
	for _, x := range m.order() {
		s := samples[x]
		if m.timed {
			s.meta.Time = m.time[x]
		}
		out = append(out, s)
	}
	return out
}

// etwSamples collects the samples of an ETW export, each sample by
// itself or, with a mergeIndex, merged by thread and stack.
type etwSamples struct {
	out   []etwSample
	merge *mergeIndex // with Options.MergeSamples
	span  timeSpan    // of the merged samples, whose own times are gone
	n     int         // samples added
	// timed counts the timestamped samples kept one by one, up to limit
	// (Options.MaxTimedSamples).
	timed, limit int64
	types        []*profile.ValueType
}

func newETWSamples(opts *Options, types []*profile.ValueType, n int) *etwSamples {
	if opts.MergeSamples {
		return &etwSamples{merge: newMergeIndex(), types: types}
	}
	return &etwSamples{out: make([]etwSample, 0, n), limit: opts.maxTimed(), types: types}
}

// add adds a sample whose value timeValue is its duration. It fails when
// a merged value would overflow or, one by one, past the limit of
// timestamped samples.
func (c *etwSamples) add(s etwSample, timeValue int) error {
	c.n++
	if c.merge == nil {
		if s.meta.HasTime {
			if c.timed++; c.timed > c.limit {
				return &SampleLimitError{Limit: c.limit}
			}
		}
		c.out = append(c.out, s)
		return nil
	}
	if s.meta.HasTime {
		c.span.add(s.meta.Time, s.meta.Time+s.values[timeValue])
	}
	x, found := c.merge.find(appendLocKey(appendMetaKey(c.merge.newKey(), &s.meta), s.stack), s.meta.Time, s.meta.HasTime)
	if found {
		if j := addValues(c.out[x].values, s.values); j >= 0 {
			return errMergedTotal(c.types, j)
		}
		return nil
	}
	c.out = append(c.out, s)
	return nil
}

// samples returns the samples, merged ones in mergeIndex.order.
func (c *etwSamples) samples() []etwSample {
	if c.merge == nil {
		return c.out
	}
	return mergedInOrder(c.merge, c.out)
}

// duration is etwSpan of the samples added.
func (c *etwSamples) duration(timeValue int) int64 {
	if c.merge == nil {
		return etwSpan(c.out, timeValue)
	}
	return c.span.hi - c.span.lo
}

// An interner returns one copy of equal strings: names cut from a row
// that samples keep would otherwise keep the whole row.
type interner map[string]string

func (in interner) of(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	s = strings.Clone(s)
	in[s] = s
	return s
}
