package synth

import (
	"testing"

	"github.com/google/pprof/profile"
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
