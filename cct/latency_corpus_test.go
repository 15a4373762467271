package cct_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/internal/long"
	"github.com/google/pprof/profile"
)

// The corpus traces with per-sample timestamps, by the format that reads
// them. (The test reads them through convert, which cct itself must not
// import; an external test package may.)
var timedCorpus = []struct{ glob, format string }{
	{"cpuprofile/*", "cpuprofile"},
	{"devtools/*", "devtools"},
	{"java/*.jfr*", "jfr"},
	{"java/*jfr-print*.txt", "jfrprint"},
	{"perf/*", "perfscript"},
	{"etw/*.csv", "wpacsv"},
	{"etw/*.xml", "perfview"},
}

// untimedSources are corpus files of those formats whose source has no
// timestamps: inference must refuse them with ErrNoTimeline.
var untimedSources = map[string]bool{
	"perf/flamegraph-perf-vertx-stacks-01.txt": true, // perf script output without the time field
}

// largestTimedTrace is the largest timestamped corpus trace, for the
// benchmark (388,168 samples).
const largestTimedTrace = "devtools/devtools-web-dev-screenshot-source-ids.json.gz"

// timedTree reads a corpus trace and builds its timeline tree. It skips
// while the trace's converter is not registered yet.
func timedTree(tb testing.TB, path, format string) *cct.Tree {
	tb.Helper()
	tr, _ := timedTreeProfile(tb, path, format)
	return tr
}

func timedTreeProfile(tb testing.TB, path, format string) (*cct.Tree, *profile.Profile) {
	tb.Helper()
	if !slices.Contains(convert.FormatNames(), format) {
		tb.Skipf("the %s converter is not registered yet (have %v)", format, convert.FormatNames())
	}
	res, err := convert.ReadFile(path, convert.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	if res.Format != format {
		tb.Fatalf("read as %s, want %s", res.Format, format)
	}
	tr, err := cct.FromProfile(res.Profile, cct.Options{Timeline: true})
	if err != nil {
		tb.Fatal(err)
	}
	return tr, res.Profile
}

func TestLatencyCorpus(t *testing.T) {
	for _, c := range timedCorpus {
		for _, path := range corpus.Glob(t, c.glob) {
			rel, _ := filepath.Rel(corpus.Dir(), path)
			t.Run(filepath.ToSlash(rel), func(t *testing.T) {
				long.File(t, path)
				tr, p := timedTreeProfile(t, path, c.format)
				// Stack samples infer latencies; events (0 in
				// samples/count: JFR allocations) are left out.
				samplesIdx := slices.IndexFunc(p.SampleType, func(v *profile.ValueType) bool { return v.Type == "samples" && v.Unit == "count" })
				events := 0
				for _, s := range p.Sample {
					if len(s.NumLabel[labels.Timestamp]) > 0 && samplesIdx >= 0 && s.Value[samplesIdx] == 0 {
						events++
					}
				}
				err := tr.InferLatency(cct.LatencyOptions{})
				switch {
				case untimedSources[filepath.ToSlash(rel)]:
					if !errors.Is(err, cct.ErrNoTimeline) {
						t.Fatalf("a source without timestamps: err = %v, want ErrNoTimeline", err)
					}
					return
				case errors.Is(err, cct.ErrNoTimeline):
					t.Fatalf("the %s converter wrote no timestamps", c.format)
				case err != nil:
					t.Fatal(err)
				}
				// Own latencies are never negative and add up to the root's
				// total, and Algorithm 2 frame by frame agrees node by node.
				checkLatency(t, tr)
				// Independently: a thread's total is the time its runs of
				// samples span, cut at gaps.
				if tr.Latency.Events != events || tr.Latency.Samples+events != len(tr.Timeline) {
					t.Errorf("latency from %d samples, %d events left out; the timeline has %d, %d of them events", tr.Latency.Samples, tr.Latency.Events, len(tr.Timeline), events)
				}
				span := map[cct.NodeID]int64{}
				tl := slices.DeleteFunc(slices.Clone(tr.Timeline), func(s cct.TimedSample) bool { return s.Event })
				for i := 1; i < len(tl); i++ {
					a, b := tl[i-1], tl[i]
					if a.Thread == b.Thread && a.Profile == b.Profile && b.Time-a.Time <= tr.Latency.Gap {
						span[b.Thread] += b.Time - a.Time
					}
				}
				for _, th := range tr.Children(cct.RootID) {
					if got := tr.LatencyTotal(th, false); got != span[th] {
						t.Errorf("thread %s: conservative total %d, sampled span %d", tr.Label(th), got, span[th])
					}
				}
				lat := tr.Latency
				t.Logf("%d samples (%d events left out), %d threads, %d nodes: %d instances, interval %d ns, gap %d ns, %d gaps; total %d ns conservative, %d ns aggressive",
					lat.Samples, lat.Events, lat.Runs, len(tr.Nodes), lat.InstanceCount, lat.Interval, lat.Gap, lat.Gaps,
					tr.LatencyTotal(cct.RootID, false), tr.LatencyTotal(cct.RootID, true))
			})
		}
	}
}

// TestLatencyJFRTwins: a recording and its `jfr print --events
// jdk.ExecutionSample` text infer latencies from the same CPU samples; the
// recording's allocation events (25 in speedscope-heavy) are not timeline
// samples.
func TestLatencyJFRTwins(t *testing.T) {
	for _, name := range []string{"speedscope-heavy", "jfrparser-cortex-kafka-cpu0"} {
		bin := corpus.Glob(t, "java/"+name+".jfr*")
		if len(bin) != 1 {
			t.Fatalf("java/%s.jfr*: %d files", name, len(bin))
		}
		var samples [2]int
		for i, path := range []string{bin[0], corpus.Path(t, "java/"+name+".DERIVED-jfr-print-d64.txt")} {
			tr := timedTree(t, path, []string{"jfr", "jfrprint"}[i])
			if err := tr.InferLatency(cct.LatencyOptions{}); err != nil {
				t.Fatal(err)
			}
			samples[i] = tr.Latency.Samples
		}
		if samples[0] != samples[1] {
			t.Errorf("%s: latency from %d samples of the recording, %d of its jfr print text", name, samples[0], samples[1])
		}
	}
}

// BenchmarkInferLatencyCorpus times inference alone on the largest
// timestamped corpus trace; the tree is built once.
func BenchmarkInferLatencyCorpus(b *testing.B) {
	tr := timedTree(b, corpus.Path(b, largestTimedTrace), "devtools")
	b.ReportAllocs()
	for b.Loop() {
		if err := tr.InferLatency(cct.LatencyOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(tr.Timeline)), "ns/sample")
}

// BenchmarkBuildTimelineCorpus is what keeping the timeline adds to
// building the tree of the same trace.
func BenchmarkBuildTimelineCorpus(b *testing.B) {
	path := corpus.Path(b, largestTimedTrace)
	if !slices.Contains(convert.FormatNames(), "devtools") {
		b.Skip("the devtools converter is not registered yet")
	}
	res, err := convert.ReadFile(path, convert.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, timeline := range []bool{false, true} {
		b.Run(fmt.Sprintf("timeline=%v", timeline), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := cct.FromProfile(res.Profile, cct.Options{Timeline: timeline}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
