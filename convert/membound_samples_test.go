package convert

import (
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"

	"github.com/ctdiff/ctdiff/tools/hostile"
)

// peakHeap reads what gen writes, streamed through a pipe so that the
// input itself takes no memory, and returns the most heap the reading
// kept live: the live heap the garbage collector found at each cycle,
// with collections every 5% of growth, so a peak is seen to within that.
func peakHeap(t *testing.T, opts Options, gen func(io.Writer) error) uint64 {
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
	res, err := Read(pr, "input", opts)
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
// each text and tree form: the reader's peak heap grows by what the
// frames' functions and locations take (pprof's Function and Location,
// and the maps that intern them), within perFrame bytes a frame, where a
// copy of the stack per frame would grow with its square.
func TestMemoryBoundDeepStack(t *testing.T) {
	if testing.Short() {
		t.Skip("reads stacks of 120,000 frames in all")
	}
	const n = 8_000
	for _, tc := range []struct {
		name     string
		gen      func(w io.Writer, n int) error
		perFrame uint64
	}{
		{"folded", hostile.FoldedDeep, 1000},
		{"perf script", hostile.PerfScriptDeep, 1000},
		{".cpuprofile", hostile.CpuprofileDeep, 1400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Stacks: true, MergeSamples: true}
			small := peakHeap(t, opts, func(w io.Writer) error { return tc.gen(w, n) })
			big := peakHeap(t, opts, func(w io.Writer) error { return tc.gen(w, 4*n) })
			per := float64(big-min(big, small)) / (3 * n)
			t.Logf("%d frames %.1f MB, %d frames %.1f MB: %.0f bytes a frame", n, mb(small), 4*n, mb(big), per)
			if big > small+3*n*tc.perFrame {
				t.Errorf("%d frames peak at %.1f MB, %d at %.1f MB: %.0f bytes a frame, more than %d", n, mb(small), 4*n, mb(big), per, tc.perFrame)
			}
		})
	}
}
