package pprofio

import (
	"io"

	"github.com/google/pprof/profile"
)

// WriteEncoded is Write for a profile whose samples come encoded already
// (a pprof profile read and written again, ctdiff convert of a big one):
// p is written with the Sample messages samples emits as its samples,
// before p.Sample (leave it nil).
//
// The messages name strings by their index in the string table written,
// which pprof builds as it interns strings: the sample types', then each
// sample's labels', then the rest. labels are the strings of the samples'
// labels in the order pprof interns them (each sample's string labels by
// key, key then value, then its numeric labels by key, key then units);
// samples gets each one's index in the table (ids[i] for labels[i]) and
// emits each message, which it may reuse once emit returns. An error from
// emit (the writer's) or from samples stops the writing.
func WriteEncoded(w io.Writer, p *profile.Profile, labels []string, samples func(ids []int64, emit func(msg []byte) error) error) error {
	return compressed(w, func(zw io.Writer) error {
		var err error
		werr := encodeWith(zw, p, func(e *encoder) {
			ids := make([]int64, len(labels))
			for i, s := range labels {
				ids[i] = e.str(s)
			}
			err = samples(ids, func(msg []byte) error {
				if e.err != nil {
					return e.err
				}
				e.msg = msg
				e.emit(2)
				e.msg = nil // msg is the caller's
				return e.err
			})
			if err != nil && e.err == nil {
				e.err = err // nothing more is written
			}
		})
		if err != nil {
			return err
		}
		return werr
	})
}
