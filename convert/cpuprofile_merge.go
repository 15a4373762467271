package convert

import (
	"encoding/binary"
	"fmt"
)

// With Options.MergeSamples a .cpuprofile's "samples" and "timeDeltas"
// are kept as runs of equal values (numberRuns) rather than one int64
// each, and once both are read the samples of one node are merged
// (mergeRuns): memory follows the distinct nodes and the runs, a few bytes
// a sample where consecutive samples differ and nothing where they repeat
// (30 M samples of one stack: 1.6 GB before).

// numberRuns reads an array of numbers (or null) as runs: each distinct
// value in a row as its varint and the length of the row as a uvarint.
// mul and what are as for jsonStream.numbers. It returns the runs and how
// many numbers they hold, or a *SampleLimitError past limit (when
// positive).
func numberRuns(s *jsonStream, mul int64, what string, limit int64) ([]byte, int, error) {
	if c, err := s.peek(); err == nil && c == 'n' {
		start := s.off
		if v, err := s.value(true); err != nil || string(v) != "null" {
			return nil, 0, errAtOffset(start, "expected an array of numbers for %s", what)
		}
		return nil, 0, nil
	}
	it, err := s.array(what)
	if err != nil {
		return nil, 0, err
	}
	var runs []byte
	var cur int64
	run, n := uint64(0), 0
	for {
		more, err := it.Next()
		if err != nil || !more {
			if it.Unclosed {
				return nil, 0, errAtOffset(s.off, "the %s array is cut off by the end of the input", what)
			}
			if run > 0 {
				runs = binary.AppendUvarint(binary.AppendVarint(runs, cur), run)
			}
			return runs, n, err
		}
		start := s.off
		v, err := s.value(true)
		if err != nil {
			return nil, 0, err
		}
		var x int64
		var ok bool
		if mul == 0 {
			if x, ok = parseID(v); !ok {
				return nil, 0, errAtOffset(start, "expected an integer node id in %s, found %q", what, truncate(v, 40))
			}
		} else if x, ok = parseScaled(v, mul); !ok {
			return nil, 0, errAtOffset(start, "expected a number within ±2^60 in %s, found %q", what, truncate(v, 40))
		}
		if n++; limit > 0 && int64(n) > limit {
			return nil, 0, &SampleLimitError{Limit: limit}
		}
		if run > 0 && x == cur {
			run++
			continue
		}
		if run > 0 {
			runs = binary.AppendUvarint(binary.AppendVarint(runs, cur), run)
		}
		cur, run = x, 1
	}
}

// A runReader reads numberRuns' runs back one number at a time.
type runReader struct {
	runs []byte
	cur  int64
	left uint64
}

func (r *runReader) next() int64 {
	if r.left == 0 {
		v, k := binary.Varint(r.runs)
		run, k2 := binary.Uvarint(r.runs[k:])
		r.runs = r.runs[k+k2:]
		r.cur, r.left = v, run
	}
	r.left--
	return r.cur
}

// expandRuns returns the n numbers of runs.
func expandRuns(runs []byte, n int) []int64 {
	out := make([]int64, n)
	r := runReader{runs: runs}
	for i := range out {
		out[i] = r.next()
	}
	return out
}

// mergeRuns merges the samples of p (whose ids and times are the runs
// idRuns and deltaRuns of n samples each, times counted from p.start) by
// node id, as timing would weigh them one by one: a sample lasts until
// the next, the last one the mean interval. It reports false, having
// changed nothing, when the times are not in order (timing then sorts
// them, and the samples are expanded instead).
func mergeRuns(p *v8Profile, idRuns, deltaRuns []byte, n int) (bool, error) {
	if n < 2 {
		return false, nil // timing warns of a single sample
	}
	t := p.start
	deltas := runReader{runs: deltaRuns}
	for i := range n {
		next := t + deltas.next()
		if next > maxScaled || next < -maxScaled {
			return false, fmt.Errorf("the time of sample %d is out of range (%d ns)", i, next)
		}
		if i > 0 && next < t {
			return false, nil
		}
		t = next
	}
	byID := map[int64]int{}
	m := &v8Merged{n: int64(n)}
	ids, deltas := runReader{runs: idRuns}, runReader{runs: deltaRuns}
	t = p.start
	prev := -1 // the merged sample of the previous sample
	for i := range n {
		id := ids.next()
		t += deltas.next()
		if i == 0 {
			m.first = t
		} else {
			m.durs[prev] += t - m.last
		}
		m.last = t
		x, ok := byID[id]
		if !ok {
			x = len(p.ids)
			byID[id] = x
			p.ids = append(p.ids, id)
			p.times = append(p.times, t)
			m.counts = append(m.counts, 0)
			m.durs = append(m.durs, 0)
		}
		m.counts[x]++
		prev = x
	}
	m.lastDur = (m.last - m.first) / int64(n-1) // as timing weighs the last sample
	m.durs[prev] += m.lastDur
	p.merged = m
	return true, nil
}

// v8Merged is what mergeRuns keeps of a profile's samples, merged by node:
// per merged sample (in the order of p.ids) its count and summed
// duration, and the times timing's totals need.
type v8Merged struct {
	counts, durs []int64
	n            int64 // samples
	first, last  int64
	lastDur      int64
}
