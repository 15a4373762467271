package diff

import (
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

func TestIsArtifact(t *testing.T) {
	for _, tt := range []struct {
		fn   string
		kind cct.Kind
		want bool
	}{
		{"runtime.asyncPreempt", cct.KindFunction, true},
		{"runtime.asyncPreempt2", cct.KindFunction, true},
		{"runtime.morestack_noctxt", cct.KindFunction, true},
		{"runtime.sigtramp", cct.KindFunction, true},
		{"__restore_rt", cct.KindFunction, true},
		{"SafepointSynchronize::block", cct.KindFunction, true},
		{"v8::internal::StackGuard::HandleInterrupts", cct.KindFunction, true},
		{"runtime.mallocgc", cct.KindFunction, false},
		{"strings.ToLower", cct.KindFunction, false},
		{"runtime.asyncPreempt", cct.KindThread, false}, // a thread named so is a thread
	} {
		if got := isArtifact(keyFrame{Function: tt.fn, Kind: tt.kind}); got != tt.want {
			t.Errorf("isArtifact(%q, kind %d) = %v, want %v", tt.fn, tt.kind, got, tt.want)
		}
	}
}

// A preemption signal landing in a slower function makes the artifact the
// lowest node that grew; the cause is the function.
func TestArtifactFoldedIntoCaller(t *testing.T) {
	base := trees(t,
		"main;work;strings.ToLower 100\nmain;work;runtime.asyncPreempt 2\nmain;other 300",
		"main;work;strings.ToLower 101\nmain;work;runtime.asyncPreempt 3\nmain;other 298",
		"main;work;strings.ToLower 99\nmain;work;runtime.asyncPreempt 2\nmain;other 301")
	nw := trees(t,
		"main;work;strings.ToLower 140\nmain;work;runtime.asyncPreempt 82\nmain;other 300",
		"main;work;strings.ToLower 141\nmain;work;runtime.asyncPreempt 80\nmain;other 299",
		"main;work;strings.ToLower 139\nmain;work;runtime.asyncPreempt 84\nmain;other 302")
	res := compare(t, base, nw, Options{})
	got := causeLines(res)
	// ToLower grew by 40 ms (below μ), the artifact by 80 ms: folded into
	// work's own time, work is the cause.
	if len(got) != 1 || got[0] != "regressed 119.666667 main;work" {
		t.Errorf("causes %q, want the function under which asyncPreempt grew (main;work), not the artifact", got)
	}
	for _, c := range res.Causes {
		if n := len(c.Path); n > 0 && c.Path[n-1].Function == "runtime.asyncPreempt" {
			t.Errorf("the artifact is a cause: %q", got)
		}
	}
}
