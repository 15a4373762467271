package eval

import (
	"cmp"
	"slices"

	"github.com/google/pprof/profile"
)

// pprof -diff_base the way people use it: `go tool pprof -top -diff_base
// old.pprof new.pprof` lists functions by flat (self) delta, largest
// magnitude first (pprof sorts by |flat|), and the reader looks at the top
// of the list. This emulates that on the harness's runs: per function
// (name and file, pprof's default granularity) the mean flat time per run
// on each side, ranked by |new − base|. K runs per side are K profiles
// merged on each side (pprof merges several sources), divided by K.

// flatOf returns run r's flat time per function, as pprof attributes it:
// to the innermost function of each sample's leaf location, renamed as the
// new version renames it.
func flatOf(t *template, w *world, r *run, rename map[Frame]string) map[Frame]int64 {
	names := t.renamed(rename)
	out := map[Frame]int64{}
	leaf := make([]int32, len(w.stacks)) // 1 + index in frames; 0: not seen yet
	var frames []Frame
	idx := map[Frame]int32{}
	for _, seq := range r.seq {
		for _, s := range seq {
			l := leaf[s.stack]
			if l == 0 {
				f, fn := leafFrame(w, s.stack)
				if name, ok := names[fn]; ok {
					f.Function = name
				}
				i, ok := idx[f]
				if !ok {
					i = int32(len(frames))
					frames = append(frames, f)
					idx[f] = i
				}
				l = i + 1
				leaf[s.stack] = l
			}
			out[frames[l-1]] += s.v[t.timeIdx]
		}
	}
	return out
}

// leafFrame is the function pprof charges a sample of stack s to, as pprof
// tells functions apart (name, file and start line), and the function; a
// sample without locations is charged to no function (Frame{}, nil).
func leafFrame(w *world, s int32) (Frame, *profile.Function) {
	st := w.stacks[s]
	if len(st.locs) == 0 {
		return Frame{}, nil
	}
	loc := w.locs[st.locs[0]]
	if len(loc.Line) == 0 || loc.Line[0].Function == nil {
		return Frame{}, nil
	}
	fn := loc.Line[0].Function
	return Frame{Function: fn.Name, File: fn.Filename, Line: fn.StartLine}, fn
}

// A flatDelta is one row of pprof's -top on a diff.
type flatDelta struct {
	Frame
	Delta float64
}

// topFlat returns the n rows pprof -top -diff_base shows first: functions
// by |mean flat delta| over the runs of each side, largest first (ties by
// name, as pprof breaks them).
func topFlat(base, nw []map[Frame]int64, n int) []flatDelta {
	sum := map[Frame]float64{}
	for _, m := range base {
		for f, v := range m {
			sum[f] -= float64(v) / float64(len(base))
		}
	}
	for _, m := range nw {
		for f, v := range m {
			sum[f] += float64(v) / float64(len(nw))
		}
	}
	rows := make([]flatDelta, 0, len(sum))
	for f, d := range sum {
		if d != 0 && f != (Frame{}) {
			rows = append(rows, flatDelta{f, d})
		}
	}
	abs := func(x float64) float64 { return max(x, -x) }
	slices.SortFunc(rows, func(a, b flatDelta) int {
		if c := cmp.Compare(abs(b.Delta), abs(a.Delta)); c != 0 {
			return c
		}
		return cmp.Or(cmp.Compare(a.Function, b.Function), cmp.Compare(a.File, b.File))
	})
	return rows[:min(n, len(rows))]
}
