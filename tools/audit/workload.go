package audit

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"

	"github.com/google/pprof/profile"
)

// A Workload maps a stack "root;...;leaf" (root first) to the leaf's self
// CPU rate in ms of CPU per second of wall time. A frame "f+inl" is f
// inlined into the frame before it (one location, two lines). A stack may
// carry a thread: the prefix "@thread=NAME/TID|".
type Workload map[string]float64

func (w Workload) clone() Workload {
	c := make(Workload, len(w))
	for k, v := range w {
		c[k] = v
	}
	return c
}

// stacks returns the stacks sorted: every draw of the noise and every sum
// goes in this order, so a seed gives the same bytes on every run.
func (w Workload) stacks() []string {
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// total is the workload's CPU rate, ms/s.
func (w Workload) total() float64 {
	s := 0.0
	for _, k := range w.stacks() {
		s += w[k]
	}
	return s
}

var (
	pkgs = []string{
		"github.com/acme/shop/internal/http", "github.com/acme/shop/internal/db",
		"github.com/acme/shop/internal/codec", "github.com/acme/shop/internal/cache",
		"github.com/acme/shop/internal/auth", "github.com/acme/shop/internal/search",
		"encoding/json", "compress/gzip", "crypto/sha256", "sort", "strings", "bytes",
	}
	verbs = []string{"Handle", "Serve", "decode", "encode", "lookup", "scan", "hash", "parse",
		"(*Conn).query", "(*Pool).get", "(*Index).match", "(*Encoder).Encode", "validate", "render", "merge", "flush"}
)

// syntheticBase is a Go-like service of about 80 leaves under main.main,
// 680 ms/s, with 120 ms/s of GC and scheduler stacks beside it: 0.8 cores.
// It is the same for every seed (the audit's workload); the seed of a Case
// draws only the noise.
func syntheticBase() Workload {
	r := rand.New(rand.NewPCG(1, 77))
	w := Workload{}
	used := map[string]bool{}
	name := func() string {
		for {
			n := pkgs[r.IntN(len(pkgs))] + "." + verbs[r.IntN(len(verbs))]
			if !used[n] {
				used[n] = true
				return n
			}
		}
	}
	var grow func(prefix []string, depth int, budget float64)
	grow = func(prefix []string, depth int, budget float64) {
		if depth >= 6 || (depth >= 2 && r.Float64() < 0.3) || budget < 4 {
			w[strings.Join(prefix, ";")] += budget
			return
		}
		n := 2 + r.IntN(3)
		ws := make([]float64, n+1)
		s := 0.0
		for i := range ws {
			ws[i] = r.ExpFloat64()
			s += ws[i]
		}
		// inner nodes have self time too: 30% of one share
		self := budget * ws[n] / s * 0.3
		w[strings.Join(prefix, ";")] += self
		rest := budget - self
		s -= ws[n]
		for i := range n {
			grow(append(slices.Clone(prefix), name()), depth+1, rest*ws[i]/s)
		}
	}
	grow([]string{"runtime.main", "main.main"}, 0, 680)
	w["runtime.gcBgMarkWorker;runtime.gcDrain;runtime.scanobject"] = 60
	w["runtime.gcBgMarkWorker;runtime.gcDrain;runtime.markBits.isMarked"] = 20
	w["runtime.mcall;runtime.schedule;runtime.findRunnable"] = 25
	w["runtime._ExternalCode"] = 15
	return w
}

// ReadBase reads a pprof profile or folded stacks ("a;b;c 12" lines) as a
// workload of the same shape scaled to 800 ms/s, the synthetic one's rate.
// A pprof profile's last sample type is its weight.
func ReadBase(path string) (Workload, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	w := Workload{}
	if p, err := profile.ParseData(data); err == nil {
		vi := len(p.SampleType) - 1
		for _, s := range p.Sample {
			var fs []string
			for i := len(s.Location) - 1; i >= 0; i-- {
				l := s.Location[i]
				for j := len(l.Line) - 1; j >= 0; j-- {
					fs = append(fs, l.Line[j].Function.Name)
				}
			}
			if len(fs) > 0 {
				w[strings.Join(fs, ";")] += float64(s.Value[vi])
			}
		}
	} else {
		for line := range strings.SplitSeq(string(data), "\n") {
			i := strings.LastIndex(line, " ")
			if i < 0 {
				continue
			}
			var v float64
			if _, err := fmt.Sscan(line[i+1:], &v); err != nil {
				continue
			}
			w[line[:i]] += v
		}
	}
	t := w.total()
	if t <= 0 {
		return nil, fmt.Errorf("%s: no samples with positive weight", path)
	}
	for k := range w {
		w[k] *= 800 / t
	}
	return w, nil
}
