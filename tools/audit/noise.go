package audit

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// A recorder records runs of workloads, drawing all noise from r in a fixed
// order: a run's jitter, then its stacks' prefixes and samples in sorted
// stack order, then its thread ids.
type recorder struct {
	r *rand.Rand
	// sigma and runSigma: Case.Sigma and Case.RunSigma; hotSigma: Case.Hot.
	sigma, runSigma, hotSigma float64
	// src, when not nil, places a function's source: its file, start line
	// and column (the moved-sources cases); nil is the default place.
	src func(name string) (file string, line, col int64)
}

// record returns one run of w lasting seconds, sampled every period ns,
// as runtime/pprof writes a CPU profile: samples/count and cpu/nanoseconds,
// one location per frame (inline frames as a location's extra lines).
// An outlier run is 30% slower.
func (g *recorder) record(w Workload, seconds float64, period int64, outlier bool) *profile.Profile {
	r := g.r
	runF := lognorm(r, g.runSigma)
	if outlier {
		runF *= 1.3
	}
	fac := map[string]float64{}
	factor := func(prefix string) float64 {
		f, ok := fac[prefix]
		if i := strings.LastIndex(prefix, ";"); !ok && i >= 0 {
			// a recursive frame shares its caller's jitter: the same work
			if j := strings.LastIndex(prefix[:i], ";"); j >= 0 && prefix[j+1:i] == prefix[i+1:] {
				f, ok = 1, true
				fac[prefix] = f
			}
		}
		if !ok {
			f = lognorm(r, g.sigma)
			if prefix == hS {
				// drawn after Sigma's, as the audit's generator did, so
				// that its seeds give the same runs
				f = lognorm(r, g.hotSigma)
			}
			fac[prefix] = f
		}
		return f
	}
	prof := &profile.Profile{
		SampleType:    []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:    &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        period,
		DurationNanos: int64(seconds * 1e9),
		TimeNanos:     1700000000e9,
	}
	funcs := map[string]*profile.Function{}
	fn := func(name string) *profile.Function {
		if f, ok := funcs[name]; ok {
			return f
		}
		file := "/src/" + strings.ReplaceAll(name[:max(0, strings.LastIndex(name, "."))], ".", "_") + ".go"
		f := &profile.Function{ID: uint64(len(funcs) + 1), Name: name, SystemName: name, Filename: file}
		if g.src != nil {
			f.Filename, f.StartLine, _ = g.src(name)
		}
		funcs[name] = f
		prof.Function = append(prof.Function, f)
		return f
	}
	tids := map[string]int64{}
	tidOf := func(t string) int64 {
		if v, ok := tids[t]; ok {
			return v
		}
		v := int64(1000 + r.IntN(90000)) // differs per run
		tids[t] = v
		return v
	}
	locs := map[string]*profile.Location{}
	var mapping *profile.Mapping
	loc := func(lines []string) *profile.Location {
		key := strings.Join(lines, "|")
		if l, ok := locs[key]; ok {
			return l
		}
		l := &profile.Location{ID: uint64(len(locs) + 1), Address: uint64(0x400000 + 16*len(locs))}
		if m, a, ok := unsymbolized(lines[0]); ok && len(lines) == 1 {
			// a frame the profiler could not symbolize: an address in
			// a mapping, no line
			if mapping == nil {
				mapping = &profile.Mapping{ID: 1, Start: 0x400000, Limit: 0x8000000, File: m}
				prof.Mapping = append(prof.Mapping, mapping)
			}
			l.Address, l.Mapping = a, mapping
			locs[key] = l
			prof.Location = append(prof.Location, l)
			return l
		}
		for i, n := range lines {
			ln := profile.Line{Function: fn(n), Line: int64(10 + i)}
			if g.src != nil {
				_, start, col := g.src(n)
				ln.Line, ln.Column = start+int64(2+i), col
			}
			l.Line = append(l.Line, ln)
		}
		locs[key] = l
		prof.Location = append(prof.Location, l)
		return l
	}
	for _, st := range w.stacks() {
		thread, tid, body := splitThread(st)
		fs := strings.Split(body, ";")
		f := runF
		for i := 1; i <= len(fs); i++ {
			f *= factor(strings.Join(fs[:i], ";"))
		}
		n := poisson(r, w[st]*seconds*1e6*f/float64(period))
		if n == 0 {
			continue
		}
		// locations, root first, each with its lines leaf first: an "+inl"
		// frame joins its caller's location
		var groups [][]string
		for _, fr := range fs {
			if name, ok := strings.CutSuffix(fr, "+inl"); ok && len(groups) > 0 {
				g := groups[len(groups)-1]
				groups[len(groups)-1] = append([]string{name}, g...)
				continue
			}
			groups = append(groups, []string{fr})
		}
		s := &profile.Sample{Value: []int64{n, n * period}}
		for i := len(groups) - 1; i >= 0; i-- {
			s.Location = append(s.Location, loc(groups[i]))
		}
		if thread != "" {
			// the tid differs per run: threads match by name only
			s.Label = map[string][]string{"thread": {thread}}
			s.NumLabel = map[string][]int64{"tid": {tidOf(tid)}}
		}
		prof.Sample = append(prof.Sample, s)
	}
	return prof
}

// unsymbolized reads a frame "shop!0x4c1a20" (the unsymbolized
// frames of the unsym cases, as cct names them) as its mapping's file and address.
func unsymbolized(name string) (file string, addr uint64, ok bool) {
	m, hex, ok := strings.Cut(name, "!0x")
	if !ok || strings.ContainsAny(m, ".()") {
		return "", 0, false
	}
	a, err := strconv.ParseUint(hex, 16, 64)
	if err != nil {
		return "", 0, false
	}
	return "/app/" + m, a, true
}

// splitThread splits "@thread=NAME/TID|body" into its parts; a stack
// without the prefix is all body.
func splitThread(st string) (thread, tid, body string) {
	rest, ok := strings.CutPrefix(st, "@thread=")
	if !ok {
		return "", "", st
	}
	i := strings.Index(rest, "|")
	t := rest[:i]
	j := strings.LastIndex(t, "/")
	return t[:j], t[j+1:], rest[i+1:]
}

// lognorm is a lognormal factor of mean 1.
func lognorm(r *rand.Rand, sigma float64) float64 {
	if sigma == 0 {
		return 1
	}
	return math.Exp(r.NormFloat64()*sigma - sigma*sigma/2)
}

// poisson draws a sample count of mean lambda: Knuth's method, and the
// normal approximation above 50.
func poisson(r *rand.Rand, lambda float64) int64 {
	if lambda <= 0 {
		return 0
	}
	if lambda > 50 {
		v := math.Round(lambda + r.NormFloat64()*math.Sqrt(lambda))
		return max(0, int64(v))
	}
	l := math.Exp(-lambda)
	k := int64(0)
	p := 1.0
	for {
		p *= r.Float64()
		if p <= l {
			return k
		}
		k++
	}
}
