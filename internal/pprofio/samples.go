package pprofio

import (
	"io"
	"iter"

	"github.com/google/pprof/profile"
)

// WriteSamples is Write for a profile whose samples are made as they are
// written: it writes what Write writes for p with the samples of seq as
// its samples (p.Sample is written after them; leave it nil), without
// holding them. Each sample is encoded before seq makes the next, so seq
// may reuse one Sample, with its Location and Value slices and its
// NumLabel and NumUnit maps. Label maps are encoded once per map, so one
// must not change once yielded: share one per set of labels, as converters
// share one per thread. p's locations and functions are written after the
// samples, so seq may add to them as it goes.
func WriteSamples(w io.Writer, p *profile.Profile, seq iter.Seq[*profile.Sample]) error {
	return compressed(w, func(zw io.Writer) error { return WriteSamplesUncompressed(zw, p, seq) })
}

// WriteSamplesUncompressed is WriteSamples without gzip.
func WriteSamplesUncompressed(w io.Writer, p *profile.Profile, seq iter.Seq[*profile.Sample]) error {
	return encode(w, p, nil, seq)
}

// seqSamples encodes the samples of seq, stopping at a write error.
func (e *encoder) seqSamples(seq iter.Seq[*profile.Sample]) {
	for s := range seq {
		e.sample(s)
		if e.err != nil {
			return
		}
	}
}
