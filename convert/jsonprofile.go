package convert

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/google/pprof/profile"
)

// This file holds what the readers of whole-document JSON profiles
// (speedscope, Firefox profiler) share: decoding with positioned errors,
// sample types chosen by unit, values rounded so that totals are kept,
// native locations with mappings, and a sample sink that applies the
// sample limits and Options.MergeSamples.

// readJSONDoc reads the whole input and decodes it into v; errors name
// the format and the byte where the JSON is wrong.
func readJSONDoc(in *parserInput, format string, v any) ([]byte, error) {
	data, err := in.ReadAll()
	if err != nil {
		return nil, err // a *SizeLimitError or the input's read error
	}
	if err := json.Unmarshal(data, v); err != nil {
		return nil, jsonDocError(format, err)
	}
	return data, nil
}

// jsonDocError words an encoding/json error about a document of format.
func jsonDocError(format string, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return errAtOffset(max(se.Offset-1, 0), "%s: invalid JSON: %v", format, err)
	case errors.As(err, &te) && te.Field == "":
		return errAtOffset(te.Offset, "%s: expected a JSON object, found %s", format, te.Value)
	case errors.As(err, &te):
		return errAtOffset(te.Offset, "%s: expected %s for %s, found %s", format, jsonType(te.Type), te.Field, te.Value)
	}
	return fmt.Errorf("%s: invalid JSON: %w", format, err)
}

// A unitKind is a sample type a JSON reader writes, with the factor that
// turns the file's values into the type's unit.
type unitKind struct {
	Type, Unit string
	Scale      float64
}

var (
	kindSamples = unitKind{"samples", "count", 1}
	kindWallNS  = unitKind{"wall", "nanoseconds", 1}
	kindWallMS  = unitKind{"wall", "nanoseconds", 1e6}
	kindBytes   = unitKind{"space", "bytes", 1}
)

// sampleTypes numbers the sample types of a profile whose parts (profiles,
// threads) may each have their own: one column per type, in the order the
// types are first met.
type sampleTypes struct {
	types []*profile.ValueType
}

// index returns the column of a type, adding it when new.
func (st *sampleTypes) index(typ, unit string) int {
	for i, t := range st.types {
		if t.Type == typ && t.Unit == unit {
			return i
		}
	}
	st.types = append(st.types, &profile.ValueType{Type: typ, Unit: unit})
	return len(st.types) - 1
}

// A roundedSum turns a series of non-negative float values into integers
// whose running sum is always the rounded running sum of the values
// times a scale: the converted total is then the file's total, to the
// unit, however the values are split.
type roundedSum struct {
	scale   float64
	sum     float64
	emitted int64
}

// maxExactValue bounds the scaled running sums: above it a float64 no
// longer tells consecutive integers apart, nor fits an int64 for long.
const maxExactValue = 1 << 62

// add adds v and returns the integer it contributes.
func (r *roundedSum) add(v float64) (int64, error) {
	if !(v >= 0) || math.IsInf(v, 0) { // catches NaN too
		return 0, fmt.Errorf("%w: %v", errNegativeValue, v)
	}
	return r.at(r.sum + v)
}

// at moves the running sum to s (not below the current one) and returns
// the integer the step contributes.
func (r *roundedSum) at(s float64) (int64, error) {
	x := s * r.scale
	if !(x < maxExactValue) {
		return 0, fmt.Errorf("the values add up to more than %d", int64(maxExactValue))
	}
	r.sum = s
	t := int64(math.Round(x))
	d := t - r.emitted
	r.emitted = t
	return d, nil
}

// nativeLocations makes the locations of native frames: one per library
// (a pprof mapping) and address, named after the function the file gives
// (often only the address itself when it is unsymbolicated).
type nativeLocations struct {
	b    *profileBuilder
	locs map[nativeKey]*profile.Location
}

type nativeKey struct {
	m    *profile.Mapping
	addr uint64
	fn   *profile.Function
}

// mapping adds a mapping to the profile.
func (n *nativeLocations) mapping(m profile.Mapping) *profile.Mapping {
	p := n.b.Profile()
	m.ID = uint64(len(p.Mapping) + 1)
	mp := &m
	p.Mapping = append(p.Mapping, mp)
	return mp
}

// location returns the location of address addr in mapping m, for frame f.
func (n *nativeLocations) location(f stackFrame, m *profile.Mapping, addr uint64) *profile.Location {
	fn := n.b.function(compactFrame(f))
	k := nativeKey{m, addr, fn}
	if l, ok := n.locs[k]; ok {
		return l
	}
	if n.locs == nil {
		n.locs = map[nativeKey]*profile.Location{}
	}
	p := n.b.Profile()
	l := &profile.Location{ID: uint64(len(p.Location) + 1), Mapping: m, Address: addr,
		Line: []profile.Line{{Function: fn, Line: f.Line, Column: f.Column}}}
	p.Location = append(p.Location, l)
	n.locs[k] = l
	return l
}

// A sampleSink takes a JSON reader's samples: one by one, at most
// Options.MaxTimedSamples of them with timestamps, or merged by thread and
// stack with Options.MergeSamples. Every stack is charged to the input's
// frame budget before it is kept.
type sampleSink struct {
	b       *profileBuilder
	budget  *stackBudget
	merge   *mergeIndex
	pending []pendingSample
	limit   int64
	timed   int64
}

type pendingSample struct {
	stack  []*profile.Location
	values []int64
	meta   sampleMeta
}

func newSampleSink(in *parserInput, b *profileBuilder) *sampleSink {
	s := &sampleSink{b: b, budget: in.stackBudget(), limit: in.Options.maxTimed()}
	if in.Options.MergeSamples {
		s.merge = newMergeIndex()
	}
	return s
}

// add takes one sample: stack leaf first and one value per sample type
// (both are copied).
func (s *sampleSink) add(stack []*profile.Location, values []int64, m sampleMeta) error {
	if err := s.budget.take(len(stack)); err != nil {
		return err
	}
	if s.merge == nil && m.HasTime {
		if s.timed++; s.timed > s.limit {
			return &SampleLimitError{Limit: s.limit}
		}
	}
	if s.merge != nil {
		key := appendLocKey(appendMetaKey(s.merge.newKey(), &m), stack)
		if x, found := s.merge.find(key, m.Time, m.HasTime); found {
			if j := addValues(s.pending[x].values, values); j >= 0 {
				return errMergedTotal(s.b.Profile().SampleType, j)
			}
			return nil
		}
	}
	s.pending = append(s.pending, pendingSample{stack: slices.Clone(stack), values: slices.Clone(values), meta: m})
	return nil
}

// flush adds the samples to the builder, in the order mergeIndex gives
// when merging.
func (s *sampleSink) flush() {
	s.b.Grow(len(s.pending), 0)
	if s.merge == nil {
		for _, p := range s.pending {
			s.b.Add(p.stack, p.values, p.meta)
		}
	} else {
		for _, x := range s.merge.order() {
			p := s.pending[x]
			if s.merge.timed {
				p.meta.Time = s.merge.time[x]
			}
			s.b.Add(p.stack, p.values, p.meta)
		}
	}
	s.pending = nil
}

// stackExpander turns stack-table indexes (a prefix tree: each entry a
// frame and the index of its caller's entry) into leaf-first location
// lists, checking that prefixes point backwards or at least do not loop.
type stackExpander struct {
	prefix []int64 // -1 for a root
	loc    func(entry int) (*profile.Location, error)
	buf    []*profile.Location
}

// expand returns entry's stack, leaf first, in a buffer reused by the next
// call.
func (e *stackExpander) expand(entry int64) ([]*profile.Location, error) {
	e.buf = e.buf[:0]
	for x := entry; x >= 0; x = e.prefix[x] {
		if x >= int64(len(e.prefix)) {
			return nil, fmt.Errorf("stack %d does not exist (the stack table has %d)", x, len(e.prefix))
		}
		if len(e.buf) > len(e.prefix) || len(e.buf) >= MaxStackDepth {
			return nil, fmt.Errorf("stack %d: its prefixes form a loop or exceed %d frames", entry, MaxStackDepth)
		}
		l, err := e.loc(int(x))
		if err != nil {
			return nil, err
		}
		e.buf = append(e.buf, l)
	}
	return e.buf, nil
}

// A nameCutter cuts the names and files of frames to maxNameBytes (at a
// character boundary), counting them for one warning, as the streaming
// JSON readers do.
type nameCutter struct{ cut int }

func (c *nameCutter) frame(f stackFrame) stackFrame {
	f.Name, f.File = c.name(f.Name), c.name(f.File)
	return f
}

func (c *nameCutter) name(s string) string {
	if len(s) <= maxNameBytes {
		return s
	}
	c.cut++
	k := maxNameBytes
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k]
}

// warn warns about the strings cut.
func (c *nameCutter) warn(in *parserInput) {
	if c.cut > 0 {
		in.Warnf("%d strings are longer than %d bytes; each is cut to its first %d bytes", c.cut, maxNameBytes, maxNameBytes)
	}
}
