package convert_test

import (
	"encoding/binary"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/google/pprof/profile"
)

// TestLegacyPprofSniffed reads every legacy form profile.ParseData reads
// without --from: the format is pprof and the samples are pprof's. A Go
// count profile's header ("threadcreate profile: total 2") once made it
// folded stacks, the others an unknown format.
func TestLegacyPprofSniffed(t *testing.T) {
	words := func(order binary.ByteOrder, size int, v ...uint64) string {
		b := make([]byte, size*len(v))
		for i, x := range v {
			if size == 4 {
				order.PutUint32(b[4*i:], uint32(x))
			} else {
				order.PutUint64(b[8*i:], x)
			}
		}
		return string(b)
	}
	// Header 0, 3, 0 (C++) or 1 (Java), period 10 ms, 0; two samples
	// (count, depth, pcs); the trailer 0, 1, 0.
	cpu := func(order binary.ByteOrder, size int, lang uint64) string {
		return words(order, size, 0, 3, lang, 10000, 0, 5, 2, 0x1000, 0x2000, 3, 1, 0x1000, 0, 1, 0)
	}
	const javaLocations = "---\n0x1 com.x.Y.m (Y.java:3)\n0x2 com.x.Z.n (Z.java:4)\n"
	for _, tc := range []struct{ name, in string }{
		{"cpu 64-bit little-endian", cpu(binary.LittleEndian, 8, 0)},
		{"cpu 64-bit big-endian", cpu(binary.BigEndian, 8, 0)},
		{"cpu 32-bit little-endian", cpu(binary.LittleEndian, 4, 0)},
		{"cpu 32-bit big-endian", cpu(binary.BigEndian, 4, 0)},
		{"threadcreate count", "threadcreate profile: total 2\n1 @ 0x44cb3 0x45045 0x271fb5\n1 @ 0x3\n"},
		{"goroutine count after comments", "# from /debug/pprof\n\ngoroutine profile: total 2\n2 @ 0x1 0x2\n"},
		{"heap", "heap profile: 1: 2 [3: 4] @ heap/1048576\n1: 2 [3: 4] @ 0x1 0x2\n"},
		{"heapz_v2", "heap profile:    1:  9216 [   1:  9216] @ heapz_v2/524288\n     1:     9216 [     1:     9216] @ 0xc635c8 0x42ecc3\n"},
		{"growth", "heap profile: 1: 2097152 [1: 2097152] @ growthz\n1: 2097152 [1: 2097152] @ 0x1 0x2\n"},
		{"fragmentation", "heap profile: 1: 2097152 [1: 2097152] @ fragmentationz\n1: 2097152 [1: 2097152] @ 0x1 0x2\n"},
		{"contentionz", "--- contentionz 1 ---\ncycles/second = 3201000000\nsampling period = 100\n2 3 @ 0x1 0x2\n"},
		{"mutex", "--- mutex:\ncycles/second=3201000000\nsampling period=1\n2 3 @ 0x1 0x2\n"},
		{"contention", "--- contention:\ncycles/second=3201000000\nsampling period=1\n2 3 @ 0x1 0x2\n"},
		{"threadz", "--- threadz 1 ---\n\n--- Thread 7f794ab90940 (name: main/14748) stack: ---\n  PC: 0x1 0x2\n--- Memory map: ---\n"},
		{"thread", "--- Thread 7f794ab90940 (name: main/14748) stack: ---\n  PC: 0x1 0x2\n--- Memory map: ---\n"},
		{"java cpu", cpu(binary.LittleEndian, 8, 1)},
		{"java heapz", "--- heapz 1 ---\nformat = java\nresolution = bytes\n  7048 1 @ 0x1 0x2\n" + javaLocations},
		{"java contentionz", "--- contentionz 1 ---\nformat = java\nresolution = microseconds\nsampling period = 100\n  7048 1 @ 0x1 0x2\n" + javaLocations},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := profile.ParseData([]byte(tc.in))
			if err != nil {
				t.Fatalf("pprof does not read the input: %v", err)
			}
			res, err := convert.Read(strings.NewReader(tc.in), "legacy", convert.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != "pprof" {
				t.Fatalf("format %s, want pprof", res.Format)
			}
			for i := range want.SampleType {
				if got, w := sum(res.Profile, i), sum(want, i); got != w || len(res.Profile.Sample) != len(want.Sample) {
					t.Errorf("%s: %d samples, total %d; pprof: %d samples, total %d", want.SampleType[i].Type, len(res.Profile.Sample), got, len(want.Sample), w)
				}
			}
		})
	}
}

// A legacy profile whose count times sampling period does not fit in 64
// bits is refused as such: pprof's parser multiplies them, wrapping around
// to a negative value (which was reported as a profile of differences) or
// to a wrong positive one.
func TestLegacyPprofOverflow(t *testing.T) {
	words := func(v ...uint64) string {
		b := make([]byte, 8*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint64(b[8*i:], x)
		}
		return string(b)
	}
	cpu := func(period, count uint64) string {
		return words(0, 3, 0, period, 0, 5, 2, 0x1000, 0x2000, count, 1, 0x1000, 0, 1, 0)
	}
	for _, tc := range []struct{ name, in, want string }{
		{"count × period negative", cpu(1<<30, 1<<40),
			"legacy: sample 1: 1099511627776 samples × the sampling period of 1073741824000 ns do not fit in 64 bits"},
		{"count × period wrapped positive", cpu(1<<30, 1<<34),
			"legacy: sample 1: 17179869184 samples × the sampling period of 1073741824000 ns do not fit in 64 bits"},
		{"count beyond 2^63", cpu(10000, 1<<63),
			"legacy: sample 1: 9223372036854775808 samples × the sampling period of 10000000 ns do not fit in 64 bits"},
		{"period beyond 2^63 ns", cpu(1<<62, 1),
			"legacy: the sampling period, 4611686018427387904 µs, does not fit in 64 bits of nanoseconds"},
		{"contention", "--- contentionz 1 ---\ncycles/second = 3201000000\nsampling period = 4611686018427387904\n2 3 @ 0x1 0x2\n",
			"legacy: sample 0: contentions/count is -4611686018427387904 after pprof's legacy parser scaled it by the sampling period: the product does not fit in 64 bits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := convert.Read(strings.NewReader(tc.in), "legacy", convert.Options{})
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v\nwant  %s", err, tc.want)
			}
		})
	}
}
