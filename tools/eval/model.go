package eval

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/internal/labels"
	"github.com/google/pprof/profile"
)

// A Frame is a function's identity as cct and diff see it: name, file and
// where the function is defined (cct.Frame's StartLine and StartColumn,
// diff.Frame's Line and Column; 0 when unknown and for Go functions).
type Frame struct {
	Function, File string
	Line, Column   int64
}

func (f Frame) String() string {
	if f.File == "" {
		return f.Function
	}
	return f.Function + " (" + f.File + ")"
}

// special reports frames that are not JavaScript functions: V8's
// "(program)", "(idle)", "(garbage collector)" and the like. ZAM picks its
// injection targets among the application's functions only.
func special(name string) bool { return strings.HasPrefix(name, "(") }

// A sample is one sample of a run: a stack and its values (shared with the
// template or with other samples; never written to).
type sample struct {
	stack int32
	v     []int64
}

// A run is a profile being edited: per thread, its samples in time order.
type run struct {
	seq [][]sample
}

func (r *run) clone() *run {
	c := &run{seq: make([][]sample, len(r.seq))}
	for i, s := range r.seq {
		c.seq[i] = slices.Clone(s)
	}
	return c
}

// A stack is a distinct (thread, locations) pair: locs are indices into
// world.locs, leaf first as in pprof; node is the trie node its pruned frame
// path ends at.
type stack struct {
	thread int32
	locs   []int32
	node   int32
}

// A tnode is a node of the trie of pruned frame paths: for a thread root
// frame is -1 and parent -1; depth counts functions below the thread.
type tnode struct {
	parent, frame, depth, thread int32
}

type kid struct{ parent, frame int32 }

// A world holds the tables runs point into. A template's world is read-only
// once built; each case forks it (fork) so that it can add frames, stacks
// and trie nodes of its own without copying the maps.
type world struct {
	up *world // read-only tables consulted first; nil for a template

	locs      []*profile.Location
	locFrames [][]int32 // pruned frame ids per location, outermost first
	funcs     []*profile.Function
	frames    []Frame
	frameIdx  map[Frame]int32
	nodes     []tnode
	kids      map[kid]int32
	stacks    []stack
	stackIdx  map[string]int32
	// witness is, per node, a stack that passes through it (-1: none yet).
	witness []int32
	// roots are the trie nodes of the threads, by thread index.
	roots []int32
	// pre and post number the template's nodes in depth-first order, so
	// that ancestry among them is an interval test; nodes a case adds
	// (numbered from len(pre)) are only ever below template nodes or other
	// added nodes.
	pre, post []int32
	nextID    uint64 // next free Location and Function id
	// starts is knownStarts of the template's profile (read-only).
	starts map[[2]string][2]int64
	// made says which code of the harness made a function the template
	// does not have ("extraneous handler", "added call"), for reports.
	made map[Frame]string
}

func (w *world) fork() *world {
	return &world{
		up:        w,
		locs:      slices.Clip(w.locs),
		locFrames: slices.Clip(w.locFrames),
		funcs:     slices.Clip(w.funcs),
		frames:    slices.Clip(w.frames),
		frameIdx:  map[Frame]int32{},
		nodes:     slices.Clip(w.nodes),
		kids:      map[kid]int32{},
		stacks:    slices.Clip(w.stacks),
		stackIdx:  map[string]int32{},
		witness:   slices.Clone(w.witness),
		made:      map[Frame]string{},
		roots:     slices.Clip(w.roots),
		pre:       w.pre,
		post:      w.post,
		nextID:    w.nextID,
		starts:    w.starts,
	}
}

func (w *world) frameID(f Frame) int32 {
	if w.up != nil {
		if id, ok := w.up.frameIdx[f]; ok {
			return id
		}
	}
	if id, ok := w.frameIdx[f]; ok {
		return id
	}
	id := int32(len(w.frames))
	w.frames = append(w.frames, f)
	w.frameIdx[f] = id
	return id
}

func (w *world) lookupChild(parent, frame int32) (int32, bool) {
	k := kid{parent, frame}
	if w.up != nil {
		if id, ok := w.up.kids[k]; ok {
			return id, true
		}
	}
	id, ok := w.kids[k]
	return id, ok
}

func (w *world) child(parent, frame int32) int32 {
	if id, ok := w.lookupChild(parent, frame); ok {
		return id
	}
	p := w.nodes[parent]
	id := int32(len(w.nodes))
	w.nodes = append(w.nodes, tnode{parent: parent, frame: frame, depth: p.depth + 1, thread: p.thread})
	w.witness = append(w.witness, -1)
	w.kids[kid{parent, frame}] = id
	return id
}

// addLocation registers a location and the pruned frames cct makes of it
// (cct.Builder.locationFrames without call sites).
func (w *world) addLocation(loc *profile.Location) int32 {
	var fs []int32
	for j := len(loc.Line) - 1; j >= 0; j-- {
		fn := loc.Line[j].Function
		if fn == nil || cct.Prunable(fn.Name) {
			continue
		}
		fs = append(fs, w.frameID(w.frameOf(loc.Line[j])))
	}
	w.locs = append(w.locs, loc)
	w.locFrames = append(w.locFrames, fs)
	return int32(len(w.locs) - 1)
}

// newFunction adds a function that the template does not have, with one
// location, and returns the location's index; why says what it is for.
func (w *world) newFunction(name, file, why string) int32 {
	w.made[Frame{Function: name, File: file}] = why
	fn := &profile.Function{ID: w.nextID, Name: name, SystemName: name, Filename: file}
	loc := &profile.Location{ID: w.nextID, Line: []profile.Line{{Function: fn}}}
	w.nextID++
	w.funcs = append(w.funcs, fn)
	return w.addLocation(loc)
}

// frameOf is the Frame cct makes of a line (cct.Builder.start): a
// function's definition is its Function.StartLine, with the line's column
// when the line is that very line (V8's call frames); a function without
// one takes the one start its (name, file) has elsewhere in the template.
// Go functions have none.
func (w *world) frameOf(ln profile.Line) Frame {
	fn := ln.Function
	f := Frame{Function: fn.Name, File: fn.Filename}
	if strings.HasSuffix(f.File, ".go") || strings.HasSuffix(f.File, ".s") {
		return f
	}
	if fn.StartLine > 0 {
		f.Line = fn.StartLine
		if ln.Line == fn.StartLine {
			f.Column = ln.Column
		}
		return f
	}
	if s, ok := w.starts[[2]string{fn.Name, fn.Filename}]; ok && s[0] > 0 {
		f.Line, f.Column = s[0], s[1]
	}
	return f
}

// newLocationOf adds a location of an existing function (a call of it from
// a new place) and returns its index. Its line is where frame f, one of
// the function's frames, says it is defined, so that cct makes f of it.
func (w *world) newLocationOf(fn *profile.Function, f Frame) int32 {
	loc := &profile.Location{ID: w.nextID, Line: []profile.Line{{Function: fn, Line: f.Line, Column: f.Column}}}
	w.nextID++
	return w.addLocation(loc)
}

// marked reports whether stack s is marked; stacks added after the mark was
// made are not.
func marked(m []bool, s int32) bool { return int(s) < len(m) && m[s] }

// stackID returns the stack of locs (leaf first) on a thread, adding it if
// new.
func (w *world) stackID(thread int32, locs []int32) int32 {
	key := stackKey(thread, locs)
	if w.up != nil {
		if id, ok := w.up.stackIdx[key]; ok {
			return id
		}
	}
	if id, ok := w.stackIdx[key]; ok {
		return id
	}
	n := w.roots[thread]
	for i := len(locs) - 1; i >= 0; i-- {
		for _, f := range w.locFrames[locs[i]] {
			n = w.child(n, f)
		}
	}
	id := int32(len(w.stacks))
	w.stacks = append(w.stacks, stack{thread: thread, locs: locs, node: n})
	w.stackIdx[key] = id
	for x := n; x >= 0 && w.witness[x] < 0; x = w.nodes[x].parent {
		w.witness[x] = id
	}
	return id
}

func stackKey(thread int32, locs []int32) string {
	b := make([]byte, 0, 4*(len(locs)+1))
	b = binary.LittleEndian.AppendUint32(b, uint32(thread))
	for _, l := range locs {
		b = binary.LittleEndian.AppendUint32(b, uint32(l))
	}
	return string(b)
}

// path returns the frames from the thread down to node n, root first.
func (w *world) path(n int32) []Frame {
	p := make([]Frame, w.nodes[n].depth)
	for i := len(p) - 1; i >= 0; i-- {
		p[i] = w.frames[w.nodes[n].frame]
		n = w.nodes[n].parent
	}
	return p
}

// within reports whether node n is x or below it.
func (w *world) within(n, x int32) bool {
	base := int32(len(w.pre))
	for n >= base {
		if n == x {
			return true
		}
		n = w.nodes[n].parent
	}
	if x >= base {
		return false
	}
	return w.pre[x] <= w.pre[n] && w.pre[n] < w.post[x]
}

// subtree marks the stacks whose node is x or below it.
func (w *world) subtree(x int32) []bool {
	m := make([]bool, len(w.stacks))
	for i, s := range w.stacks {
		m[i] = w.within(s.node, x)
	}
	return m
}

// ancestorAt returns n's ancestor at depth d (n itself if it is that deep
// or shallower).
func (w *world) ancestorAt(n, d int32) int32 {
	for w.nodes[n].depth > d {
		n = w.nodes[n].parent
	}
	return n
}

// locsTo returns leaf-first locations whose pruned path ends exactly at
// node n, taken from a stack that passes through it.
func (w *world) locsTo(n int32) ([]int32, bool) {
	s := w.witness[n]
	if s < 0 {
		return nil, false
	}
	st := w.stacks[s]
	x := w.roots[st.thread]
	if x == n {
		return nil, true
	}
	for i := len(st.locs) - 1; i >= 0; i-- {
		fs := w.locFrames[st.locs[i]]
		for j, f := range fs {
			x, _ = w.lookupChild(x, f)
			if x == n {
				if j != len(fs)-1 {
					return nil, false // n is inlined inside a location: no location ends at it
				}
				return slices.Clone(st.locs[i:]), true
			}
		}
	}
	return nil, false
}

// A template is a real profile prepared for editing.
type template struct {
	world
	// Name is the profile's path relative to the corpus.
	Name string
	// prof is the profile's header: sample types, period and mappings.
	prof    *profile.Profile
	timeIdx int
	// period is the median time value of a sample: the duration given to
	// samples the harness adds.
	period int64
	timed  bool
	thread []threadInfo
	base   *run
	// total is each trie node's inclusive time in the template, kids its
	// children, and endsLoc says whether a location ends at it (so that
	// samples can be added there: see locsTo).
	total   []int64
	kids    [][]int32
	endsLoc []bool
	// idle is, per thread, the stack of V8's "(idle)" frame alone, or -1.
	idle []int32
	// funcsOf are the template's functions that make each frame.
	funcsOf map[Frame][]*profile.Function
}

// renamed maps the functions of renamed frames to their new names.
func (t *template) renamed(rename map[Frame]string) map[*profile.Function]string {
	if len(rename) == 0 {
		return nil
	}
	out := map[*profile.Function]string{}
	for f, name := range rename {
		for _, fn := range t.funcsOf[f] {
			out[fn] = name
		}
	}
	return out
}

// threadInfo is what a thread's samples carry besides the stack.
type threadInfo struct {
	label   map[string][]string
	num     map[string][]int64 // without the timestamp
	numUnit map[string][]string
	start   int64
	// Label is the thread's label as cct and diff show it.
	Label string
}

// newTemplate prepares profile p, named name. The profile must have a time
// sample type (unit nanoseconds); it is not modified.
func newTemplate(name string, p *profile.Profile) (*template, error) {
	t := &template{Name: name, prof: p, timeIdx: -1}
	for i, st := range p.SampleType {
		if st.Unit == "nanoseconds" && (t.timeIdx < 0 || st.Type == p.DefaultSampleType) {
			t.timeIdx = i
		}
	}
	if t.timeIdx < 0 {
		return nil, fmt.Errorf("%s: no sample type in nanoseconds; the harness needs time", name)
	}
	if len(p.Sample) == 0 {
		return nil, fmt.Errorf("%s: no samples", name)
	}
	t.world = world{frameIdx: map[Frame]int32{}, kids: map[kid]int32{}, stackIdx: map[string]int32{}, made: map[Frame]string{}, starts: cct.KnownStarts(p)}
	t.funcsOf = map[Frame][]*profile.Function{}
	locIdx := map[*profile.Location]int32{}
	for _, loc := range p.Location {
		locIdx[loc] = t.addLocation(loc)
		t.nextID = max(t.nextID, loc.ID+1)
		for _, ln := range loc.Line {
			if ln.Function != nil {
				f := t.frameOf(ln)
				if !slices.Contains(t.funcsOf[f], ln.Function) {
					t.funcsOf[f] = append(t.funcsOf[f], ln.Function)
				}
			}
		}
	}
	for _, fn := range p.Function {
		t.funcs = append(t.funcs, fn)
		t.nextID = max(t.nextID, fn.ID+1)
	}

	t.timed = true
	for _, s := range p.Sample {
		if len(s.NumLabel[labels.Timestamp]) == 0 {
			t.timed = false
			break
		}
	}
	// Threads in order of first sample (time order when timed), as cct
	// numbers same-named threads.
	order := make([]int, len(p.Sample))
	for i := range order {
		order[i] = i
	}
	if t.timed {
		slices.SortStableFunc(order, func(a, b int) int {
			return cmp.Compare(p.Sample[a].NumLabel[labels.Timestamp][0], p.Sample[b].NumLabel[labels.Timestamp][0])
		})
	}
	type tkey struct {
		proc, name string
		pid, tid   int64
		hp, ht     bool
	}
	threadOf := map[tkey]int32{}
	ordinal := map[[2]string]int32{}
	var seq [][]sample
	var selfTime []int64
	for _, si := range order {
		s := p.Sample[si]
		var k tkey
		if v := s.Label[labels.Process]; len(v) > 0 {
			k.proc = v[0]
		}
		if v := s.Label[labels.Thread]; len(v) > 0 {
			k.name = v[0]
		}
		if v := s.NumLabel[labels.PID]; len(v) > 0 {
			k.pid, k.hp = v[0], true
		}
		if v := s.NumLabel[labels.TID]; len(v) > 0 {
			k.tid, k.ht = v[0], true
		}
		th, ok := threadOf[k]
		if !ok {
			th = int32(len(t.thread))
			threadOf[k] = th
			ord := ordinal[[2]string{k.proc, k.name}]
			ordinal[[2]string{k.proc, k.name}] = ord + 1
			info := threadInfo{
				label:   s.Label,
				num:     map[string][]int64{},
				numUnit: s.NumUnit,
				Label:   cct.ThreadLabel(cct.Frame{Thread: k.name, Process: k.proc, Ordinal: ord, Kind: cct.KindThread}),
			}
			for l, v := range s.NumLabel {
				if l != labels.Timestamp {
					info.num[l] = v
				}
			}
			if t.timed {
				info.start = s.NumLabel[labels.Timestamp][0]
			}
			t.thread = append(t.thread, info)
			t.addThread(th)
			seq = append(seq, nil)
		}
		if len(s.Value) != len(p.SampleType) {
			return nil, fmt.Errorf("%s: sample %d has %d values for %d sample types", name, si, len(s.Value), len(p.SampleType))
		}
		locs := make([]int32, len(s.Location))
		for i, l := range s.Location {
			li, ok := locIdx[l]
			if !ok {
				return nil, fmt.Errorf("%s: sample %d refers to a location not in the profile", name, si)
			}
			locs[i] = li
		}
		st := t.stackID(th, locs)
		seq[th] = append(seq[th], sample{stack: st, v: s.Value})
		for len(selfTime) < len(t.nodes) {
			selfTime = append(selfTime, 0)
		}
		selfTime[t.stacks[st].node] += s.Value[t.timeIdx]
	}
	t.base = &run{seq: seq}
	t.total = make([]int64, len(t.nodes))
	copy(t.total, selfTime)
	for i := len(t.nodes) - 1; i >= 0; i-- {
		if p := t.nodes[i].parent; p >= 0 {
			t.total[p] += t.total[i]
		}
	}
	t.index()
	var vals []int64
	for _, s := range p.Sample {
		if v := s.Value[t.timeIdx]; v > 0 {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return nil, fmt.Errorf("%s: every sample has zero time", name)
	}
	slices.Sort(vals)
	t.period = vals[len(vals)/2]
	// The samples now live in t.base; keeping them twice would double a
	// large template's memory. Runs take the rest from this header.
	t.prof = &profile.Profile{
		SampleType:        p.SampleType,
		DefaultSampleType: p.DefaultSampleType,
		PeriodType:        p.PeriodType,
		Period:            p.Period,
		TimeNanos:         p.TimeNanos,
		Mapping:           p.Mapping,
	}
	return t, nil
}

// index computes the template's children lists, depth-first numbering and
// endsLoc, iteratively.
func (t *template) index() {
	t.kids = make([][]int32, len(t.nodes))
	for i, n := range t.nodes {
		if n.parent >= 0 {
			t.kids[n.parent] = append(t.kids[n.parent], int32(i))
		}
	}
	t.pre = make([]int32, len(t.nodes))
	t.post = make([]int32, len(t.nodes))
	next := int32(0)
	type frame struct{ n, k int32 }
	for _, r := range t.roots {
		st := []frame{{r, 0}}
		t.pre[r] = next
		next++
		for len(st) > 0 {
			top := &st[len(st)-1]
			if int(top.k) < len(t.kids[top.n]) {
				c := t.kids[top.n][top.k]
				top.k++
				t.pre[c] = next
				next++
				st = append(st, frame{c, 0})
				continue
			}
			t.post[top.n] = next
			st = st[:len(st)-1]
		}
	}
	t.idle = make([]int32, len(t.roots))
	for i := range t.idle {
		t.idle[i] = -1
	}
	for i, s := range t.stacks {
		if n := t.nodes[s.node]; n.depth == 1 && len(s.locs) == 1 && t.frames[n.frame].Function == "(idle)" && t.idle[s.thread] < 0 {
			t.idle[s.thread] = int32(i)
		}
	}
	t.endsLoc = make([]bool, len(t.nodes))
	for _, s := range t.stacks {
		n := t.roots[s.thread]
		for i := len(s.locs) - 1; i >= 0; i-- {
			fs := t.locFrames[s.locs[i]]
			for _, f := range fs {
				n, _ = t.lookupChild(n, f)
			}
			if len(fs) > 0 {
				t.endsLoc[n] = true
			}
		}
	}
}

// addThread adds a thread's trie root.
func (w *world) addThread(th int32) {
	w.roots = append(w.roots, int32(len(w.nodes)))
	w.nodes = append(w.nodes, tnode{parent: -1, frame: -1, thread: th})
	w.witness = append(w.witness, -1)
}

// profile writes run r as a pprof profile the way the converters do: in
// time order per thread, with the template's thread labels and, when the
// template had timestamps, a timestamp_ns label that advances by each
// sample's time from the thread's start. Consecutive ticks of one stack
// become one sample with the values summed, as pprof's own CPU profiles
// record them: the tree is the same (values and order of first execution),
// and it builds several times faster. Functions whose frame is a key of
// rename get the mapped name, and those whose file is a key of files the
// mapped file.
func (w *world) profile(t *template, r *run, rename map[Frame]string, files map[string]string) *profile.Profile {
	src := t.prof
	p := &profile.Profile{
		SampleType:        src.SampleType,
		DefaultSampleType: src.DefaultSampleType,
		PeriodType:        src.PeriodType,
		Period:            src.Period,
		TimeNanos:         src.TimeNanos,
		Mapping:           src.Mapping,
		Function:          slices.Clone(w.funcs),
	}
	locs := w.locs
	if len(rename) > 0 || len(files) > 0 {
		names := t.renamed(rename)
		renamed := map[*profile.Function]*profile.Function{}
		for i, fn := range p.Function {
			name, ok := names[fn]
			file, moved := files[fn.Filename]
			if ok || moved {
				c := *fn
				if ok {
					c.Name, c.SystemName = name, name
				}
				if moved {
					c.Filename = file
				}
				p.Function[i] = &c
				renamed[fn] = &c
			}
		}
		locs = slices.Clone(locs)
		for i, loc := range locs {
			var c *profile.Location
			for j, ln := range loc.Line {
				if nf, ok := renamed[ln.Function]; ok {
					if c == nil {
						cc := *loc
						cc.Line = slices.Clone(loc.Line)
						c = &cc
					}
					c.Line[j].Function = nf
				}
			}
			if c != nil {
				locs[i] = c
			}
		}
	}
	p.Location = locs
	stackLocs := make([][]*profile.Location, len(w.stacks))
	n := 0
	for _, s := range r.seq {
		n += len(s)
	}
	p.Sample = make([]*profile.Sample, 0, n)
	var end int64
	for th, seq := range r.seq {
		info := &t.thread[th]
		at := info.start
		for i := 0; i < len(seq); {
			s := seq[i]
			v := s.v
			j := i + 1
			for j < len(seq) && seq[j].stack == s.stack {
				j++
			}
			if j > i+1 {
				v = make([]int64, len(s.v))
				for _, x := range seq[i:j] {
					for k, y := range x.v {
						v[k] += y
					}
				}
			}
			i = j
			sl := stackLocs[s.stack]
			if sl == nil {
				st := w.stacks[s.stack]
				sl = make([]*profile.Location, len(st.locs))
				for k, l := range st.locs {
					sl[k] = locs[l]
				}
				stackLocs[s.stack] = sl
			}
			ps := &profile.Sample{Location: sl, Value: v, Label: info.label}
			if t.timed {
				num := make(map[string][]int64, len(info.num)+1)
				for k, x := range info.num {
					num[k] = x
				}
				num[labels.Timestamp] = []int64{at}
				ps.NumLabel, ps.NumUnit = num, info.numUnit
			} else if len(info.num) > 0 {
				ps.NumLabel, ps.NumUnit = info.num, info.numUnit
			}
			at += v[t.timeIdx]
			p.Sample = append(p.Sample, ps)
		}
		end = max(end, at-info.start)
	}
	p.DurationNanos = end
	return p
}
