package convert

import (
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/tools/hostile"
)

// peakHeap reads what gen writes, streamed through a pipe so that the
// input itself takes no memory, and returns the most heap the reading
// kept live: the live heap the garbage collector found at each cycle,
// with collections every 5% of growth, so a peak is seen to within that.
func peakHeap(t *testing.T, opts Options, gen func(io.Writer) error) uint64 {
	t.Helper()
	peak, err := peakHeapOf(gen, func(r io.Reader) (any, error) { return Read(r, "input", opts) })
	if err != nil {
		t.Fatal(err)
	}
	return peak
}

// peakTreeHeap is peakHeap of reading and building the tree, as ctdiff
// cct does: the samples are let go as the builder reads them, and the
// tree is what stays.
func peakTreeHeap(t *testing.T, opts Options, gen func(io.Writer) error) uint64 {
	t.Helper()
	peak, err := peakHeapOf(gen, func(r io.Reader) (any, error) {
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
	if err != nil {
		t.Fatal(err)
	}
	return peak
}

// peakHeapOf returns the peak of the heap work kept live reading what gen
// writes, and work's error; what work returns is live at its end.
func peakHeapOf(gen func(io.Writer) error, work func(io.Reader) (any, error)) (uint64, error) {
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
	pr.CloseWithError(io.ErrClosedPipe) // a reader that failed leaves the rest
	runtime.GC()                        // the result is still live: it counts
	runtime.KeepAlive(res)
	mu.Lock()
	stopped = true
	p := peak
	mu.Unlock()
	return p - min(p, base), err
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

// TestMemoryBoundComb reads a comb (a chain of n nodes with a sampled leaf
// below each: stacks that share no tail, n²/2 frames) behind 16 MB of
// white space, which compresses a thousandfold: the stack pool refuses it
// by the nodes the tree has, before its frames take the memory. Bounded by
// the input's bytes alone (4 frames a byte) the pool took its 32 M frames
// (128 MB) and the tree was built.
func TestMemoryBoundComb(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 32 MB")
	}
	const n, pad = 8000, 16 << 20
	const want = "stack frames exceed the limit: the stacks of the sampled nodes hold more than 4194304 frames that share no tail " +
		"(64 per node of the tree and 4 per input byte, at least 4194304)"
	for _, tc := range []struct {
		name string
		comb func(w io.Writer, n int) error
	}{
		{"PerfView", hostile.PerfViewComb},
		{".cpuprofile", hostile.V8Comb},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Stacks: true, MergeSamples: true}
			peak, err := peakHeapOf(func(w io.Writer) error {
				return hostile.Padded(w, pad, func(w io.Writer) error { return tc.comb(w, n) })
			}, func(r io.Reader) (any, error) { return Read(r, "input", opts) })
			t.Logf("peak %.1f MB: %v", mb(peak), err)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error %v, want one that says %q", err, want)
			}
			if peak > 48<<20 {
				t.Errorf("peak %.1f MB refusing the comb, more than 48 MB", mb(peak))
			}
		})
	}
}
