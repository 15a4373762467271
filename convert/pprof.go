package convert

import (
	"fmt"

	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// pprof reads profile.proto, as written by Go's runtime/pprof, go tool pprof
// and ctdiff itself. Compression was already undone by Read.
func init() {
	register(inputFormat{
		Name:        "pprof",
		Description: "pprof profile.proto (gzipped or not), as written by runtime/pprof and go tool pprof",
		Priority:    -10,
		Sniff:       sniffPprof,
		Parse:       parsePprof,
		ParseStacks: parsePprofStacks,
	})
}

// sniffPprof accepts binary data that starts with a protobuf tag for one of
// profile.proto's fields 1-14, and the legacy forms profile.ParseData reads
// (sniffLegacyPprof). It is the last resort among sniffers because protobuf
// has no magic number; parsing decides. The collapsed sniffer, which runs
// earlier, leaves legacy text profiles to this one.
func sniffPprof(head []byte) bool {
	if sniffLegacyPprof(head) {
		return true
	}
	if len(head) < 2 {
		return false
	}
	field, wire := head[0]>>3, head[0]&7
	if field < 1 || field > 14 || (wire != 0 && wire != 2) {
		return false
	}
	for _, c := range head {
		if c < 0x09 || (c > 0x0d && c < 0x20) {
			return true // a control byte: binary, not text
		}
	}
	return false
}

// parsePprofStacks is parsePprof returning the samples as stacks.Samples;
// what the fast decoder does not take comes back with its samples in the
// profile.
func parsePprofStacks(in *parserInput) (*profile.Profile, *stacks.Samples, error) {
	if pprofStreams(in) {
		return parsePprofStream(in)
	}
	return parsePprofWhole(in)
}

// parsePprofWhole is parsePprofStacks decoding the profile from its bytes
// read whole.
func parsePprofWhole(in *parserInput) (*profile.Profile, *stacks.Samples, error) {
	data, counts, err := readPprofData(in)
	if err != nil {
		return nil, nil, err
	}
	// Tables shared with a profile read before were checked then; what
	// CheckValid checks of a profile without samples is its tables.
	bufs := in.Options.Buffers
	if p, s, ok := pprofio.DecodeStacks(data, counts, bufs); ok && (bufs.ReusedTables() || p.CheckValid() == nil) {
		bufs.CommitTables()
		pprofio.PutBuf(data)
		return p, s, nil
	}
	p, err := parsePprofData(data)
	return p, nil, err
}

func parsePprof(in *parserInput) (*profile.Profile, error) {
	data, counts, err := readPprofData(in)
	if err != nil {
		return nil, err
	}
	if p, ok := pprofio.Decode(data, counts); ok && p.CheckValid() == nil {
		pprofio.PutBuf(data)
		return p, nil
	}
	return parsePprofData(data)
}

// parsePprofData is profile.ParseData: whatever the fast decoder does not
// take, pprof decides: legacy formats and the errors. (readPprofData
// already undid a second layer of gzip, within the size limit.)
func parsePprofData(data []byte) (*profile.Profile, error) {
	p, err := profile.ParseData(data)
	if err != nil {
		return nil, fmt.Errorf("not a valid pprof profile: %w", err)
	}
	if sniffLegacyPprof(data[:min(len(data), sniffSize)]) {
		if err := checkLegacyValues(data, p); err != nil {
			return nil, err
		}
	}
	return p, nil
}
