package eval

import (
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/convert"
)

// DefaultProfiles are the corpus profiles of the published benchmark: V8
// .cpuprofile files and DevTools traces of different sizes and shapes — a
// large minified web app (89k calling contexts), a compiler (sucrase), three
// renderers of minified Closure code, a 33 MB trace of five threads, and a
// small page with a worker. Paths are relative to the corpus directory.
// Profiles too small to take every kind of injection (a Node server that is
// 96% idle, fibonacci workers) are left out.
var DefaultProfiles = []string{
	"cpuprofile/devtools-large-profile.cpuprofile.gz",
	"cpuprofile/speedscope-Chrome_65-sucrase.cpuprofile",
	"devtools/devtools-multiple-top-level-renderers.json.gz",
	"devtools/devtools-web-dev-screenshot-source-ids.json.gz",
	"devtools/speedscope-Chrome_70-worker.json",
}

// A Config describes a benchmark. DefaultConfig is the published one.
type Config struct {
	// Corpus is the corpus directory and Profiles the profiles in it.
	Corpus   string
	Profiles []string
	// PerKind is the number of injected cases per kind and profile
	// (ZAM: two per injection type and application); Baselines the number
	// of base-vs-base cases per profile (ZAM: one).
	PerKind, Baselines int
	// Runs is K, the number of runs per side (ZAM's RQ1: three pairs).
	Runs int
	// Seed seeds everything.
	Seed uint64
	// DeltaMin and DeltaMax bound the injected time (ZAM: 100-200 ms).
	DeltaMin, DeltaMax time.Duration
	Noise              Noise
	Changes            Changes
	// Families are the case families run (nil: Standard only).
	Families []Family
	// Engines are compared on every case.
	Engines []Engine
	// Parallel bounds the cases run at once (0: GOMAXPROCS).
	Parallel int
}

// DefaultConfig returns the published benchmark's configuration for the
// corpus in dir, comparing engines.
func DefaultConfig(dir string, engines ...Engine) Config {
	return Config{
		Corpus:    dir,
		Profiles:  DefaultProfiles,
		PerKind:   2,
		Baselines: 1,
		Runs:      3,
		Seed:      1,
		DeltaMin:  100 * time.Millisecond,
		DeltaMax:  200 * time.Millisecond,
		Noise:     DefaultNoise,
		Changes:   DefaultChanges,
		Families:  Families,
		Engines:   engines,
	}
}

func (cfg *Config) families() []Family {
	if len(cfg.Families) == 0 {
		return []Family{Standard}
	}
	return cfg.Families
}

// A Case is one comparison: K noisy base runs of a profile against K noisy
// new runs, the new ones carrying an injection unless the case is a
// baseline.
type Case struct {
	Profile string
	Family  Family
	// Kind and Index say which injection of the profile this is.
	Kind     Kind
	Index    int
	Baseline bool
	// Variant is a baseline's kind within its family.
	Variant variant
	Seed    uint64
	// Injection is the regression and its ground truth (nil for baselines).
	Injection *Injection
	// Skipped says why the case did not run (the profile has no function
	// that can take its kind); skipped cases count nowhere.
	Skipped string
	// Outputs and Scores have one entry per engine (no Scores for
	// baselines).
	Outputs []Output
	Scores  []Score

	// Along is, per side (0 base, 1 new) and run, the inclusive time of the
	// cause's thread and of each node on its path (0 where a run lacks the
	// node): what Definition 2 looks at, for the failure listing.
	Along [2][][]int64

	// renamedFrom maps the new names of renamed functions to the old ones;
	// made says which functions the harness made up, and why.
	renamedFrom map[Frame]string
	made        map[Frame]string
}

// Truth returns the ground truth's primary calling context as a Path.
func (c *Case) Truth() Path {
	if c.Injection == nil {
		return Path{}
	}
	return Path{Thread: c.Injection.Thread, Frames: c.Injection.Path}
}

// A Result holds every case of a benchmark.
type Result struct {
	Config Config
	Cases  []*Case
	// Elapsed is the wall time of Run.
	Elapsed time.Duration
}

// Summary sums engine e's scores over the cases that keep accepts (nil:
// all).
func (r *Result) Summary(e int, keep func(*Case) bool) Summary {
	var s Summary
	for _, c := range r.Cases {
		if c.Skipped != "" || (keep != nil && !keep(c)) {
			continue
		}
		if c.Baseline {
			s.addBaseline(c.Outputs[e])
		} else {
			s.add(c.Scores[e])
		}
	}
	return s
}

// Run runs the benchmark.
func Run(cfg Config) (*Result, error) {
	start := time.Now()
	if cfg.Runs < 1 || len(cfg.Engines) == 0 || len(cfg.Profiles) == 0 {
		return nil, fmt.Errorf("eval: need at least one run per side, one engine and one profile (runs %d, engines %d, profiles %d)", cfg.Runs, len(cfg.Engines), len(cfg.Profiles))
	}
	if cfg.DeltaMin <= 0 || cfg.DeltaMax < cfg.DeltaMin {
		return nil, fmt.Errorf("eval: injected time range [%v, %v] is empty", cfg.DeltaMin, cfg.DeltaMax)
	}
	par := cfg.Parallel
	if par <= 0 {
		par = runtime.GOMAXPROCS(0)
	}
	tmpls, err := loadTemplates(cfg.Corpus, cfg.Profiles, par)
	if err != nil {
		return nil, err
	}
	res := &Result{Config: cfg}
	for _, name := range cfg.Profiles {
		for _, f := range cfg.families() {
			// Standard's seeds are those of the published benchmark.
			id := name
			if f != Standard {
				id += "#" + f.String()
			}
			sp := f.spec(&cfg)
			for _, k := range sp.kinds {
				for i := range sp.perKind {
					res.Cases = append(res.Cases, &Case{Profile: name, Family: f, Kind: k, Index: i, Seed: caseSeed(cfg.Seed, id, int(k), i)})
				}
			}
			index := map[variant]int{}
			for _, v := range sp.baselines {
				i := index[v]
				index[v]++
				res.Cases = append(res.Cases, &Case{Profile: name, Family: f, Index: i, Baseline: true, Variant: v, Seed: caseSeed(cfg.Seed, id, -1-int(v), i)})
			}
		}
	}
	errs := make([]error, len(res.Cases))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				c := res.Cases[i]
				if err := runCase(&cfg, tmpls[c.Profile], c); err != nil {
					errs[i] = fmt.Errorf("%s, %s: %w", c.Profile, c.label(), err)
				}
			}
		}()
	}
	for i := range res.Cases {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	res.Elapsed = time.Since(start)
	return res, nil
}

func (c *Case) label() string {
	fam := ""
	if c.Family != Standard {
		fam = c.Family.String() + ": "
	}
	if c.Baseline {
		if c.Variant != plainBaseline {
			return fmt.Sprintf("%sbaseline (%s) #%d", fam, c.Variant, c.Index+1)
		}
		return fmt.Sprintf("%sbaseline #%d", fam, c.Index+1)
	}
	return fmt.Sprintf("%s%s #%d", fam, c.Kind, c.Index+1)
}

// caseSeed derives a case's seed from the benchmark's seed and the case's
// identity, so a case's runs do not depend on which other cases run.
func caseSeed(seed uint64, profile string, kind, index int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%d|%s|%d|%d", seed, profile, kind, index)
	return h.Sum64()
}

func loadTemplates(dir string, names []string, par int) (map[string]*template, error) {
	out := map[string]*template{}
	var mu sync.Mutex
	errs := make([]error, len(names))
	sem := make(chan struct{}, par)
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			r, err := convert.ReadFile(filepath.Join(dir, filepath.FromSlash(name)), convert.Options{})
			if err != nil {
				errs[i] = err
				return
			}
			t, err := newTemplate(name, r.Profile)
			if err != nil {
				errs[i] = err
				return
			}
			mu.Lock()
			out[name] = t
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// runCase makes a case's runs, checks its ground truth against the trees
// and lets every engine compare them.
func runCase(cfg *Config, t *template, c *Case) error {
	rng := rand.New(rand.NewPCG(c.Seed, 0))
	w := t.fork()
	var changes *changeSet
	if !c.Baseline {
		span := int64(cfg.DeltaMax-cfg.DeltaMin) / int64(time.Millisecond)
		d := cfg.DeltaMin + time.Duration(rng.Int64N(span+1))*time.Millisecond
		in, err := pick(t, w, c.Kind, d, rng)
		if errors.Is(err, errNoTarget) {
			c.Skipped = err.Error()
			return nil
		}
		if err != nil {
			return err
		}
		c.Injection = in
		changes = drawChanges(t, w, cfg.Changes, in, rng)
		c.renamedFrom = map[Frame]string{}
		for f, name := range changes.rename {
			c.renamedFrom[Frame{Function: name, File: f.File, Line: f.Line, Column: f.Column}] = f.Function
		}
	}
	pool := newHandlers(t, w, rng)
	fs, err := prepare(cfg, t, w, c, rng)
	if err != nil {
		return err
	}
	if c.Skipped != "" {
		return nil
	}
	c.made = w.made

	trees := func(side uint64, newSide bool) ([]*cct.Tree, error) {
		ts := make([]*cct.Tree, cfg.Runs)
		for i := range cfg.Runs {
			rr := rand.New(rand.NewPCG(c.Seed, 1+side*1000+uint64(i)))
			r := t.base.clone()
			var rename map[Frame]string
			var files map[string]string
			if newSide && changes != nil {
				changes.apply(r, rr)
				c.Injection.apply(t, w, r, rr)
				rename = changes.rename
			}
			if newSide {
				files = fs.newFiles()
			}
			cfg.Noise.apply(t, w, r, pool, fs.factors(w, int(side), i, rr), rr)
			fs.after(w, r, rr)
			tree, err := cct.FromProfile(w.profile(t, r, rename, files), cct.Options{Prune: true})
			if err != nil {
				return nil, err
			}
			ts[i] = tree
		}
		return ts, nil
	}
	base, err := trees(0, false)
	if err != nil {
		return err
	}
	nw, err := trees(1, true)
	if err != nil {
		return err
	}
	if c.Injection != nil {
		found := false
		for side, ts := range [][]*cct.Tree{base, nw} {
			for _, tr := range ts {
				along, ok := pathTotals(tr, c.Truth(), fs.newFiles())
				found = found || (ok && side == 1)
				c.Along[side] = append(c.Along[side], along)
			}
		}
		// A spread check's share of a context can be a few samples, which
		// sampling noise may drop from a run, but not from every run.
		if !found {
			return fmt.Errorf("harness bug: the injected path %v is in no new run", c.Truth())
		}
	}
	for _, e := range cfg.Engines {
		out, err := e.Compare(base, nw)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Name, err)
		}
		c.Outputs = append(c.Outputs, out)
		if !c.Baseline {
			c.Scores = append(c.Scores, scoreTruth(out, c.Injection.Truth()))
		}
	}
	return nil
}

// childNamed returns the child of id that is function f.
func childNamed(t *cct.Tree, id cct.NodeID, f Frame) (cct.NodeID, bool) {
	fid, ok := t.FrameID(cct.Frame{Function: f.Function, File: f.File, StartLine: f.Line, StartColumn: f.Column})
	if !ok {
		return 0, false
	}
	return t.Child(id, fid)
}

// pathTotals returns the inclusive time (the default sample type) of p's
// thread and of each node on path p in tree t, and whether t has the whole
// path; files are the run's moved script URLs (Origins).
func pathTotals(t *cct.Tree, p Path, files map[string]string) ([]int64, bool) {
	k, err := t.SampleIndex("")
	if err != nil {
		return nil, false
	}
	out := make([]int64, 1+len(p.Frames))
	for _, th := range t.Children(cct.RootID) {
		if t.Label(th) != p.Thread {
			continue
		}
		id := th
		out[0] = t.Total(th)[k]
		for i, f := range p.Frames {
			c, found := childNamed(t, id, f)
			if moved, ok := files[f.File]; ok && !found {
				c, found = childNamed(t, id, Frame{Function: f.Function, File: moved, Line: f.Line, Column: f.Column})
			}
			if !found {
				return out, false
			}
			id = c
			out[i+1] = t.Total(id)[k]
		}
		return out, true
	}
	return out, false
}

// Pool returns one result holding the cases of rs: the same benchmark
// with other seeds, summed up as one.
func Pool(rs []*Result) *Result {
	r := &Result{Config: rs[0].Config}
	for _, x := range rs {
		r.Cases = append(r.Cases, x.Cases...)
		r.Elapsed += x.Elapsed
	}
	return r
}
