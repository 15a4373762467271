package convert

import (
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/hostile"
)

// peakHeap reads what gen writes, streamed through a pipe so that the
// input itself takes no memory, and returns the most heap the reading
// kept live: the live heap the garbage collector found at each cycle,
// with collections every 5% of growth, so a peak is seen to within that.
func peakHeap(t *testing.T, opts Options, gen func(io.Writer) error) uint64 {
	t.Helper()
	return peakHeapOf(t, gen, func(r io.Reader) (any, error) { return Read(r, "input", opts) })
}

// peakTreeHeap is peakHeap of reading and building the tree, as ctdiff
// cct does: the samples are let go as the builder reads them, and the
// tree is what stays.
func peakTreeHeap(t *testing.T, opts Options, gen func(io.Writer) error) uint64 {
	t.Helper()
	return peakHeapOf(t, gen, func(r io.Reader) (any, error) {
		res, err := Read(r, "input", opts)
		if err != nil {
			return nil, err
		}
		src := res.Samples
		res.Samples, res.Profile = nil, nil
		b := cct.NewBuilder(cct.Options{})
		if err := b.AddSamples(src); err != nil {
			return nil, err
		}
		return b.Finish(), nil
	})
}

// peakHeapOf returns the peak of the heap work kept live reading what gen
// writes; what work returns is live at its end.
func peakHeapOf(t *testing.T, gen func(io.Writer) error, work func(io.Reader) (any, error)) uint64 {
	t.Helper()
	old := debug.SetGCPercent(5)
	defer debug.SetGCPercent(old)
	runtime.GC()
	live := func() uint64 {
		s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	base := live()
	var mu sync.Mutex
	peak, stopped := base, false
	// A finalizer runs after each cycle that found its object garbage: it
	// records the live heap of that cycle and sets up the next one.
	type sentinel struct{ _ [64]byte }
	var arm func()
	arm = func() {
		runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
			mu.Lock()
			defer mu.Unlock()
			peak = max(peak, live())
			if !stopped {
				arm()
			}
		})
	}
	arm()
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(gen(pw)) }()
	res, err := work(pr)
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC() // the result is still live: it counts
	runtime.KeepAlive(res)
	mu.Lock()
	stopped = true
	p := peak
	mu.Unlock()
	return p - min(p, base)
}

// TestMemoryBoundSamples reads one stack sampled n and 4n times: with
// MergeSamples (trees without latency inference) a reader's peak heap
// must not grow with the samples (allowance: 2 MB, the collector's 5%
// and buffers), where one by one (the check that the measure sees growth)
// it grows by tens of bytes a sample or more. A .cpuprofile keeps its
// samples and deltas as runs: one stack sampled at a steady rate is a run
// each.
func TestMemoryBoundSamples(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 200,000 samples in all")
	}
	const n = 10_000
	for _, tc := range []struct {
		name string
		gen  func(w io.Writer, n int) error
		// unmerged is the least growth per sample one by one.
		unmerged uint64
		// kept is what a reader keeps of a sample until it has read them
		// all, if anything.
		kept uint64
	}{
		{"perf script", hostile.PerfScriptSamples, 100, 0},
		{"WPA CSV", hostile.WPACSVRows, 100, 0},
		{"PerfView XML", hostile.PerfViewSamples, 40, 0},
		{".cpuprofile", hostile.CpuprofileSamples, 10, 0},
		// xperf resolves thread names and intervals by time once every
		// event is read: it keeps each sample (about 200 bytes with its
		// index by time and thread) until then, and merges them after.
		{"xperf", hostile.XperfSamples, 100, 250},
	} {
		t.Run(tc.name, func(t *testing.T) {
			peaks := func(opts Options) (small, big uint64) {
				small = peakHeap(t, opts, func(w io.Writer) error { return tc.gen(w, n) })
				big = peakHeap(t, opts, func(w io.Writer) error { return tc.gen(w, 4*n) })
				return small, big
			}
			small, big := peaks(Options{Stacks: true, MergeSamples: true})
			t.Logf("merged: %d samples %.1f MB, %d samples %.1f MB", n, mb(small), 4*n, mb(big))
			if big > small+2<<20+3*n*tc.kept {
				t.Errorf("merged: %d samples peak at %.1f MB, %d at %.1f MB: grows with the samples", n, mb(small), 4*n, mb(big))
			}
			small, big = peaks(Options{Stacks: true})
			t.Logf("one by one: %d samples %.1f MB, %d samples %.1f MB", n, mb(small), 4*n, mb(big))
			if big < small+3*n*tc.unmerged {
				t.Errorf("one by one: %d samples peak at %.1f MB, %d at %.1f MB: the measure does not see the samples", n, mb(small), 4*n, mb(big))
			}
		})
	}
}

func mb(n uint64) float64 { return float64(n) / (1 << 20) }

// TestMemoryBoundDeepStack reads one stack of n and 4n distinct frames in
// each text and tree form, and builds its tree: the peak heap grows by
// what the frames take (their names, the reader's frames and the tree's
// frames and nodes), within perFrame bytes a frame while reading and
// treeFrame to the tree built, where a copy of the stack per frame would
// grow with its square. A frame took 600-1,000 bytes to read (a pprof
// Function, Location and Line, and maps keyed by them) and as much again
// to build from.
func TestMemoryBoundDeepStack(t *testing.T) {
	if testing.Short() {
		t.Skip("reads stacks of 300,000 frames in all")
	}
	const n = 20_000
	for _, tc := range []struct {
		name                string
		gen                 func(w io.Writer, n int) error
		perFrame, treeFrame uint64
	}{
		{"folded", hostile.FoldedDeep, 300, 400},
		{"perf script", hostile.PerfScriptDeep, 300, 400},
		{".cpuprofile", hostile.CpuprofileDeep, 300, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Stacks: true, MergeSamples: true}
			for _, m := range []struct {
				what  string
				peak  func(*testing.T, Options, func(io.Writer) error) uint64
				limit uint64
			}{{"read", peakHeap, tc.perFrame}, {"read and built", peakTreeHeap, tc.treeFrame}} {
				small := m.peak(t, opts, func(w io.Writer) error { return tc.gen(w, n) })
				big := m.peak(t, opts, func(w io.Writer) error { return tc.gen(w, 4*n) })
				per := float64(big-min(big, small)) / (3 * n)
				t.Logf("%s: %d frames %.1f MB, %d frames %.1f MB: %.0f bytes a frame", m.what, n, mb(small), 4*n, mb(big), per)
				if big > small+3*n*m.limit {
					t.Errorf("%s: %d frames peak at %.1f MB, %d at %.1f MB: %.0f bytes a frame, more than %d", m.what, n, mb(small), 4*n, mb(big), per, m.limit)
				}
			}
		})
	}
}
