package convert

import (
	"bytes"
	"slices"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/pprofio"
)

// CheckStacks asserts that reading data with Options.Stacks gives what
// reading it without does: the same error, or the same warnings and, when
// the reader returns stacks, the same calling-context tree (nodes, values,
// timeline) and, for readers whose stacks are complete
// (Format.CompleteStacks), the same pprof bytes (pprofio.WriteSource).
// With CompleteStacks too (as convert reads what it writes), the same
// error, warnings and bytes, and the same tree from the samples one by
// one (a v8Stream's, made when read so).
// Fuzz targets of readers with ParseStacks call it.
func CheckStacks(t testing.TB, name string, data []byte, opts Options) {
	t.Helper()
	checkMerged(t, name, data, opts)
	opts.Stacks, opts.CompleteStacks = false, false
	res, err := Read(bytes.NewReader(data), name, opts)
	opts.Stacks = true
	sres, serr := Read(bytes.NewReader(data), name, opts)
	opts.CompleteStacks = true
	cres, cerr := Read(bytes.NewReader(data), name, opts)
	if err != nil || serr != nil || cerr != nil {
		if err == nil || serr == nil || cerr == nil || err.Error() != serr.Error() || err.Error() != cerr.Error() {
			t.Fatalf("with Stacks, error %v; with CompleteStacks too, %v; without, %v", serr, cerr, err)
		}
		return
	}
	for _, r := range []*Result{sres, cres} {
		if !slices.Equal(r.Warnings, res.Warnings) || r.Format != res.Format {
			t.Fatalf("with Stacks, %s and warnings %q; without, %s and %q", r.Format, r.Warnings, res.Format, res.Warnings)
		}
	}
	if compact(sres) == nil {
		return
	}
	if sres.Profile.Sample != nil {
		t.Fatalf("%d samples in the profile beside the stacks", len(sres.Profile.Sample))
	}
	opt := cct.Options{Timeline: true}
	want, got := cct.NewBuilder(opt), cct.NewBuilder(opt)
	if err := want.Add(res.Profile); err != nil {
		t.Fatal(err)
	}
	if err := got.AddSamples(sres.Samples); err != nil {
		t.Fatal(err)
	}
	sameCCT(t, got.Finish(), want.Finish())
	if !registry[sres.Format].CompleteStacks {
		return
	}
	var wantPB, gotPB bytes.Buffer
	if err := pprofio.WriteUncompressed(&wantPB, res.Profile); err != nil {
		t.Fatal(err)
	}
	if err := pprofio.WriteSourceUncompressed(&gotPB, sres.Samples); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gotPB.Bytes(), wantPB.Bytes()) {
		t.Fatalf("pprof from the stacks: %d bytes unlike the %d from the profile", gotPB.Len(), wantPB.Len())
	}
	var streamPB bytes.Buffer
	if err := pprofio.WriteSourceUncompressed(&streamPB, cres.Samples); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(streamPB.Bytes(), wantPB.Bytes()) {
		t.Fatalf("pprof from the stacks read with CompleteStacks (%T): %d bytes unlike the %d from the profile", cres.Samples, streamPB.Len(), wantPB.Len())
	}
	cgot := cct.NewBuilder(opt)
	if err := cgot.AddSamples(cres.Samples); err != nil {
		t.Fatal(err)
	}
	sameCCT(t, cgot.Finish(), want.Finish())
}

// sameCCT fails unless two trees are the same: frames, nodes in the same
// order, values, counts and timeline.
func sameCCT(t testing.TB, got, want *cct.Tree) {
	t.Helper()
	if !slices.Equal(got.SampleTypes, want.SampleTypes) || got.PeriodType != want.PeriodType || got.Period != want.Period ||
		got.DurationNanos != want.DurationNanos || got.DefaultSampleType != want.DefaultSampleType {
		t.Fatalf("tree header %v %v %d %d %q, want %v %v %d %d %q", got.SampleTypes, got.PeriodType, got.Period, got.DurationNanos, got.DefaultSampleType,
			want.SampleTypes, want.PeriodType, want.Period, want.DurationNanos, want.DefaultSampleType)
	}
	if !slices.Equal(got.Frames, want.Frames) || !slices.Equal(got.FrameInfo, want.FrameInfo) {
		t.Fatalf("frames differ: %d, want %d", len(got.Frames), len(want.Frames))
	}
	if len(got.Nodes) != len(want.Nodes) {
		t.Fatalf("%d nodes, want %d", len(got.Nodes), len(want.Nodes))
	}
	for i := range got.Nodes {
		id := cct.NodeID(i)
		g, w := &got.Nodes[i], &want.Nodes[i]
		if g.Frame != w.Frame || g.Parent != w.Parent || g.Depth != w.Depth || got.Count(id) != want.Count(id) || !slices.Equal(got.Children(id), want.Children(id)) ||
			!slices.Equal(got.Self(id), want.Self(id)) || !slices.Equal(got.Total(id), want.Total(id)) {
			t.Fatalf("node %d: %+v %v %v, want %+v %v %v", i, *g, got.Self(id), got.Total(id), *w, want.Self(id), want.Total(id))
		}
	}
	if len(got.Timeline) != len(want.Timeline) {
		t.Fatalf("timeline: %d samples, want %d", len(got.Timeline), len(want.Timeline))
	}
	for i, g := range got.Timeline {
		w := want.Timeline[i]
		if g.Thread != w.Thread || g.Leaf != w.Leaf || g.Time != w.Time || g.Profile != w.Profile {
			t.Fatalf("timeline[%d] = %+v, want %+v", i, g, w)
		}
	}
}

// checkMerged checks that the samples Options.MergeSamples merges make the
// tree of the samples one by one, without a timeline (what cct and diff
// build from them), and that both reads fail or neither does.
func checkMerged(t testing.TB, name string, data []byte, opts Options) {
	t.Helper()
	opts.Stacks, opts.CompleteStacks, opts.MergeSamples = true, false, false
	res, err := Read(bytes.NewReader(data), name, opts)
	opts.MergeSamples = true
	mres, merr := Read(bytes.NewReader(data), name, opts)
	if (err == nil) != (merr == nil) {
		t.Fatalf("merged, error %v; one by one, %v", merr, err)
	}
	if err != nil {
		return
	}
	if mres.Samples.Len() > res.Samples.Len() {
		t.Fatalf("%d samples merged into %d", res.Samples.Len(), mres.Samples.Len())
	}
	want, got := cct.NewBuilder(cct.Options{}), cct.NewBuilder(cct.Options{})
	if err := want.AddSamples(res.Samples); err != nil {
		t.Fatal(err)
	}
	if err := got.AddSamples(mres.Samples); err != nil {
		t.Fatal(err)
	}
	sameCCT(t, got.Finish(), want.Finish())
}
