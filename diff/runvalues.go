package diff

import "slices"

// The per-run values of a union a stream builds (stream.go): node x's value
// in every run, which the significance tests read a row at a time through
// totalRow and selfRow. Stored as a dense nodes × runs array, they cost
// every node a row however few runs it is in: 16 + 16 independent runs (of a
// 200k-stack Go program, which share little) made a union of about every
// run's nodes, most of them in one run, and their rows peaked at over 3 GB.
// So a node gets a dense row only when it is in enough of the runs written
// so far (denseShare); the values of the others are logged as (node, run,
// values) while runs arrive and grouped by node at the end, one entry per
// run the node has a value in. Memory grows with what the runs contain, plus
// a row for each node that most runs share.

// compactMinRuns is the most runs on a side whose per-run values a
// stream keeps exactly, as int64 (16 B per node and run: 4.3 GB for the
// 107,755 nodes of synth's 20,000-stack profile at 1,000 + 1,000 runs).
// Beyond, they are kept as float32 (24 bits of mantissa: a relative error
// under 6e-8, far below any run-to-run noise, so p-values move in their 7th
// digit). Every test reads values through totalRow and selfRow.
const compactMinRuns = 100

// denseShare is the share of the runs written so far (1/denseShare) a node
// must be in to get a dense row. A logged value costs 16 bytes (12 for
// float32: node, run, inclusive value), 32 (24) with a self value, a row 8
// (4) bytes per run of the comparison (its self row as much, when it has
// one): the third was chosen when a logged value cost 24 bytes, where the
// two cost the same, and kept (runs of one shape give every node a row
// whatever the share). The runs written so far stand in for all of them;
// a node that gets its row late keeps its earlier values in the log, moved
// to the row at the end.
const denseShare = 3

// runStore is where a stream's union keeps its per-run values: runValues
// of int64, or of float32 beyond compactMinRuns runs a side.
type runStore interface {
	// flush writes the block's runs; u's in counts are the store's to
	// update.
	flush(u *union, b *scatterPending)
	// finish scales every run's values by its factor and sets the
	// union's means per side.
	finish(u *union, nBase int, factors []float64)
	totalRow(x int32, dst []float64) []float64
	selfRow(x int32, dst []float64) []float64
}

// runValues is a runStore. Node x's inclusive values are row totalAt[x]
// of total when it has one (totalAt[x] > 0), and its self values then row
// selfAt[totalAt[x]] of self, or zeros when it has no self value (most
// nodes of a CPU profile: synth's 20,000-stack profile has self time in
// 20,001 of its 107,755). A node without a row has its values in the log
// until finish, then at sparseAt[x] up to sparseAt[x+1] of sparseRi and
// sparseV (apart: a struct of int32 and int64 is 16 bytes, 4 of them
// padding), in run order.
// A logged or sparse value is a run's inclusive value, or when its run
// number is negative (^ri) the self value of run ri, right after its
// inclusive value: most values have no self value, and a pair of int64
// per value cost 8 bytes more a value (100 MB at 50 + 50 such runs).
type runValues[T int64 | float32] struct {
	runs        int
	written     int     // runs flushed so far
	totalAt     []int32 // by node
	selfAt      []int32 // by row of total (0 is no row)
	total, self rowChunks[T]
	log         [][]logged[T] // in chunks of logChunk: no copies as it grows
	// stage and stageSelf are flush's, scatterBlock values a row.
	stage, stageSelf []T
	sparseAt         []int32
	sparseRi         []int32
	sparseV          []T
}

// A logged value is node x's inclusive value in run ri, or its self value
// in run ^ri when ri < 0.
type logged[T int64 | float32] struct {
	x, ri int32
	v     T
}

// runOf returns the run of a logged or sparse value's ri, and whether the
// value is a self value.
func runOf(ri int32) (int32, bool) {
	if ri < 0 {
		return ^ri, true
	}
	return ri, false
}

const logChunk = 1 << 16

func newRunValues[T int64 | float32](runs int) *runValues[T] {
	return &runValues[T]{runs: runs, selfAt: []int32{0}, total: rowChunks[T]{width: runs}, self: rowChunks[T]{width: runs}}
}

// rowChunks are rows of width values, 1-based (0 is no row), in chunks of
// chunkRows: they need no room to spare and no copy as rows are added.
type rowChunks[T int64 | float32] struct {
	width  int
	chunks [][]T
	n      int32
}

// chunkRows is how many rows a chunk of rowChunks holds.
const chunkRows = 1024

// add returns a new row's number; its values are zero.
func (c *rowChunks[T]) add() int32 {
	if int(c.n) == len(c.chunks)*chunkRows {
		c.chunks = append(c.chunks, make([]T, chunkRows*c.width))
	}
	c.n++
	return c.n
}

func (c *rowChunks[T]) row(i int32) []T {
	i--
	o := int(i%chunkRows) * c.width
	return c.chunks[i/chunkRows][o : o+c.width : o+c.width]
}

func (v *runValues[T]) grow(n int) { v.totalAt = growZeroed(v.totalAt, n) }

// selfRowOf returns the self row of node x, which has a row of total,
// giving it one first.
func (v *runValues[T]) selfRowOf(x int32) []T { return v.selfRowOfRow(v.totalAt[x]) }

// selfRowOfRow is selfRowOf for row r of total.
func (v *runValues[T]) selfRowOfRow(r int32) []T {
	if v.selfAt[r] == 0 {
		v.selfAt[r] = v.self.add()
	}
	return v.self.row(v.selfAt[r])
}

// dense reports whether node x has a row, giving it one when it is in
// enough of the runs written so far (in counts them).
func (v *runValues[T]) dense(x int32, u *union) bool {
	if v.totalAt[x] > 0 {
		return true
	}
	if int(u.inBase[x]+u.inNew[x])*denseShare < v.written {
		return false
	}
	v.totalAt[x] = v.total.add()
	v.selfAt = append(v.selfAt, 0)
	return true
}

func (v *runValues[T]) logValue(x int32, ri int, t, s int64) {
	if t == 0 && s == 0 {
		return // the rows' zeros
	}
	v.logOne(logged[T]{x, int32(ri), T(t)})
	if s != 0 {
		v.logOne(logged[T]{x, ^int32(ri), T(s)})
	}
}

func (v *runValues[T]) logOne(e logged[T]) {
	if len(v.log) == 0 || len(v.log[len(v.log)-1]) == logChunk {
		v.log = append(v.log, make([]logged[T], 0, logChunk))
	}
	last := &v.log[len(v.log)-1]
	*last = append(*last, e)
}

func (v *runValues[T]) flush(u *union, b *scatterPending) {
	n := u.len()
	v.grow(n)
	u.inBase = growZeroed(u.inBase, n)
	u.inNew = growZeroed(u.inNew, n)
	in := u.inBase
	if b.side == 1 {
		in = u.inNew
	}
	v.written += b.n
	tot, self := b.total[:b.n], b.self[:b.n]
	if b.shared {
		// Node by node, the block's runs side by side: a node's values
		// share a cache line or two of its row (scatterBlock).
		toU := b.toU[0]
		for _, x := range toU {
			in[x] += int32(b.n)
		}
		for i, x := range toU {
			if !v.dense(x, u) {
				for k := range tot {
					v.logValue(x, b.first+k, tot[k][i], self[k][i])
				}
				continue
			}
			row := v.total.row(v.totalAt[x])[b.first : b.first+b.n]
			for k := range row {
				row[k] = T(tot[k][i])
			}
			for k := range row {
				if s := self[k][i]; s != 0 {
					v.selfRowOf(x)[b.first+k] = T(s)
				}
			}
		}
		return
	}
	for k := range b.n {
		for _, x := range b.toU[k] {
			in[x]++
		}
	}
	// Runs of one program whose shapes differ: their values go to a
	// stage by row, run by run (a run's nodes map to the union in about
	// their own order, so the stage is written nearly in order), and
	// from there to the rows, a row's block of values at a time.
	stage, stageSelf := v.stage, v.stageSelf
	for k := range b.n {
		ri := b.first + k
		for i, x := range b.toU[k] {
			t, s := tot[k][i], self[k][i]
			if !v.dense(x, u) {
				v.logValue(x, ri, t, s)
				continue
			}
			o := int(v.totalAt[x]-1)*scatterBlock + k
			if o >= len(stage) {
				stage = growZeroed(stage, int(v.total.n)*scatterBlock)
				stageSelf = growZeroed(stageSelf, int(v.total.n)*scatterBlock)
			}
			stage[o], stageSelf[o] = T(t), T(s)
		}
	}
	for r := int32(1); r <= v.total.n && int(r)*scatterBlock <= len(stage); r++ {
		o := int(r-1) * scatterBlock
		st, ss := stage[o:o+b.n], stageSelf[o:o+b.n]
		copy(v.total.row(r)[b.first:], st)
		clear(st)
		for k, s := range ss {
			if s != 0 {
				v.selfRowOfRow(r)[b.first+k] = s
				ss[k] = 0
			}
		}
	}
	v.stage, v.stageSelf = stage, stageSelf
}

// group moves the logged values of nodes that got a row to it and groups
// the others by node, in run order, dropping the log chunk by chunk.
func (v *runValues[T]) group(n int) {
	v.grow(n)
	v.stage, v.stageSelf = nil, nil
	at := make([]int32, n+1)
	for _, c := range v.log {
		for _, e := range c {
			if r := v.totalAt[e.x]; r > 0 {
				if ri, self := runOf(e.ri); self {
					v.selfRowOf(e.x)[ri] = e.v
				} else {
					v.total.row(r)[ri] = e.v
				}
				continue
			}
			at[e.x+1]++
		}
	}
	for x := range n {
		at[x+1] += at[x]
	}
	ris, vals := make([]int32, at[n]), make([]T, at[n])
	next := slices.Clone(at[:n])
	for ci, c := range v.log {
		for _, e := range c {
			if v.totalAt[e.x] == 0 {
				ris[next[e.x]], vals[next[e.x]] = e.ri, e.v
				next[e.x]++
			}
		}
		v.log[ci] = nil
	}
	v.log = nil
	// A side's runs are flushed in order (but for runs added out of
	// order, which tests do): sort what is not, stably (a run's self
	// value stays after its inclusive value).
	less := func(a, b int32) bool {
		ra, _ := runOf(a)
		rb, _ := runOf(b)
		return ra < rb
	}
	for x := range n {
		r, val := ris[at[x]:at[x+1]], vals[at[x]:at[x+1]]
		for i := 1; i < len(r); i++ {
			for j := i; j > 0 && less(r[j], r[j-1]); j-- {
				r[j], r[j-1] = r[j-1], r[j]
				val[j], val[j-1] = val[j-1], val[j]
			}
		}
	}
	v.sparseAt, v.sparseRi, v.sparseV = at, ris, vals
}

// finish scales each run's values by its factor, as run.scale would have
// before matching, and takes the means, on every core. The sums add each
// side's values in run order, as the dense rows did (a run without the
// node added 0, which changes no sum).
func (v *runValues[T]) finish(u *union, nBase int, factors []float64) {
	n := u.len()
	v.group(n) // before the means: the log's chunks are garbage then
	u.meanBase, u.meanNew = make([]float64, n), make([]float64, n)
	u.selfBase, u.selfNew = make([]float64, n), make([]float64, n)
	kb, kn := float64(nBase), float64(u.runs-nBase)
	parallel(n, func(from, to int) {
		for x := int32(from); x < int32(to); x++ {
			var sums [4]float64 // base and new inclusive, then self
			if r := v.totalAt[x]; r > 0 {
				var self []T // none: every value 0
				if s := v.selfAt[r]; s > 0 {
					self = v.self.row(s)
				}
				for k, row := range [2][]T{v.total.row(r), self} {
					for ri, val := range row {
						if f := factors[ri]; f != 1 {
							val = T(round(float64(val) * f))
							row[ri] = val
						}
						sums[2*k+min(ri/nBase, 1)] += float64(val)
					}
				}
			} else {
				from, to := v.sparseAt[x], v.sparseAt[x+1]
				vals := v.sparseV[from:to]
				for i, ri := range v.sparseRi[from:to] {
					ri, self := runOf(ri)
					if f := factors[ri]; f != 1 {
						vals[i] = T(round(float64(vals[i]) * f))
					}
					k := min(int(ri)/nBase, 1)
					if self {
						k += 2
					}
					sums[k] += float64(vals[i])
				}
			}
			u.meanBase[x], u.meanNew[x] = sums[0]/kb, sums[1]/kn
			u.selfBase[x], u.selfNew[x] = sums[2]/kb, sums[3]/kn
		}
	})
}

func (v *runValues[T]) totalRow(x int32, dst []float64) []float64 {
	if r := v.totalAt[x]; r > 0 {
		for ri, val := range v.total.row(r) {
			dst[ri] = float64(val)
		}
		return dst
	}
	clear(dst)
	from, to := v.sparseAt[x], v.sparseAt[x+1]
	vals := v.sparseV[from:to]
	for i, ri := range v.sparseRi[from:to] {
		if ri >= 0 {
			dst[ri] = float64(vals[i])
		}
	}
	return dst
}

func (v *runValues[T]) selfRow(x int32, dst []float64) []float64 {
	if s := v.selfAt[v.totalAt[x]]; s > 0 {
		for ri, val := range v.self.row(s) {
			dst[ri] = float64(val)
		}
		return dst
	}
	clear(dst)
	if v.totalAt[x] == 0 {
		from, to := v.sparseAt[x], v.sparseAt[x+1]
		vals := v.sparseV[from:to]
		for i, ri := range v.sparseRi[from:to] {
			if ri < 0 {
				dst[^ri] = float64(vals[i])
			}
		}
	}
	return dst
}

// scatter stores run r's raw values as run ri (base runs first) of a
// union a stream builds as runs arrive (stream.go). It holds the run's own
// arrays until its block is flushed: a run's nodes are the union's it
// maps to (r.toU), nodes it lacks read as zeros.
func (u *union) scatter(r *run, ri int, isNew bool) {
	side := 0
	if isNew {
		side = 1
	}
	b := &u.pending[side]
	if b.n > 0 && ri != b.first+b.n {
		u.flush(b)
	}
	if b.n == 0 {
		b.first, b.side, b.shared = ri, side, true
	}
	// Runs of one shape share their toU (stream.addRun): a block of
	// them is written node by node.
	b.shared = b.shared && (b.n == 0 || sameInt32s(b.toU[0], r.toU))
	b.toU[b.n], b.total[b.n], b.self[b.n] = r.toU, r.total, r.self
	if b.n++; b.n == scatterBlock {
		u.flush(b)
	}
}

// sameInt32s is slices.Equal, at once for the same array.
func sameInt32s(a, b []int32) bool {
	if len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) {
		return true
	}
	return slices.Equal(a, b)
}

// scatterBlock is how many runs of a side scatter holds in a
// scatterPending before writing them to the per-run values. Run ri's values
// go to column ri of rows runs wide: written a run at a time, every node's
// value is a write to its own cache line, 200 runs of 108k nodes 43 million
// writes that each miss the cache (0.9 s of a 100 + 100 diff's 11 s).
// Written 8 runs at a time, node by node, a node's 8 values share a line
// or two; that needs the runs to share their toU (runs of one shape), and
// runs that do not are written a run at a time.
const scatterBlock = 8

// A scatterPending holds runs first..first+n-1 of one side, scattered but
// not yet written to the union's per-run values: each run's own arrays
// (indexed by run node) and its toU.
type scatterPending struct {
	first, n    int
	toU         [scatterBlock][]int32
	total, self [scatterBlock][]int64
	shared      bool // every run's toU is the same
	side        int  // 0 base, 1 new
}

// flush writes the runs b holds to the union's per-run values.
func (u *union) flush(b *scatterPending) {
	if b.n > 0 {
		u.pv.flush(u, b)
	}
	*b = scatterPending{side: b.side} // the runs' arrays are theirs
}

// flushPending writes the runs scatter holds.
func (u *union) flushPending() {
	for i := range u.pending {
		u.flush(&u.pending[i])
	}
}

// growZeroed returns s with length n, the new elements zero.
func growZeroed[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	if n <= cap(s) {
		old := len(s)
		s = s[:n]
		clear(s[old:])
		return s
	}
	out := make([]T, n, n+n/4)
	copy(out, s)
	return out
}

// finishValues is values for a union scatter filled: it scales each run's
// values by its factor (base runs first), as run.scale would have before
// matching, and takes the means.
func (u *union) finishValues(nBase int, factors []float64) {
	u.flushPending()
	n := u.len()
	u.inBase = growZeroed(u.inBase, n)
	u.inNew = growZeroed(u.inNew, n)
	u.pv.finish(u, nBase, factors)
}
