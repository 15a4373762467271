package diff

import (
	"cmp"
	"slices"
	"strings"
)

// How Go's runtime frames are handled. A regression that allocates more
// costs time in three places: in runtime.mallocgc under the allocating
// function (including GC assists, which mallocgc runs when the allocator
// outpaces the collector), in the background mark workers
// (runtime.gcBgMarkWorker, on goroutines of their own, rooted at no user
// function) and in sweeping. The calling-context tree already counts the
// first as the allocating function's cost: its inclusive value holds the
// mallocgc subtree below it, and a cause that ends in runtime frames shows
// the user function in its path. The other two cannot be split by sample
// without allocation data, so GoRuntime reports them separately, side by
// side with the allocation under user code and the user functions whose
// allocation time grew most: the functions the extra GC work is to be
// attributed to.
//
// pprof labels (goroutine labels set with pprof.Do) do not split the tree: a
// label such as a request id would make every run's tree its own, and
// threads, matched by name and ordinal, are what the tree is rooted at.
// Inlined calls (several Line entries in one location) are expanded into one
// frame each by cct, innermost last, so a function that gets inlined in the
// new build keeps its calling context.

// GoRuntime summarizes Go runtime work, mean per run, normalized like every
// other value of the Result.
type GoRuntime struct {
	// BackgroundGC is time in the background collector: subtrees of
	// runtime.gcBgMarkWorker, runtime.bgsweep, runtime.bgscavenge and the
	// profiler's runtime._GC pseudo-frame.
	BackgroundGC Change
	// Allocation is time in runtime.mallocgc (its whole subtree, GC assists
	// included) reached from user code.
	Allocation Change
	// Allocators are the user functions (the nearest non-runtime caller of
	// mallocgc) whose allocation time grew most, largest growth first, at
	// most five.
	Allocators []Allocator
}

// A Change is a value on both sides.
type Change struct {
	Base, New, Delta int64
}

// An Allocator is a user function with the allocation time below it,
// summed over its calling contexts.
type Allocator struct {
	Frame
	Change
}

// maxAllocators caps GoRuntime.Allocators.
const maxAllocators = 5

// backgroundGC names the roots of the collector's own goroutines.
var backgroundGC = map[string]bool{
	"runtime.gcBgMarkWorker": true,
	"runtime.bgsweep":        true,
	"runtime.bgscavenge":     true,
	"runtime._GC":            true,
}

// isGoRuntime reports frames of the Go runtime: runtime.*, and its internal
// packages, runtime/internal/ (atomic, sys, math) before Go 1.23 and
// internal/runtime/ since. runtime/pprof and runtime/debug are libraries,
// not the runtime.
func isGoRuntime(fn string) bool {
	return strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "internal/runtime/") || strings.HasPrefix(fn, "runtime/internal/")
}

// goRuntime reads the union tree once. A subtree counts in the first
// category whose root it reaches; mallocgc is charged to the nearest caller
// that is not runtime code.
func goRuntime(u *union, kt *keyTable) *GoRuntime {
	// Each identity is classified once: hashing a function name per node
	// of a million-node tree cost more than the rest of the walk.
	const (
		user = iota
		runtimeCode
		background
		malloc
	)
	class := make([]uint8, len(kt.frames))
	counted := false // any frame that GoRuntime counts
	for k, f := range kt.frames {
		switch {
		case backgroundGC[f.Function]:
			class[k], counted = background, true
		case f.Function == "runtime.mallocgc":
			class[k], counted = malloc, true
		case isGoRuntime(f.Function):
			class[k] = runtimeCode
		}
	}
	if !counted {
		return nil // not a Go profile: the walk would find nothing
	}
	// One pass in id order (a parent's id is below its children's):
	// caller[x] is x's nearest user-function ancestor (x itself included,
	// 0 for none), and inside marks the subtrees already counted.
	var bg, alloc [2]float64
	found := false
	per := map[key]*[2]float64{}
	n := u.len()
	caller := make([]int32, n)
	inside := make([]bool, n)
	for x := 1; x < n; x++ {
		p := u.parent[x]
		if inside[p] {
			inside[x] = true
			continue
		}
		caller[x] = caller[p]
		if u.depth[x] < 2 {
			continue // threads
		}
		switch class[u.key[x]] {
		case background:
			bg[0] += u.meanBase[x]
			bg[1] += u.meanNew[x]
			found, inside[x] = true, true
		case malloc:
			alloc[0] += u.meanBase[x]
			alloc[1] += u.meanNew[x]
			found, inside[x] = true, true
			if c := caller[p]; c > 0 {
				k := u.key[c]
				if per[k] == nil {
					per[k] = &[2]float64{}
				}
				per[k][0] += u.meanBase[x]
				per[k][1] += u.meanNew[x]
			}
		case user:
			caller[x] = int32(x)
		}
	}
	if !found {
		return nil
	}
	g := &GoRuntime{BackgroundGC: change(bg), Allocation: change(alloc), Allocators: []Allocator{}}
	for k, v := range per {
		a := Allocator{Frame: Frame{Function: kt.frames[k].Function, File: kt.frames[k].File}, Change: change(*v)}
		if a.Delta > 0 {
			g.Allocators = append(g.Allocators, a)
		}
	}
	slices.SortFunc(g.Allocators, func(a, b Allocator) int {
		if c := cmp.Compare(b.Delta, a.Delta); c != 0 {
			return c
		}
		return cmp.Or(strings.Compare(a.Function, b.Function), strings.Compare(a.File, b.File))
	})
	g.Allocators = g.Allocators[:min(len(g.Allocators), maxAllocators)]
	return g
}

func change(v [2]float64) Change {
	b, n := round(v[0]), round(v[1])
	return Change{Base: b, New: n, Delta: n - b}
}
