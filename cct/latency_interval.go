package cct

// The sampling interval behind the default gap threshold of InferLatency.

// SamplingInterval estimates how often a running thread is sampled, in
// nanoseconds: the larger of the profile's period (when PeriodType is a
// time) and the lower quartile of the spacings of consecutive samples of one
// thread. Both are lower bounds of the spacing a running thread sees: a
// sampler that visits threads in turns samples each thread less often than
// its period says (async-profiler's JFR in the corpus: period 10ms, every
// thread sampled every 200ms). Spacings mix the steady rate of a running
// thread with the long silences of an idle one; the lower quartile finds the
// steady rate as long as a quarter of them come from running stretches,
// where the median fails on mostly idle threads (the corpus's cortex-kafka
// CPU recording: quartile 10ms, the period; median 227ms, which would let
// instances run on through idle time). It returns 0 when neither is known.
func (t *Tree) SamplingInterval() int64 {
	return samplingInterval(t, stackSamples(timelineInOrder(t.Timeline)))
}

func samplingInterval(t *Tree, tl []TimedSample) int64 {
	return max(periodNanos(t.PeriodType, t.Period), spacingQuartile(tl))
}

// periodNanos converts a period whose type is a time to nanoseconds.
func periodNanos(pt ValueType, period int64) int64 {
	if period <= 0 {
		return 0
	}
	switch pt.Unit {
	case "nanoseconds", "ns":
		return period
	case "microseconds", "us", "µs":
		return period * 1e3
	case "milliseconds", "ms":
		return period * 1e6
	case "seconds", "s":
		return period * 1e9
	}
	return 0
}

// spacingQuartile returns the lower quartile of the positive time
// differences between consecutive samples of one thread in one profile (tl
// in timeline order), or 0 when there are none.
func spacingQuartile(tl []TimedSample) int64 {
	d := make([]int64, 0, max(len(tl)-1, 0))
	for i := 1; i < len(tl); i++ {
		a, b := &tl[i-1], &tl[i]
		if a.Thread == b.Thread && a.Profile == b.Profile && b.Time > a.Time {
			d = append(d, b.Time-a.Time)
		}
	}
	if len(d) == 0 {
		return 0
	}
	return nthSmallest(d, len(d)/4)
}

// nthSmallest returns the k-th smallest value of v (0-based), reordering v.
// It is quickselect with a three-way partition, so runs of equal values
// (sampling intervals often repeat exactly) cost no more than distinct ones,
// and pseudo-random pivots, so the expected time is linear. The result does
// not depend on the pivots.
func nthSmallest(v []int64, k int) int64 {
	rng := uint64(0x9e3779b97f4a7c15)
	lo, hi := 0, len(v) // the answer lies in v[lo:hi]
	for {
		if hi-lo == 1 {
			return v[lo]
		}
		rng ^= rng << 13
		rng ^= rng >> 7
		rng ^= rng << 17
		p := v[lo+int(rng%uint64(hi-lo))]
		// Dutch-flag partition of v[lo:hi] into < p, == p, > p.
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch {
			case v[i] < p:
				v[lt], v[i] = v[i], v[lt]
				lt++
				i++
			case v[i] > p:
				gt--
				v[i], v[gt] = v[gt], v[i]
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt
		case k >= gt:
			lo = gt
		default:
			return p
		}
	}
}
