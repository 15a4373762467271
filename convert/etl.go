package convert

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/google/pprof/profile"
)

// etl recognises binary ETW traces (.etl, and zip archives holding one, as
// PerfView ships them) only to refuse them with advice. Reading them needs
// WMI buffer decoding, stack-key decompression, image rundown and PDB
// symbolization, and no Go library does that off Windows
// (formats-etw-java-perf.md §1.5); the Windows tools export them to the text
// forms ctdiff reads.
func init() {
	register(inputFormat{
		Name:        "etl",
		Description: "binary ETW trace (.etl, .etl.zip): recognised only to explain how to export it",
		Priority:    45,
		Sniff:       sniffETL,
		Parse: func(*parserInput) (*profile.Profile, error) {
			return nil, fmt.Errorf("%w; %s", errBinaryETL, etwExportAdvice)
		},
	})
}

// errBinaryETL is returned (wrapped) for binary ETW traces.
var errBinaryETL = errors.New("binary ETL is not supported")

// sniffETL accepts a zip archive whose first entry is an .etl file, and a raw
// trace: a 72-byte WMI buffer header followed by the first event's trace
// header, whose marker has the TRACE_HEADER_FLAG and TRACE_HEADER_EVENT_TRACE
// bits (0xC0) and a header type between 1 (SYSTEM32) and 21 (INSTANCE64).
func sniffETL(head []byte) bool {
	if name, ok := etwZipFirstEntry(head); ok {
		return strings.HasSuffix(strings.ToLower(name), ".etl")
	}
	if len(head) < 76 {
		return false
	}
	// The buffer header's size and saved offset, which lies within the
	// buffer: a Go CPU profile's first bytes also read as a size below
	// 64 MB, its bytes 74..75 as a trace header one time in 3,000, but its
	// second word (the second sample type's tag) as an offset far beyond.
	size, saved := binary.LittleEndian.Uint32(head), binary.LittleEndian.Uint32(head[4:])
	return size > 0 && size <= 64<<20 && saved <= size && head[75] == 0xC0 && head[74] >= 1 && head[74] <= 21
}

// etwExportAdvice says how to turn a binary trace into a form ctdiff reads.
const etwExportAdvice = "export it to text first: " +
	"`xperf -i trace.etl -o trace.txt -symbols -a dumper -stacktimeshifting`, or " +
	"`wpaexporter -i trace.etl -profile ctdiff-cpu-sampled.wpaProfile -symbols` " +
	"(the profile is in ctdiff's testdata/wpa/), or PerfView's CPU Stacks view, " +
	"File > Save View As .perfView.xml.zip"
