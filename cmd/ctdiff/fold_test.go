package main

import (
	"reflect"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/tools/synth"
	"github.com/google/pprof/profile"
)

// Runs built with diffConfig.foldBuild, which keep one sample type's values unless
// per=FUNC normalization counts samples in the trees, give a Fold the
// result diff.Compare gives of trees that keep every type's.
func TestFoldOptionsSameResult(t *testing.T) {
	t.Parallel()
	pair := synth.Generate(synth.Config{Seed: 5, Stacks: 3000, Functions: 300, Runs: 2})
	tests := []struct {
		metric, normalize string
		nBase, nNew       int
		oneType           bool
	}{
		{"", "", 1, 1, true},
		{"samples", "", 1, 1, true},
		{"cpu/nanoseconds", "share", 2, 2, true},
		{"cpu", "none", 1, 2, true},
		{"", "per=" + pair.Injected, 2, 2, false},
	}
	for _, tc := range tests {
		t.Run(tc.metric+"/"+tc.normalize, func(t *testing.T) {
			n, err := diff.ParseNormalize(tc.normalize)
			if err != nil {
				t.Fatal(err)
			}
			c := &diffConfig{metric: parseMetric(tc.metric), build: cct.Options{Prune: true}}
			c.compare.Normalize = n
			copts := c.foldBuild()
			if copts.OneSampleType != tc.oneType || copts.OneSampleType && copts.SampleType != tc.metric {
				t.Fatalf("foldBuild = %+v, want OneSampleType %v", copts, tc.oneType)
			}
			build := func(opts cct.Options, ps []*profile.Profile) []*cct.Tree {
				var ts []*cct.Tree
				for _, p := range ps {
					tr, err := cct.FromProfile(p, opts)
					if err != nil {
						t.Fatal(err)
					}
					ts = append(ts, tr)
				}
				return ts
			}
			opts := diff.DefaultOptions()
			opts.SampleType, opts.Tree = tc.metric, true
			opts.Normalize = n
			want, wantErr := diff.Compare(build(cct.Options{Prune: true}, pair.BaseRuns[:tc.nBase]), build(cct.Options{Prune: true}, pair.NewRuns[:tc.nNew]), opts)
			f := diff.NewFold(tc.nBase, tc.nNew, opts)
			for i, tr := range build(copts, pair.BaseRuns[:tc.nBase]) {
				f.Add(false, i, tr)
			}
			for i, tr := range build(copts, pair.NewRuns[:tc.nNew]) {
				f.Add(true, i, tr)
			}
			got, err := f.Compare()
			if !reflect.DeepEqual(err, wantErr) || !reflect.DeepEqual(got, want) {
				t.Errorf("the Fold of runs built with %+v gives %v, %v; Compare of full trees %v, %v", copts, got, err, want, wantErr)
			}
		})
	}
}
