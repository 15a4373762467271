// Command gopair writes a pair of pprof CPU profiles shaped like Go's
// runtime/pprof output, from a generator independent of tools/synth, for
// checking that ctdiff's speed on synth's pair is not an artefact of how
// synth draws its stacks:
//
//	go run ./tools/synth/cmd/gopair -stacks 200000 -o /tmp/gopair
//
// It writes OUT/base.pb.gz and OUT/new.pb.gz and prints the injected
// change. Where tools/synth copies a prefix of an earlier stack and
// extends it to a depth drawn around a mean, with one location per
// function and a log-normal weight per stack, gopair simulates sampling a
// program: a call graph with heavy-tailed fan-out (most functions call one
// to three others, a few dispatchers hundreds), a stop probability per
// function and recursive functions, so depths are skewed with a long tail;
// a sample is one random walk, so a stack's count is how often the walk
// took it (multinomial noise, not Gaussian), and the stacks are what
// sampling found (rare paths in one profile only). Frames are call sites:
// a caller has one location per callee it calls, a leaf several sampled
// PCs; a quarter of the locations hold inlined frames; functions live in
// four mappings (the binary, libc, libz, vdso). The new program spends 40%
// more under one function and calls a new callee from it.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"

	"github.com/google/pprof/profile"
)

// program is a call graph to sample.
type program struct {
	names   []string
	mapping []int // index into mappings
	// callees[f] lists what f calls; site[f][j] is the location of f's
	// call of callees[f][j], and pcs[f] the locations of f's own code.
	callees [][]int32
	site    [][]int32
	pcs     [][]int32
	stop    []float64 // probability that a walk stops in f
	recurse []bool
	roots   []int32
	nLocs   int
	inlined map[int32][]int32 // a location's inlined callees (innermost last)
}

var mappings = []struct {
	file  string
	start uint64
}{
	{"/usr/local/bin/server", 0x400000},
	{"/usr/lib/x86_64-linux-gnu/libc.so.6", 0x7f0000000000},
	{"/usr/lib/x86_64-linux-gnu/libz.so.1", 0x7f0001000000},
	{"[vdso]", 0x7fff00000000},
}

func newProgram(rng *rand.Rand, nf int) *program {
	p := &program{inlined: map[int32][]int32{}}
	pkgs := []string{"net/http", "encoding/json", "internal/app/router", "internal/app/store", "internal/app/render",
		"github.com/acme/kv/btree", "github.com/acme/kv/wal", "runtime", "sync", "strings", "bytes", "sort"}
	for f := range nf {
		var name string
		switch {
		case f < 3:
			name = []string{"runtime.goexit", "runtime.main", "main.main"}[f]
		case f%53 == 0:
			name = fmt.Sprintf("memcpy_avx_unaligned_%d", f)
		case f%97 == 0:
			name = fmt.Sprintf("inflate_fast_%d", f)
		case f%211 == 0:
			name = fmt.Sprintf("__vdso_clock_gettime_%d", f)
		default:
			name = fmt.Sprintf("%s.(*T%d).m%d", pkgs[rng.IntN(len(pkgs))], f%131, f)
		}
		m := 0
		switch {
		case f%53 == 0:
			m = 1
		case f%97 == 0:
			m = 2
		case f%211 == 0:
			m = 3
		}
		p.names = append(p.names, name)
		p.mapping = append(p.mapping, m)
	}
	p.callees = make([][]int32, nf)
	p.site = make([][]int32, nf)
	p.pcs = make([][]int32, nf)
	p.stop = make([]float64, nf)
	p.recurse = make([]bool, nf)
	for f := range nf {
		// Fan-out: Pareto, shape 1.1: most functions call few others.
		k := min(int(math.Floor(1/math.Pow(1-rng.Float64(), 1/1.1))), 600)
		if p.mapping[f] != 0 {
			k = rng.IntN(2) // library code calls little back
		}
		for range k {
			// Callees: skewed towards a core of popular functions,
			// uniformly otherwise.
			var c int
			if rng.IntN(3) == 0 {
				c = 3 + int(math.Pow(float64(nf-3), rng.Float64()*rng.Float64()))
			} else {
				c = 3 + rng.IntN(nf-3)
			}
			c = min(c, nf-1)
			if c != f && !slices.Contains(p.callees[f], int32(c)) {
				p.callees[f] = append(p.callees[f], int32(c))
			}
		}
		// Leaf-ish functions stop often; dispatchers rarely.
		p.stop[f] = 0.02 + 0.5*rng.Float64()*rng.Float64()
		if len(p.callees[f]) == 0 {
			p.stop[f] = 1
		}
		p.recurse[f] = rng.IntN(40) == 0 && len(p.callees[f]) > 0
	}
	p.stop[0], p.stop[1], p.stop[2] = 0, 0, 0
	p.callees[1] = []int32{2}
	// Goroutine entry points under runtime.goexit; main under runtime.main.
	for range 40 {
		p.callees[0] = append(p.callees[0], int32(3+rng.IntN(nf-3)))
	}
	p.callees[2] = append(p.callees[2], int32(3+rng.IntN(nf-3)), int32(3+rng.IntN(nf-3)))
	p.roots = []int32{0, 1}
	for f := range nf {
		for range p.callees[f] {
			p.site[f] = append(p.site[f], p.newLoc(rng))
		}
		for range 1 + rng.IntN(4) {
			p.pcs[f] = append(p.pcs[f], p.newLoc(rng))
		}
	}
	return p
}

// newLoc numbers a location; a quarter of them inline one or two frames.
func (p *program) newLoc(rng *rand.Rand) int32 {
	id := int32(p.nLocs)
	p.nLocs++
	if rng.IntN(4) == 0 {
		n := 1 + rng.IntN(2)
		for range n {
			p.inlined[id] = append(p.inlined[id], int32(3+rng.IntN(len(p.names)-3)))
		}
	}
	return id
}

// walk samples one stack, root first, as locations. extra, when not nil,
// is the change of the new program: under boost, walks are 40% more
// frequent (boostWalk draws again) and the added callee is called.
func (p *program) walk(rng *rand.Rand, buf []int32, boost, added int32) (stack []int32, hitBoost bool) {
	buf = buf[:0]
	var f int32
	if rng.IntN(10) == 0 {
		f = 1
	}
	for depth := 0; ; depth++ {
		if f == boost {
			hitBoost = true
		}
		cs := p.callees[f]
		if depth >= 200 || rng.Float64() < p.stop[f] || len(cs) == 0 {
			pcs := p.pcs[f]
			buf = append(buf, pcs[rng.IntN(len(pcs))])
			break
		}
		if p.recurse[f] && rng.IntN(5) != 0 {
			// Recursion: the call site of f calling itself.
			buf = append(buf, p.site[f][0])
			continue
		}
		// Favourite callees: the first ones are called most.
		j := min(int(float64(len(cs))*math.Pow(rng.Float64(), 2)), len(cs)-1)
		if f == boost && added >= 0 && rng.IntN(3) == 0 {
			// A new call site in boost, into the added callee's one PC.
			buf = append(buf, int32(p.nLocs), int32(p.nLocs+1))
			break
		}
		buf = append(buf, p.site[f][j])
		f = cs[j]
	}
	return buf, hitBoost
}

type counts struct {
	index  map[string]int
	stacks [][]int32
	n      []int64
}

func (c *counts) add(s []int32) {
	k := key(s)
	if i, ok := c.index[k]; ok {
		c.n[i]++
		return
	}
	c.index[k] = len(c.stacks)
	c.stacks = append(c.stacks, slices.Clone(s))
	c.n = append(c.n, 1)
}

func key(s []int32) string {
	b := make([]byte, 0, 4*len(s))
	for _, v := range s {
		b = append(b, byte(v), byte(v>>8), byte(v>>16), byte(v>>24))
	}
	return string(b)
}

func main() {
	out := flag.String("o", "gopair", "output directory")
	seed := flag.Uint64("seed", 1, "random seed")
	target := flag.Int("stacks", 200_000, "distinct stacks in the base profile (about)")
	nf := flag.Int("functions", 12_000, "functions")
	flag.Parse()
	pr := generate(*seed, *target, *nf)
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	for _, f := range []struct {
		name string
		p    *profile.Profile
	}{{"base.pb.gz", pr.base}, {"new.pb.gz", pr.new}} {
		w, err := os.Create(filepath.Join(*out, f.name))
		if err != nil {
			log.Fatal(err)
		}
		if err := f.p.Write(w); err != nil {
			log.Fatal(err)
		}
		if err := w.Close(); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Print(pr.summary)
}

// A pair is what generate returns: the profiles and a summary of them.
type pair struct {
	base, new       *profile.Profile
	injected, added string
	summary         string
}

// generate samples the base program until it has found target distinct
// stacks, and the new program for as many walks.
func generate(seed uint64, target, nf int) *pair {
	rng := rand.New(rand.NewPCG(seed, 0x243f6a8885a308d3))
	p := newProgram(rng, nf)
	// The changed function: the goroutine entry calling most others, so
	// that the change is spread over many contexts.
	boost := p.callees[2][0]
	for _, c := range p.callees[0] {
		if len(p.callees[c]) > len(p.callees[boost]) {
			boost = c
		}
	}
	out := &pair{injected: p.names[boost], added: "github.com/acme/kv/wal.(*Log).fsyncSlow"}

	base := &counts{index: map[string]int{}}
	var buf []int32
	walks := 0
	for len(base.stacks) < target {
		s, _ := p.walk(rng, buf, -1, -1)
		base.add(s)
		buf = s
		walks++
	}
	nw := &counts{index: map[string]int{}}
	for range walks {
		s, hit := p.walk(rng, buf, boost, 1)
		nw.add(s)
		buf = s
		if hit && rng.Float64() < 0.4 {
			// 40% more time under boost: the sampled path again.
			nw.add(s)
		}
	}
	out.base = p.profile(base, boost, out.added, rng)
	out.new = p.profile(nw, boost, out.added, rng)
	depths := make([]int, len(base.stacks))
	sum := 0
	for i, s := range base.stacks {
		depths[i] = len(s)
		sum += len(s)
	}
	slices.Sort(depths)
	out.summary = fmt.Sprintf("%d walks; base %d distinct stacks (depth mean %.1f, median %d, 99th percentile %d, max %d), new %d; %d locations\n",
		walks, len(base.stacks), float64(sum)/float64(len(depths)), depths[len(depths)/2], depths[len(depths)*99/100], depths[len(depths)-1],
		len(nw.stacks), p.nLocs) +
		fmt.Sprintf("injected: %s (+40%%), added callee: %s\n", out.injected, out.added)
	return out
}

// profile writes the counts as a Go CPU profile: sample types
// samples/count and cpu/nanoseconds, a 10 ms period, samples in a
// shuffled order (runtime/pprof writes them in hash order).
func (p *program) profile(c *counts, boost int32, addedName string, rng *rand.Rand) *profile.Profile {
	const period = 10_000_000
	pr := &profile.Profile{
		SampleType:    []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType:    &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:        period,
		TimeNanos:     1_764_000_000_000_000_000,
		DurationNanos: 30e9,
	}
	for i, m := range mappings {
		pr.Mapping = append(pr.Mapping, &profile.Mapping{ID: uint64(i + 1), Start: m.start, Limit: m.start + 0x1000000,
			File: m.file, HasFunctions: true})
	}
	fns := make([]*profile.Function, len(p.names)+1)
	fn := func(f int) *profile.Function {
		if fns[f] == nil {
			name := addedName
			if f < len(p.names) {
				name = p.names[f]
			}
			fns[f] = &profile.Function{ID: uint64(len(pr.Function) + 1), Name: name, SystemName: name,
				Filename: fmt.Sprintf("/src/%d/%s.go", f%37, "file"), StartLine: int64(10 + f%500)}
			pr.Function = append(pr.Function, fns[f])
		}
		return fns[f]
	}
	// Which function each location is in: call sites and PCs were
	// numbered function by function.
	owner := make([]int32, p.nLocs+2)
	owner[p.nLocs], owner[p.nLocs+1] = boost, int32(len(p.names))
	for f := range p.names {
		for _, l := range p.site[f] {
			owner[l] = int32(f)
		}
		for _, l := range p.pcs[f] {
			owner[l] = int32(f)
		}
	}
	locs := make([]*profile.Location, p.nLocs+2)
	loc := func(l int32) *profile.Location {
		if locs[l] == nil {
			f := int(owner[l])
			m := pr.Mapping[0] // the added callee is in the binary
			if f < len(p.names) {
				m = pr.Mapping[p.mapping[f]]
			}
			lines := []profile.Line{{Function: fn(f), Line: int64(20 + int(l)%900)}}
			for _, in := range p.inlined[l] {
				// pprof lists inlined frames callee first.
				lines = append([]profile.Line{{Function: fn(int(in)), Line: int64(5 + int(in)%300)}}, lines...)
			}
			locs[l] = &profile.Location{ID: uint64(len(pr.Location) + 1), Mapping: m,
				Address: m.Start + 0x1000 + uint64(l)*16, Line: lines}
			pr.Location = append(pr.Location, locs[l])
		}
		return locs[l]
	}
	order := rng.Perm(len(c.stacks))
	for _, i := range order {
		s := c.stacks[i]
		sample := &profile.Sample{Value: []int64{c.n[i], c.n[i] * period}}
		for j := len(s) - 1; j >= 0; j-- {
			sample.Location = append(sample.Location, loc(s[j]))
		}
		pr.Sample = append(pr.Sample, sample)
	}
	return pr
}
