package audit

import (
	"regexp"
	"strings"

	"github.com/ctdiff/ctdiff/diff"
)

// A Verdict is what a reported cause is, by the truth.
type Verdict string

const (
	// TruePositive: the cause is the injected context, below it, or the
	// injected function where it grew by at least half of μ.
	TruePositive Verdict = "tp"
	// TrueAncestor: the cause is an ancestor of the injected context, one
	// level too high or more, but on the way to it.
	TrueAncestor Verdict = "tp-ancestor"
	// Grew: no injection, but the context's true growth is at least μ (a
	// share that grew as others shrank, say): a right cause of another
	// change.
	Grew Verdict = "grew"
	// FalseAlarm: none of the above.
	FalseAlarm Verdict = "fa"
)

// A CauseVerdict is one reported cause, judged.
type CauseVerdict struct {
	Path    string  `json:"path"`
	Thread  string  `json:"thread"`
	Verdict Verdict `json:"verdict"`
	// Of is the cause's test's Of (diff.Test).
	Of string `json:"of,omitempty"`
	// Growth is the context's true growth (per thread of its name), and
	// Delta the reported one, in the result's unit.
	Growth float64 `json:"true_growth"`
	Delta  float64 `json:"reported_delta"`
	// P is the Holm-adjusted p-value.
	P float64 `json:"p_adj"`
}

// An Outcome scores one comparison. Its JSON form is the audit's scorer's
// output line.
type Outcome struct {
	Label    string  `json:"label"`
	Case     string  `json:"case"`
	Seed     uint64  `json:"seed"`
	K        int     `json:"k"`
	Mode     string  `json:"mode"`
	MinDelta float64 `json:"min_delta"`
	Injected int     `json:"injected"`
	// Expected is the true growth of each injected context, in the
	// result's unit.
	Expected []float64 `json:"expected_growth"`
	// Detected and Missed count the injections some cause was a
	// TruePositive or TrueAncestor of, and the others.
	Detected int `json:"detected"`
	Missed   int `json:"missed"`
	// FalseAlarms counts the causes judged FalseAlarm.
	FalseAlarms int            `json:"false_alarms"`
	Causes      []CauseVerdict `json:"causes"`
	Untested    int            `json:"untested"`
}

// Found says the case injected a change and every injection was found.
func (o Outcome) Found() bool { return o.Injected > 0 && o.Missed == 0 }

// Score judges res's causes by t, in res's normalized unit: a share's
// growth is the change of the context's share of its run's total, a
// total-normalized one its growth against the base scaled to the new
// total. With abs, a share-normalized result is judged in absolute time
// instead (μ converted at the base total): "did it get slower", not "did
// its share grow".
func Score(res *diff.Result, t Truth, abs bool) Outcome {
	mode := res.Normalization.Mode
	mu := float64(res.MinDelta)
	if abs && mode == diff.NormalizeShare {
		mode = diff.NormalizeNone
		mu = mu * t.TotalBefore / 1e9
	}
	growth := func(newKey, oldKey string, threads float64) float64 {
		b, a := t.Before[oldKey], t.After[newKey]
		switch mode {
		case diff.NormalizeShare:
			return (a/t.TotalAfter - b/t.TotalBefore) * 1e9 / threads
		case diff.NormalizeTotal:
			return (a - b*t.TotalAfter/t.TotalBefore) / threads
		}
		return (a - b) / threads
	}
	// Equivalent needs no mapping: the contexts inlining flattened keep
	// their inclusive times.
	oldName := func(key string) string {
		fs := strings.Split(key, ";")
		for i, f := range fs {
			fs[i] = lambdaRun.ReplaceAllString(f, "$$$$Lambda.")
			f = fs[i]
			if o, ok := t.Renames[f]; ok {
				fs[i] = o
			}
		}
		return strings.Join(fs, ";")
	}
	o := Outcome{Case: t.Case, Seed: t.Seed, K: t.K, Mode: string(mode), MinDelta: mu, Injected: len(t.Injected), Untested: len(res.Untested)}
	hit := make([]bool, len(t.Injected))
	for _, in := range t.Injected {
		k := strings.Join(in.Context, ";")
		o.Expected = append(o.Expected, growth(k, oldName(k), 1))
	}
	for _, c := range res.Causes {
		fs := make([]string, len(c.Path))
		for i, f := range c.Path {
			fs[i] = f.Function
		}
		key := lambdaRun.ReplaceAllString(strings.Join(fs, ";"), "$$$$Lambda.")
		threads := 1.0
		if n := t.Threads[threadName(c.Thread)]; n > 0 {
			threads = float64(n)
		}
		cv := CauseVerdict{Path: key, Thread: c.Thread, Delta: float64(c.Delta), Growth: growth(key, oldName(key), threads)}
		if c.Stats != nil {
			cv.P, cv.Of = c.Stats.Q, c.Stats.Of
		}
		leaf := ""
		if len(fs) > 0 {
			leaf = fs[len(fs)-1]
		}
		for i, in := range t.Injected {
			ik := strings.Join(in.Context, ";")
			switch {
			case key == ik || strings.HasPrefix(key, ik+";") || (leaf == in.Func && cv.Growth >= mu/2):
				cv.Verdict = TruePositive
				hit[i] = true
			case strings.HasPrefix(ik, key+";") && cv.Verdict == "":
				cv.Verdict = TrueAncestor
				hit[i] = true
			}
		}
		if cv.Verdict == "" {
			if cv.Growth >= mu {
				cv.Verdict = Grew
			} else {
				cv.Verdict = FalseAlarm
				o.FalseAlarms++
			}
		}
		o.Causes = append(o.Causes, cv)
	}
	for _, h := range hit {
		if h {
			o.Detected++
		} else {
			o.Missed++
		}
	}
	return o
}

// lambdaRun is a JVM lambda class's run-specific part, as a folded stack
// names it ("$$Lambda$123/0x0000000800c01234." or, normalized, "$$Lambda_."):
// the truth names the class without it.
var lambdaRun = regexp.MustCompile(`\$\$Lambda[^.;]*\.`)

// threadName strips a thread label's ordinal and process: "worker #3" and
// "app/worker" are "worker".
func threadName(s string) string {
	if i := strings.LastIndex(s, " #"); i >= 0 {
		s = s[:i]
	}
	if i := strings.LastIndex(s, "/"); i >= 0 {
		s = s[i+1:]
	}
	return s
}
