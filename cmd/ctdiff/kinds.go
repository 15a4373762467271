package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
)

// An inputKind is what an input's header says of what it profiles: its
// format and sample types, for the messages that say why inputs do not
// compare.
type inputKind struct {
	format string
	types  []cct.ValueType
	period cct.ValueType
	def    string
}

// inputKinds are the kinds of the inputs whose headers and formats are
// given, in the same order.
func inputKinds(headers []cct.Header, formats []string) []inputKind {
	if len(headers) != len(formats) {
		return nil
	}
	kinds := make([]inputKind, len(headers))
	for i, t := range headers {
		kinds[i] = inputKind{format: formats[i], types: t.SampleTypes, period: t.PeriodType, def: t.DefaultSampleType}
	}
	return kinds
}

// name is the kind of profile, as its users call it: "CPU", "wall-clock",
// "heap", "contention", "goroutine", or "" when the input only counts
// samples (folded stacks, a perf script without a period), which may be
// of any kind.
func (k inputKind) name() string {
	has := func(names ...string) bool {
		return slices.ContainsFunc(k.types, func(v cct.ValueType) bool { return slices.Contains(names, v.Type) })
	}
	switch typ := k.period.Type; {
	case typ == "cpu" || typ == "cycles" || typ == "instructions":
		return "CPU"
	case typ == "wall":
		return "wall-clock"
	case typ == "space" || has("inuse_space", "alloc_space", "inuse_objects", "alloc_objects"):
		return "heap"
	case typ == "contentions" || has("contentions", "delay"):
		return "contention"
	case typ == "goroutine" || has("goroutine"):
		return "goroutine"
	case has("cpu"):
		return "CPU"
	case has("wall"):
		return "wall-clock"
	}
	return ""
}

// describe is the input as a message names it: "a heap profile (pprof:
// alloc_objects/count, ...)".
func (k inputKind) describe() string {
	name := k.name()
	if name == "" {
		name = "a sample-count"
	} else {
		name = "a " + name
	}
	types := make([]string, len(k.types))
	for i, t := range k.types {
		types[i] = t.String()
	}
	return fmt.Sprintf("%s profile (%s: %s)", name, k.format, strings.Join(types, ", "))
}

// commonTypes are the sample types every input has, in the first's order.
func commonTypes(kinds []inputKind) []cct.ValueType {
	var common []cct.ValueType
	for _, t := range kinds[0].types {
		if !slices.ContainsFunc(kinds, func(k inputKind) bool { return !slices.Contains(k.types, t) }) {
			common = append(common, t)
		}
	}
	return common
}

// differentKinds says that inputs i and j are different kinds of profile
// (a heap profile and a CPU profile, a Go CPU profile and a JavaScript
// wall-clock one), or "" when nothing says so.
func differentKinds(paths []string, kinds []inputKind, i, j int) string {
	if len(kinds) != len(paths) || i >= len(kinds) || j >= len(kinds) {
		return ""
	}
	a, b := kinds[i].name(), kinds[j].name()
	if a == "" || b == "" || a == b {
		return ""
	}
	return fmt.Sprintf("the inputs are different kinds of profile: %s is %s, and %s is %s",
		paths[i], kinds[i].describe(), paths[j], kinds[j].describe())
}

// mixedTypesHint words a MixedSampleTypesError: inputs of different kinds
// say so, and --metric is advised only with the types every input has.
func mixedTypesHint(e *diff.MixedSampleTypesError, paths []string, kinds []inputKind) string {
	if len(kinds) != len(paths) || e.Tree >= len(paths) {
		return fmt.Sprintf("%s: compares %s, and %s compares %s: pick a type both have with --metric", paths[e.Tree], e.Type, paths[0], e.First)
	}
	var metrics []string
	for _, t := range commonTypes(kinds) {
		metrics = append(metrics, "--metric "+t.Type)
	}
	if kinds := differentKinds(paths, kinds, e.Tree, 0); kinds != "" {
		if len(metrics) == 0 {
			return kinds + "; they have no sample type in common, so they do not compare"
		}
		return fmt.Sprintf("%s; they do not compare as they are (%s would compare what every input records, if that is meant)", kinds, strings.Join(metrics, " or "))
	}
	if len(metrics) == 0 {
		return fmt.Sprintf("%s is %s, and %s is %s: the inputs have no sample type in common, so they do not compare",
			paths[e.Tree], kinds[e.Tree].describe(), paths[0], kinds[0].describe())
	}
	return fmt.Sprintf("%s: compares %s, and %s compares %s: pick a type every input has with %s", paths[e.Tree], e.Type, paths[0], e.First, strings.Join(metrics, " or "))
}

// missingTypeHint words a SampleTypeError: when another input has the
// type --metric names and is another kind of profile, it says so.
func missingTypeHint(e *diff.SampleTypeError, paths []string, kinds []inputKind) string {
	msg := fmt.Sprintf("%s: --metric: %v", paths[e.Tree], e.Err)
	for j := range kinds {
		if kinds := differentKinds(paths, kinds, e.Tree, j); kinds != "" {
			return msg + "; " + kinds
		}
	}
	return msg
}
