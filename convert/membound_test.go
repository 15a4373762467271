package convert

import (
	"bytes"
	"io"
	"runtime"
	"testing"

	"github.com/ctdiff/ctdiff/tools/hostile"
)

// allocated returns how many bytes reading data allocates in all: an upper
// bound of how much the reader's peak memory can grow.
func allocated(t *testing.T, data []byte, opts Options) uint64 {
	t.Helper()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Read(bytes.NewReader(data), "input", opts)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	return after.TotalAlloc - before.TotalAlloc
}

func generated(t *testing.T, gz bool, body func(io.Writer) error) []byte {
	t.Helper()
	var b bytes.Buffer
	var err error
	if gz {
		err = hostile.Gzip(&b, body)
	} else {
		err = body(&b)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestMemoryBound reads each hostile shape at two sizes: what a
// reader allocates may grow with what the profile holds (distinct nodes,
// samples) but not with the decompressed size of one token, nor with the
// depth × samples of a call tree that names deep nodes many times. Each
// case fails without the fix by far more than its allowance.
func TestMemoryBound(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		name       string
		from       string
		stacks     bool
		small, big func(t *testing.T) []byte
		growth     uint64 // at most this much more for the big input
		bigDecomp  string // what grows, for the message
	}{
		{name: "pprof with an unknown field", bigDecomp: "64 MiB field",
			small:  func(t *testing.T) []byte { return generated(t, true, pprofWithUnknown(8*mb)) },
			big:    func(t *testing.T) []byte { return generated(t, true, pprofWithUnknown(64*mb)) },
			growth: 2 * mb},
		{name: "pprof gzipped twice", from: "pprof", bigDecomp: "64 MiB inner layer",
			small: func(t *testing.T) []byte {
				return generated(t, false, func(w io.Writer) error { return hostile.NestedGzipPprof(w, 8*mb) })
			},
			big: func(t *testing.T) []byte {
				return generated(t, false, func(w io.Writer) error { return hostile.NestedGzipPprof(w, 64*mb) })
			},
			growth: 2 * mb},
		{name: ".cpuprofile with a long function name", bigDecomp: "32 MiB name",
			small: func(t *testing.T) []byte {
				return generated(t, true, func(w io.Writer) error { return hostile.CpuprofileLongName(w, 4*mb) })
			},
			big: func(t *testing.T) []byte {
				return generated(t, true, func(w io.Writer) error { return hostile.CpuprofileLongName(w, 32*mb) })
			},
			growth: 2 * mb},
		{name: "PerfView zip with white space", bigDecomp: "64 MiB of white space",
			small: func(t *testing.T) []byte {
				return generated(t, false, func(w io.Writer) error { return hostile.PerfViewZipWhitespace(w, 8*mb) })
			},
			big: func(t *testing.T) []byte {
				return generated(t, false, func(w io.Writer) error { return hostile.PerfViewZipWhitespace(w, 64*mb) })
			},
			growth: 2 * mb},
		// 28,000 more samples of a 2,000-deep chain: 56 million more frames
		// if each sample had its stack (224 MB as indexes).
		{name: "V8 chain sampled 8x as often, as stacks", stacks: true, bigDecomp: "8x the samples",
			small: func(t *testing.T) []byte {
				return generated(t, false, func(w io.Writer) error { return hostile.V8Chain(w, 2000, 4000, hostile.Every) })
			},
			big: func(t *testing.T) []byte {
				return generated(t, false, func(w io.Writer) error { return hostile.V8Chain(w, 2000, 32000, hostile.Every) })
			},
			growth: 28000 * 300},
		{name: "V8 chain sampled 8x as often", bigDecomp: "8x the samples",
			small: func(t *testing.T) []byte {
				return generated(t, false, func(w io.Writer) error { return hostile.V8Chain(w, 2000, 4000, hostile.Every) })
			},
			big: func(t *testing.T) []byte {
				return generated(t, false, func(w io.Writer) error { return hostile.V8Chain(w, 2000, 32000, hostile.Every) })
			},
			growth: 28000 * 1000}, // a profile.Sample and its label map each
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{From: tc.from, Stacks: tc.stacks}
			small, big := allocated(t, tc.small(t), opts), allocated(t, tc.big(t), opts)
			t.Logf("allocated %.1f MB, with the %s %.1f MB", float64(small)/mb, tc.bigDecomp, float64(big)/mb)
			if big > small+tc.growth {
				t.Errorf("allocated %.1f MB, with the %s %.1f MB: more than %.1f MB more", float64(small)/mb, tc.bigDecomp, float64(big)/mb, float64(tc.growth)/mb)
			}
		})
	}
}

// Call trees that are one chain sampled at every depth: 4x the nodes may
// allocate about 4x as much, where a stack per sampled node (its whole
// path) allocates 16x.
func TestMemoryBoundChains(t *testing.T) {
	for _, tc := range []struct {
		name  string
		chain func(w io.Writer, n int) error
	}{
		{"ctdiff.cct/v1", hostile.CCTChain},
		{"V8", func(w io.Writer, n int) error { return hostile.V8Chain(w, n, n, hostile.Every) }},
		{"PerfView", func(w io.Writer, n int) error { return hostile.PerfViewChain(w, n, n, hostile.Every) }},
	} {
		for _, stacks := range []bool{false, true} {
			chain := func(n int) []byte {
				return generated(t, false, func(w io.Writer) error { return tc.chain(w, n) })
			}
			small, big := allocated(t, chain(1000), Options{Stacks: stacks}), allocated(t, chain(4000), Options{Stacks: stacks})
			t.Logf("%s, stacks=%v: 1,000 nodes %.1f MB, 4,000 nodes %.1f MB", tc.name, stacks, float64(small)/(1<<20), float64(big)/(1<<20))
			if big > 6*small {
				t.Errorf("%s, stacks=%v: 4x the nodes allocate %.1fx as much", tc.name, stacks, float64(big)/float64(small))
			}
		}
	}
}
