package diff

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ctdiff/ctdiff/diff/stats"
)

// An Aggregate names how several runs per side are combined.
type Aggregate string

const (
	// Intersect is ZAM's aggregation (Section 3.2): runs are paired by
	// position (sorted file name), one critical graph is computed per pair,
	// and only what appears in every pair's graph is kept, times averaged.
	Intersect Aggregate = "intersect"
	// Stats matches every run onto one union tree and keeps a node when its
	// mean delta is at least MinDelta and a one-sided test of the base runs
	// against the new runs is significant after Holm's correction
	// (aggregate.go, stats.go, prior.go).
	Stats Aggregate = "stats"
)

// A Matching names the algorithm that pairs the children of matched nodes.
type Matching string

const (
	// ZAM is ZAM's hybrid matching (Algorithm 3): LCS over the children's
	// (function, file) identities under a deterministic work budget, hash-map
	// matching for top-level functions and when the budget is exceeded.
	ZAM Matching = "zam"
	// PARCS is PARCS's relaxed common-tree matching (Definition 2, with the
	// call-site rules 3 and 4), over children in call order when
	// Options.CallOrder says the trees have it, else in call-site order.
	PARCS Matching = "parcs"
)

// Defaults, chosen by measurement (BENCHMARKS.md, "diff: accuracy" and
// "diff: speed and design measurements"). With three runs per side, on the
// corpus benchmark (tools/eval, five seeds) Stats found every injected
// regression, with 98.7% path precision and no false path on base-vs-base
// cases, where Intersect — ZAM as published — found two thirds of the
// paths: on real profiles the time of a large caller varies by more than μ
// between runs, and Intersect needs every ancestor to grow by μ in every
// pair. μ = 50 ms is ZAM's value (Section 5.2) and measured best: 25 ms
// admitted a false path, 100 ms lost causes; it is far above the sampling
// noise of small nodes and below the injected 100-200 ms. Metrics that are
// not time use a share of the base total instead.
const (
	DefaultAggregate = Stats
	DefaultMatching  = ZAM
	// DefaultMinDelta is μ for time metrics: 50 ms.
	DefaultMinDelta = 50 * int64(time.Millisecond)
	// DefaultMinDeltaShare is μ for other metrics: 1% of the base total.
	DefaultMinDeltaShare = 0.01
	// DefaultAlpha is the family-wise error rate of the Stats tests.
	DefaultAlpha = 0.05
	// DefaultTop is how many ranked paths (and weight differences) are kept.
	DefaultTop = 10
	// DefaultTopologyLimit caps the added and removed subtrees listed.
	DefaultTopologyLimit = 100
)

// A Budget bounds the work of one LCS computation: Base + PerItem × (n + m)
// steps for sequences of n and m children. It counts algorithm steps, never
// wall-clock time, so results do not depend on the machine (ZAM Section 4
// used a 10-second timeout, which makes the output machine-dependent). The
// total over a tree is then linear in its size.
type Budget struct {
	Base, PerItem int
}

// DefaultBudget lets Myers' O(ND) algorithm run to about 64 edits per child
// list, far more than similar versions need; beyond that the sequences are
// too different for an LCS to mean much and ZAM's hash matching takes over.
var DefaultBudget = Budget{Base: 1 << 12, PerItem: 64}

func (b Budget) limit(n, m int) int { return b.Base + b.PerItem*(n+m) }

// A Threshold is ZAM's μ: an amount in a unit (ThresholdUnit), or a share
// of the mean base total. ParseThreshold reads one as a user writes it;
// Compare checks it against the unit of the compared values (a duration
// needs a time metric, a size a byte metric, a plain number a count) once
// the normalization has fixed that unit.
type Threshold struct {
	// Value is the absolute threshold in Unit, used when Share is 0.
	Value int64
	// Share is a fraction of the mean base total (0.01 for 1%).
	Share float64
	// Unit says what Value counts; the zero value is the unit of the
	// compared values (Result.Unit), as a caller that knows it gives μ.
	Unit ThresholdUnit
}

// A ThresholdUnit says what a Threshold's Value counts.
type ThresholdUnit uint8

const (
	// InValues: Value is in the unit of the compared values.
	InValues ThresholdUnit = iota
	// Nanoseconds: Value is a duration, for time metrics.
	Nanoseconds
	// Bytes: Value is a size, for byte metrics.
	Bytes
	// Count: Value is a plain number, for metrics that count (samples,
	// objects, events).
	Count
)

// ParseThreshold parses μ as a user writes it: a duration ("50ms", "1.5s",
// "50us"), a share of the base total ("1%"), a size ("1MB", "512kB", "100B";
// powers of 1024, as pprof reads them) or a plain positive integer, a
// count. Which of them fits the metric is known once Compare has planned
// the normalization, which checks it (a *MinDeltaError says why one does
// not). Errors start with the quoted input, for the caller to prefix with
// the flag's name.
func ParseThreshold(s string) (Threshold, error) {
	s = strings.TrimSpace(s)
	if p, ok := strings.CutSuffix(s, "%"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || !(f > 0 && f <= 100) || math.IsNaN(f) {
			return Threshold{}, fmt.Errorf("%q: want a share between 0%% and 100%%, such as 1%%", s)
		}
		return Threshold{Share: f / 100}, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n <= 0 {
			return Threshold{}, fmt.Errorf("%q: must be positive", s)
		}
		return Threshold{Value: n, Unit: Count}, nil
	}
	if b, ok, err := parseSize(s); ok {
		if err != nil {
			return Threshold{}, fmt.Errorf("%q: %w", s, err)
		}
		return Threshold{Value: b, Unit: Bytes}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return Threshold{}, fmt.Errorf("%q: want a duration such as 50ms, a share such as 1%%, a size such as 1MB or a count such as 100", s)
	}
	if d <= 0 {
		return Threshold{}, fmt.Errorf("%q: must be positive", s)
	}
	return Threshold{Value: int64(d), Unit: Nanoseconds}, nil
}

// sizeUnits are the byte units ParseThreshold reads, in lower case, and
// their sizes: powers of 1024, as pprof reads and ctdiff prints sizes.
var sizeUnits = map[string]float64{
	"b": 1, "byte": 1, "bytes": 1,
	"kb": 1 << 10, "kib": 1 << 10,
	"mb": 1 << 20, "mib": 1 << 20,
	"gb": 1 << 30, "gib": 1 << 30,
	"tb": 1 << 40, "tib": 1 << 40,
}

// parseSize reads a size such as "1MB" or "1.5 GiB"; ok is false when s is
// not a number followed by a byte unit.
func parseSize(s string) (n int64, ok bool, err error) {
	i := strings.LastIndexAny(s, "0123456789.")
	if i < 0 || i == len(s)-1 {
		return 0, false, nil
	}
	per, known := sizeUnits[strings.ToLower(strings.TrimSpace(s[i+1:]))]
	if !known {
		return 0, false, nil
	}
	f, perr := strconv.ParseFloat(s[:i+1], 64)
	switch {
	case perr != nil:
		return 0, false, nil
	case !(f > 0):
		return 0, true, errors.New("must be positive")
	case f*per >= math.MaxInt64:
		return 0, true, errors.New("is too large")
	case f*per < 1:
		return 0, true, errors.New("is below one byte")
	}
	return int64(math.Round(f * per)), true, nil
}

// in returns t in the unit of the compared values (unit; metric names
// the sample type, for messages): a share or an amount in that unit, or a
// *MinDeltaError when t's unit does not fit (a plain number for a time
// metric, which would read as nanoseconds; any amount for shares, which
// would read as parts per billion).
func (t Threshold) in(unit, metric string) (Threshold, error) {
	if t.Share > 0 || t.Unit == InValues {
		return t, nil
	}
	per, isTime := timeUnits[unit]
	fail := func(format string, args ...any) (Threshold, error) {
		return Threshold{}, &MinDeltaError{Threshold: t, Metric: metric, Unit: unit, Reason: fmt.Sprintf(format, args...)}
	}
	fits := "a number" // what fits the metric, besides a share
	switch {
	case isTime:
		fits = "a duration such as 50ms"
	case unit == "bytes":
		fits = "a size such as 1MB"
	}
	switch {
	case unit == UnitShare:
		return fail("the values are shares of each run's total: use a share such as 1%%")
	case t.Unit == Nanoseconds && isTime:
		v := t.Value / per
		if v == 0 {
			return fail("is below one %s", strings.TrimSuffix(unit, "s"))
		}
		return Threshold{Value: v}, nil
	case t.Unit == Bytes && unit == "bytes", t.Unit == Count && !isTime && unit != "bytes":
		return Threshold{Value: t.Value}, nil
	case t.Unit == Count && isTime:
		return fail("a number without a unit is ambiguous for a time metric (%s): write a duration such as %[2]dms or %[2]dus, or a share of the base total such as 1%%", metric, t.Value)
	case t.Unit == Count:
		return fail("a number without a unit is ambiguous for a byte metric (%s): write a size such as %[2]dB, %[2]dkB or %[2]dMB, or a share of the base total such as 1%%", metric, t.Value)
	case t.Unit == Nanoseconds:
		return fail("a duration needs a time metric, and %s is not one: use %s or a share such as 1%%", metric, fits)
	default:
		return fail("a size needs a byte metric, and %s is not one: use %s or a share such as 1%%", metric, fits)
	}
}

// planned returns t in the unit of the values nz normalizes to (in), the
// one conversion of μ a comparison makes once the plan is known; a
// *MinDeltaError says whether the plan chose shares by itself.
func (t Threshold) planned(nz *Normalization, metric string) (Threshold, error) {
	th, err := t.in(nz.Unit, metric)
	if me, ok := err.(*MinDeltaError); ok {
		me.AutoShare = nz.Auto && nz.Mode == NormalizeShare
	}
	return th, err
}

// absolute reports a threshold a user gave as an amount (a duration, a
// size, a count): it rules shares out (checkBulk).
func (t Threshold) absolute() bool { return t.Share == 0 && t.Unit != InValues }

// timeUnits maps pprof time units to nanoseconds per unit.
var timeUnits = map[string]int64{
	"nanoseconds":  1,
	"microseconds": 1e3,
	"milliseconds": 1e6,
	"seconds":      1e9,
}

// resolve returns μ in the metric's unit for a mean base total; never below 1,
// since ZAM requires μ > 0.
func (t Threshold) resolve(baseTotal float64) int64 {
	v := t.Value
	if t.Share > 0 {
		v = int64(math.Round(t.Share * baseTotal))
	}
	return max(v, 1)
}

// String writes t as ParseThreshold reads it, but for InValues, a plain
// number.
func (t Threshold) String() string {
	switch {
	case t.Share > 0:
		return strconv.FormatFloat(100*t.Share, 'g', -1, 64) + "%"
	case t.Unit == Nanoseconds:
		return time.Duration(t.Value).String()
	case t.Unit == Bytes:
		return formatSize(t.Value)
	}
	return strconv.FormatInt(t.Value, 10)
}

// formatSize writes a size in the largest unit that divides it.
func formatSize(v int64) string {
	for _, u := range []struct {
		name string
		size int64
	}{{"TB", 1 << 40}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"kB", 1 << 10}} {
		if v%u.size == 0 {
			return strconv.FormatInt(v/u.size, 10) + u.name
		}
	}
	return strconv.FormatInt(v, 10) + "B"
}

// Options control Compare. Start from DefaultOptions (or the zero value:
// zero fields take their defaults), so new fields stay compatible.
type Options struct {
	// Metric picks the values compared; the zero Metric is the sample
	// type SampleType names.
	Metric Metric
	// SampleType names the sample type compared when Metric is zero
	// ("cpu", "cpu/nanoseconds"; "" is the trees' default), resolved in
	// every tree with SampleMetric.
	SampleType string
	// MinDelta is μ. Zero means DefaultMinDelta for time metrics and
	// DefaultMinDeltaShare of the base total otherwise. One in a unit
	// (ParseThreshold) is checked against the unit of the normalized
	// values, known once Compare has planned the normalization: a
	// *MinDeltaError reports one that does not fit.
	MinDelta Threshold
	// Aggregate combines runs; "" means DefaultAggregate.
	Aggregate Aggregate
	// Match pairs siblings; "" means DefaultMatching.
	Match Matching
	// CallOrder says the trees list each node's children in the order the
	// program first called them, as PARCS's exhaustive (instrumented) CCTs
	// do; its relaxed matching (Definition 2, rules 3 and 4) reads that
	// order. Sampled profiles do not have it: cct lists children as
	// samples first reached them, which differs from run to run for
	// callees called in a loop, with or without timestamps. Without it
	// (the zero value) PARCS orders each child list by call site, then
	// identity, on both sides (match_parcs.go, relaxedStatic). ZAM's
	// matching does not depend on it.
	CallOrder bool
	// Alpha is the family-wise error rate of the Stats tests (0 means
	// DefaultAlpha).
	Alpha float64
	// Top is how many ranked paths and weight differences are returned
	// (0 means DefaultTop).
	Top int
	// LCS bounds each LCS computation (zero means DefaultBudget).
	LCS Budget
	// TopologyLimit caps the added and removed subtrees returned (0 means
	// DefaultTopologyLimit).
	TopologyLimit int
	// Functions, when not nil, asks for Result.Functions, the
	// per-function table (functions.go).
	Functions *FunctionOptions
	// Tree asks for Result.Tree, the matched union tree. Off by default:
	// it is one TreeNode per calling context of all runs (about 90 bytes
	// each), which only reports that redraw the whole tree need.
	Tree bool
	// Normalize selects how each run's values are scaled before the sides
	// are compared (normalize.go); the zero value picks the mode from the
	// inputs. MinDelta and the tests apply to the normalized values.
	Normalize Normalize
	// Code overrides what counts as the program's own code, to which
	// causes are charged (Cause.Blame); the zero value keeps each
	// ecosystem's default (ownership.go).
	Code CodeRules
	// Bench holds the go test -bench outputs of the runs, for normalization
	// per iteration and benchstat's verdict (benchstat.go); nil when there
	// are none.
	Bench *Bench

	// stats holds alternatives to the Stats tests' design that the
	// accuracy simulation measures against it; the zero value is the
	// design.
	stats statsChoices
}

// statsChoices are the alternatives of Options.stats.
type statsChoices struct {
	// welch tests with Welch's t, without the variance prior (prior.go).
	welch bool
	// correct adjusts the family's p-values; nil is treeHolm on the
	// family's tree.
	correct func([]float64) []float64
	// fitted, when set, is the noise prior to test with instead of
	// fitting one: the mirrored union's (improvements) is the union's.
	fitted *stats.Prior
	// ladderTop is the default μ when μ is below it: statsGraph then
	// keeps what the thresholds up to it find (ladder.go); 0 otherwise.
	ladderTop float64
	// exactStacks says the profiles' stacks are the program's call
	// stacks (Go, Java, native), not an event loop's: with one run a
	// side, a new context of a known function is then tested when the
	// function's total grew as a new call grows it (markUntested).
	exactStacks bool
}

// DefaultOptions returns the options `ctdiff diff` uses without flags.
func DefaultOptions() Options {
	return Options{
		Aggregate:     DefaultAggregate,
		Match:         DefaultMatching,
		Alpha:         DefaultAlpha,
		Top:           DefaultTop,
		LCS:           DefaultBudget,
		TopologyLimit: DefaultTopologyLimit,
	}
}

// withDefaults fills zero fields and validates the rest.
func (o Options) withDefaults() (Options, error) {
	if o.Aggregate == "" {
		o.Aggregate = DefaultAggregate
	}
	if o.Match == "" {
		o.Match = DefaultMatching
	}
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if o.Top == 0 {
		o.Top = DefaultTop
	}
	if o.LCS == (Budget{}) {
		o.LCS = DefaultBudget
	}
	if o.TopologyLimit == 0 {
		o.TopologyLimit = DefaultTopologyLimit
	}
	return o, o.Check()
}

// Check validates the options: the one place where a value Compare cannot
// take is found, for Compare and for a caller that checks its options
// before it reads any input. Zero fields are valid (their defaults). The
// errors are *OptionError.
func (o Options) Check() error {
	bad := func(option, format string, args ...any) error {
		return &OptionError{Option: option, Reason: fmt.Sprintf(format, args...)}
	}
	switch {
	case o.Aggregate != "" && o.Aggregate != Intersect && o.Aggregate != Stats:
		return bad("aggregate", "%q must be one of: [%s %s]", o.Aggregate, Stats, Intersect)
	case o.Match != "" && o.Match != ZAM && o.Match != PARCS:
		return bad("match", "%q must be one of: [%s %s]", o.Match, ZAM, PARCS)
	case o.Alpha != 0 && !(o.Alpha > 0 && o.Alpha < 1):
		return bad("alpha", "%g must be between 0 and 1", o.Alpha)
	case o.Top < 0:
		return bad("top", "%d must not be negative", o.Top)
	case o.MinDelta.Value < 0 || o.MinDelta.Share < 0 || o.MinDelta.Share > 1:
		return bad("min delta", "%s must be positive", o.MinDelta)
	case o.LCS.Base < 0 || o.LCS.PerItem < 0:
		return bad("LCS budget", "%+v must not be negative", o.LCS)
	}
	return o.Functions.check()
}
