package diff

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ctdiff/ctdiff/cct"
)

// A NormalizeMode says how each run's values are scaled before the sides
// are compared. Which one is right depends on what was held fixed while the
// profiles were recorded:
//
//   - fixed work (a batch job, a test, N requests): absolute times compare,
//     NormalizeNone;
//   - fixed duration (/debug/pprof/profile?seconds=30 on a busy service):
//     the total is capped by the recording window, so a slower function
//     takes time from the others and the total stays flat; absolute deltas
//     then mix the regression with losses elsewhere, and shares compare,
//     NormalizeShare (PARCS's pweight, Section 3.4), or time per request,
//     NormalizePer;
//   - a varying number of iterations (go test -bench): time per iteration,
//     NormalizeIteration.
type NormalizeMode string

const (
	// NormalizeAuto picks the mode from the inputs (PlanNormalization).
	NormalizeAuto NormalizeMode = "auto"
	// NormalizeNone compares absolute values.
	NormalizeNone NormalizeMode = "none"
	// NormalizeTotal scales every base run by the ratio of the mean new
	// total to the mean base total, so the side totals are equal; pprof's
	// -normalize, with the roles of base and new as ctdiff reports them.
	NormalizeTotal NormalizeMode = "total"
	// NormalizeShare turns each run's values into shares of that run's
	// total (UnitShare), PARCS's percentage weights.
	NormalizeShare NormalizeMode = "share"
	// NormalizePer divides each run's values by the number of instances of
	// a marker function (Normalize.Func), such as a request handler: time
	// per request.
	NormalizePer NormalizeMode = "per"
	// NormalizeIteration divides each run's values by its benchmark
	// iterations (Options.Bench).
	NormalizeIteration NormalizeMode = "iteration"
)

// UnitShare is the unit of values under NormalizeShare: parts per billion of
// the run's total, so integers keep nine digits of a percentage.
const UnitShare = "parts-per-billion"

// shareScale is a run's total under NormalizeShare.
const shareScale = 1e9

// fixedDurationSpread is how much the recording durations of fixed-duration
// profiles may differ: a /debug/pprof/profile?seconds=N lasts N seconds
// plus up to about 100 ms (runtime/pprof's reader polls every 100 ms, and a
// busy machine delays the wake-up), which is 5% of a 2-second profile and
// far less of a 30-second one, while fixed-work runs of two versions differ
// by their speed (the example's by 10-14%).
const fixedDurationSpread = 0.05

// Normalize selects the normalization (Options.Normalize). The zero value
// is NormalizeAuto.
type Normalize struct {
	Mode NormalizeMode
	// Func is the marker function of NormalizePer, matched against the
	// full function name or its last components: "handleRequest",
	// "example.handleRequest" and "github.com/x/example.handleRequest" all
	// name github.com/x/example.handleRequest.
	Func string
}

// ParseNormalize parses the --normalize flag: auto, none, total, share,
// per=FUNC or iteration.
func ParseNormalize(s string) (Normalize, error) {
	s = strings.TrimSpace(s)
	if f, ok := strings.CutPrefix(s, "per="); ok {
		if f = strings.TrimSpace(f); f == "" {
			return Normalize{}, fmt.Errorf("%q: per= needs a function name, such as per=handleRequest", s)
		}
		return Normalize{Mode: NormalizePer, Func: f}, nil
	}
	switch m := NormalizeMode(s); m {
	case "", NormalizeAuto:
		return Normalize{Mode: NormalizeAuto}, nil
	case NormalizeNone, NormalizeTotal, NormalizeShare, NormalizeIteration:
		return Normalize{Mode: m}, nil
	}
	return Normalize{}, fmt.Errorf("%q must be one of: [auto none total share per=FUNC iteration]", s)
}

func (n Normalize) String() string {
	if n.Mode == NormalizePer {
		return "per=" + n.Func
	}
	if n.Mode == "" {
		return string(NormalizeAuto)
	}
	return string(n.Mode)
}

// Normalization says how a comparison's values were normalized
// (Result.Normalization).
type Normalization struct {
	// Mode is the mode used, never NormalizeAuto; Func is the marker of
	// NormalizePer.
	Mode NormalizeMode
	Func string
	// Auto says the mode was chosen from the inputs, and Reason why (for a
	// chosen mode, what the inputs say).
	Auto   bool
	Reason string
	// Unit is the unit of the normalized values (Result.Unit).
	Unit string
	// CountSource names what NormalizePer and NormalizeIteration divide by:
	// "calls", "inferred instances", "samples" or "benchmark iterations";
	// Matched is the marker's full name as found in the profiles. Per says
	// what one normalized unit is ("call of example.handleRequest").
	CountSource, Matched, Per string
	// Scale: values are per Scale instances (1, or a power of ten when one
	// instance costs too little for integer values).
	Scale int64
	// BaseCounts and NewCounts hold each run's divisor (instances or
	// iterations); BaseFactors and NewFactors each run's scale factor.
	BaseCounts, NewCounts   []float64
	BaseFactors, NewFactors []float64
	// RawBase and RawNew are the mean totals before normalization, in
	// RawUnit (the metric's unit).
	RawBase, RawNew int64
	RawUnit         string
	// BaseDurations and NewDurations are the profiles' recording durations
	// (DurationNanos, 0 when unknown); FixedDuration says they look like
	// fixed-duration recordings (recordedWindow): profiles of CPU time whose
	// durations are all known, equal within 5%, and a whole number of
	// seconds or covering different amounts of work on a side.
	BaseDurations, NewDurations []int64
	FixedDuration               bool
	// cpu says every profile samples CPU time (cpuTime).
	cpu bool
	// unsure is the warning of an automatic choice the recordings do not
	// settle (normalize gives it); checkBulk, which settles it from the
	// values, drops it.
	unsure string
}

// Recordings is what the automatic normalization reads of each side's
// runs (base, then new): their recording durations (0 when unknown) and
// raw totals in the compared metric.
type recordings struct {
	durations, totals [2][]int64
}

// PlanNormalization decides the normalization of a comparison before it
// runs: NormalizeAuto becomes a mode chosen from what the inputs say of
// themselves, and the rest is checked. Compare may then revise an
// automatic share or none from the values (normalize_bulk.go), and says
// why. iterations says whether benchmark iteration counts are available
// (Options.Bench). Compare calls it, and checks Options.MinDelta
// against the unit it plans (Normalization.Unit, set from metricUnit).
// Its errors are *NormalizeError.
//
// The automatic choice: iteration counts → NormalizeIteration; profiles of
// CPU time that look like fixed-duration recordings (recordedWindow) →
// NormalizeShare, where none would be wrong; otherwise NormalizeNone (fixed
// work, or durations unknown), with a warning when the durations alone
// would have said fixed duration.
func PlanNormalization(base, nw []*cct.Tree, n Normalize, metricUnit string, iterations bool) (Normalization, error) {
	rec := recordings{durations: [2][]int64{durations(base), durations(nw)}, totals: [2][]int64{cpuTotals(base), cpuTotals(nw)}}
	return planNormalization(rec, cpuTime(base, nw), n, metricUnit, iterations)
}

// planNormalization is PlanNormalization given what it reads of the trees:
// their recordings, and whether all sample CPU time (cpuTime).
func planNormalization(rec recordings, cpu bool, n Normalize, metricUnit string, iterations bool) (Normalization, error) {
	nz := Normalization{Mode: n.Mode, Func: n.Func, Scale: 1, RawUnit: metricUnit}
	nz.BaseDurations, nz.NewDurations = rec.durations[0], rec.durations[1]
	w := recordedWindow(rec, cpu)
	nz.FixedDuration = w.fixed()
	nz.cpu = cpu
	switch nz.Mode {
	case "", NormalizeAuto:
		nz.Auto = true
		nz.choose(w, rec, iterations)
	case NormalizeNone, NormalizeTotal, NormalizeShare:
	case NormalizePer:
		if n.Func == "" {
			return nz, &NormalizeError{Normalize: n, detail: "per=FUNC needs a function name"}
		}
	case NormalizeIteration:
		if !iterations {
			return nz, &NormalizeError{Normalize: n, NoIterations: true, detail: "iteration needs benchmark outputs with iteration counts"}
		}
	default:
		return nz, &NormalizeError{Normalize: n, detail: fmt.Sprintf("%q must be one of: [auto none total share per=FUNC iteration]", n.Mode)}
	}
	nz.Unit = metricUnit
	if nz.Mode == NormalizeShare {
		nz.Unit = UnitShare
	}
	return nz, nil
}

// choose is the automatic choice of the mode, for recordings that look as w
// says.
func (nz *Normalization) choose(w window, rec recordings, iterations bool) {
	all := append(slices.Clone(nz.BaseDurations), nz.NewDurations...)
	switch {
	case iterations:
		nz.Mode = NormalizeIteration
		nz.Reason = "benchmark outputs give each run's iteration count, so time per iteration compares"
	case w.fixed():
		nz.Mode = NormalizeShare
		nz.Reason = fmt.Sprintf("every profile covers %s (±%.1f%%)%s: fixed-duration profiles, whose total the recording window caps, so a slower function takes time from the others; shares of each run's total compare, absolute times (none) would not",
			fmtDuration(all[0]), 100*w.spread, w.evidence())
		nz.unsure = w.unsureShare(rec)
	case w.equal && !w.cpu:
		nz.Mode = NormalizeNone
		nz.Reason = fmt.Sprintf("every profile covers %s, but they sample wall-clock time, where idle time absorbs a slower function: fixed work, so absolute values compare",
			fmtDuration(all[0]))
	case w.equal:
		nz.Mode = NormalizeNone
		nz.Reason = fmt.Sprintf("every profile covers %s (±%.1f%%), but not a whole number of seconds as requested windows last, and no side's runs did different amounts of work in it: fixed work that took as long on both sides, so absolute values compare",
			fmtDuration(all[0]), 100*w.spread)
		nz.unsure = fmt.Sprintf("every profile covers %s, as fixed-duration recordings would, but they are compared as fixed work (--normalize none), since that is not a whole number of seconds as requested windows last; if they were recorded for a fixed time with the program busy throughout, use --normalize share",
			fmtDuration(all[0]))
	case w.known:
		nz.Mode = NormalizeNone
		nz.Reason = fmt.Sprintf("the profiles cover different durations (base %s, new %s): fixed work, so absolute values compare",
			fmtDuration(meanInt(nz.BaseDurations)), fmtDuration(meanInt(nz.NewDurations)))
	default:
		nz.Mode = NormalizeNone
		nz.Reason = "the inputs do not record their durations, so nothing says the work was not fixed: absolute values compare"
	}
}

// A window is what the recordings say of a recording window.
//
// Equal durations alone do not make fixed-duration profiles: runs of a
// fixed amount of work last as long when their wall time is set by
// something else than their CPU time (a paced input, waits, a busy
// machine), or when a change is small, and compared as shares a job 7%
// slower reads as unchanged. A requested window lasts a whole number of
// seconds (pprof's /debug/pprof/profile?seconds=N, perf record -- sleep N,
// JFR's duration=Ns, async-profiler -d N), and the runs of a side do
// different amounts of work in it when the machine's load or the program's
// input varies (testdata/fixed-duration: durations within 1.2%, totals
// within a side 45% and 60% apart), where runs of fixed work keep their
// totals and their durations vary. How much of a core the profile's total
// covers does not tell them apart: the fixed-duration example's runs, on
// a busy machine, cover 52-85% of one core, the fixed-work example's
// 102-103%.
type window struct {
	known  bool    // every duration known
	spread float64 // of all durations
	equal  bool    // known, within fixedDurationSpread
	cpu    bool    // every profile samples CPU time
	// seconds is the whole number of seconds every duration is near (0
	// when there is none); varied says a side of two or more runs did
	// different amounts of work in the same time.
	seconds int64
	varied  bool
}

// recordedWindow reads the recordings. Only CPU-time profiles are capped by
// their window: in a wall-clock timeline (DevTools, V8, async-profiler
// wall) idle time absorbs a slower function, so a trace of one interaction
// is fixed work however long it was recorded, and absolute values compare.
// The accuracy harness (ZAM RQ1 on V8 timelines) lost 30% recall when
// equal-length timelines were compared as shares.
func recordedWindow(rec recordings, cpu bool) window {
	all := append(slices.Clone(rec.durations[0]), rec.durations[1]...)
	var w window
	w.spread, w.known = durationSpread(all)
	w.equal = w.known && w.spread <= fixedDurationSpread
	w.cpu = cpu
	if !w.equal {
		return w
	}
	w.seconds = wholeSeconds(all)
	for side := range rec.durations {
		w.varied = w.varied || variedWork(rec.durations[side], rec.totals[side])
	}
	return w
}

// fixed reports whether the recordings look like fixed-duration
// recordings of CPU time.
func (w window) fixed() bool { return w.equal && w.cpu && (w.seconds > 0 || w.varied) }

// evidence says, for a reason, what besides equal durations made the
// window.
func (w window) evidence() string {
	switch {
	case w.seconds > 0 && w.varied:
		return ", a whole number of seconds as requested windows last, and the runs of a side did different amounts of work in it"
	case w.seconds > 0:
		return ", a whole number of seconds as requested windows last"
	}
	return ", and the runs of a side did different amounts of work in it"
}

// unsureShare is the warning of a choice of shares that one run a side
// leaves open: a window that caps the total keeps the totals equal
// (unless the machine's load changed), and fixed work that happened to
// last a whole number of seconds on both sides does not; "" when a side
// has several runs that did different amounts of work, or the totals are
// within bulkShift (where both modes put every function alike).
func (w window) unsureShare(rec recordings) string {
	if w.varied || min(len(rec.totals[0]), len(rec.totals[1])) != 1 {
		return ""
	}
	b, n := meanInt(rec.totals[0]), meanInt(rec.totals[1])
	if b <= 0 || n <= 0 || math.Abs(math.Log(float64(n)/float64(b))) <= math.Log1p(bulkShift) {
		return ""
	}
	return fmt.Sprintf("one run on a side: both profiles cover %ds and are compared as fixed-duration recordings (--normalize share), but their totals differ by %s, which a window that caps the total does not make unless the machine's load changed; if the runs did a fixed amount of work, use --normalize none",
		w.seconds, signedPct(n-b, b))
}

// wholeSeconds returns the whole number of seconds N ≥ 1 every duration is
// near, or 0: from 1% (at least 30 ms) short of N, as a span from the
// first sample to the last is, to 2% (at least 200 ms) over, as pprof's
// handler, which stops the profile once its reader has caught up, and a
// busy machine make it.
func wholeSeconds(d []int64) int64 {
	if len(d) == 0 {
		return 0
	}
	n := int64(math.Round(float64(d[0]) / 1e9))
	if n < 1 {
		return 0
	}
	lo, hi := n*1e9-max(n*1e7, 30e6), n*1e9+max(n*2e7, 200e6)
	for _, x := range d {
		if x < lo || x > hi {
			return 0
		}
	}
	return n
}

// variedWork reports whether a side's runs, two or more, did clearly
// different amounts of work in the same time: their totals spread by
// windowWorkSpread or more, and by twice their durations' spread.
func variedWork(durations, totals []int64) bool {
	if len(totals) < 2 || len(totals) != len(durations) {
		return false
	}
	ts, ok := durationSpread(totals)
	ds, _ := durationSpread(durations)
	return ok && ts >= windowWorkSpread && ts >= 2*ds
}

// windowWorkSpread is how far apart the totals of a side's runs must be
// for variedWork: runs of fixed work keep their CPU totals within a few
// percent (testdata/example: 5.8%), and the machine's load moves a
// window's by more (testdata/fixed-duration: 45%).
const windowWorkSpread = 0.1

// cpuTotals returns each tree's root total of CPU time, or of its first
// sample type when it has none named cpu.
func cpuTotals(ts []*cct.Tree) []int64 {
	out := make([]int64, len(ts))
	for i, t := range ts {
		k := slices.IndexFunc(t.SampleTypes, func(v cct.ValueType) bool { return v.Type == "cpu" })
		if len(t.Nodes) == 0 || len(t.SampleTypes) == 0 {
			continue
		}
		out[i] = t.Total(cct.RootID)[max(k, 0)]
	}
	return out
}

// cpuTime reports whether every tree samples CPU time (pprof period type
// "cpu"), as runtime/pprof, perf and JFR's execution samples do.
func cpuTime(base, nw []*cct.Tree) bool {
	for _, t := range append(slices.Clone(base), nw...) {
		if !cpuSampled(t.PeriodType, t.SampleTypes) {
			return false
		}
	}
	return true
}

// cpuSampled reports whether a tree of the period type and sample types
// samples CPU time.
func cpuSampled(period cct.ValueType, types []cct.ValueType) bool {
	return period.Type == "cpu" || period.Type == "" && slices.ContainsFunc(types, func(v cct.ValueType) bool { return v.Type == "cpu" })
}

// normalize scales every run's values as nz says, filling in the counts,
// factors and raw totals. It runs before anything looks at the values, so
// the threshold, the tests, the weights and the ranking all see normalized
// values.
func normalize(nz *Normalization, base, nw []*run, bench *benchIterations, res *Result) error {
	nz.RawBase, nz.RawNew = exactMeanTotal(base), exactMeanTotal(nw)
	nz.BaseFactors, nz.NewFactors = ones(len(base)), ones(len(nw))
	if nz.unsure != "" {
		res.warn("%s", nz.unsure)
	}
	switch nz.Mode {
	case NormalizeNone:
		if nz.FixedDuration && !nz.Auto { // checkBulk's choice says why
			res.warn("--normalize none compares absolute values, but every profile covers the same duration: in fixed-duration profiles the total is capped (here %s → %s, %s), so a slower function shows as a shift of shares and its absolute growth is offset by losses elsewhere; use --normalize share or per=FUNC",
				fmtValue(nz.RawBase, nz.RawUnit), fmtValue(nz.RawNew, nz.RawUnit), signedPct(nz.RawNew-nz.RawBase, nz.RawBase))
		}
	case NormalizeTotal:
		if nz.RawBase > 0 {
			f := float64(nz.RawNew) / float64(nz.RawBase)
			for i := range nz.BaseFactors {
				nz.BaseFactors[i] = f
			}
		} else {
			res.warn("--normalize total: the base runs have no samples, so nothing is scaled")
		}
	case NormalizeShare:
		for i, r := range base {
			nz.BaseFactors[i] = shareFactor(r)
		}
		for i, r := range nw {
			nz.NewFactors[i] = shareFactor(r)
		}
	case NormalizePer, NormalizeIteration:
		if nz.Mode == NormalizePer {
			if err := markerCounts(nz, base, nw); err != nil {
				return err
			}
		} else {
			nz.CountSource, nz.Per = "benchmark iterations", "iteration"
			nz.BaseCounts, nz.NewCounts = bench.base, bench.new
		}
		for i, c := range nz.BaseCounts {
			nz.BaseFactors[i] = 1 / c
		}
		for i, c := range nz.NewCounts {
			nz.NewFactors[i] = 1 / c
		}
		// One instance may cost less than a few thousand units (a fast
		// benchmark, a count metric): values are then per 10^k instances,
		// so integers keep at least five significant digits.
		perUnit := 0.0
		for i, r := range base {
			perUnit += float64(r.total[0]) * nz.BaseFactors[i]
		}
		perUnit /= float64(len(base))
		for perUnit > 0 && perUnit*float64(nz.Scale) < 1e4 && nz.Scale < 1e9 {
			nz.Scale *= 10
		}
		for i := range nz.BaseFactors {
			nz.BaseFactors[i] *= float64(nz.Scale)
		}
		for i := range nz.NewFactors {
			nz.NewFactors[i] *= float64(nz.Scale)
		}
	}
	for i, r := range base {
		r.scale(nz.BaseFactors[i])
	}
	for i, r := range nw {
		r.scale(nz.NewFactors[i])
	}
	return nil
}

// scale multiplies every value of the run by f, on every core for a large
// run: it is on the comparison's critical path, between the last tree built
// and the union (an independent pair of 200k-stack Go profiles under
// --normalize share: 1.4 M nodes a run, 23 ms on one core).
func (r *run) scale(f float64) {
	r.period *= f
	if f == 1 {
		return
	}
	parallel(len(r.total), func(from, to int) {
		total, self := r.total[from:to], r.self[from:to]
		for i := range total {
			total[i] = round(float64(total[i]) * f)
			self[i] = round(float64(self[i]) * f)
		}
	})
}

func shareFactor(r *run) float64 {
	if r.total[0] <= 0 {
		return 0
	}
	return shareScale / float64(r.total[0])
}

// markerCounts counts the instances of nz.Func in every run: calls where the
// tree knows them (cct.Node.Count: a call-counting profiler, or inferred
// instances after latency inference), else samples of the marker. Only
// outermost occurrences count, so recursion is not counted twice.
func markerCounts(nz *Normalization, base, nw []*run) error {
	var source string
	count := func(side string, i int, r *run) (float64, error) {
		c, src, name, err := r.markerCount(nz.Func)
		if err != nil {
			return 0, fmt.Errorf("normalize per=%s: %s run %d: %w", nz.Func, side, i+1, err)
		}
		switch {
		case source == "":
			source, nz.Matched = src, name
		case src != source:
			return 0, fmt.Errorf("normalize per=%s: %s run %d counts %s, and the first run counts %s: the runs must count the same way", nz.Func, side, i+1, src, source)
		}
		return c, nil
	}
	nz.BaseCounts, nz.NewCounts = make([]float64, len(base)), make([]float64, len(nw))
	for i, r := range base {
		c, err := count("base", i, r)
		if err != nil {
			return err
		}
		nz.BaseCounts[i] = c
	}
	for i, r := range nw {
		c, err := count("new", i, r)
		if err != nil {
			return err
		}
		nz.NewCounts[i] = c
	}
	nz.CountSource = source
	nz.Per = "call of " + nz.Matched
	if source == "samples" {
		nz.Per = "sample of " + nz.Matched
	}
	return nil
}

// markerCount returns the instances of the marker in one tree, what they
// are and the marker's full name.
func markerCount(t *cct.Tree, fn string) (count float64, source, name string, err error) {
	samples := -1
	for k, st := range t.SampleTypes {
		if st.Type == "samples" && st.Unit == "count" {
			samples = k
		}
	}
	var calls, sampled int64
	found := false
	stack := []cct.NodeID{cct.RootID}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := &t.Nodes[id]
		f := t.Frames[n.Frame]
		if f.Kind == cct.KindFunction && matchesFunc(f.Function, fn) {
			if !found || f.Function < name {
				name = f.Function
			}
			found = true
			calls += t.Count(id)
			if samples >= 0 {
				sampled += t.Total(id)[samples]
			} else if t.Period > 0 {
				// No sample count: one sample per period of the period
				// type, where the first sample type is that type.
				if len(t.SampleTypes) > 0 && t.SampleTypes[0] == t.PeriodType {
					sampled += t.Total(id)[0] / t.Period
				}
			}
			continue // outermost instances only
		}
		stack = append(stack, t.Children(id)...)
	}
	switch {
	case !found:
		return 0, "", "", fmt.Errorf("no function named %q (or ending in .%s) in the profile", fn, fn)
	case calls > 0 && t.Latency != nil:
		return float64(calls), "inferred instances", name, nil
	case calls > 0:
		return float64(calls), "calls", name, nil
	case sampled > 0:
		return float64(sampled), "samples", name, nil
	}
	return 0, "", name, fmt.Errorf("%s has no calls and no samples to count", name)
}

// matchesFunc reports whether the full function name names fn: equal, or
// ending in fn after a '.' or '/' (Go's package-qualified names).
func matchesFunc(full, fn string) bool {
	if full == fn {
		return true
	}
	if !strings.HasSuffix(full, fn) {
		return false
	}
	c := full[len(full)-len(fn)-1]
	return c == '.' || c == '/'
}

// durations returns each tree's recording duration (0 when unknown).
func durations(ts []*cct.Tree) []int64 {
	d := make([]int64, len(ts))
	for i, t := range ts {
		d[i] = t.DurationNanos
	}
	return d
}

// durationSpread returns (max − min) / min of the durations, and whether
// every duration is known.
func durationSpread(d []int64) (float64, bool) {
	if len(d) == 0 || slices.Min(d) <= 0 {
		return 0, false
	}
	return float64(slices.Max(d)-slices.Min(d)) / float64(slices.Min(d)), true
}

func ones(n int) []float64 {
	f := make([]float64, n)
	for i := range f {
		f[i] = 1
	}
	return f
}

func meanInt(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	var s float64
	for _, x := range v {
		s += float64(x)
	}
	return round(s / float64(len(v)))
}

func fmtDuration(ns int64) string {
	return time.Duration(ns).Round(time.Millisecond).String()
}

// fmtValue renders a raw total for a warning: durations for nanoseconds
// (diff does not import report, whose FormatValue does more).
func fmtValue(v int64, unit string) string {
	if unit == "nanoseconds" {
		return time.Duration(v).Round(time.Millisecond).String()
	}
	return fmt.Sprintf("%d %s", v, unit)
}

func signedPct(delta, base int64) string {
	if base == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%+.1f%%", 100*float64(delta)/float64(base))
}
