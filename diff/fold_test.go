package diff

import (
	"reflect"
	"runtime"
	"sync"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/tools/synth"
)

// A Fold gives Compare's result whatever the order in which the runs are
// added, concurrently or not, and the trees can be dropped once added.
func TestFoldOrderIndependent(t *testing.T) {
	baseRuns := []string{"m;a;x 100\nm;b 50\nm;c 20", "m;a;x 90\nm;b 55\nm;c 22", "m;a;x 95\nm;b 52\nm;c 21"}
	newRuns := []string{"m;b 50\nm;a;x 200\nm;c 70", "m;a;x 210\nm;b 50\nm;c 75", "m;a;x 205\nm;b 51\nm;c 72"}
	orders := []struct {
		name  string
		order []int // run indexes, base runs 0-2 and new runs 3-5
		async bool
	}{
		{"in order", []int{0, 1, 2, 3, 4, 5}, false},
		{"reversed", []int{5, 4, 3, 2, 1, 0}, false},
		{"new first, interleaved", []int{3, 0, 4, 1, 5, 2}, false},
		{"concurrently", []int{0, 1, 2, 3, 4, 5}, true},
	}
	for _, agg := range []Aggregate{Stats, Intersect} {
		opts := Options{Aggregate: agg, Tree: true}
		want := compare(t, trees(t, baseRuns...), trees(t, newRuns...), opts)
		for _, o := range orders {
			t.Run(string(agg)+"/"+o.name, func(t *testing.T) {
				f := NewFold(3, 3, opts)
				all := append(trees(t, baseRuns...), trees(t, newRuns...)...)
				var wg sync.WaitGroup
				for _, i := range o.order {
					add := func() { f.Add(i >= 3, i%3, all[i]) }
					if o.async {
						wg.Go(add)
					} else {
						add()
					}
				}
				wg.Wait()
				for i := range all {
					// The Fold keeps no tree: clobbering them changes nothing.
					all[i].Nodes, all[i].Frames = nil, nil
				}
				got, err := f.Compare()
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("folded result differs from Compare's:\n got %v\nwant %v", causeLines(got), causeLines(want))
				}
			})
		}
	}
}

// A Fold reports what kept a run from being folded as Compare reports it,
// the first in run order, base runs first.
func TestFoldErrors(t *testing.T) {
	withType := func(vt cct.ValueType) *cct.Tree {
		tr := trees(t, "m;a 10")[0]
		tr.SampleTypes[1] = vt
		return tr
	}
	tests := []struct {
		name      string
		nBase     int
		add       map[int]*cct.Tree // run index (base runs first) → tree; missing: never added
		nNew      int
		metric    string
		wantError string
	}{
		{"no new runs", 1, map[int]*cct.Tree{0: trees(t, "m;a 10")[0]}, 0, "", "need at least one base and one new tree, got 1 and 0"},
		{"never added", 1, map[int]*cct.Tree{0: trees(t, "m;a 10")[0]}, 1, "", "run 2 was never added to the comparison"},
		{"empty tree", 1, map[int]*cct.Tree{0: trees(t, "m;a 10")[0], 1: {}}, 1, "", "tree 2 is empty (no root)"},
		{"no such sample type", 1, map[int]*cct.Tree{0: trees(t, "m;a 10")[0], 1: trees(t, "m;a 10")[0]}, 1, "alloc_space",
			`tree 1: sample type "alloc_space" not found: must be one of: [samples/count cpu/nanoseconds]`},
		{"sample types differ", 2, map[int]*cct.Tree{0: trees(t, "m;a 10")[0], 1: trees(t, "m;a 10")[0], 2: withType(cct.ValueType{Type: "cpu", Unit: "count"})}, 1, "cpu",
			"tree 3: sample type cpu/count differs from the first tree's cpu/nanoseconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFold(tt.nBase, tt.nNew, Options{SampleType: tt.metric})
			for i, tr := range tt.add {
				if i < tt.nBase {
					f.Add(false, i, tr)
				} else {
					f.Add(true, i-tt.nBase, tr)
				}
			}
			_, err := f.Compare()
			if err == nil || err.Error() != tt.wantError {
				t.Errorf("error %v, want %q", err, tt.wantError)
			}
		})
	}
}

// A Fold reads a tree's values through the metric's functions, or, for a
// sample type it resolved itself (SampleMetric), straight from the tree:
// the same values. A caller's metric made by SampleMetric and then given
// other functions is read through them.
func TestFoldReadsMetric(t *testing.T) {
	tr := tree(t, "m;a;x 100", "m;b 50")
	sm, err := SampleMetric("", tr)
	if err != nil {
		t.Fatal(err)
	}
	doubled := sm
	doubled.Total = func(t *cct.Tree, id cct.NodeID) int64 { return 2 * sm.Total(t, id) }
	doubled.Self = func(t *cct.Tree, id cct.NodeID) int64 { return 2 * sm.Self(t, id) }
	var want []int64
	for i := range tr.Nodes {
		want = append(want, sm.Total(tr, cct.NodeID(i)))
	}
	for _, tt := range []struct {
		name   string
		metric Metric
		factor int64
	}{
		{"resolved by the Fold", Metric{}, 1},
		{"SampleMetric's", sm, 1},
		{"SampleMetric's, functions replaced", doubled, 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := NewFold(1, 1, Options{Metric: tt.metric})
			f.Add(false, 0, tr)
			got := f.slots[0].r.total
			for i, v := range want {
				if got[i] != tt.factor*v {
					t.Fatalf("node %d: total %d, want %d", i, got[i], tt.factor*v)
				}
			}
		})
	}
}

// The last tree of a Fold is folded on every core (wide): in ranges of
// nodes, the child lists written at offsets counted per range. The run
// must be the one a fold on one goroutine makes, array for array.
func TestFoldWide(t *testing.T) {
	pair := synth.Generate(synth.Config{Seed: 2, Stacks: 20000, Runs: 1})
	tr, err := cct.FromProfile(pair.BaseRuns[0], cct.Options{Prune: true})
	if err != nil {
		t.Fatal(err)
	}
	if parallelCount(len(tr.Nodes)) < 2 && runtime.GOMAXPROCS(0) > 1 {
		t.Fatalf("%d nodes are folded in one range: the case tests nothing", len(tr.Nodes))
	}
	m, err := SampleMetric("", tr)
	if err != nil {
		t.Fatal(err)
	}
	want := foldTreeLike(tr, m, "", nil, false)
	got := foldTreeLike(tr, m, "", nil, true)
	if !reflect.DeepEqual(got, want) {
		for name, f := range map[string]func(r *run) any{
			"total": func(r *run) any { return r.total }, "self": func(r *run) any { return r.self },
			"nframe": func(r *run) any { return r.nframe }, "parent": func(r *run) any { return r.parent },
			"depths": func(r *run) any { return r.depths }, "kidStart": func(r *run) any { return r.kidStart },
			"kids": func(r *run) any { return r.kids },
		} {
			if !reflect.DeepEqual(f(got), f(want)) {
				t.Errorf("the wide fold's %s differs", name)
			}
		}
		t.Fatal("the wide fold differs")
	}
}
