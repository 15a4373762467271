package synth

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"gonum.org/v1/gonum/stat"
)

func TestGenerate(t *testing.T) {
	c := Config{Seed: 7, Functions: 300, Stacks: 2000}
	a, b := Generate(c), Generate(c)
	if len(a.Base.Sample) != 2000 {
		t.Fatalf("base has %d samples, want one per distinct stack (2000)", len(a.Base.Sample))
	}
	if total(a.Base) != total(b.Base) || total(a.New) != total(b.New) {
		t.Error("generation is not deterministic for a seed")
	}
	if err := a.New.CheckValid(); err != nil {
		t.Fatal(err)
	}
	// The injected function's inclusive time grows by roughly the injected
	// 40% plus the added callee's 50%.
	grow := float64(inclusive(a.New, a.Injected)) / float64(inclusive(a.Base, a.Injected))
	if grow < 1.6 || grow > 2.2 {
		t.Errorf("injected function grew %.2fx, want about 1.9x", grow)
	}
	if inclusive(a.Base, a.Added) != 0 || inclusive(a.New, a.Added) == 0 {
		t.Error("the added callee must appear in New only")
	}
}

func total(p *profile.Profile) (s int64) {
	for _, x := range p.Sample {
		s += x.Value[1]
	}
	return s
}

func inclusive(p *profile.Profile, fn string) (s int64) {
	for _, x := range p.Sample {
		for _, l := range x.Location {
			if l.Line[0].Function.Name == fn {
				s += x.Value[1]
				break
			}
		}
	}
	return s
}

// Several runs share their stacks and differ in noise; the first run is
// the single-run pair's, so seeds keep their meaning.
func TestGenerateRuns(t *testing.T) {
	one := Generate(Config{Seed: 7, Functions: 300, Stacks: 2000})
	three := Generate(Config{Seed: 7, Functions: 300, Stacks: 2000, Runs: 3})
	if len(three.BaseRuns) != 3 || len(three.NewRuns) != 3 {
		t.Fatalf("%d base and %d new runs, want 3 and 3", len(three.BaseRuns), len(three.NewRuns))
	}
	if total(three.Base) != total(one.Base) || total(three.New) != total(one.New) {
		t.Error("the first of three runs differs from the single run")
	}
	for i, p := range three.BaseRuns[1:] {
		if len(p.Sample) != len(one.Base.Sample) {
			t.Errorf("base run %d has %d stacks, want %d", i+2, len(p.Sample), len(one.Base.Sample))
		}
		if total(p) == total(one.Base) {
			t.Errorf("base run %d has the first run's total: no noise of its own", i+2)
		}
	}
}

// Expected is what the runs average to: the mean of many runs' inclusive
// time per calling context lies within a few standard errors of it, for
// contexts of every size (the rare stacks' floor of one sample included),
// and only the injected function's contexts change.
func TestExpected(t *testing.T) {
	c := Config{Seed: 3, Functions: 60, Stacks: 300, MeanDepth: 6, NewFrames: 2, Period: 10_000_000, Runs: 400}
	want := Expected(c)
	index := map[string]int{}
	for i, x := range want {
		index[strings.Join(x.Path, ";")] = i
	}
	base, nw := make([][]float64, len(want)), make([][]float64, len(want))
	sums := func(p *profile.Profile, into [][]float64) {
		v := make([]float64, len(want))
		for _, s := range p.Sample {
			var path []string
			for i := len(s.Location) - 1; i >= 0; i-- {
				path = append(path, s.Location[i].Line[0].Function.Name)
				i, ok := index[strings.Join(path, ";")]
				if !ok {
					t.Fatalf("context %q is not in Expected", path)
				}
				v[i] += float64(s.Value[1])
			}
		}
		for i := range v {
			into[i] = append(into[i], v[i])
		}
	}
	pair := GenerateEach(c, func(_ int, b, n *profile.Profile) { sums(b, base); sums(n, nw) })
	// Callers of the injected function's contexts change too.
	above := map[string]bool{}
	for _, x := range want {
		if k := slices.Index(x.Path, pair.Injected); k >= 0 {
			for d := 1; d <= k; d++ {
				above[strings.Join(x.Path[:d], ";")] = true
			}
		}
	}
	changed := 0
	for i, x := range want {
		for _, side := range []struct {
			name string
			runs []float64
			want float64
		}{{"base", base[i], x.Base}, {"new", nw[i], x.New}} {
			// A context whose runs all agree (stacks of a weight well
			// below one sample) has no sample spread: its count's own
			// Poisson-like spread bounds the error instead.
			mean, sd := stat.MeanStdDev(side.runs, nil)
			spread := max(sd*sd, float64(c.Period)*side.want)
			if se := math.Sqrt(spread / float64(len(side.runs))); math.Abs(mean-side.want) > 5*se {
				t.Errorf("%s %q: runs average %.4g, Expected says %.4g (standard error %.2g)", side.name, x.Path, mean, side.want, se)
			}
		}
		through := slices.Contains(x.Path, pair.Injected) || above[strings.Join(x.Path, ";")]
		if x.New != x.Base {
			changed++
			if !through {
				t.Errorf("%q changed (%.4g -> %.4g) but neither calls nor passes through the injected %s", x.Path, x.Base, x.New, pair.Injected)
			}
		}
	}
	if changed == 0 {
		t.Error("no context changed")
	}
}
