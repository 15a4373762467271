package diff

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

// streamRuns returns n runs of one workload, each a little different
// (jitter by run), with new runs' x grown by 60% and a callee y that only
// some runs sample.
func streamRuns(n int, isNew bool) []string {
	var out []string
	for i := range n {
		j := float64(i%5) - 2
		x := 100 + 3*j
		if isNew {
			x *= 1.6
		}
		lines := []string{
			fmt.Sprintf("m;a;x %g", x),
			fmt.Sprintf("m;b %g", 50+2*j),
			fmt.Sprintf("m;c;d %g", 20+j),
			fmt.Sprintf("thread=w w;e %g", 30-j),
		}
		if i%3 == 0 {
			lines = append(lines, fmt.Sprintf("m;a;y %g", 5+j))
		}
		out = append(out, strings.Join(lines, "\n"))
	}
	return out
}

// A Fold of more than streamMinRuns runs a side streams, and gives what
// keeping every run gives, whatever order the runs are added in (the union
// is built in its own order): on these trees the results are equal, as on
// synth's 20,000-stack profile at 11, 30 and 100 runs a side
// (BENCHMARKS.md). Normalized, PARCS's percentages differ in the last
// digits (stream: they are taken on raw values), and nothing else.
func TestFoldStreams(t *testing.T) {
	for _, tt := range []struct {
		norm  NormalizeMode
		exact bool
	}{{NormalizeNone, true}, {NormalizeShare, false}} {
		t.Run(string(tt.norm), func(t *testing.T) { testFoldStreams(t, tt.norm, tt.exact) })
	}
}

func testFoldStreams(t *testing.T, norm NormalizeMode, exact bool) {
	testFoldStreamsN(t, 12, 13, norm, exact)
	t.Run("one shape", func(t *testing.T) {
		// Every run of a side has the shape of the one before: the
		// stream's blocks hold the runs' own arrays (scatter), and the
		// last base run, not released before Compare normalizes it in
		// place, was once scaled twice.
		oneShape := func(runs []string) []string {
			for i, r := range runs {
				runs[i] = r[:strings.Index(r+"\nm;a;y", "\nm;a;y")]
			}
			return runs
		}
		testFoldStreamsRuns(t, oneShape(streamRuns(12, false)), oneShape(streamRuns(13, true)), norm, exact)
	})
}

// Beyond compactMinRuns a side, the stream keeps the per-run values as
// float32 (runValues[float32]): these runs' values (integer milliseconds in
// nanoseconds) are exact in float32, so nothing changes either.
func TestFoldStreamsCompact(t *testing.T) {
	testFoldStreamsN(t, compactMinRuns+1, compactMinRuns+3, NormalizeNone, true)
}

func testFoldStreamsN(t *testing.T, nb, nn int, norm NormalizeMode, exact bool) {
	testFoldStreamsRuns(t, streamRuns(nb, false), streamRuns(nn, true), norm, exact)
}

func testFoldStreamsRuns(t *testing.T, bRuns, nRuns []string, norm NormalizeMode, exact bool) {
	nb, nn := len(bRuns), len(nRuns)
	// The function table too: it reads the per-run values the stream
	// keeps (runStore) where a kept Fold reads the union's rows.
	opts := Options{Tree: true, Normalize: Normalize{Mode: norm}, Functions: &FunctionOptions{}}
	kept := newFold(nb, nn, opts, 1<<30)
	if kept.Streams() {
		t.Fatal("a Fold under its minimum streams")
	}
	addAll(kept, trees(t, bRuns...), trees(t, nRuns...), kept.Order(), false)
	want, err := kept.Compare(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Causes) == 0 {
		t.Fatal("the test's runs have no cause")
	}
	reversed := make([]int, nb+nn)
	for i := range reversed {
		reversed[i] = nb + nn - 1 - i
	}
	for _, tt := range []struct {
		name  string
		order func(f *Fold) []int
		async bool
	}{
		{"in Order", (*Fold).Order, false},
		{"reversed", func(*Fold) []int { return reversed }, false},
		{"concurrently", (*Fold).Order, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFold(nb, nn, opts)
			if !f.Streams() {
				t.Fatalf("a Fold of %d + %d runs does not stream", nb, nn)
			}

			addAll(f, trees(t, bRuns...), trees(t, nRuns...), tt.order(f), tt.async)
			if _, compact := f.st.u.pv.(*runValues[float32]); compact != (nb > compactMinRuns) {
				t.Errorf("compact per-run values: %v with %d base runs", compact, nb)
			}
			got, err := f.Compare(opts)
			if err != nil {
				t.Fatal(err)
			}
			if !exact {
				if d := math.Abs(got.Overlap.Percent - want.Overlap.Percent); !(d < 1e-6) || math.Abs(*got.Overlap.NoiseFloor-*want.Overlap.NoiseFloor) > 1e-6 {
					t.Errorf("overlap %v, noise floor %v, want %v, %v", got.Overlap.Percent, *got.Overlap.NoiseFloor, want.Overlap.Percent, *want.Overlap.NoiseFloor)
				}
				got.Overlap, got.WeightMatching = want.Overlap, want.WeightMatching
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("streamed result differs:\n got %v %+v\nwant %v %+v", causeLines(got), got.Overlap, causeLines(want), want.Overlap)
			}
		})
	}
}

func addAll(f *Fold, base, nw []*cct.Tree, order []int, async bool) {
	var wg sync.WaitGroup
	for _, i := range order {
		add := func() {
			if i < len(base) {
				f.Add(false, i, base[i])
			} else {
				f.Add(true, i-len(base), nw[i-len(base)])
			}
		}
		if async {
			wg.Go(add)
		} else {
			add()
		}
	}
	wg.Wait()
}

// Runs added in Order are released as they are matched: at most two are
// held at any time (a base run waiting for its pair, or for the next base
// run's matching), and none once Compare is done.
func TestFoldStreamReleases(t *testing.T) {
	const nb, nn = 11, 14
	f := NewFold(nb, nn, Options{})
	base, nw := trees(t, streamRuns(nb, false)...), trees(t, streamRuns(nn, true)...)
	held := func() (n int) {
		for _, s := range f.slots {
			if s.r != nil && s.r.nframe != nil {
				n++
			}
		}
		return n
	}
	most := 0
	for _, i := range f.Order() {
		addAll(f, base, nw, []int{i}, false)
		most = max(most, held())
	}
	if most != 1 {
		t.Errorf("at most %d runs held while adding in Order, want 1", most)
	}
	if _, err := f.Compare(Options{}); err != nil {
		t.Fatal(err)
	}
	if n := held(); n != 0 {
		t.Errorf("%d runs held after Compare, want 0", n)
	}
}

// Order pairs the runs while both sides have some, then the rest of the
// longer side; a Fold that keeps its runs takes them as numbered.
func TestFoldOrder(t *testing.T) {
	tests := []struct {
		nb, nn int
		opts   Options
		want   []int
	}{
		{3, 12, Options{}, []int{0, 3, 1, 4, 2, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}},
		{12, 2, Options{}, []int{0, 12, 1, 13, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}},
		{3, 3, Options{}, []int{0, 1, 2, 3, 4, 5}},
		{1, 12, Options{}, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}},
		{12, 12, Options{Aggregate: Intersect}, nil},
		{12, 12, Options{Bench: &Bench{}}, nil},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.nb, "+", tt.nn, tt.opts.Aggregate, tt.opts.Bench != nil), func(t *testing.T) {
			f := NewFold(tt.nb, tt.nn, tt.opts)
			got := f.Order()
			if tt.want == nil {
				if f.Streams() {
					t.Errorf("streams")
				}
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Order() = %v, want %v", got, tt.want)
			}
		})
	}
}

// A streamed Fold matched the runs with the options it was made with:
// Compare refuses others, naming both.
func TestFoldStreamOptions(t *testing.T) {
	const nb, nn = 11, 11
	for _, tt := range []struct {
		name          string
		folded, asked Options
		want          string
	}{
		{"matching", Options{Match: ZAM}, Options{Match: PARCS},
			"the runs were matched as they were added, for --aggregate stats and --match zam without benchmark outputs; Compare was asked for --aggregate stats and --match parcs"},
		{"call order", Options{Match: PARCS}, Options{Match: PARCS, CallOrder: true},
			"the runs were matched as they were added, with CallOrder false; Compare was asked for CallOrder true"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFold(nb, nn, tt.folded)
			addAll(f, trees(t, streamRuns(nb, false)...), trees(t, streamRuns(nn, true)...), f.Order(), false)
			if _, err := f.Compare(tt.asked); err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// streamPositions aligns the first pair's same-named functions as
// positions does; a later position of an ambiguous group gets a slot of
// its own, the same on both sides, and a group only later runs make
// ambiguous keeps slot 0.
func TestStreamPositions(t *testing.T) {
	fn := func(name string, line int64) cct.Frame {
		return cct.Frame{Function: name, File: "https://h/app.js", Kind: cct.KindFunction, StartLine: line, StartColumn: 1}
	}
	kt := &keyTable{idx: map[keyFrame]key{}}
	kt.streamPositions(
		[]cct.Frame{fn("t", 10), fn("t", 20), fn("u", 5)},
		[]cct.Frame{fn("t", 12), fn("t", 22), fn("u", 6)})
	tests := []struct {
		f    cct.Frame
		side int
		want int32
	}{
		{fn("t", 10), 0, 0},
		{fn("t", 22), 1, 1},
		{fn("t", 40), 0, -2}, // not in the first pair: its own slot
		{fn("t", 40), 1, -2}, // the same on the other side
		{fn("t", 50), 1, -3},
		{fn("u", 7), 1, 0}, // u had one position a side: no slots
		{cct.Frame{Function: "t", File: "https://h/app.js", Kind: cct.KindFunction}, 0, -1}, // unknown position
	}
	for _, tt := range tests {
		if got := kt.slot(tt.f, scriptPath(tt.f.File), tt.side); got != tt.want {
			t.Errorf("slot(%s:%d, side %d) = %d, want %d", tt.f.Function, tt.f.StartLine, tt.side, got, tt.want)
		}
	}
}
