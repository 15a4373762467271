package eval

import (
	"math/rand/v2"
	"slices"
)

// The runtime artifacts: frames that show where a signal or a stack
// check landed, not code that ran for the caller. A preemption signal in a
// hot loop makes runtime.asyncPreempt a leaf under the loop's function; a
// regression that adds time to that function adds it partly to the
// artifact, which can then grow by μ itself and become the lowest
// regressed node. The cause is the function, not the artifact.
//
// ArtifactFrames are the frames the Artifacts family uses, one per case in
// turn: Go's (the file makes diff treat them as Go symbols), the C
// library's signal trampolines, HotSpot's safepoint poll and V8's interrupt
// check. The engine must fold all of them into their caller when choosing
// causes.
var ArtifactFrames = []Frame{
	{Function: "runtime.asyncPreempt", File: "runtime/preempt_amd64.s"},
	{Function: "runtime.morestack", File: "runtime/asm_amd64.s"},
	{Function: "runtime.sigtramp", File: "runtime/sys_linux_amd64.s"},
	{Function: "_sigtramp", File: ""},
	{Function: "__restore_rt", File: ""},
	{Function: "SafepointSynchronize::block", File: ""},
	{Function: "v8::internal::StackGuard::HandleInterrupts", File: ""},
}

const (
	// artifactShare of an injection's samples land on the artifact: with
	// 100-200 ms injected, the artifact gains 60-120 ms (above μ) and the
	// function's own time 40-80 ms.
	artifactShare = 0.6
	// artifactRate of every run's other samples, on both sides, get the
	// artifact as their leaf: signals land everywhere.
	artifactRate = 0.01
)

// artifacts is a case's artifact frame and the stacks made from it.
type artifacts struct {
	loc int32
	// of maps a stack to the same stack with the artifact as its leaf.
	of map[int32]int32
}

func newArtifacts(w *world, f Frame) *artifacts {
	return &artifacts{loc: w.newFunction(f.Function, f.File, "runtime artifact"), of: map[int32]int32{}}
}

// stack returns stack s with the artifact as its leaf.
func (a *artifacts) stack(w *world, s int32) int32 {
	if x, ok := a.of[s]; ok {
		return x
	}
	st := w.stacks[s]
	x := w.stackID(st.thread, append([]int32{a.loc}, slices.Clone(st.locs)...))
	a.of[s] = x
	return x
}

// sprinkle gives artifactRate of a run's samples in JavaScript functions
// the artifact as their leaf.
func (a *artifacts) sprinkle(w *world, r *run, rng *rand.Rand) {
	for _, seq := range r.seq {
		for i, s := range seq {
			n := w.nodes[w.stacks[s.stack].node]
			if n.depth < 1 || special(w.frames[n.frame].Function) || rng.Float64() >= artifactRate {
				continue
			}
			seq[i].stack = a.stack(w, s.stack)
		}
	}
}
