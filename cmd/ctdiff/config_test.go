package main

import (
	"reflect"
	"testing"

	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/report"
	"github.com/spf13/cobra"
)

// diffOptions.config translates diff's flags into each stage's options
// once: what the comparison, the builder and the report read.
func TestDiffConfig(t *testing.T) {
	for _, tt := range []struct {
		name  string
		args  []string
		check func(t *testing.T, c *diffConfig)
	}{
		{"defaults", nil, func(t *testing.T, c *diffConfig) {
			want := diff.DefaultOptions()
			want.Normalize, _ = diff.ParseNormalize("auto")
			if !reflect.DeepEqual(c.compare, want) {
				t.Errorf("diff options %+v, want %+v", c.compare, want)
			}
			if !c.build.Prune || c.build.Pools || c.build.Timeline || !c.autoPools || c.format != report.Format("text") {
				t.Errorf("config %+v", c)
			}
		}},
		{"min delta with its unit", []string{"--min-delta", "2MB"}, func(t *testing.T, c *diffConfig) {
			if want := (diff.Threshold{Value: 2 << 20, Unit: diff.Bytes}); c.compare.MinDelta != want {
				t.Errorf("min delta %+v, want %+v", c.compare.MinDelta, want)
			}
		}},
		{"normalize per", []string{"--normalize", "per=handle"}, func(t *testing.T, c *diffConfig) {
			if want := (diff.Normalize{Mode: diff.NormalizePer, Func: "handle"}); c.compare.Normalize != want {
				t.Errorf("normalize %+v, want %+v", c.compare.Normalize, want)
			}
			if c.foldBuild().OneSampleType {
				t.Error("per=FUNC: the trees a Fold reads keep one sample type")
			}
		}},
		{"a sample type", []string{"--metric", "samples"}, func(t *testing.T, c *diffConfig) {
			if c.compare.SampleType != "samples" || c.compare.Metric.Total != nil || c.build.Timeline {
				t.Errorf("sample type %q, metric %q, timeline %v", c.compare.SampleType, c.compare.Metric.Name, c.build.Timeline)
			}
			if b := c.foldBuild(); !b.OneSampleType || b.SampleType != "samples" {
				t.Errorf("fold build %+v", b)
			}
		}},
		{"latency", []string{"--metric", "latency-aggressive"}, func(t *testing.T, c *diffConfig) {
			if c.compare.SampleType != "" || c.compare.Metric.Name != diff.LatencyMetric(true).Name || !c.build.Timeline || c.metric.String() != "latency-aggressive" {
				t.Errorf("sample type %q, metric %q, timeline %v", c.compare.SampleType, c.compare.Metric.Name, c.build.Timeline)
			}
		}},
		{"the rest", []string{"--aggregate", "intersect", "--match", "parcs", "--top", "3", "--alpha", "0.01", "--pools", "--no-prune", "--call-sites", "-o", "r.html", "--fail-on-untested", "--app", "^main\\."},
			func(t *testing.T, c *diffConfig) {
				o := c.compare
				if o.Aggregate != diff.Intersect || o.Match != diff.PARCS || o.Top != 3 || o.Alpha != 0.01 || !o.Tree || o.Code.App == nil || o.Code.Lib != nil {
					t.Errorf("diff options %+v", o)
				}
				if !c.build.Pools || c.autoPools || c.build.Prune || !c.build.CallSites || c.format != report.Format("html") || !c.failOnRegression || !c.failOnUntested {
					t.Errorf("config %+v", c)
				}
			}},
		{"function table", []string{"--view", "functions", "--cum", "--node-fraction", "0.2"}, func(t *testing.T, c *diffConfig) {
			if want := (&diff.FunctionOptions{Sort: diff.SortCum, NodeFraction: 0.2}); !c.functions || !reflect.DeepEqual(c.compare.Functions, want) {
				t.Errorf("functions %v, %+v", c.functions, c.compare.Functions)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := &diffOptions{}
			cmd := &cobra.Command{Use: "diff"}
			o.register(cmd)
			if err := cmd.Flags().Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			c, err := o.config(cmd.Flags().Changed("format"))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
}
