package diff

import (
	"strings"

	"github.com/ctdiff/ctdiff/cct"
)

// Runtime artifacts are frames that say where a signal or a stack check
// interrupted a function, not work the function asked for: Go's
// asynchronous preemption (runtime.asyncPreempt, injected at whatever
// instruction the SIGURG landed on), stack growth checks (runtime.morestack,
// entered from any function prologue), the signal trampolines of the
// kernel and libc, the JVM's safepoint polls and V8's stack guard
// interrupt check. Under a regressed
// function they show up as the lowest frame that grew, so ZAM's "lowest
// regressed node" would name them instead of the function whose extra time
// they only sliced (runtime.asyncPreempt was reported under
// strings.ToLower on a live Go service).
//
// When choosing causes, such a frame and everything below it are folded
// into its caller: they are never causes, and their time counts as the
// caller's own time. The trees keep them; reports still show them in
// paths and ranked paths.
func isArtifact(kf keyFrame) bool {
	if kf.Kind != cct.KindFunction {
		return false
	}
	f := kf.Function
	if _, ok := artifactNames[f]; ok {
		return true
	}
	// Go: asyncPreempt2, morestack_noctxt; libc/kernel: __restore_rt and
	// its siblings; the JVM's safepoint entry points.
	for _, p := range artifactPrefixes {
		if strings.HasPrefix(f, p) {
			return true
		}
	}
	return false
}

var artifactNames = map[string]struct{}{
	"runtime.sigtramp":             {},
	"runtime.sigtrampgo":           {},
	"runtime.sigreturn":            {},
	"runtime.sigreturn__sigaction": {},
	"runtime.cgoSigtramp":          {},
	"__restore_rt":                 {},
	"_sigtramp":                    {},
	"sigtramp":                     {},
	"[vdso]":                       {},
	"SafepointBlob":                {},
	// V8's interrupt check, where a stack guard interrupt (GC request,
	// profiler tick, termination) is serviced from any function.
	"v8::internal::StackGuard::HandleInterrupts": {},
	"v8::internal::Runtime_StackGuard":           {},
}

var artifactPrefixes = []string{
	"runtime.asyncPreempt",
	"runtime.morestack",
	"SafepointSynchronize::",
	"ThreadSafepointState::",
	"SafepointMechanism::",
}

// isCollector reports the garbage collector's own frames: V8's
// "(garbage collector)" pseudo-frame, the JVM's GC threads' roots and Go's
// background collector (backgroundGC), and V8's "(program)", its own
// native work (parsing, compiling, inline-cache misses). Their time follows
// the heap, the moment collections happen to start and what the VM chose
// to compile, and varies between runs by far more than code of the same
// size (±10% of seconds where code varies by 2%). With several runs per
// side their own variance shows it (the floor of stats.Prior.Moderated); with
// one run the tests take collectorCV as their least run-to-run variation
// (statsGraph's prOf): one run's (program) 604 ms → 725 ms read as a
// cause at p 1e-7 without it.
func isCollector(kf keyFrame) bool {
	if kf.Kind != cct.KindFunction {
		return false
	}
	return kf.Function == "(garbage collector)" || kf.Function == "(program)" || backgroundGC[kf.Function] ||
		strings.HasPrefix(kf.Function, "G1") && strings.Contains(kf.Function, "::") ||
		strings.HasPrefix(kf.Function, "GCTaskThread")
}
