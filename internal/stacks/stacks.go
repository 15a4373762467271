// Package stacks holds a profile's samples compactly: stacks as location
// indexes in one array, values in another, thread identities shared. A
// reader that can produce this form (convert's pprof reader, with
// convert.Options.Stacks) hands it to a builder that needs no more (cct's
// Builder.AddSamples) without allocating a profile.Sample, a location
// slice and label maps per sample: for a 200,000-stack profile that is a
// third of the memory and most of the garbage collector's work.
//
// It keeps what trees are built from (stacks, values, the labels that name
// threads, timestamps); other labels are not kept.
package stacks

// Samples are the samples of one profile, whose other parts (sample types,
// locations, functions) stay in its *profile.Profile.
type Samples struct {
	// Locations holds every sample's stack as indexes into the profile's
	// Location slice, leaf first as in pprof, one sample after another;
	// sample i's stack ends at Ends[i].
	Locations []int32
	Ends      []int
	// Starts, when not nil, says where each sample's stack starts in
	// Locations, which then need not follow one another: samples may share
	// a stack, or its tail (readers of call trees, whose nodes are sampled
	// many times, lay each node's stack out once). Samples with the same
	// start and end have the same stack.
	Starts []int
	// Values holds the values of every sample, one per sample type.
	Values []int64
	// Thread is each sample's index into Threads.
	Thread  []int32
	Threads []Thread
	// Times holds each sample's timestamp_ns label where Timed says it has
	// one; both are nil when no sample has one.
	Times []int64
	Timed []bool
}

// A Thread is the thread identity of samples: the first values of their
// thread, process, pid and tid labels (internal/labels).
type Thread struct {
	Thread, Process string
	PID, TID        int64
	HasPID, HasTID  bool
}

// Len returns the number of samples.
func (s *Samples) Len() int { return len(s.Ends) }

// Stack returns sample i's stack, leaf first.
func (s *Samples) Stack(i int) []int32 {
	return s.Locations[s.Start(i):s.Ends[i]]
}

// Start returns where sample i's stack starts in Locations.
func (s *Samples) Start(i int) int {
	switch {
	case s.Starts != nil:
		return s.Starts[i]
	case i > 0:
		return s.Ends[i-1]
	}
	return 0
}

// Value returns sample i's values; n is the number of sample types.
func (s *Samples) Value(i, n int) []int64 { return s.Values[i*n : i*n+n : i*n+n] }

// Time returns sample i's timestamp, if it has one.
func (s *Samples) Time(i int) (int64, bool) {
	if s.Timed == nil || !s.Timed[i] {
		return 0, false
	}
	return s.Times[i], true
}

// AllTimed reports whether every sample has a timestamp (and there is at
// least one sample).
func (s *Samples) AllTimed() bool {
	if s.Timed == nil || s.Len() == 0 {
		return false
	}
	for _, t := range s.Timed {
		if !t {
			return false
		}
	}
	return true
}

// Keep keeps the samples for which keep returns true, in order, in place.
// Shared stacks (Starts) stay where they are.
func (s *Samples) Keep(keep func(i int) bool, types int) {
	loc, n := 0, 0
	start := 0
	for i, end := range s.Ends {
		if s.Starts != nil {
			start = s.Starts[i]
		}
		if keep(i) {
			if s.Starts != nil {
				s.Starts[n], s.Ends[n] = start, end
			} else {
				loc += copy(s.Locations[loc:], s.Locations[start:end])
				s.Ends[n] = loc
			}
			copy(s.Values[n*types:], s.Values[i*types:i*types+types])
			s.Thread[n] = s.Thread[i]
			if s.Timed != nil {
				s.Times[n], s.Timed[n] = s.Times[i], s.Timed[i]
			}
			n++
		}
		start = end
	}
	if s.Starts != nil {
		s.Starts, loc = s.Starts[:n], len(s.Locations)
	}
	s.Locations, s.Ends, s.Values, s.Thread = s.Locations[:loc], s.Ends[:n], s.Values[:n*types], s.Thread[:n]
	if s.Timed != nil {
		s.Times, s.Timed = s.Times[:n], s.Timed[:n]
	}
}
