package diff

import (
	"fmt"

	"github.com/ctdiff/ctdiff/cct"
)

// The errors of Compare that a caller may want to explain in its own terms
// (a command line names its flags, a service its fields). Their messages
// say what is wrong with the inputs or options and name no flag.

// An UnpairedRunsError is Compare's refusal of Intersect with unequal
// numbers of base and new runs: ZAM pairs runs by sorted file name
// (Section 3.1). Stats has no such need.
type UnpairedRunsError struct {
	Base, New int
}

func (e *UnpairedRunsError) Error() string {
	return fmt.Sprintf("intersect aggregation pairs runs by sorted file name (ZAM Section 3.1) and needs as many base runs as new runs, got %d and %d", e.Base, e.New)
}

// A SampleTypeError says a tree has no sample type of the name compared
// (Options.SampleType, SampleMetric).
type SampleTypeError struct {
	// Tree is the tree's index among the base trees and then the new ones,
	// from 0.
	Tree int
	// Err is cct.Tree.SampleIndex's error, which names the types there are.
	Err error
}

func (e *SampleTypeError) Error() string { return fmt.Sprintf("tree %d: %v", e.Tree+1, e.Err) }
func (e *SampleTypeError) Unwrap() error { return e.Err }

// A MixedSampleTypesError says the trees would compare different sample
// types: the name compared resolves to Type in tree Tree (indexed as in
// SampleTypeError) and to First in the first tree.
type MixedSampleTypesError struct {
	Tree        int
	Type, First cct.ValueType
}

func (e *MixedSampleTypesError) Error() string {
	return fmt.Sprintf("tree %d: sample type %s differs from the first tree's %s", e.Tree+1, e.Type, e.First)
}

// A NormalizeError says the normalization asked for (Options.Normalize)
// cannot apply to the comparison.
type NormalizeError struct {
	Normalize Normalize
	// NoIterations: NormalizeIteration without iteration counts
	// (Options.Bench).
	NoIterations bool
	detail       string
}

func (e *NormalizeError) Error() string { return "normalize " + e.detail }

// A MinDeltaError says Options.MinDelta is in a unit that does not fit
// the compared values: a duration or a plain number for shares, a plain
// number for a time or byte metric, a duration for a metric that is not
// time.
type MinDeltaError struct {
	Threshold Threshold
	// Metric is the sample type compared, Unit the unit of its values
	// after the normalization (UnitShare for shares).
	Metric, Unit string
	// AutoShare says the normalization chose shares by itself
	// (NormalizeAuto), rather than as Options.Normalize asked.
	AutoShare bool
	// Reason says what does not fit and what would.
	Reason string
}

func (e *MinDeltaError) Error() string {
	return fmt.Sprintf("min delta %q: %s", e.Threshold.String(), e.Reason)
}

// An OptionError says an option has a value Compare cannot take
// (Options.Check). Option names the option as a message words it
// ("aggregate", "node fraction"), for a caller to name it its own way.
type OptionError struct {
	Option string
	// Reason says what is wrong with the value and what would fit.
	Reason string
}

func (e *OptionError) Error() string { return e.Option + " " + e.Reason }
