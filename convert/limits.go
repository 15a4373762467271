package convert

import (
	"errors"
	"fmt"
	"math"

	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// MaxStackDepth is the most frames one sample's stack may have. Recorders
// truncate far below it (JFR at 64, async-profiler at 2048, perf at 127);
// only runaway recursion or a hostile file comes near, and 100,000-frame
// stacks still read. It bounds memory in readers that expand a call tree
// into stacks, where one node deep down costs its whole path.
const MaxStackDepth = 1_000_000

// maxNameBytes bounds one name (a function, file or label string) where a
// reader would otherwise hold a token of any length, several times over,
// while decoding it: longer strings of pprof's string table and of JSON
// inputs are cut to their first maxNameBytes bytes, with a warning. The
// longest real names, C++ template instantiations, run to some 10 KB.
const maxNameBytes = pprofio.MaxNameBytes

// The frames of all samples' stacks together are bounded by
// stackFramesPerByte per decompressed input byte, and never below
// minStackFrames. Real profiles hold under one frame per byte (corpus:
// at most 0.7, a JFR recording whose samples share pooled stacks); tree
// formats (V8 nodes with parent links, PerfView stacks, ctdiff.cct/v1)
// let a small file name deep nodes many times, which would make every
// later stage walk, and some readers allocate, depth × samples frames.
const (
	stackFramesPerByte = 64
	minStackFrames     = 1 << 27
)

// errStackLimit is returned (wrapped) when a stack is deeper than
// MaxStackDepth or all stacks together hold more frames than the input's
// budget.
var errStackLimit = errors.New("stack frames exceed the limit")

// errNegativeValue is returned (wrapped) when a sample has a negative
// value: ctdiff adds and compares weights, which must be counts or times.
var errNegativeValue = errors.New("negative sample value")

// stackBudget counts the frames of the stacks a reader produces against
// the input's limits. Readers that expand trees charge each stack before
// building it, so a hostile tree fails before it takes the memory.
type stackBudget struct {
	used, limit int64
}

// stackBudget returns the budget for this input: readers call it after
// reading the part of the input that defines the stacks.
func (in *parserInput) stackBudget() *stackBudget {
	return &stackBudget{limit: stackFrameLimit(in.bytesRead())}
}

func stackFrameLimit(inputBytes int64) int64 {
	return max(minStackFrames, stackFramesPerByte*inputBytes)
}

// take charges one stack of depth frames.
func (b *stackBudget) take(depth int) error {
	if depth > MaxStackDepth {
		return fmt.Errorf("%w: a stack of %d frames, more than the limit of %d per stack (runaway recursion?)",
			errStackLimit, depth, MaxStackDepth)
	}
	b.used += int64(depth)
	if b.used > b.limit {
		return fmt.Errorf("%w: the stacks hold more than %d frames in total, the limit for this input "+
			"(%d per input byte, at least %d): a deep call tree whose nodes are sampled many times",
			errStackLimit, b.limit, stackFramesPerByte, minStackFrames)
	}
	return nil
}

// checkSamples applies the limits every reader's output must meet: stack
// depth, total frames and non-negative values. It runs on every profile
// Read returns, so later stages can rely on them.
func checkSamples(src stacks.Source, inputBytes int64) error {
	if v, ok := src.(*v8Stream); ok && v.limitsMet(inputBytes) {
		return nil // else read one by one for the error
	}
	p := src.Profile()
	budget := &stackBudget{limit: stackFrameLimit(inputBytes)}
	sums := make([]int64, len(p.SampleType))
	for i := range src.Len() {
		if err := budget.take(src.Depth(i)); err != nil {
			return fmt.Errorf("sample %d: %w", i, err)
		}
		for j, v := range src.Value(i) {
			if v < 0 {
				return fmt.Errorf("sample %d: %w: %s is %d; ctdiff needs counts and times "+
					"(a profile of differences, such as pprof -diff_base writes, cannot be read: pass the two profiles instead)",
					i, errNegativeValue, sampleTypeName(p, j), v)
			}
			if sums[j] += v; sums[j] < 0 {
				// Totals that wrap around would turn into negative weights later.
				return fmt.Errorf("sample %d: the %s values add up to more than %d", i, sampleTypeName(p, j), int64(math.MaxInt64))
			}
		}
	}
	return nil
}

// CheckMergeTotals checks that profiles Read returned can be merged
// (profile.Merge adds their values) without a total wrapping around: each
// profile's totals fit in an int64 (checkSamples), their sum must too.
// Values are not negative, so no merged sample can then overflow. The
// error comes with the index of the profile whose values overflowed.
func CheckMergeTotals(ps []*profile.Profile) (int, error) {
	var sums []int64
	for k, p := range ps {
		if sums == nil {
			sums = make([]int64, len(p.SampleType))
		}
		for _, s := range p.Sample {
			for j, v := range s.Value {
				if j >= len(sums) {
					break
				}
				if sums[j] += v; sums[j] < 0 {
					return k, fmt.Errorf("the %s values of this input and the %d before it add up to more than %d", sampleTypeName(p, j), k, int64(math.MaxInt64))
				}
			}
		}
	}
	return 0, nil
}

func sampleTypeName(p *profile.Profile, i int) string {
	if i < len(p.SampleType) && p.SampleType[i] != nil {
		return p.SampleType[i].Type + "/" + p.SampleType[i].Unit
	}
	return fmt.Sprintf("value %d", i)
}
