package cct

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/ctdiff/ctdiff/internal/benchcpu"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/ctdiff/ctdiff/tools/synth"
	"github.com/google/pprof/profile"
)

// referenceAdd is the builder's definition: every sample, in inSampleOrder,
// inserted frame by frame with AddChild. The batched, sorted insertion
// (insert.go) must give exactly the same tree: ids, child order, values,
// timeline.
func referenceAdd(b *Builder, p *profile.Profile) {
	if b.t == nil {
		st := make([]ValueType, len(p.SampleType))
		for i, v := range p.SampleType {
			st[i] = ValueType{v.Type, v.Unit}
		}
		b.t = New(st)
		b.t.DefaultSampleType = p.DefaultSampleType
		b.t.Period = p.Period
	}
	t := b.t
	t.Profiles++
	if b.sc == nil {
		b.sc = &scratch{}
	}
	b.sc.locs.reset(p, nil)
	threads := threadFrames{t: t, ids: map[stacks.Thread]FrameID{}, ordinals: map[[2]string]int32{}}
	first := len(t.Timeline)
	src := stacks.FromProfile(p)
	for _, si := range referenceOrder(src) {
		s := p.Sample[si]
		x := src.Thread(si)
		thread := t.AddChild(RootID, threads.frameOf(src.Threads()[x]))
		id := thread
		for _, f := range b.stackFrames(src, src.Stack(si), nil) {
			id = t.AddChild(id, f)
		}
		for k, v := range s.Value {
			t.Self(id)[k] += v
		}
		if ts, ok := s.NumLabel[labels.Timestamp]; ok && len(ts) > 0 && b.opts.Timeline {
			event := p.SampleType[0].Type == "samples" && s.Value[0] == 0
			t.Timeline = append(t.Timeline, TimedSample{Thread: thread, Leaf: id, Time: ts[0], Profile: int32(t.Profiles - 1), Event: event})
		}
	}
	if b.opts.Timeline {
		sortTimeline(t.Timeline[first:])
	}
}

// referenceOrder is inSampleOrder's definition: time order when every
// sample has a timestamp, equal times in file order, else file order.
func referenceOrder(src stacks.Source) []int {
	order := make([]int, src.Len())
	times := make([]int64, src.Len())
	for i := range order {
		order[i] = i
	}
	for i := range order {
		ts, ok := src.Time(i)
		if !ok {
			return order
		}
		times[i] = ts
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(times[a], times[b]) })
	return order
}

// randomProfile returns a profile with n samples over a small call graph:
// two threads in two processes, repeated and prefix stacks, inlined
// frames, an unsymbolized location, and timestamps on all, some or none
// of the samples, in or out of order.
func randomProfile(rng *rand.Rand, n int, timed string) *profile.Profile {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}}}
	for i := range 12 {
		name := fmt.Sprintf("f%d", i)
		if i == 11 {
			name = "x" // prunable
		}
		p.Function = append(p.Function, &profile.Function{ID: uint64(i + 1), Name: name, SystemName: name, Filename: "a.go"})
	}
	for i := range 16 {
		l := &profile.Location{ID: uint64(i + 1)}
		switch {
		case i == 15:
			l.Address = 0x1234 // unsymbolized
		case i%5 == 4: // inlined: two lines
			l.Line = []profile.Line{{Function: p.Function[i%12], Line: int64(i)}, {Function: p.Function[(i+1)%12], Line: int64(i + 1)}}
		default:
			l.Line = []profile.Line{{Function: p.Function[i%12], Line: int64(10 + i)}}
		}
		p.Location = append(p.Location, l)
	}
	threads := []map[string][]string{
		{labels.Thread: {"main"}, labels.Process: {"app"}},
		{labels.Thread: {"worker"}, labels.Process: {"app"}},
		{labels.Thread: {"main"}, labels.Process: {"other"}},
		nil,
	}
	for i := range n {
		depth := rng.IntN(8)
		var stack []*profile.Location
		for range depth {
			stack = append(stack, p.Location[rng.IntN(len(p.Location))])
		}
		s := &profile.Sample{Location: stack, Value: []int64{1, int64(1 + rng.IntN(100))}, Label: threads[rng.IntN(len(threads))]}
		if rng.IntN(8) == 0 {
			s.Value[0] = 0 // an event (TimedSample.Event), not a stack sample
		}
		if rng.IntN(3) == 0 && len(s.Label) > 0 {
			s.NumLabel = map[string][]int64{labels.TID: {int64(rng.IntN(2))}}
		}
		ts := int64(i * 10)
		switch timed {
		case "shuffled":
			ts = rng.Int64N(int64(n) * 10)
		case "some":
			if rng.IntN(4) == 0 {
				ts = -1
			}
		case "none":
			ts = -1
		}
		if ts >= 0 {
			if s.NumLabel == nil {
				s.NumLabel = map[string][]int64{}
			}
			s.NumLabel[labels.Timestamp] = []int64{ts}
		}
		p.Sample = append(p.Sample, s)
		if rng.IntN(4) == 0 { // repeat the stack, as hot loops do
			p.Sample = append(p.Sample, &profile.Sample{Location: stack, Value: []int64{1, 7}, Label: s.Label, NumLabel: s.NumLabel})
		}
	}
	return p
}

func TestInsertMatchesReference(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, batch := range []int{1, 7, 100, 1 << 23} {
		for _, timed := range []string{"ordered", "shuffled", "some", "none"} {
			for _, opts := range []Options{{}, {Prune: true}, {CallSites: true}, {Timeline: true}, {byDepth: true}, {Timeline: true, byDepth: true}} {
				name := fmt.Sprintf("batch=%d/%s/%+v", batch, timed, opts)
				t.Run(name, func(t *testing.T) {
					o := opts
					o.batchFrames = batch
					opts.byDepth = false
					profiles := []*profile.Profile{randomProfile(rng, 300, timed), randomProfile(rng, 200, timed)}
					got, want := NewBuilder(o), NewBuilder(opts)
					for _, p := range profiles {
						if err := got.Add(p); err != nil {
							t.Fatal(err)
						}
						referenceAdd(want, p)
					}
					sameTree(t, got.Finish(), want.Finish())
				})
			}
		}
	}
}

// The synthetic profiles' samples share half their frames with the
// sample before (a path's prefix stored once, its locations' frames
// copied): with call sites, a copied prefix's last frame gives the line
// of the first computed one.
func TestInsertMatchesReferenceSynth(t *testing.T) {
	t.Parallel()
	pair := synth.Generate(synth.Config{Seed: 3, Stacks: 3000, Functions: 300})
	for _, opts := range []Options{{Prune: true}, {CallSites: true}, {Prune: true, byDepth: true}} {
		for _, batch := range []int{1000, 1 << 23} {
			o := opts
			o.batchFrames = batch
			opts.byDepth = false
			got, want := NewBuilder(o), NewBuilder(opts)
			for _, p := range []*profile.Profile{pair.Base, pair.New} {
				if err := got.Add(p); err != nil {
					t.Fatal(err)
				}
				referenceAdd(want, p)
			}
			sameTree(t, got.Finish(), want.Finish())
		}
	}
}

func sameTree(t *testing.T, got, want *Tree) {
	t.Helper()
	if err := got.Validate(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Frames, want.Frames) || !slices.Equal(got.FrameInfo, want.FrameInfo) {
		t.Fatalf("frames differ:\n%v\n%v", got.Frames, want.Frames)
	}
	if len(got.Nodes) != len(want.Nodes) {
		t.Fatalf("%d nodes, want %d", len(got.Nodes), len(want.Nodes))
	}
	for i := range got.Nodes {
		g, w, id := &got.Nodes[i], &want.Nodes[i], NodeID(i)
		if g.Frame != w.Frame || g.Parent != w.Parent || g.Depth != w.Depth || !slices.Equal(got.Children(id), want.Children(id)) ||
			!slices.Equal(got.Self(id), want.Self(id)) || !slices.Equal(got.Total(id), want.Total(id)) || got.Count(id) != want.Count(id) {
			t.Fatalf("node %d: %+v %v %v %v, want %+v %v %v %v", i, *g, got.Children(id), got.Self(id), got.Total(id),
				*w, want.Children(id), want.Self(id), want.Total(id))
		}
	}
	if len(got.Timeline) != len(want.Timeline) {
		t.Fatalf("timeline: %d samples, want %d", len(got.Timeline), len(want.Timeline))
	}
	for i := range got.Timeline {
		g, w := got.Timeline[i], want.Timeline[i]
		if g.Thread != w.Thread || g.Leaf != w.Leaf || g.Time != w.Time || g.Profile != w.Profile {
			t.Fatalf("timeline[%d] = %+v, want %+v", i, g, w)
		}
	}
}

// toStacks is what convert's pprof reader returns with Options.Stacks:
// p's samples as stacks.Samples, thread labels and timestamps kept.
func toStacks(p *profile.Profile) *stacks.Samples {
	idx := map[*profile.Location]int32{}
	for i, l := range p.Location {
		idx[l] = int32(i)
	}
	s := stacks.New(p)
	threads := map[stacks.Thread]int32{}
	for i, smp := range p.Sample {
		for _, l := range smp.Location {
			s.Locations = append(s.Locations, idx[l])
		}
		s.Ends = append(s.Ends, int32(len(s.Locations)))
		s.Values = append(s.Values, smp.Value...)
		var th stacks.Thread
		if v := smp.Label[labels.Thread]; len(v) > 0 {
			th.Thread = v[0]
		}
		if v := smp.Label[labels.Process]; len(v) > 0 {
			th.Process = v[0]
		}
		if v := smp.NumLabel[labels.PID]; len(v) > 0 {
			th.PID, th.HasPID = v[0], true
		}
		if v := smp.NumLabel[labels.TID]; len(v) > 0 {
			th.TID, th.HasTID = v[0], true
		}
		x, ok := threads[th]
		if !ok {
			x = int32(len(s.ThreadList))
			threads[th] = x
			s.ThreadList = append(s.ThreadList, th)
		}
		s.SampleThreads = append(s.SampleThreads, x)
		if ts := smp.NumLabel[labels.Timestamp]; len(ts) > 0 {
			if s.Timed == nil {
				s.Times, s.Timed = make([]int64, len(p.Sample)), make([]bool, len(p.Sample))
			}
			s.Times[i], s.Timed[i] = ts[0], true
		}
	}
	return s
}

// TestAddSamplesMatchesAdd: a profile's samples as stacks.Samples build the
// tree its profile.Samples build.
func TestAddSamplesMatchesAdd(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, batch := range []int{7, 1 << 23} {
		for _, timed := range []string{"ordered", "shuffled", "some", "none"} {
			for _, opts := range []Options{{}, {Prune: true}, {CallSites: true}, {Timeline: true}} {
				t.Run(fmt.Sprintf("batch=%d/%s/%+v", batch, timed, opts), func(t *testing.T) {
					o := opts
					o.batchFrames = batch
					got, want := NewBuilder(o), NewBuilder(opts)
					for _, p := range []*profile.Profile{randomProfile(rng, 300, timed), randomProfile(rng, 200, timed)} {
						if err := want.Add(p); err != nil {
							t.Fatal(err)
						}
						s, samples := toStacks(p), p.Sample
						p.Sample = nil
						if err := got.AddSamples(s); err != nil {
							t.Fatal(err)
						}
						p.Sample = samples
					}
					sameTree(t, got.Finish(), want.Finish())
				})
			}
		}
	}
}

// toSharedStacks is toStacks with every distinct stack laid out once, and
// the samples sharing it (stacks.Samples.Starts), as convert's call tree
// readers return them; a stack that is the tail of one laid out before
// shares that one's.
func toSharedStacks(p *profile.Profile) *stacks.Samples {
	s := toStacks(p)
	flat := s.Locations
	s.Locations, s.Starts = nil, make([]int32, s.Len())
	at := map[string][2]int{}
	start := int32(0)
	for i, end := range s.Ends {
		stack := flat[start:end]
		start = end
		k := fmt.Sprint(stack)
		ref, ok := at[k]
		if !ok {
			ref = [2]int{len(s.Locations), len(s.Locations) + len(stack)}
			s.Locations = append(s.Locations, stack...)
			for j := range stack {
				if tail := fmt.Sprint(stack[j:]); at[tail] == [2]int{} {
					at[tail] = [2]int{ref[0] + j, ref[1]}
				}
			}
		}
		s.Starts[i], s.Ends[i] = int32(ref[0]), int32(ref[1])
	}
	return s
}

// TestAddSharedSamplesMatchesAdd: samples that share stacks (which the
// inserter maps to the group of their path instead of copying it) build
// the tree their profile.Samples build.
func TestAddSharedSamplesMatchesAdd(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 8))
	for _, batch := range []int{7, 100, 1 << 23} {
		for _, timed := range []string{"ordered", "shuffled", "none"} {
			for _, opts := range []Options{{}, {Prune: true}, {CallSites: true}, {Timeline: true}} {
				t.Run(fmt.Sprintf("batch=%d/%s/%+v", batch, timed, opts), func(t *testing.T) {
					o := opts
					o.batchFrames = batch
					got, want := NewBuilder(o), NewBuilder(opts)
					for _, p := range []*profile.Profile{randomProfile(rng, 300, timed), randomProfile(rng, 200, timed)} {
						// Sampled again later, out of turn: the same
						// stacks, not next to each other.
						for _, i := range rng.Perm(len(p.Sample))[:len(p.Sample)/2] {
							p.Sample = append(p.Sample, p.Sample[i])
						}
						if err := want.Add(p); err != nil {
							t.Fatal(err)
						}
						s, samples := toSharedStacks(p), p.Sample
						p.Sample = nil
						if err := got.AddSamples(s); err != nil {
							t.Fatal(err)
						}
						p.Sample = samples
					}
					sameTree(t, got.Finish(), want.Finish())
				})
			}
		}
	}
}

// BenchmarkAddSamples is BenchmarkBuild from stacks.Samples, as ctdiff diff
// builds pprof inputs (convert.Options.Stacks).
func BenchmarkAddSamples(b *testing.B) { benchmarkAddSamples(b, Options{Prune: true}) }

func benchmarkAddSamples(b *testing.B, opts Options) {
	p := synth.Generate(synth.Config{Seed: 1}).Base
	s, samples := toStacks(p), p.Sample
	p.Sample = nil
	defer func() { p.Sample = samples }()
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	for b.Loop() {
		bl := NewBuilder(opts)
		if err := bl.AddSamples(s); err != nil {
			b.Fatal(err)
		}
		bl.Finish()
	}
	stop()
}

// A full batch takes the rest of the profile when it is at most a
// quarter of the batch at the batch's frames per sample (tailFits), and
// only then: here 100 samples of 3 stored frames each (a path of a thread
// and 3 locations of its own; a batch's first path stores its thread too),
// in batches of the given frames.
func TestInsertBatchTakesTail(t *testing.T) {
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}}}
	for i := range 100 {
		var stack []*profile.Location
		for j := range 3 {
			fn := &profile.Function{ID: uint64(3*i + j + 1), Name: fmt.Sprintf("f%d", 3*i+j)}
			loc := &profile.Location{ID: fn.ID, Line: []profile.Line{{Function: fn}}}
			p.Function, p.Location = append(p.Function, fn), append(p.Location, loc)
			stack = append(stack, loc)
		}
		p.Sample = append(p.Sample, &profile.Sample{Location: stack, Value: []int64{1}})
	}
	want, err := FromProfile(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ frames, batches int }{
		{300, 1},
		{291, 1}, // 97 samples (292 frames), then 3: within a quarter
		{245, 1}, // 82 (247), then 18: 18 × 247 / 82 = 54 ≤ 306 - 247
		{240, 2}, // 80 (241), then 20: 20 × 241 / 80 = 60.25 > 300 - 241
		{150, 2}, // 50 and 50: the last batch takes no tail, it is the tail
		{60, 5},
		{1, 100},
	} {
		b := NewBuilder(Options{batchFrames: c.frames})
		b.sc = &scratch{}
		if err := b.AddSamples(toStacks(p)); err != nil {
			t.Fatal(err)
		}
		if got := int(b.sc.ins.batchNo) - 1; got != c.batches {
			t.Errorf("batches of %d frames: %d batches, want %d", c.frames, got, c.batches)
		}
		sameTree(t, b.Finish(), want)
	}
}

// Inserted in many batches, a tree's arrays grow geometrically: building
// it allocates about what building it in one batch does, not an array of
// the tree's size per batch (the arrays were reallocated at the exact size
// each batch needed: 359 MB for this tree of 200 batches, 20 MB in one,
// which made a 1.6M-stack build superlinear).
func TestInsertBatchesGrowGeometrically(t *testing.T) {
	p := synth.Generate(synth.Config{Seed: 1, Stacks: 20_000}).Base
	alloc := func(batch int) (uint64, int) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		tr, err := FromProfile(p, Options{batchFrames: batch})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		return after.TotalAlloc - before.TotalAlloc, len(tr.Nodes)
	}
	one, nodes := alloc(1 << 24)
	many, _ := alloc(3_000)
	t.Logf("%d nodes: %d MB allocated in one batch, %d MB in batches of 3,000 frames", nodes, one>>20, many>>20)
	if many > 2*one {
		t.Errorf("building in batches allocated %d MB, more than twice the %d MB of one batch", many>>20, one>>20)
	}
}

// BenchmarkAddSamplesBatches is BenchmarkAddSamples in batches of 2^19
// frames (a dozen): the tree's arrays grow batch after batch, as they do
// for a profile of more than 2^24 frames (1.6M stacks: 3 to 5 batches).
func BenchmarkAddSamplesBatches(b *testing.B) {
	benchmarkAddSamples(b, Options{Prune: true, batchFrames: 1 << 19})
}

// BenchmarkAddRuns merges 20 runs of 20,000 stacks into one tree: its
// arrays grow profile after profile.
func BenchmarkAddRuns(b *testing.B) {
	var runs []*profile.Profile
	for seed := range uint64(20) {
		runs = append(runs, synth.Generate(synth.Config{Seed: 1 + seed, Stacks: 20_000}).Base)
	}
	b.ReportAllocs()
	stop := benchcpu.Start(b)
	var nodes int
	for b.Loop() {
		bl := NewBuilder(Options{Prune: true})
		for _, p := range runs {
			if err := bl.Add(p); err != nil {
				b.Fatal(err)
			}
		}
		nodes = len(bl.Finish().Nodes)
	}
	stop()
	b.ReportMetric(float64(nodes), "nodes")
}

// A node's children are looked up in a list until it has wideChildren of
// them, then in the level table: fan-outs on both sides of that limit,
// revisited in shuffled order and split across batches, build the tree
// one-by-one insertion builds.
func TestInsertWideParents(t *testing.T) {
	t.Parallel()
	for _, fanout := range []int{wideChildren - 1, wideChildren, wideChildren + 1, 50} {
		for _, batch := range []int{5, 1 << 23} {
			for _, byDepth := range []bool{false, true} {
				t.Run(fmt.Sprintf("fanout=%d/batch=%d/byDepth=%v", fanout, batch, byDepth), func(t *testing.T) {
					t.Parallel()
					rng := rand.New(rand.NewPCG(uint64(fanout), 7))
					p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}}}
					for i := range fanout + 1 {
						fn := &profile.Function{ID: uint64(i + 1), Name: fmt.Sprintf("f%d", i)}
						p.Function = append(p.Function, fn)
						p.Location = append(p.Location, &profile.Location{ID: uint64(i + 1), Line: []profile.Line{{Function: fn}}})
					}
					// Stacks f0 → fi → fj: f0 and every fi have fanout children.
					for range 20 * fanout {
						i, j := 1+rng.IntN(fanout), 1+rng.IntN(fanout)
						p.Sample = append(p.Sample, &profile.Sample{
							Location: []*profile.Location{p.Location[j], p.Location[i], p.Location[0]},
							Value:    []int64{1},
						})
					}
					got, want := NewBuilder(Options{batchFrames: batch, byDepth: byDepth}), NewBuilder(Options{})
					if err := got.Add(p); err != nil {
						t.Fatal(err)
					}
					referenceAdd(want, p)
					tr := got.Finish()
					sameTree(t, tr, want.Finish())
					if f0 := tr.Children(tr.Children(RootID)[0])[0]; len(tr.Children(f0)) != fanout {
						t.Errorf("f0 has %d children, want %d", len(tr.Children(f0)), fanout)
					}
				})
			}
		}
	}
}

func TestInSampleOrder(t *testing.T) {
	runs := func(k, n int) []int64 { // k runs of n samples, times interleaved, ties across runs
		var ts []int64
		for r := range k {
			for i := range n {
				ts = append(ts, int64(i*k/2+r%3))
			}
		}
		return ts
	}
	for _, tc := range []struct {
		name  string
		times []int64
		timed []bool // nil: all timed
		want  []int32
	}{
		{"empty", nil, nil, nil},
		{"in order", []int64{1, 2, 2, 5}, nil, []int32{0, 1, 2, 3}},
		{"untimed", []int64{3, 1, 2}, []bool{true, false, true}, []int32{0, 1, 2}},
		{"two runs with ties", []int64{1, 3, 5, 1, 3, 4}, nil, []int32{0, 3, 1, 4, 5, 2}},
		{"one late", []int64{1, 2, 3, 0}, nil, []int32{3, 0, 1, 2}},
		{"three runs", []int64{5, 1, 9, 2, 2}, nil, []int32{1, 3, 4, 0, 2}},
		{"16 runs", runs(16, 50), nil, nil},
		{"17 runs: sorted", runs(17, 50), nil, nil},
		{"descending: sorted", []int64{9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0, -1, -2, -3, -4, -5, -6, -7, -8}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}}}
			s := stacks.New(p)
			for i, ts := range tc.times {
				s.Ends = append(s.Ends, 0)
				s.Values = append(s.Values, 1)
				s.SampleThreads = append(s.SampleThreads, 0)
				s.Times = append(s.Times, ts)
				if tc.timed != nil {
					s.Timed = append(s.Timed, tc.timed[i])
				}
			}
			if tc.timed == nil {
				s.Timed = make([]bool, len(tc.times))
				for i := range s.Timed {
					s.Timed[i] = true
				}
			}
			var got []int32
			inSampleOrder(&sampleReader{src: s, compact: s}, func(si int) { got = append(got, int32(si)) })
			want := tc.want
			if want == nil {
				for _, i := range referenceOrder(s) {
					want = append(want, int32(i))
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("inSampleOrder visits %v, want %v", got, want)
			}
		})
	}
}

// TestPathTable: keys that differ in any field are different paths, and
// numbers survive the table's growth.
func TestPathTable(t *testing.T) {
	var pt pathTable
	var keys []pathKey
	for i := range 3000 {
		keys = append(keys, pathKey{i / 2, i/2 + 1 + i%2, 0}, pathKey{i / 2, i/2 + 1 + i%2, 1})
	}
	for round := range 2 {
		for i, k := range keys {
			p, isNew := pt.index(k)
			if int(p) != i || isNew != (round == 0) {
				t.Fatalf("round %d: index(%v) = %d, %v; want %d, %v", round, k, p, isNew, i, round == 0)
			}
		}
	}
	pt.reset()
	if p, isNew := pt.index(keys[5]); p != 0 || !isNew {
		t.Errorf("after reset: index = %d, %v; want 0, true", p, isNew)
	}
}
