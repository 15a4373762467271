package eval

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// A Family is a set of cases that share a noise model and a notion of what
// is right (the cases the standard benchmark lacks). Each has
// injected cases and, where its noise differs from Standard's, baselines
// of its own: base-vs-base pairs under that noise, where any cause is a
// false alarm.
type Family int

const (
	// Standard is ZAM's RQ1: its three kinds under DefaultNoise.
	Standard Family = iota
	// Spread: a new callee in every calling context of a function
	// (SpreadCallee), and growth spread over several callees of one caller
	// (SpreadCallees).
	Spread
	// LongTask: self time added deep inside the profile's longest task,
	// whose time varies run to run by more than the change (DeepSelf;
	// longtask.go).
	LongTask
	// NoisyGC: the GC node on a large base varies ±10% run to run
	// (gc.go); ZAM's kinds elsewhere, plain baselines and baselines whose
	// GC differs by 2.2 standard errors by chance.
	NoisyGC
	// Artifacts: runtime artifacts (asyncPreempt, morestack, sigtramp and
	// their equivalents) land as leaves under the regressed function and
	// everywhere else (artifacts.go).
	Artifacts
	// Origins: the new runs' scripts come from another origin (origins.go).
	Origins
)

// Families lists every family.
var Families = []Family{Standard, Spread, LongTask, NoisyGC, Artifacts, Origins}

var familyNames = []string{"standard", "spread", "long-task", "noisy-gc", "artifacts", "origins"}

func (f Family) String() string {
	if int(f) < len(familyNames) {
		return familyNames[f]
	}
	return fmt.Sprintf("Family(%d)", int(f))
}

// ParseFamilies parses a comma-separated list of family names, or "all".
func ParseFamilies(s string) ([]Family, error) {
	if strings.TrimSpace(s) == "all" {
		return Families, nil
	}
	var out []Family
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		i := 0
		for i < len(familyNames) && familyNames[i] != name {
			i++
		}
		if i == len(familyNames) {
			return nil, fmt.Errorf("unknown case family %q (want all or some of %s)", name, strings.Join(familyNames, ","))
		}
		out = append(out, Family(i))
	}
	return out, nil
}

// A variant is a kind of baseline.
type variant int

const (
	plainBaseline variant = iota
	// gcShifted: a NoisyGC baseline whose GC factors differ by 2.0-2.4
	// standard errors, new higher (gc.go).
	gcShifted
)

func (v variant) String() string {
	if v == gcShifted {
		return "GC +2.2 SE by chance"
	}
	return "noise only"
}

// A familySpec is what a family runs per profile.
type familySpec struct {
	kinds     []Kind
	perKind   int
	baselines []variant
}

func repeat(v variant, n int) []variant {
	out := make([]variant, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// spec returns what family f runs per profile under cfg: Standard and the
// families of new kinds PerKind cases per kind; the families that vary the
// noise around ZAM's kinds half as many (at least one).
func (f Family) spec(cfg *Config) familySpec {
	half := (cfg.PerKind + 1) / 2
	plain := repeat(plainBaseline, cfg.Baselines)
	switch f {
	case Spread:
		return familySpec{[]Kind{SpreadCallee, SpreadCallees}, cfg.PerKind, nil}
	case LongTask:
		return familySpec{[]Kind{DeepSelf}, cfg.PerKind, plain}
	case NoisyGC:
		return familySpec{Kinds, half, append(plain, repeat(gcShifted, cfg.Baselines)...)}
	case Artifacts:
		return familySpec{[]Kind{SlowAPI, LongLoop}, half, plain}
	case Origins:
		return familySpec{[]Kind{LongLoop}, half, plain}
	}
	return familySpec{Kinds, cfg.PerKind, plain}
}

// pick chooses an injection of kind for a case of the family.
func pick(t *template, w *world, kind Kind, delta time.Duration, rng *rand.Rand) (*Injection, error) {
	switch kind {
	case SpreadCallee:
		return pickSpreadCallee(t, w, rng)
	case SpreadCallees:
		return pickSpreadCallees(t, w, rng)
	case DeepSelf:
		return pickDeep(t, w, rng)
	}
	return pickInjection(t, w, kind, delta, rng)
}

// famState is a case's family-specific noise, drawn once per case.
type famState struct {
	// gcNodes are the GC nodes scaled by gcScale·gc[side][run].
	gcNodes []int32
	gcScale float64
	gc      [2][]float64
	// task is the long task (-1: none) scaled by a factor drawn per run in
	// [1−taskSpread, 1+taskSpread].
	task       int32
	taskSpread float64
	art        *artifacts
	// files maps the new runs' script URLs to their new origin.
	files map[string]string
}

// prepare draws case c's family-specific noise; it returns nil for
// Standard, and sets c.Skipped when the profile cannot take the family.
func prepare(cfg *Config, t *template, w *world, c *Case, rng *rand.Rand) (*famState, error) {
	fs := &famState{task: -1}
	switch c.Family {
	case Standard, Spread:
		return nil, nil
	case LongTask:
		fs.task, fs.taskSpread = t.longTask()
		if fs.task < 0 {
			c.Skipped = fmt.Sprintf("%s: no top-level call of %v", errNoTarget, minLongTask)
		}
	case NoisyGC:
		fs.gcNodes, fs.gcScale = t.gcNodes(), t.gcScale()
		if fs.gcScale == 0 {
			c.Skipped = fmt.Sprintf("%s: no %s frame", errNoTarget, gcFrame)
			break
		}
		var err error
		if fs.gc, err = gcDraws(cfg.Runs, c.Variant == gcShifted, rng); err != nil {
			return nil, err
		}
	case Artifacts:
		fs.art = newArtifacts(w, ArtifactFrames[rng.IntN(len(ArtifactFrames))])
		if in := c.Injection; in != nil && in.stack >= 0 {
			in.art, in.artShare = fs.art.stack(w, in.stack), artifactShare
		}
	case Origins:
		if fs.files = moveOrigins(t.frames); fs.files == nil {
			c.Skipped = fmt.Sprintf("%s: no script URL with an origin", errNoTarget)
		}
	}
	return fs, nil
}

// factors returns the per-stack factors of run i of a side (0 base, 1
// new), or nil when the family adds none.
func (fs *famState) factors(w *world, side, i int, rng *rand.Rand) []float64 {
	if fs == nil || (fs.gcNodes == nil && fs.task < 0) {
		return nil
	}
	f := make([]float64, len(w.stacks))
	for s := range f {
		f[s] = 1
	}
	if fs.gcScale > 0 {
		g := fs.gcScale * fs.gc[side][i]
		for s, st := range w.stacks {
			for _, x := range fs.gcNodes {
				if w.within(st.node, x) {
					f[s] *= g
					break
				}
			}
		}
	}
	if fs.task >= 0 {
		g := 1 + fs.taskSpread*(2*rng.Float64()-1)
		for s, st := range w.stacks {
			if w.within(st.node, fs.task) {
				f[s] *= g
			}
		}
	}
	return f
}

// after adds the family's noise that comes after sampling (artifacts).
func (fs *famState) after(w *world, r *run, rng *rand.Rand) {
	if fs != nil && fs.art != nil {
		fs.art.sprinkle(w, r, rng)
	}
}

// newFiles returns the file renames of the new runs.
func (fs *famState) newFiles() map[string]string {
	if fs == nil {
		return nil
	}
	return fs.files
}
