package convert

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"

	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// readPprofData reads a pprof input into the bytes the decoders take,
// streaming it so that what the decoders would ignore never takes memory:
//
//   - a second layer of gzip, which profile.ParseData undoes (a gzipped
//     .pb.gz), is undone here under the same --max-input-size limit, where
//     ParseData would inflate it without one; a third is refused;
//   - top-level fields profile.proto does not define (field 0 and those
//     above 15, which pprof skips) are skipped unread;
//   - a string of the string table longer than MaxNameBytes is cut to that
//     length, with a warning;
//   - any other field longer than maxPprofField is refused.
//
// Input in the legacy formats ParseData also reads (text, and gperftools'
// binary CPU profiles, which start with a zero word) is read whole. counts
// are the profile's fields counted for the decoder, nil for those.
func readPprofData(in *parserInput) ([]byte, *pprofio.Counts, error) {
	r := in.R
	if data, ok := in.whole.Read(); ok {
		n := int64(len(data))
		in.consumed = &n
		if counts, ok := pprofio.KnownFields(data); ok {
			return data, counts, nil
		}
		// Fields to skip or cut, another layer of gzip, a legacy format:
		// read as from the file, from the bytes.
		r = bufio.NewReaderSize(bytes.NewReader(data), 64<<10)
	}
	if magic, _ := r.Peek(2); pprofio.IsGzip(magic) {
		limit := in.Options.MaxDecompressed
		if limit <= 0 {
			limit = DefaultMaxDecompressed
		}
		zr, err := gzip.NewReader(r)
		if err != nil {
			return nil, nil, fmt.Errorf("gzip inside gzip: %w", err)
		}
		g := newGzipReader(zr, r, limit)
		r = bufio.NewReaderSize(g, 64<<10)
		if magic, _ := r.Peek(2); pprofio.IsGzip(magic) {
			return nil, nil, errors.New("gzip inside gzip inside gzip: a profile is compressed at most twice")
		}
		in.consumed, in.sizeHint = &g.n, 0
	}
	head, _ := r.Peek(512)
	if len(head) == 0 {
		return nil, nil, nil
	}
	if pprofio.LooksLikeText(head) || bytes.HasPrefix(head, []byte{0, 0, 0, 0}) {
		data, err := readAllFrom(r, in.sizeHint)
		return data, nil, err
	}
	data, counts, cut, err := pprofio.ReadFields(r, in.sizeHint)
	if err != nil {
		return nil, nil, pprofError(err)
	}
	in.warnCut(cut)
	return data, counts, nil
}

// readAllFrom reads the rest of r, from a buffer of the likely size.
func readAllFrom(r *bufio.Reader, hint int) ([]byte, error) {
	return (&parserInput{R: r, sizeHint: hint}).ReadAll()
}

// warnCut warns of the strings of the string table ReadFields cut.
func (in *parserInput) warnCut(cut int) {
	if cut > 0 {
		in.Warnf("%d strings of the string table are longer than %d bytes; each is cut to its first %d bytes", cut, maxNameBytes, maxNameBytes)
	}
}

// pprofError is err as the pprof reader returns it: a malformed input's
// position as the other readers give it (a SyntaxError).
func pprofError(err error) error {
	if e, ok := err.(*pprofio.Error); ok {
		return errAtOffset(e.Offset, "%s", e.Msg)
	}
	return err
}

// A big pprof file is decoded as it is decompressed (pprofio.StreamStacks).
// Smaller files take the whole-buffer decoder (DecodeStacks): on
// profiles of distinct stacks, which hashing cannot share, it takes 0.4
// of the CPU (BenchmarkPprofStream/synth; on a few stacks sampled again
// and again streaming takes 0.35 of its). The thresholds are on the
// file's size, gzipped or not.
var (
	pprofStreamGzip int64 = 64 << 20
	pprofStreamRaw  int64 = 512 << 20
)

// pprofStreams reports whether to stream this input (parsePprofStream).
func pprofStreams(in *parserInput) bool {
	if w := in.whole; w != nil {
		return w.Size() >= pprofStreamGzip
	}
	return int64(in.sizeHint) >= pprofStreamRaw
}

// parsePprofStream is parsePprofStacks for big inputs: decoded as they
// are read (pprofStream). Inputs the decoder leaves to profile.ParseData
// (legacy formats, another layer of gzip) are read as small ones are.
func parsePprofStream(in *parserInput) (*profile.Profile, *stacks.Samples, error) {
	head, _ := in.R.Peek(512)
	if len(head) < 2 || pprofio.IsGzip(head[:2]) || pprofio.LooksLikeText(head) || bytes.HasPrefix(head, []byte{0, 0, 0, 0}) {
		in.whole = nil // not read whole either: it is big
		return parsePprofWhole(in)
	}
	p, s, cut, err := pprofio.StreamStacks(in.R, parsePprofData, bigSamples)
	if err != nil {
		return nil, nil, pprofError(err)
	}
	in.warnCut(cut)
	return p, s, nil
}
