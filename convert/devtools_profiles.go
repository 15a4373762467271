package convert

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctdiff/ctdiff/stacks"
	"github.com/google/pprof/profile"
)

// Assembling a trace's profiles and threads once all events are read.

// build converts the collected profiles; with collect, the samples are
// returned as stacks.Samples.
func (tr *traceReader) build(collect bool) (*profile.Profile, *stacks.Samples, error) {
	threads, err := tr.threads()
	if err != nil {
		return nil, nil, err
	}
	if len(threads) == 0 {
		return nil, nil, fmt.Errorf("%w: the trace (%d events) has no V8 CPU profile: no Profile/ProfileChunk or CpuProfile events; record it with JavaScript samples enabled (category disabled-by-default-v8.cpu_profiler)",
			errNoSamples, tr.events)
	}
	em := newV8Emitter(tr.in, collect)
	em.threads = threads
	p, err := em.profile()
	if err != nil {
		return nil, nil, err
	}
	if !tr.startTime.IsZero() {
		p.TimeNanos = tr.startTime.UnixNano()
	}
	return p, em.collected(), nil
}

// threads assembles the sampled threads and their profiles. Chunks go to
// the latest Profile event of their key at or before them, in time order.
func (tr *traceReader) threads() ([]*v8Thread, error) {
	var out []*v8Thread
	byID := map[threadID]*v8Thread{}
	thread := func(id threadID) *v8Thread {
		th := byID[id]
		if th == nil {
			th = &v8Thread{name: tr.threadNames[id], process: tr.processNames[id.pid],
				pid: id.pid, tid: id.tid, hasPID: true, hasTID: true}
			byID[id] = th
			out = append(out, th)
		}
		return th
	}
	var orphanChunks, orphanSamples int
	var orphanKeys []string
	var jobs []profileJob
	for _, k := range tr.keys {
		starts := tr.starts[k]
		slices.SortStableFunc(starts, func(a, b traceProfileStart) int { return cmp.Compare(a.ts, b.ts) })
		chunks := tr.chunks[k]
		slices.SortStableFunc(chunks, func(a, b *traceChunk) int { return cmp.Compare(a.ts, b.ts) })
		groups := make([][]*traceChunk, len(starts))
		orphans := orphanChunks
		for _, ch := range chunks {
			j := sort.Search(len(starts), func(j int) bool { return starts[j].ts > ch.ts }) - 1
			if j < 0 {
				orphanChunks++
				orphanSamples += ch.n
				continue
			}
			groups[j] = append(groups[j], ch)
		}
		if orphanChunks > orphans {
			orphanKeys = append(orphanKeys, fmt.Sprintf("%s of pid %d", k.id, k.pid))
		}
		for j, st := range starts {
			jobs = append(jobs, profileJob{k: k, st: st, chunks: groups[j]})
		}
	}
	assembleProfiles(jobs)
	for _, j := range jobs {
		if j.err != nil {
			return nil, j.err
		}
		th := thread(threadID{j.k.pid, j.st.tid})
		th.profiles = append(th.profiles, j.p)
	}
	if orphanChunks > 0 {
		tr.in.Warnf("skipped %d samples in %d ProfileChunk events that no Profile event precedes (profiles %s began before tracing did; DevTools skips them too)",
			orphanSamples, orphanChunks, strings.Join(orphanKeys, ", "))
	}
	for _, lp := range tr.legacy {
		p, err := legacyEventProfile(lp)
		if err != nil {
			return nil, err
		}
		th := thread(lp.th)
		th.profiles = append(th.profiles, p)
	}
	for _, th := range out {
		slices.SortStableFunc(th.profiles, func(a, b *v8Profile) int { return cmp.Compare(a.start, b.start) })
	}
	return out, nil
}

// A profileJob is one Profile event's chunks, assembled by chunkProfile.
type profileJob struct {
	k      profileKey
	st     traceProfileStart
	chunks []*traceChunk
	p      *v8Profile
	err    error
}

// assembleProfiles runs chunkProfile on every job, on as many goroutines
// as there are processors: profiles share nothing, and a trace of a
// browser's threads has several large ones (0.9 s for the 8 of a 515 MB
// trace on one core). The caller reports the first job's error in order,
// as assembling them one by one would.
func assembleProfiles(jobs []profileJob) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(jobs) {
					return
				}
				j := &jobs[i]
				j.p, j.err = chunkProfile(j.k, j.st, j.chunks)
			}
		})
	}
	wg.Wait()
}

// chunkProfile assembles one Profile's chunks: nodes accumulate across
// chunks, and the first delta is relative to the Profile event's ts, every
// later one to the previous sample (V8 CpuProfile::StreamPendingTraceEvents).
// The samples stay packed in the chunks (v8Packed), which the profile takes.
func chunkProfile(k profileKey, st traceProfileStart, chunks []*traceChunk) (*v8Profile, error) {
	tree := newV8Tree(func(pos int64, format string, args ...any) error {
		return errAtEvent(int(pos), format, args...)
	})
	p := &v8Profile{tree: tree, start: st.ts, name: fmt.Sprintf("profile %s of pid %d (Profile event %d)", k.id, k.pid, st.event)}
	pk := &v8Packed{chunks: chunks, base: st.ts, sorted: true}
	t := st.ts
	for _, ch := range chunks {
		for _, nd := range ch.nodes {
			if err := tree.insert(nd); err != nil {
				return nil, err
			}
		}
		ch.nodes = nil // the tree has them now
		if s := &ch.stats; ch.n > 0 && s.ok && t+s.lo >= -maxScaled && t+s.hi <= maxScaled {
			// The times in range: the stats say what reading the deltas
			// one by one would (|t| <= 2^60, |s.lo|, |s.hi| <= 2^61).
			switch {
			case pk.n == 0:
				pk.first, pk.least = t+s.first, t+s.first
			case s.first < 0:
				pk.sorted = false
			}
			pk.sorted = pk.sorted && !s.dips
			pk.least = min(pk.least, t+s.lo) // a time below every earlier one is below its predecessor
			t += s.sum
			pk.last = t
			pk.n += ch.n
			continue
		}
		r := deltaReader{ch.deltas}
		for range ch.n {
			t += r.next() // |t|, |d| <= 2^60: no overflow
			if t > maxScaled || t < -maxScaled {
				return nil, errAtEvent(ch.event, "ProfileChunk event: the sample times run out of range (%d ns)", t)
			}
			switch {
			case pk.n == 0:
				pk.first, pk.least = t, t
			case t < pk.last:
				pk.sorted = false
				pk.least = min(pk.least, t)
			}
			pk.last = t
			pk.n++
		}
	}
	if err := tree.finish(); err != nil {
		return nil, err
	}
	// With the tree whole, every sample's id resolves now, in sample order,
	// so that ids no node has get their placeholders as they always did;
	// the nodes' samples are counted on the way (v8Profile.seen).
	var seen []int64
	var first []int32
	for _, ch := range chunks {
		r := idReader{b: ch.ids}
		for range ch.n {
			n := tree.resolve(r.next())
			if int(n) >= len(seen) {
				seen = append(seen, make([]int64, len(tree.nodes)-len(seen))...)
			}
			if seen[n] == 0 {
				first = append(first, n)
			}
			seen[n]++
		}
	}
	p.packed, p.seen, p.firstSeen = pk, seen, first
	return p, nil
}

// legacyEventProfile reads a CpuProfile event: a whole CDP profile whose
// startTime is on the trace clock (µs).
func legacyEventProfile(lp *legacyProfile) (*v8Profile, error) {
	at := func(pos int64, format string, args ...any) error {
		return errAtEvent(lp.event, "CpuProfile event: "+format, args...)
	}
	tree := newV8Tree(at)
	for n := range lp.cpu.Nodes {
		if err := tree.add(&lp.cpu.Nodes[n], 0); err != nil {
			return nil, err
		}
	}
	if err := tree.finish(); err != nil {
		return nil, err
	}
	start, ok := scaleFloat(*lp.cpu.StartTime, 1000)
	if !ok {
		return nil, at(0, "startTime %v is out of range", *lp.cpu.StartTime)
	}
	times, err := cumulative(start, lp.cpu.TimeDeltas)
	if err != nil {
		return nil, at(0, "%v", err)
	}
	return &v8Profile{tree: tree, ids: lp.cpu.Samples, times: times, start: start,
		name: fmt.Sprintf("CpuProfile event %d", lp.event)}, nil
}

// cumulative returns start plus the running sums of deltas (ns).
func cumulative(start int64, deltas []int64) ([]int64, error) {
	times := make([]int64, len(deltas))
	t := start
	for i, d := range deltas {
		t += d
		if t > maxScaled || t < -maxScaled {
			return nil, fmt.Errorf("the time of sample %d is out of range (%d ns)", i, t)
		}
		times[i] = t
	}
	return times, nil
}
