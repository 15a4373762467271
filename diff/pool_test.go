package diff

import (
	"fmt"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

// A pool of threads of one name that split the same work differently in
// every run: each thread ordinal's context of q moves by μ from the split
// alone, none significantly, while q's sum grew by 200 ms in every run.
// That is a spread cause of q, where the rule "no context grew
// by μ alone" dropped it.
//
// Only in a pool: threads of different names that split work differently
// run different code, and a context's swing is its own (inPools).
func TestPoolSplitSpread(t *testing.T) {
	for _, tc := range []struct {
		name   string
		thread func(j int) cct.Frame
		spread bool
	}{
		{"ordinals", worker, true},
		{"numbered names", func(j int) cct.Frame {
			return cct.Frame{Thread: fmt.Sprintf("pool-1-thread-%d", j+1), Kind: cct.KindThread}
		}, true},
		{"distinct names", func(j int) cct.Frame {
			return cct.Frame{Thread: []string{"io", "timer", "render", "audio"}[j], Kind: cct.KindThread}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) { testPoolSplit(t, tc.thread, tc.spread) })
	}
}

// poolTree is a run of a pool of len(loads) threads (thread names them),
// thread j running q for loads[(j+rot) mod len] ms plus extra[j] (none
// when nil), beside a main thread's fixed work.
func poolTree(t *testing.T, thread func(j int) cct.Frame, loads []int, rot int, extra []int) *cct.Tree {
	tr := cct.New([]cct.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}})
	tr.DefaultSampleType = "cpu"
	add := func(th cct.Frame, stack []string, v int) {
		id := tr.AddChild(cct.RootID, tr.Intern(th, cct.FrameInfo{}))
		for _, f := range stack {
			id = tr.AddChild(id, tr.Intern(cct.Frame{Function: f}, cct.FrameInfo{}))
		}
		tr.Self(id)[0]++
		tr.Self(id)[1] += int64(v) * ms
	}
	for j := range loads {
		v := loads[(j+rot)%len(loads)]
		if extra != nil {
			v += extra[j]
		}
		add(thread(j), []string{"goexit", "work", "q"}, v)
	}
	main := cct.Frame{Kind: cct.KindThread}
	for i, f := range []string{"a", "b", "c", "d"} {
		add(main, []string{"main", f}, 300+50*i+3*rot)
	}
	tr.ComputeTotals()
	if err := tr.Validate(); err != nil {
		t.Fatal(err)
	}
	return tr
}

func worker(j int) cct.Frame {
	return cct.Frame{Thread: "worker", Ordinal: int32(j), Kind: cct.KindThread}
}

// A pool function whose one context regressed on its own is that
// context's cause, not a spread over the pool: the group yields to a
// context in the graph (statsGraph).
func TestPoolCauseOfItsOwn(t *testing.T) {
	var base, nw []*cct.Tree
	for i := range 4 {
		base = append(base, poolTree(t, worker, []int{200, 202, 204, 206}, i, nil))
		nw = append(nw, poolTree(t, worker, []int{200, 202, 204, 206}, i+1, []int{200, 0, 0, 0}))
	}
	res := compare(t, base, nw, Options{MinDelta: Threshold{Value: 40 * ms}, Normalize: Normalize{Mode: NormalizeNone}})
	if len(res.Causes) != 1 || res.Causes[0].Spread != nil || res.Causes[0].Thread != "worker" {
		t.Fatalf("causes %q (spread %v), want worker's q alone", causeLines(res), len(res.Causes) > 0 && res.Causes[0].Spread != nil)
	}
}

func testPoolSplit(t *testing.T, thread func(j int) cct.Frame, spread bool) {
	pool := func(loads []int, rot int) *cct.Tree { return poolTree(t, thread, loads, rot, nil) }
	var base, nw []*cct.Tree
	for i := range 4 {
		base = append(base, pool([]int{400, 200, 100, 100}, i))
		nw = append(nw, pool([]int{450, 250, 150, 150}, i+1))
	}
	res := compare(t, base, nw, Options{MinDelta: Threshold{Value: 40 * ms}, Normalize: Normalize{Mode: NormalizeNone}})
	if !spread {
		for _, c := range res.Causes {
			if c.Spread != nil {
				t.Fatalf("causes %q: a spread cause over threads that do not pool", causeLines(res))
			}
		}
		return
	}
	if len(res.Causes) != 1 || res.Causes[0].Spread == nil || res.Causes[0].Spread.Function.Function != "q" {
		t.Fatalf("causes %q, want a spread cause of q", causeLines(res))
	}
	if d := res.Causes[0].Delta; d != 200*ms {
		t.Errorf("delta %v, want 200ms", fmt.Sprint(d))
	}
}

// Threads pool when their names are the same but for numbers.
func TestDigitless(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"pool-1-thread-3", "pool-#-thread-#"},
		{"ForkJoinPool.commonPool-worker-12", "ForkJoinPool.commonPool-worker-#"},
		{"worker", "worker"},
		{"", ""},
		{"42", "#"},
		{"v8:gc1x2", "v#:gc#x#"},
	} {
		if got := digitless(tc.a); got != tc.b {
			t.Errorf("digitless(%q) = %q, want %q", tc.a, got, tc.b)
		}
	}
}
