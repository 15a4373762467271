package stacks

import (
	"reflect"
	"slices"
	"unsafe"

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
	// dense: location i has id i+1, as profile.Parse and convert's profile builder
	// number them; byID is not needed then.
	dense bool
	// extra holds the locations samples name that p.Location lacks (or
	// holds under an id byID does not cover), at index len(p.Location)+k.
	extra []*profile.Location
	other map[*profile.Location]int32
	stack []int32
	// threads are the thread identities Thread has numbered. The label
	// maps, pids and tids of the threads it met last save reading the
	// labels of a sample that shares them, as a thread's samples do: in
	// time order, the samples of a few threads interleave.
	threads             []Thread
	byThread            map[Thread]int32
	recent              [4]threadMemo
	nRecent, nextRecent int
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
	locs, sample := ps.p.Location, ps.p.Sample[i].Location
	stack := slices.Grow(ps.stack[:0], len(sample))[:len(sample)]
	for j, l := range sample {
		x := int32(-1)
		switch id := l.ID; {
		case ps.dense:
			if id-1 < uint64(len(locs)) && locs[id-1] == l {
				x = int32(id - 1)
			}
		case id < uint64(len(ps.byID)):
			if x = ps.byID[id] - 1; x >= 0 && locs[x] != l {
				x = -1
			}
		}
		if x < 0 {
			x = ps.otherIndex(l)
		}
		stack[j] = x
	}
	ps.stack = stack
	return stack
}

// index maps location ids to indexes, for ids up to twice the number of
// locations (larger ones are found in a map).
func (ps *profileSamples) index() {
	ps.indexed = true
	ps.dense = true
	for x, l := range ps.p.Location {
		if l.ID != uint64(x+1) {
			ps.dense = false
			break
		}
	}
	if ps.dense {
		return
	}
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

// Thread numbers threads in the order it is asked about them.
func (ps *profileSamples) Thread(i int) int32 {
	s := ps.p.Sample[i]
	var num threadNum
	if len(s.NumLabel) > 0 {
		if v := s.NumLabel[labels.PID]; len(v) > 0 {
			num.pid, num.hasPID = v[0], true
		}
		if v := s.NumLabel[labels.TID]; len(v) > 0 {
			num.tid, num.hasTID = v[0], true
		}
	}
	label := reflect.ValueOf(s.Label).UnsafePointer()
	for _, m := range ps.recent[:ps.nRecent] {
		if m.label == label && m.num == num {
			return m.x
		}
	}
	th := Thread{PID: num.pid, TID: num.tid, HasPID: num.hasPID, HasTID: num.hasTID}
	if v := s.Label[labels.Process]; len(v) > 0 {
		th.Process = v[0]
	}
	if v := s.Label[labels.Thread]; len(v) > 0 {
		th.Thread = v[0]
	}
	x, ok := ps.byThread[th]
	if !ok {
		if ps.byThread == nil {
			ps.byThread = map[Thread]int32{}
		}
		x = int32(len(ps.threads))
		ps.threads = append(ps.threads, th)
		ps.byThread[th] = x
	}
	ps.recent[ps.nextRecent] = threadMemo{label, num, x}
	ps.nextRecent = (ps.nextRecent + 1) % len(ps.recent)
	ps.nRecent = max(ps.nRecent, ps.nextRecent)
	return x
}

type threadMemo struct {
	label unsafe.Pointer // a Label map
	num   threadNum
	x     int32
}

// threadNum is the numeric part of a Thread, compared cheaply.
type threadNum struct {
	pid, tid       int64
	hasPID, hasTID bool
}

func (ps *profileSamples) Threads() []Thread { return ps.threads }

func (ps *profileSamples) Keep(keep func(i int) bool) {
	kept := ps.p.Sample[:0]
	for i, s := range ps.p.Sample {
		if keep(i) {
			kept = append(kept, s)
		}
	}
	clear(ps.p.Sample[len(kept):])
	ps.p.Sample = kept
}
