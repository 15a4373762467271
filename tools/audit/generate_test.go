package audit

import (
	"bytes"
	"math"
	"testing"

	"github.com/google/pprof/profile"
)

// TestGenerateDeterministic: a Case gives the same profiles and truth
// every time, and another seed other profiles.
func TestGenerateDeterministic(t *testing.T) {
	for _, name := range []string{"null", "bimodal", "threads", "inline-frame"} {
		c := NewCase(name, 7)
		c.Outlier, c.Hot = 0.5, 0.2
		a, b := generate(t, c), generate(t, c)
		c.Seed++
		other := generate(t, c)
		if !bytes.Equal(encode(t, a.Before), encode(t, b.Before)) || !bytes.Equal(encode(t, a.After), encode(t, b.After)) {
			t.Errorf("%s: two runs of one seed differ", name)
		}
		if a.Truth.TotalBefore != b.Truth.TotalBefore || a.Truth.TotalAfter != b.Truth.TotalAfter || len(a.Truth.After) != len(b.Truth.After) {
			t.Errorf("%s: two truths of one seed differ", name)
		}
		if bytes.Equal(encode(t, a.Before), encode(t, other.Before)) {
			t.Errorf("%s: seeds 7 and 8 give the same runs", name)
		}
	}
}

// TestTruthTotals: the truth's totals are the runs' mean CPU time, within
// noise: 4 standard errors of the mean of 20 runs. The noise is larger
// than the run jitter alone: runtime.main and main.main, each jittered
// with σ 0.1, hold 85% of the time, so a run's total varies by 10-20%. The cases that change the duration, the sampling rate or the work
// check the after side's accounting.
func TestTruthTotals(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ratio float64 // after total / before total
	}{
		{"null", 1},
		{"duration", 2},
		{"rate", 1},
		{"improve", 0},
	} {
		c := NewCase(tc.name, 3)
		c.K = 20
		p := generate(t, c)
		tr := p.Truth
		for _, side := range []struct {
			name  string
			runs  []*profile.Profile
			total float64
		}{{"before", p.Before, tr.TotalBefore}, {"after", p.After, tr.TotalAfter}} {
			mean, se := meanCPU(side.runs)
			if math.Abs(mean-side.total) > 4*se {
				t.Errorf("%s %s: runs' mean %.4gs ± %.2gs, truth %.4gs", tc.name, side.name, mean/1e9, se/1e9, side.total/1e9)
			}
		}
		if r := tr.TotalAfter / tr.TotalBefore; tc.ratio != 0 && math.Abs(r-tc.ratio) > 1e-9 {
			t.Errorf("%s: truth's totals after/before %.4f, want %g", tc.name, r, tc.ratio)
		}
		if root := tr.Before["runtime.main"] + tr.Before["runtime.gcBgMarkWorker"] + tr.Before["runtime.mcall"] + tr.Before["runtime._ExternalCode"]; math.Abs(root/tr.TotalBefore-1) > 1e-9 {
			t.Errorf("%s: the roots' inclusive times sum to %.4gs, the total is %.4gs", tc.name, root/1e9, tr.TotalBefore/1e9)
		}
	}
}

func generate(t *testing.T, c Case) *Pair {
	t.Helper()
	p, err := Generate(c)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// encode is the runs' pprof encoding, concatenated.
func encode(t *testing.T, runs []*profile.Profile) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, p := range runs {
		if err := p.WriteUncompressed(&b); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

// meanCPU is the runs' mean cpu/nanoseconds total and its standard error.
func meanCPU(runs []*profile.Profile) (mean, se float64) {
	totals := make([]float64, len(runs))
	for i, p := range runs {
		for _, smp := range p.Sample {
			totals[i] += float64(smp.Value[1])
		}
		mean += totals[i] / float64(len(runs))
	}
	ss := 0.0
	for _, v := range totals {
		ss += (v - mean) * (v - mean)
	}
	n := float64(len(runs))
	return mean, math.Sqrt(ss / (n - 1) / n)
}
