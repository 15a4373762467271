package stacks

import (
	"reflect"

	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/google/pprof/profile"
)

// FromProfile returns p's own samples (p.Sample) as a Source. Keep changes
// p.Sample; nothing else of p changes. A sample location that p.Location
// lacks (CheckValid allows it) gets an index past p.Location's.
func FromProfile(p *profile.Profile) Source { return &profileSamples{p: p} }

type profileSamples struct {
	p *profile.Profile
	// byID maps a location id to its index in p.Location plus one (0:
	// none), for ids below its length: pprof numbers locations 1, 2, 3...
	byID    []int32
	indexed bool
	// extra holds the locations samples name that p.Location lacks (or
	// holds under an id byID does not cover), at index len(p.Location)+k.
	extra []*profile.Location
	other map[*profile.Location]int32
	stack []int32
	// thread and threads are computed on the first call of Thread or
	// Threads.
	thread  []int32
	threads []Thread
}

func (ps *profileSamples) Profile() *profile.Profile { return ps.p }
func (ps *profileSamples) Len() int                  { return len(ps.p.Sample) }
func (ps *profileSamples) Depth(i int) int           { return len(ps.p.Sample[i].Location) }
func (ps *profileSamples) Value(i int) []int64       { return ps.p.Sample[i].Value }

func (ps *profileSamples) Time(i int) (int64, bool) {
	if ts := ps.p.Sample[i].NumLabel[labels.Timestamp]; len(ts) > 0 {
		return ts[0], true
	}
	return 0, false
}

func (ps *profileSamples) Stack(i int) []int32 {
	if !ps.indexed {
		ps.index()
	}
	stack := ps.stack[:0]
	for _, l := range ps.p.Sample[i].Location {
		x := int32(-1)
		if id := l.ID; id < uint64(len(ps.byID)) {
			if x = ps.byID[id] - 1; x >= 0 && ps.p.Location[x] != l {
				x = -1
			}
		}
		if x < 0 {
			x = ps.otherIndex(l)
		}
		stack = append(stack, x)
	}
	ps.stack = stack
	return stack
}

// index maps location ids to indexes, for ids up to twice the number of
// locations (larger ones are found in a map).
func (ps *profileSamples) index() {
	ps.indexed = true
	limit := uint64(2*len(ps.p.Location) + 64)
	ps.byID = make([]int32, len(ps.p.Location)+1)
	for x, l := range ps.p.Location {
		if l.ID >= limit {
			continue
		}
		if int(l.ID) >= len(ps.byID) {
			ps.byID = append(ps.byID, make([]int32, int(l.ID)+1-len(ps.byID))...)
		}
		if ps.byID[l.ID] == 0 { // the first of a duplicate id
			ps.byID[l.ID] = int32(x + 1)
		}
	}
}

// otherIndex returns the index of a location byID does not find.
func (ps *profileSamples) otherIndex(l *profile.Location) int32 {
	if x, ok := ps.other[l]; ok {
		return x
	}
	if ps.other == nil {
		ps.other = map[*profile.Location]int32{}
		for x, l := range ps.p.Location {
			if _, dup := ps.other[l]; !dup {
				ps.other[l] = int32(x)
			}
		}
		if x, ok := ps.other[l]; ok {
			return x
		}
	}
	x := int32(len(ps.p.Location) + len(ps.extra))
	ps.extra = append(ps.extra, l)
	ps.other[l] = x
	return x
}

func (ps *profileSamples) Location(x int32) *profile.Location {
	if int(x) < len(ps.p.Location) {
		return ps.p.Location[x]
	}
	return ps.extra[int(x)-len(ps.p.Location)]
}

func (ps *profileSamples) Thread(i int) int32 {
	if ps.thread == nil {
		ps.findThreads()
	}
	return ps.thread[i]
}

func (ps *profileSamples) Threads() []Thread {
	if ps.thread == nil {
		ps.findThreads()
	}
	return ps.threads
}

// findThreads numbers the samples' threads. Samples of one thread usually
// share their label map and come in runs, so labels are read only when
// the map or the pid and tid change.
func (ps *profileSamples) findThreads() {
	ps.thread = make([]int32, len(ps.p.Sample))
	ps.threads = ps.threads[:0]
	index := map[Thread]int32{}
	var lastLabel map[string][]string
	var last Thread
	lastX := int32(-1)
	for i, s := range ps.p.Sample {
		var th Thread
		if len(s.NumLabel) > 0 {
			if v := s.NumLabel[labels.PID]; len(v) > 0 {
				th.PID, th.HasPID = v[0], true
			}
			if v := s.NumLabel[labels.TID]; len(v) > 0 {
				th.TID, th.HasTID = v[0], true
			}
		}
		if lastX >= 0 && sameMap(s.Label, lastLabel) && th.PID == last.PID && th.TID == last.TID &&
			th.HasPID == last.HasPID && th.HasTID == last.HasTID {
			ps.thread[i] = lastX
			continue
		}
		if v := s.Label[labels.Process]; len(v) > 0 {
			th.Process = v[0]
		}
		if v := s.Label[labels.Thread]; len(v) > 0 {
			th.Thread = v[0]
		}
		x, ok := index[th]
		if !ok {
			x = int32(len(ps.threads))
			ps.threads = append(ps.threads, th)
			index[th] = x
		}
		ps.thread[i], lastLabel, last, lastX = x, s.Label, th, x
	}
}

// sameMap reports whether a and b are the same map (not merely equal maps).
func sameMap(a, b map[string][]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func (ps *profileSamples) Keep(keep func(i int) bool) {
	kept := ps.p.Sample[:0]
	n := 0
	for i, s := range ps.p.Sample {
		if keep(i) {
			if ps.thread != nil {
				ps.thread[n] = ps.thread[i]
			}
			kept = append(kept, s)
			n++
		}
	}
	clear(ps.p.Sample[len(kept):])
	ps.p.Sample = kept
	if ps.thread != nil {
		ps.thread = ps.thread[:n]
	}
}
