package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/ctdiff/ctdiff/diff"
)

// The lines every diff report shows about normalization, the Go runtime and
// the benchmark (diff/normalize.go, goruntime.go, benchstat.go), shared by
// the text, JSON, Markdown, HTML and DOT reports so every header says the
// same thing.

// normalizationSummary says how the values were normalized and why, in one
// line without a trailing newline: "share (chosen: ...): values are
// percentages of each run's total; absolute totals 1.95s → 1.96s (+0.5%)".
func normalizationSummary(res *diff.Result) string {
	nz := res.Normalization
	mode := string(nz.Mode)
	if nz.Mode == diff.NormalizePer {
		mode = "per=" + nz.Func
	}
	if mode == "" {
		mode = string(diff.NormalizeNone)
	}
	var b strings.Builder
	b.WriteString(mode)
	switch {
	case nz.Auto:
		fmt.Fprintf(&b, " (chosen: %s)", nz.Reason)
	case nz.Reason != "":
		fmt.Fprintf(&b, " (%s)", nz.Reason)
	}
	raw := func(v int64) string { return FormatValue(v, nz.RawUnit) }
	switch nz.Mode {
	case diff.NormalizeShare:
		b.WriteString(": values are percentages of each run's total")
	case diff.NormalizeTotal:
		b.WriteString(": base values scaled to the new runs' mean total")
	case diff.NormalizePer, diff.NormalizeIteration:
		per := nz.Per
		if nz.Scale > 1 {
			per = fmt.Sprintf("%d × %s", nz.Scale, per)
		}
		fmt.Fprintf(&b, ": values are per %s (%s: base %s, new %s per run)", per, nz.CountSource, counts(nz.BaseCounts), counts(nz.NewCounts))
	default:
		return b.String()
	}
	fmt.Fprintf(&b, "; absolute totals %s → %s (%s)", raw(nz.RawBase), raw(nz.RawNew), signedPercent(nz.RawNew-nz.RawBase, nz.RawBase))
	return b.String()
}

// counts renders run divisors: "3000" for one run, the mean of several as
// "mean 2989".
func counts(c []float64) string {
	if len(c) == 1 {
		return trimCount(c[0])
	}
	s := 0.0
	for _, v := range c {
		s += v
	}
	return "mean " + trimCount(s/float64(len(c)))
}

func trimCount(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.4g", v)
}

// goRuntimeSummary renders Result.GoRuntime in one line (without a trailing
// newline), or "" when the profiles have no Go runtime frames; functions
// have their short names unless full (frameName).
func goRuntimeSummary(res *diff.Result, full bool) string {
	g := res.GoRuntime
	if g == nil {
		return ""
	}
	ch := func(c diff.Change) string {
		return fmt.Sprintf("%s → %s (%s)", FormatValue(c.Base, res.Unit), FormatValue(c.New, res.Unit), signed(FormatValue(c.Delta, res.Unit), c.Delta))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "background GC %s; allocation (runtime.mallocgc incl. GC assists) under user code %s", ch(g.BackgroundGC), ch(g.Allocation))
	if len(g.Allocators) > 0 {
		b.WriteString("; allocation grew most in ")
		for i, a := range g.Allocators {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %s", frameName(a.Frame, full), signed(FormatValue(a.Delta, res.Unit), a.Delta))
		}
	}
	return b.String()
}

// benchmarkSummary renders Result.Benchmark as benchstat prints it, plus the
// profiles' time per iteration of the benchmark function; nil without a
// benchmark.
func benchmarkSummary(res *diff.Result) []string {
	v := res.Benchmark
	if v == nil {
		return nil
	}
	sec := func(s diff.BenchSummary) string {
		return fmt.Sprintf("%s ± %s", formatDuration(s.Center*1e9), s.Range)
	}
	lines := []string{fmt.Sprintf("Benchmark%s (benchstat, sec/op): %s → %s  %s %s", v.Name, sec(v.Base), sec(v.New), v.Delta, v.Test)}
	if v.Function != "" {
		lines = append(lines, fmt.Sprintf("  in the profiles, %s per %s: %s → %s (%s)", v.Function, res.Normalization.Per,
			FormatValue(v.ProfileBase, res.Unit), FormatValue(v.ProfileNew, res.Unit), signedPercent(v.ProfileNew-v.ProfileBase, v.ProfileBase)))
	}
	for _, w := range v.Warnings {
		lines = append(lines, "  benchstat: "+w)
	}
	return lines
}

// The JSON forms.

type normalizationJSON struct {
	Mode          string    `json:"mode"`
	Function      string    `json:"function,omitempty"`
	Matched       string    `json:"matched,omitempty"`
	Auto          bool      `json:"auto"`
	Reason        string    `json:"reason"`
	Per           string    `json:"per,omitempty"`
	Scale         int64     `json:"scale"`
	CountSource   string    `json:"count_source,omitempty"`
	BaseCounts    []float64 `json:"base_counts,omitempty"`
	NewCounts     []float64 `json:"new_counts,omitempty"`
	RawUnit       string    `json:"raw_unit"`
	RawBaseTotal  int64     `json:"raw_base_total"`
	RawNewTotal   int64     `json:"raw_new_total"`
	FixedDuration bool      `json:"fixed_duration"`
	BaseDurations []int64   `json:"base_durations_ns"`
	NewDurations  []int64   `json:"new_durations_ns"`
}

func normalizationOf(nz diff.Normalization) normalizationJSON {
	return normalizationJSON{
		Mode: string(nz.Mode), Function: nz.Func, Matched: nz.Matched, Auto: nz.Auto, Reason: nz.Reason,
		Per: nz.Per, Scale: nz.Scale, CountSource: nz.CountSource, BaseCounts: nz.BaseCounts, NewCounts: nz.NewCounts,
		RawUnit: nz.RawUnit, RawBaseTotal: nz.RawBase, RawNewTotal: nz.RawNew, FixedDuration: nz.FixedDuration,
		BaseDurations: nonNil(nz.BaseDurations), NewDurations: nonNil(nz.NewDurations),
	}
}

func nonNil(v []int64) []int64 {
	if v == nil {
		return []int64{}
	}
	return v
}

type changeJSON struct {
	Base  int64 `json:"base"`
	New   int64 `json:"new"`
	Delta int64 `json:"delta"`
}

type allocatorJSON struct {
	Function string `json:"function"`
	File     string `json:"file"`
	changeJSON
}

type goRuntimeJSON struct {
	BackgroundGC changeJSON      `json:"background_gc"`
	Allocation   changeJSON      `json:"allocation"`
	Allocators   []allocatorJSON `json:"allocators"`
}

func goRuntimeOf(g *diff.GoRuntime) *goRuntimeJSON {
	if g == nil {
		return nil
	}
	c := func(c diff.Change) changeJSON { return changeJSON{c.Base, c.New, c.Delta} }
	out := &goRuntimeJSON{BackgroundGC: c(g.BackgroundGC), Allocation: c(g.Allocation), Allocators: []allocatorJSON{}}
	for _, a := range g.Allocators {
		out.Allocators = append(out.Allocators, allocatorJSON{a.Function, a.File, c(a.Change)})
	}
	return out
}

// benchSideJSON is a side's sec/op; a bound benchstat cannot give (fewer
// than 6 values for a 95% interval: ±∞) is null.
type benchSideJSON struct {
	SecPerOp float64  `json:"sec_per_op"`
	Low      *float64 `json:"ci_low"`
	High     *float64 `json:"ci_high"`
	N        int      `json:"n"`
}

type benchmarkJSON struct {
	Name         string        `json:"name"`
	Function     string        `json:"function,omitempty"`
	Base         benchSideJSON `json:"base"`
	New          benchSideJSON `json:"new"`
	DeltaPercent *float64      `json:"delta_percent"`
	P            *float64      `json:"p"`
	Alpha        float64       `json:"alpha"`
	Significant  bool          `json:"significant"`
	Verdict      string        `json:"verdict"`
	Warnings     []string      `json:"warnings"`
	ProfileBase  int64         `json:"profile_base_per_iteration"`
	ProfileNew   int64         `json:"profile_new_per_iteration"`
}

func benchmarkOf(v *diff.BenchVerdict) *benchmarkJSON {
	if v == nil {
		return nil
	}
	s := func(s diff.BenchSummary) benchSideJSON {
		return benchSideJSON{sig3(s.Center), finite(sig3(s.Lo)), finite(sig3(s.Hi)), s.N}
	}
	out := &benchmarkJSON{Name: v.Name, Function: v.Function, Base: s(v.Base), New: s(v.New), Alpha: v.Alpha,
		Significant: v.Significant, Verdict: v.Delta + " " + v.Test, Warnings: append([]string{}, v.Warnings...),
		ProfileBase: v.ProfileBase, ProfileNew: v.ProfileNew}
	if p := sig3(v.P); !math.IsNaN(p) {
		out.P = &p
	}
	if !math.IsNaN(v.DeltaPercent) {
		d := math.Round(v.DeltaPercent*100) / 100
		out.DeltaPercent = &d
	}
	return out
}

// finite returns &f, or nil for ±Inf and NaN, which JSON cannot hold.
func finite(f float64) *float64 {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil
	}
	return &f
}

// normalizationShort is the mode alone, "share (auto)", for titles.
func normalizationShort(res *diff.Result) string {
	nz := res.Normalization
	s := string(nz.Mode)
	switch {
	case nz.Mode == diff.NormalizePer:
		s = "per=" + nz.Func
	case s == "":
		s = string(diff.NormalizeNone)
	}
	if nz.Auto {
		s += " (auto)"
	}
	return s
}
