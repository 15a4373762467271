package convert

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"regexp"

	"github.com/google/pprof/profile"
)

// Legacy (pre-proto) pprof forms that profile.ParseData reads
// (google/pprof profile/legacy_profile.go, legacy_java_profile.go): the
// binary CPU profile of gperftools and early Go, and text heap, growth,
// fragmentation, contention, thread and Go count (goroutine, threadcreate)
// profiles. Each has a header that sniffLegacyPprof recognises the way
// pprof does; the pprof reader then hands the data to profile.ParseData.
var (
	legacyCountHeader  = regexp.MustCompile(`\A(\S+) profile: total \d+\z`)
	legacyHeapHeader   = regexp.MustCompile(`heap profile: *(\d+): *(\d+) *\[ *(\d+): *(\d+) *\] *@ *(heap[_a-z0-9]*)/?(\d*)`)
	legacyGrowthHeader = regexp.MustCompile(`heap profile: *(\d+): *(\d+) *\[ *(\d+): *(\d+) *\] @ (?:growthz?|fragmentationz?)`)
	legacyThreadz      = regexp.MustCompile(`--- threadz \d+ ---`)
	legacyThread       = regexp.MustCompile(`--- Thread ([[:xdigit:]]+) \(name: (.*)/(\d+)\) stack: ---`)
)

// sniffLegacyPprof reports whether head starts like a legacy pprof profile.
// Heap, contention and Java profiles are recognised by their first line,
// count and thread profiles by the first line that is neither blank nor a
// '#' comment, as pprof's parsers do.
func sniffLegacyPprof(head []byte) bool {
	if legacyCPUHeader(head) {
		return true
	}
	first := head
	if i := bytes.IndexByte(first, '\n'); i >= 0 {
		first = first[:i]
	}
	switch {
	case legacyHeapHeader.Match(first), legacyGrowthHeader.Match(first),
		bytes.HasPrefix(first, []byte("--- contentionz ")),
		bytes.HasPrefix(first, []byte("--- mutex:")),
		bytes.HasPrefix(first, []byte("--- contention:")),
		string(bytes.TrimSpace(first)) == "--- heapz 1 ---":
		return true
	}
	line, _ := firstLine(head, "#")
	return legacyCountHeader.Match(line) || legacyThreadz.Match(line) || legacyThread.Match(line)
}

// legacyCPUHeader reports whether head starts with the header of a legacy
// binary CPU profile: the words 0, 3, 0 (C++) or 1 (Java), a sampling
// period > 0, 0, as 32- or 64-bit words of either byte order.
func legacyCPUHeader(head []byte) bool {
	_, ok := legacyCPUPeriod(head)
	return ok
}

// legacyCPUPeriod returns the sampling period (µs) of a legacy binary CPU
// profile's header, trying the word sizes and byte orders in pprof's
// order; ok false when head does not start with one.
func legacyCPUPeriod(head []byte) (period uint64, ok bool) {
	for _, size := range []int{4, 8} {
		if len(head) < 5*size {
			continue
		}
		for _, order := range []binary.ByteOrder{binary.LittleEndian, binary.BigEndian} {
			var w [5]uint64
			for i := range w {
				b := head[i*size:]
				if size == 4 {
					w[i] = uint64(order.Uint32(b))
				} else {
					w[i] = order.Uint64(b)
				}
			}
			if w[0] == 0 && w[1] == 3 && w[2] <= 1 && w[3] > 0 && w[4] == 0 {
				return w[3], true
			}
		}
	}
	return 0, false
}

// checkLegacyValues refuses a legacy profile whose values pprof's parser
// multiplied by the sampling period beyond 64 bits, which wraps around: to
// a negative value, which would pass for a profile of differences, or to
// a wrong positive one. A CPU profile's samples are checked exactly
// (count × period); in the other forms a negative value can only be such
// a product.
func checkLegacyValues(data []byte, p *profile.Profile) error {
	if period, ok := legacyCPUPeriod(data); ok {
		if period > math.MaxInt64/1000 {
			return fmt.Errorf("the sampling period, %d µs, does not fit in 64 bits of nanoseconds", period)
		}
		ns := period * 1000
		for i, s := range p.Sample {
			if len(s.Value) != 2 { // samples, cpu
				continue
			}
			if count := uint64(s.Value[0]); count > math.MaxInt64/ns {
				return fmt.Errorf("sample %d: %d samples × the sampling period of %d ns do not fit in 64 bits", i, count, ns)
			}
		}
		return nil
	}
	for i, s := range p.Sample {
		for j, v := range s.Value {
			if v < 0 {
				return fmt.Errorf("sample %d: %s is %d after pprof's legacy parser scaled it by the sampling period: the product does not fit in 64 bits",
					i, sampleTypeName(p, j), v)
			}
		}
	}
	return nil
}
