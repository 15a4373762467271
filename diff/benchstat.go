package diff

import (
	"fmt"
	"math"
	"strings"

	"github.com/ctdiff/ctdiff/cct"
	"golang.org/x/perf/benchmath"
)

// A BenchResult is one result line of `go test -bench` output, as
// convert.ParseBench reads it.
type BenchResult struct {
	// Name is the full name without "Benchmark" ("Handle-2", "Parse/small-8").
	Name string
	// Iters is b.N; SecPerOp the time per iteration in seconds.
	Iters    int
	SecPerOp float64
	// File and Line say where the line was.
	File string
	Line int
}

// Bench holds the benchmark outputs that match the profiles of a comparison
// (Options.Bench): go test -bench X -cpuprofile writes one profile per go
// test run and one result line per -count, so the base side's profiles and
// Base lines are of the same runs, and so are the new side's.
type Bench struct {
	Base, New []BenchResult
	// BaseProfiles and NewProfiles name each side's profiles, in run
	// order, for warnings about one of them; runs are numbered without.
	BaseProfiles, NewProfiles []string
}

// BenchVerdict is benchstat's verdict on the benchmark, with the time per
// iteration the profiles show for the benchmark function (Result.Benchmark).
type BenchVerdict struct {
	// Name is the benchmark's full name without "Benchmark"; Function the
	// benchmark function found in the profiles.
	Name, Function string
	// Base and New summarize sec/op as benchstat does with its default
	// assumption (nothing): the median and its 95% confidence interval.
	Base, New BenchSummary
	// DeltaPercent is (new/base − 1) × 100 of the medians; P the p-value of
	// the Mann–Whitney U test and Alpha its level: the change is
	// Significant when P < Alpha. Delta is benchstat's cell ("+40.42%", or
	// "~" when not significant) and Test its "(p=0.002 n=6)".
	DeltaPercent float64
	P, Alpha     float64
	Significant  bool
	Delta, Test  string
	// Warnings are benchstat's (too few samples and the like).
	Warnings []string
	// ProfileBase and ProfileNew are the benchmark function's mean
	// inclusive value per iteration in the profiles that hold it, in
	// nanoseconds per one iteration (Result.Unit's values may be per 10^k
	// iterations: Normalization.Scale), when values are per iteration of a
	// time and the function is found; 0 otherwise.
	ProfileBase, ProfileNew int64
}

// A BenchSummary is one side's sec/op: median, confidence interval, samples.
type BenchSummary struct {
	Center, Lo, Hi float64
	N              int
	// Range is benchstat's ± column ("2%").
	Range string
}

// benchIterations are the per-run divisors of NormalizeIteration.
type benchIterations struct{ base, new []float64 }

// benchName returns the one benchmark the results are of, or an error: a
// profile of several benchmarks cannot be normalized per iteration, since
// each has its own b.N.
func benchName(side string, rs []BenchResult) (string, error) {
	if len(rs) == 0 {
		return "", fmt.Errorf("the %s benchmark output has no results", side)
	}
	names := map[string]bool{}
	var list []string
	for _, r := range rs {
		if !names[r.Name] {
			names[r.Name] = true
			list = append(list, "Benchmark"+r.Name)
		}
	}
	if len(list) > 1 {
		return "", fmt.Errorf("the %s benchmark output holds %d benchmarks (%s), and one go test run profiles them all together: run one benchmark per profile (go test -bench '^%s$')",
			side, len(list), strings.Join(list, ", "), list[0])
	}
	return rs[0].Name, nil
}

// runIterations maps result lines to runs: one line per run, or, when a
// run's go test had -count c, c consecutive lines per run, whose b.N add up.
func runIterations(side string, rs []BenchResult, runs int) ([]float64, error) {
	if len(rs)%runs != 0 {
		return nil, fmt.Errorf("the %s side has %d profiles and %d benchmark results: want one result per profile, or the same -count for each (a multiple of %d)", side, runs, len(rs), runs)
	}
	per := len(rs) / runs
	out := make([]float64, runs)
	for i := range out {
		for _, r := range rs[i*per : (i+1)*per] {
			if r.Iters <= 0 {
				return nil, fmt.Errorf("%s:%d: iteration count %d must be positive", r.File, r.Line, r.Iters)
			}
			out[i] += float64(r.Iters)
		}
	}
	return out, nil
}

// prepareBench checks the benchmark outputs against the runs and returns
// the per-run iterations and benchstat's verdict.
func prepareBench(b *Bench, nBase, nNew int) (*benchIterations, *BenchVerdict, error) {
	bn, err := benchName("base", b.Base)
	if err != nil {
		return nil, nil, err
	}
	nn, err := benchName("new", b.New)
	if err != nil {
		return nil, nil, err
	}
	if bn != nn {
		return nil, nil, fmt.Errorf("the base benchmark output is of Benchmark%s and the new one of Benchmark%s", bn, nn)
	}
	it := &benchIterations{}
	if it.base, err = runIterations("base", b.Base, nBase); err != nil {
		return nil, nil, err
	}
	if it.new, err = runIterations("new", b.New, nNew); err != nil {
		return nil, nil, err
	}
	return it, benchstat(bn, b.Base, b.New), nil
}

// benchstat compares sec/op exactly as benchstat does by default: medians
// with distribution-free confidence intervals, and a Mann–Whitney U test at
// α = 0.05 (golang.org/x/perf/benchmath, AssumeNothing).
func benchstat(name string, base, nw []BenchResult) *BenchVerdict {
	th := benchmath.DefaultThresholds
	sample := func(rs []BenchResult) *benchmath.Sample {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = r.SecPerOp
		}
		return benchmath.NewSample(v, &th)
	}
	a, b := sample(base), sample(nw)
	as := benchmath.AssumeNothing
	sa, sb := as.Summary(a, 0.95), as.Summary(b, 0.95)
	c := as.Compare(a, b)
	v := &BenchVerdict{
		Name:         name,
		Base:         BenchSummary{Center: sa.Center, Lo: sa.Lo, Hi: sa.Hi, N: len(a.Values), Range: sa.PctRangeString()},
		New:          BenchSummary{Center: sb.Center, Lo: sb.Lo, Hi: sb.Hi, N: len(b.Values), Range: sb.PctRangeString()},
		P:            c.P,
		Alpha:        c.Alpha,
		Significant:  c.P < c.Alpha,
		Delta:        c.FormatDelta(sa.Center, sb.Center),
		Test:         "(" + c.String() + ")",
		DeltaPercent: math.NaN(),
	}
	if sa.Center != 0 {
		v.DeltaPercent = (sb.Center/sa.Center - 1) * 100
	}
	seen := map[string]bool{}
	for _, ws := range [][]error{a.Warnings, b.Warnings, sa.Warnings, sb.Warnings, c.Warnings} {
		for _, w := range ws {
			if s := w.Error(); !seen[s] {
				seen[s] = true
				v.Warnings = append(v.Warnings, s)
			}
		}
	}
	return v
}

// minBenchSamples is the fewest samples a benchmark's profile needs for
// its time per iteration to mean something: with n samples a total is
// known to about 1/√n, a third at 10.
const minBenchSamples = 10

// benchProfile fills the verdict's per-iteration values of the benchmark
// function in the normalized runs, and warns when they disagree with sec/op
// by more than a quarter: more CPU than wall time per iteration means the
// profile holds work the iteration count does not (testing.B's calibration
// runs before the measured one, for benchmarks that loop over b.N with a
// time -benchtime) or work on other goroutines; less means time off CPU.
// A profile that does not hold the function is named and left out of the
// mean, and one with too few samples to compare is named too.
func benchProfile(v *BenchVerdict, b *Bench, nz *Normalization, base, nw []*run, res *Result) {
	if nz.Mode != NormalizeIteration || nz.Unit != "nanoseconds" {
		return
	}
	fn := "Benchmark" + strings.SplitN(v.Name, "/", 2)[0]
	if i := strings.LastIndexByte(fn, '-'); i > 0 && !strings.Contains(fn[i:], "/") {
		if _, err := fmt.Sscanf(fn[i+1:], "%d", new(int)); err == nil {
			fn = fn[:i]
		}
	}
	for _, s := range []struct {
		side  string
		runs  []*run
		names []string
	}{{"base", base, b.BaseProfiles}, {"new", nw, b.NewProfiles}} {
		for i, r := range s.runs {
			n, ok := r.info.samples, r.info.hasSamples
			if !ok || n >= minBenchSamples {
				continue
			}
			held := ""
			if r.info.periodType.Unit == "nanoseconds" && r.info.periodValue > 0 {
				held = " (" + fmtNanos(float64(n*r.info.periodValue)) + ")"
			}
			res.warn("benchmark %s: %s holds %d samples%s: too few to compare (a profile needs %d or more: run the benchmark longer, with a larger -benchtime)",
				v.Name, runName(s.side, s.names, i), n, held, minBenchSamples)
		}
	}
	// mean is the function's mean value over the runs that hold it.
	mean := func(side string, runs []*run, names []string) (float64, string, bool) {
		var s float64
		var name string
		var missing []string
		for i, r := range runs {
			v, n := markerValue(r, fn)
			if n == "" {
				missing = append(missing, runName(side, names, i))
				continue
			}
			s, name = s+v, n
		}
		found := len(runs) - len(missing)
		switch {
		case found == 0:
			res.warn("benchmark %s: no function %s in the %s profiles", v.Name, fn, side)
			return 0, "", false
		case len(missing) > 0:
			res.warn("benchmark %s: %s holds no %s; the %s time per iteration is the mean of the other %d %s profiles",
				v.Name, strings.Join(missing, ", "), name, side, found, side)
		}
		return s / float64(found), name, true
	}
	bv, name, okB := mean("base", base, b.BaseProfiles)
	nv, _, okN := mean("new", nw, b.NewProfiles)
	if !okB || !okN {
		return
	}
	scale := float64(nz.Scale)
	v.Function = name
	v.ProfileBase, v.ProfileNew = round(bv/scale), round(nv/scale)
	for _, s := range []struct {
		side    string
		profile float64
		sec     float64
	}{{"base", bv, v.Base.Center}, {"new", nv, v.New.Center}} {
		ns := s.profile / scale
		r := ns / (s.sec * 1e9)
		if s.sec <= 0 || (r <= 1.25 && r >= 0.8) {
			continue
		}
		why := "the profiles hold work the iteration count does not (testing.B's calibration runs when the benchmark loops over b.N with a time -benchtime: use b.Loop or -benchtime=Nx), or the benchmark works on other goroutines"
		if r < 0.8 {
			why = "CPU profiles count time on CPU, and the benchmark spent the rest waiting (I/O, locks, sleeps) or descheduled on a busy machine, which sec/op counts"
		}
		res.warn("benchmark %s: the %s profiles show %s per iteration in %s, and the benchmark reports %s/op: %s",
			v.Name, s.side, fmtNanos(ns), name, fmtNanos(s.sec*1e9), why)
	}
}

// runName names run i of a side: its profile when known, else "base run 3".
func runName(side string, names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("%s run %d", side, i+1)
}

// sampleCount returns the samples a tree holds, when it has a sample count
// (Go CPU profiles' samples/count).
func sampleCount(t *cct.Tree) (int64, bool) {
	for i, st := range t.SampleTypes {
		if st.Type == "samples" && st.Unit == "count" {
			return t.Total(cct.RootID)[i], true
		}
	}
	return 0, false
}

// markerValue returns the summed inclusive value of the outermost nodes
// of the function fn in a run, and the function's full name ("" when the
// run does not hold it).
func markerValue(r *run, fn string) (float64, string) {
	var sum float64
	name := ""
	stack := []int32{0}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		f := r.frameOf(id)
		if id != 0 && matchesFunc(f.Function, fn) {
			sum += float64(r.total[id])
			name = f.Function
			continue
		}
		for _, c := range r.children(id) {
			stack = append(stack, int32(c))
		}
	}
	return sum, name
}

func fmtNanos(ns float64) string {
	switch a := math.Abs(ns); {
	case a >= 1e9:
		return fmt.Sprintf("%.3gs", ns/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.3gms", ns/1e6)
	case a >= 1e3:
		return fmt.Sprintf("%.3gµs", ns/1e3)
	}
	return fmt.Sprintf("%.3gns", ns)
}
