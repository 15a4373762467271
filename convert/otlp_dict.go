package convert

import (
	"fmt"
	"strings"

	"github.com/google/pprof/profile"
)

// stack returns the locations of stack table entry i, leaf first as in
// pprof.
func (r *otlpReader) stack(i int32) ([]*profile.Location, error) {
	if i < 0 || int(i) >= len(r.stacks) {
		if i == 0 {
			return nil, nil // no stack table: index 0 is the empty stack
		}
		return nil, fmt.Errorf("stack index %d out of range (the stack table has %d entries)", i, len(r.stacks))
	}
	if s := r.stacks[i]; s != nil {
		return s, nil
	}
	idx := r.dict.StackTable().At(int(i)).LocationIndices()
	if idx.Len() > MaxStackDepth {
		return nil, fmt.Errorf("%w: stack %d has %d frames, more than the limit of %d per stack",
			errStackLimit, i, idx.Len(), MaxStackDepth)
	}
	s := make([]*profile.Location, idx.Len())
	for j, li := range idx.All() {
		l, err := r.location(li)
		if err != nil {
			return nil, fmt.Errorf("stack %d: %v", i, err)
		}
		s[j] = l
	}
	r.stacks[i] = s
	return s, nil
}

// location returns location table entry i as a pprof location.
func (r *otlpReader) location(i int32) (*profile.Location, error) {
	if i < 0 || int(i) >= len(r.locs) {
		return nil, fmt.Errorf("location index %d out of range (the location table has %d entries)", i, len(r.locs))
	}
	if l := r.locs[i]; l != nil {
		return l, nil
	}
	ol := r.dict.LocationTable().At(int(i))
	m, err := r.mapping(ol.MappingIndex())
	if err != nil {
		return nil, fmt.Errorf("location %d: %v", i, err)
	}
	l := &profile.Location{ID: uint64(i) + 1, Mapping: m, Address: ol.Address(), Line: make([]profile.Line, ol.Lines().Len())}
	for j, ln := range ol.Lines().All() {
		fn, err := r.function(ln.FunctionIndex())
		if err != nil {
			return nil, fmt.Errorf("location %d: %v", i, err)
		}
		l.Line[j] = profile.Line{Function: fn, Line: ln.Line(), Column: ln.Column()}
	}
	r.p.Location = append(r.p.Location, l)
	r.locs[i] = l
	return l, nil
}

// mapping returns mapping table entry i as a pprof mapping; entry 0 is
// the null mapping (none).
func (r *otlpReader) mapping(i int32) (*profile.Mapping, error) {
	if i == 0 {
		return nil, nil
	}
	if i < 0 || int(i) >= len(r.maps) {
		return nil, fmt.Errorf("mapping index %d out of range (the mapping table has %d entries)", i, len(r.maps))
	}
	if m := r.maps[i]; m != nil {
		return m, nil
	}
	om := r.dict.MappingTable().At(int(i))
	file, err := r.str(om.FilenameStrindex())
	if err != nil {
		return nil, fmt.Errorf("mapping %d file name: %v", i, err)
	}
	m := &profile.Mapping{ID: uint64(i) + 1, Start: om.MemoryStart(), Limit: om.MemoryLimit(), Offset: om.FileOffset(), File: file}
	// The build id is an attribute (process.executable.build_id.gnu,
	// .go or .htlhash in the semantic conventions).
	for _, a := range om.AttributeIndices().All() {
		attr, err := r.attr(a)
		if err != nil {
			return nil, fmt.Errorf("mapping %d: %v", i, err)
		}
		if strings.HasPrefix(attr.key, "process.executable.build_id") && m.BuildID == "" {
			m.BuildID = attr.str
		}
	}
	r.p.Mapping = append(r.p.Mapping, m)
	r.maps[i] = m
	return m, nil
}

// function returns function table entry i as a pprof function.
func (r *otlpReader) function(i int32) (*profile.Function, error) {
	if i < 0 || int(i) >= len(r.funcs) {
		return nil, fmt.Errorf("function index %d out of range (the function table has %d entries)", i, len(r.funcs))
	}
	if f := r.funcs[i]; f != nil {
		return f, nil
	}
	of := r.dict.FunctionTable().At(int(i))
	var s [3]string
	for k, idx := range [3]int32{of.NameStrindex(), of.SystemNameStrindex(), of.FilenameStrindex()} {
		var err error
		if s[k], err = r.str(idx); err != nil {
			return nil, fmt.Errorf("function %d: %v", i, err)
		}
	}
	f := &profile.Function{ID: uint64(i) + 1, Name: s[0], SystemName: s[1], Filename: s[2], StartLine: of.StartLine()}
	r.p.Function = append(r.p.Function, f)
	r.funcs[i] = f
	return f, nil
}
