package diff

import (
	"path"
	"strings"
)

// The one classifier of runtime and VM frames: GoRuntime's walk and the
// reports' grouping of runtime causes (report's release reports) both ask
// it, so a frame is the runtime's in every output or in none.

// Runtime groups: what a runtime or VM frame does, as reports label it.
const (
	groupGC      = "GC"
	groupAlloc   = "allocation"
	groupJIT     = "JIT and VM stubs"
	groupVM      = "VM"
	groupIdle    = "idle"
	groupNode    = "Node.js internals"
	GroupRuntime = "runtime" // also the group of a run of frames of several groups
)

// v8Pseudo are V8's pseudo-frames: time not in any JavaScript function.
var v8Pseudo = map[string]string{
	"(garbage collector)": groupGC,
	"(program)":           groupVM, // V8's own native code: parsing, compiling, IC misses
	"(idle)":              groupIdle,
	"(root)":              groupVM,
}

// IsV8Pseudo reports V8's pseudo-frames ("(garbage collector)", "(program)",
// "(idle)", "(root)"), which name no JavaScript function.
func IsV8Pseudo(fn string) bool { return v8Pseudo[fn] != "" }

// goGC are Go runtime functions that are the collector's work.
var goGC = []string{
	"runtime.gcBgMarkWorker", "runtime.gcDrain", "runtime.gcAssistAlloc", "runtime.gcMark", "runtime.markroot",
	"runtime.scanobject", "runtime.scanblock", "runtime.scanstack", "runtime.greyobject", "runtime.bgsweep",
	"runtime.bgscavenge", "runtime.sweepone", "runtime.GC", "runtime._GC", "runtime.gcStart", "runtime.wbBuf",
	"runtime.findObject", "runtime.(*gcWork)", "runtime.(*mspan).sweep", "runtime.(*sweepLocked)",
	"runtime.(*gcControllerState)", "runtime.(*mheap).freeSpan",
}

// goAlloc are Go runtime functions that allocate.
var goAlloc = []string{
	"runtime.mallocgc", "runtime.newobject", "runtime.makeslice", "runtime.growslice", "runtime.makemap",
	"runtime.newarray", "runtime.rawstring", "runtime.rawbyteslice", "runtime.concatstring", "runtime.slicebytetostring",
	"runtime.(*mcache)", "runtime.(*mcentral)", "runtime.(*mheap).alloc", "runtime.memclrNoHeapPointers",
	"runtime.nextFreeFast", "runtime.heapSetType",
}

// jitStubs are frames of JIT-compiled glue and interpreters as profilers of
// the JVM, V8 and .NET name them.
var jitStubs = []string{"Interpreter", "StubRoutines", "call_stub", "[jit]", "JIT stub", "Builtin:", "BytecodeHandler:", "Stub:", "(JIT stubs)"}

// RuntimeGroup says which runtime or VM activity a frame belongs to ("GC",
// "allocation", "JIT and VM stubs", "VM", "idle", "runtime", "Node.js
// internals"), or "" for application and library code. Such frames are the
// runtime's, not the application's: reports group and label them so they
// do not crowd out application code.
func RuntimeGroup(f Frame) string {
	fn := f.Function
	if g := v8Pseudo[fn]; g != "" {
		return g
	}
	if strings.HasPrefix(f.File, "node:") {
		return groupNode
	}
	if isGoRuntime(fn) {
		switch {
		case hasFuncPrefix(fn, goGC), isWriteBarrier(fn):
			return groupGC
		case hasFuncPrefix(fn, goAlloc):
			return groupAlloc
		}
		return GroupRuntime
	}
	for _, s := range jitStubs {
		if strings.HasPrefix(fn, s) {
			return groupJIT
		}
	}
	switch strings.ToLower(path.Base(strings.ReplaceAll(f.File, `\`, "/"))) {
	case "clrjit.dll", "libclrjit.so":
		return groupJIT
	case "libjvm.so", "jvm.dll", "coreclr.dll", "libcoreclr.so":
		return groupVM
	}
	return ""
}

// isWriteBarrier reports the Go runtime's write barriers: the collector's
// cost of a pointer write while it marks (runtime.gcWriteBarrier2,
// runtime.wbBufFlush1, runtime.bulkBarrierPreWrite).
func isWriteBarrier(fn string) bool {
	return strings.HasPrefix(fn, "runtime.gcWriteBarrier") || strings.HasPrefix(fn, "runtime.wbBufFlush") ||
		strings.HasPrefix(fn, "runtime.bulkBarrier") || strings.HasPrefix(fn, "runtime.wbMove")
}

// hasFuncPrefix reports whether fn is one of names, a closure or method of
// one ("runtime.gcBgMarkWorker.func2"), or, for a name ending in a
// receiver ("runtime.(*gcWork)"), any of its methods.
func hasFuncPrefix(fn string, names []string) bool {
	for _, p := range names {
		if fn == p || strings.HasPrefix(fn, p+".") || strings.HasSuffix(p, ")") && strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// ThreadGroup says which runtime activity a thread of the JVM, .NET or
// V8 is, by its name ("GC", "JIT and VM stubs" for compiler threads, "VM"),
// or "" for application threads.
func ThreadGroup(thread string) string {
	t := strings.ToLower(thread)
	switch {
	case strings.HasPrefix(t, "gc thread"), strings.HasPrefix(t, "g1 "), strings.HasPrefix(t, "zgc"),
		strings.HasPrefix(t, "parallel gc"), strings.HasPrefix(t, "shenandoah"), strings.Contains(t, "gc worker"),
		strings.HasPrefix(t, "v8:gc"), strings.HasPrefix(t, ".net bgc"), strings.HasPrefix(t, ".net server gc"):
		return groupGC
	case strings.Contains(t, "compilerthread"), strings.HasPrefix(t, "c1 compiler"), strings.HasPrefix(t, "c2 compiler"),
		strings.HasPrefix(t, ".net tiered compilation"):
		return groupJIT
	case t == "vm thread", strings.HasPrefix(t, "vm periodic"), t == "service thread", t == "signal dispatcher",
		t == "finalizer", t == "reference handler", t == "common-cleaner":
		return groupVM
	}
	return ""
}

// Attribution is the application frame a runtime cause is charged to: the
// lowest frame of its path outside the runtime, or nil when there is none
// (the collector's own threads).
func Attribution(p []Frame) *Frame {
	for i := len(p) - 1; i >= 0; i-- {
		if RuntimeGroup(p[i]) == "" {
			return &p[i]
		}
	}
	return nil
}
