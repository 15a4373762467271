package convert

import (
	"encoding/hex"
	"testing"
)

// A Go CPU profile whose first four bytes read as a buffer size of at most
// 64 MB and whose bytes 74..75 (0x10 0xC0) as an ETW trace header is
// pprof, not binary ETL (the audit's idle-one case, seed 3, wrote one: about
// one Go profile in 3,000). An ETL file's second word, the buffer's saved
// offset, lies within the buffer; a Go profile's (the second sample type's
// tag) lies far beyond.
func TestPprofNotSniffedAsETL(t *testing.T) {
	res, err := ReadFile("testdata/pprof/etl-lookalike.pb.gz", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "pprof" || len(res.Profile.Sample) == 0 {
		t.Errorf("read as %s with %d samples, want pprof", res.Format, len(res.Profile.Sample))
	}
}

// The raw trace in the corpus's PerfView zip still sniffs as ETL: its first
// 80 bytes (buffer size 0x200, saved offset 0x1b8, a SYSTEM64 header).
func TestRawETLSniffed(t *testing.T) {
	head, err := hex.DecodeString("00020000b8010000000000000000000000000000000000000000000000000000" +
		"00000000000000000000000003000000b8010000010004000000000000000000" +
		"0000000000000000020002c06c010000")
	if err != nil {
		t.Fatal(err)
	}
	if !sniffETL(head) {
		t.Error("the corpus's raw ETL is not sniffed as ETL")
	}
}
