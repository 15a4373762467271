package convert

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// MergeProfiles merges profiles Read returned for the inputs names, as
// go tool pprof merges several sources: the sample types every input has
// are kept, in the first input's order, and the others dropped
// (profile.CompatibilizeSampleTypes), so three JFR recordings of which one
// also recorded lock contention merge into their CPU samples. It returns a
// warning naming what was dropped and which inputs had it, and errors that
// name the inputs and their types where the profiles cannot be merged: no
// sample type in common, a type in two units, two period types ("merging
// N inputs: ..."), or values whose sum overflows (a *SyntaxError naming the
// input). It modifies the profiles.
func MergeProfiles(names []string, ps []*profile.Profile) (*profile.Profile, []string, error) {
	p, warnings, err := mergeProfiles(names, ps)
	var se *SyntaxError
	if err != nil && !errors.As(err, &se) {
		err = fmt.Errorf("merging %d inputs: %w", len(ps), err)
	}
	return p, warnings, err
}

// mergeProfiles is MergeProfiles, its errors not about one input
// without the number of inputs.
func mergeProfiles(names []string, ps []*profile.Profile) (*profile.Profile, []string, error) {
	for _, p := range ps {
		if p.PeriodType == nil {
			// profile.Merge dereferences it (a ctdiff.cct/v1 tree need not
			// have one): an empty type merges with another.
			p.PeriodType = &profile.ValueType{}
		}
	}
	if err := checkUnits(names, ps); err != nil {
		return nil, nil, err
	}
	common := commonTypes(ps)
	if len(common) == 0 {
		return nil, nil, fmt.Errorf("no sample type in common: %s", typesOf(names, ps))
	}
	var warnings []string
	if w := dropped(names, ps, common); w != "" {
		warnings = append(warnings, w)
	}
	if err := profile.CompatibilizeSampleTypes(ps); err != nil {
		return nil, nil, err
	}
	for i, p := range ps[1:] {
		if a, b := ps[0].PeriodType, p.PeriodType; a.Type != b.Type || a.Unit != b.Unit {
			return nil, nil, fmt.Errorf("%s samples %s and %s samples %s: profiles of two period types do not merge",
				names[0], valueType(a), names[i+1], valueType(b))
		}
	}
	if bad, err := CheckMergeTotals(ps); err != nil {
		return nil, nil, &SyntaxError{File: names[bad], Msg: err.Error()}
	}
	p, err := profile.Merge(ps)
	return p, warnings, err
}

// checkUnits refuses a sample type that two inputs record in different
// units, which profile.Merge would refuse without naming them.
func checkUnits(names []string, ps []*profile.Profile) error {
	unit, first := map[string]string{}, map[string]int{}
	for i, p := range ps {
		for _, st := range p.SampleType {
			u, ok := unit[st.Type]
			if !ok {
				unit[st.Type], first[st.Type] = st.Unit, i
				continue
			}
			if u != st.Unit {
				return fmt.Errorf("%s is in %s in %s and in %s in %s", st.Type, u, names[first[st.Type]], st.Unit, names[i])
			}
		}
	}
	return nil
}

// commonTypes returns the sample types every profile has, in the first
// profile's order.
func commonTypes(ps []*profile.Profile) []string {
	var out []string
	for _, st := range ps[0].SampleType {
		if !slices.ContainsFunc(ps, func(p *profile.Profile) bool { return !hasType(p, st.Type) }) {
			out = append(out, st.Type)
		}
	}
	return out
}

func hasType(p *profile.Profile, typ string) bool {
	return slices.ContainsFunc(p.SampleType, func(st *profile.ValueType) bool { return st.Type == typ })
}

// dropped is the warning naming the sample types not in common, each with
// the inputs that have it; "" when there are none.
func dropped(names []string, ps []*profile.Profile, common []string) string {
	var order []string
	has := map[string][]string{}
	units := map[string]string{}
	for i, p := range ps {
		for _, st := range p.SampleType {
			if slices.Contains(common, st.Type) {
				continue
			}
			if _, ok := has[st.Type]; !ok {
				order = append(order, st.Type)
				units[st.Type] = valueType(st)
			}
			has[st.Type] = append(has[st.Type], names[i])
		}
	}
	if len(order) == 0 {
		return ""
	}
	kept := make([]string, len(common))
	for i, typ := range common {
		kept[i] = valueType(ps[0].SampleType[slices.IndexFunc(ps[0].SampleType, func(st *profile.ValueType) bool { return st.Type == typ })])
	}
	var parts []string
	for _, typ := range order {
		parts = append(parts, fmt.Sprintf("%s (only in %s)", units[typ], someOf(has[typ])))
	}
	return fmt.Sprintf("kept the sample types every input has (%s), as go tool pprof does, and dropped %s",
		strings.Join(kept, ", "), strings.Join(parts, ", "))
}

// typesOf lists each input's sample types, for an error: the first three
// inputs, and how many more.
func typesOf(names []string, ps []*profile.Profile) string {
	var parts []string
	for i, p := range ps[:min(len(ps), 3)] {
		var ts []string
		for _, st := range p.SampleType {
			ts = append(ts, valueType(st))
		}
		parts = append(parts, names[i]+" has "+strings.Join(ts, ", "))
	}
	if len(ps) > 3 {
		parts = append(parts, fmt.Sprintf("and %d more inputs", len(ps)-3))
	}
	return strings.Join(parts, "; ")
}

// someOf names up to three inputs, and how many more.
func someOf(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
}

func valueType(st *profile.ValueType) string {
	if st.Type == "" && st.Unit == "" {
		return "no type"
	}
	return st.Type + "/" + st.Unit
}
