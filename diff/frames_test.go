package diff

import "testing"

func fr(fn, file string) Frame { return Frame{Function: fn, File: file} }

func TestRuntimeGroup(t *testing.T) {
	for _, tt := range []struct {
		f    Frame
		want string
	}{
		{fr("(garbage collector)", ""), "GC"},
		{fr("(program)", ""), "VM"},
		{fr("(idle)", ""), "idle"},
		{fr("runtime.gcBgMarkWorker", "/go/src/runtime/mgc.go"), "GC"},
		{fr("runtime.gcDrain", ""), "GC"},
		{fr("runtime.gcBgMarkWorker.func2", ""), "GC"},
		{fr("runtime.(*gcWork).tryGet", ""), "GC"},
		{fr("runtime.mallocgc", ""), "allocation"},
		{fr("runtime.(*mcache).refill", ""), "allocation"},
		{fr("runtime.main", ""), "runtime"},
		{fr("internal/runtime/syscall.Syscall6", ""), "runtime"},
		{fr("runtime/internal/atomic.Xadd64", ""), "runtime"}, // before Go 1.23
		{fr("runtime/pprof.(*profileBuilder).addCPUData", ""), ""},
		{fr("Module._load", "node:internal/modules/cjs/loader"), "Node.js internals"},
		{fr("Interpreter", ""), "JIT and VM stubs"},
		{fr("StubRoutines (1)", ""), "JIT and VM stubs"},
		{fr("CallDescrWorkerInternal", "coreclr.dll"), "VM"},
		{fr("ThePreStub", "clrjit.dll"), "JIT and VM stubs"},
		{fr("runtimeHelper", ""), ""},
		{fr("github.com/x/runtime.F", ""), ""},
		{fr("java.lang.Runtime.gc", ""), ""},
		{fr("formatPrice", "file:///a.js"), ""},
	} {
		if got := RuntimeGroup(tt.f); got != tt.want {
			t.Errorf("RuntimeGroup(%v) = %q, want %q", tt.f, got, tt.want)
		}
	}
	for _, tt := range []struct{ thread, want string }{
		{"GC Thread#0", "GC"}, {"G1 Conc#0", "GC"}, {"C2 CompilerThread0", "JIT and VM stubs"},
		{"VM Thread", "VM"}, {"main", ""}, {"(all threads)", ""}, {"worker-gc", ""},
	} {
		if got := ThreadGroup(tt.thread); got != tt.want {
			t.Errorf("ThreadGroup(%q) = %q, want %q", tt.thread, got, tt.want)
		}
	}
}

// A runtime cause is charged to its lowest application frame.
func TestAttribution(t *testing.T) {
	goPath := []Frame{fr("runtime.main", ""), fr("main.main", ""), fr("main.parse", ""), fr("runtime.growslice", ""), fr("runtime.mallocgc", "")}
	if a := Attribution(goPath); a == nil || a.Function != "main.parse" {
		t.Errorf("Attribution = %v, want main.parse", a)
	}
	if a := Attribution([]Frame{fr("runtime.gcBgMarkWorker", ""), fr("runtime.gcDrain", "")}); a != nil {
		t.Errorf("Attribution of the collector's own work = %v, want none", a)
	}
}
