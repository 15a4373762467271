package diff

import (
	"reflect"
	"sync"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

// A 1+1 Fold whose base run is added first starts the union from it
// (startEarly, earlyUnion); added new first it cannot. Either way, and concurrently,
// the result is the same, with every option the early union could miss:
// a matching that keeps call sites, a normalization that scales the base
// run's values after it was copied (the union's weights), renames.
func TestFoldEarlyUnion(t *testing.T) {
	goBase := "main.m@m.go;main.a@a.go;main.x@x.go 100\nmain.m@m.go;main.b@b.go 50\nmain.m@m.go;main.old@o.go;main.y@y.go 40\nmain.m@m.go;main.c@c.go 20"
	goNew := "main.m@m.go;main.b@b.go 50\nmain.m@m.go;main.a@a.go;main.x@x.go 200\nmain.m@m.go;main.renamed@o.go;main.y@y.go 45\nmain.m@m.go;main.c@c.go;main.d@d.go 70"
	// Functions of a script, without Go's unique names: their keys
	// depend on both sides' positions, so none is started early.
	jsBase := "m;a@app.js;x 100\nm;b@app.js 50"
	jsNew := "m;a@app.js;x 200\nm;b@app.js 55"
	tests := []struct {
		name      string
		base, nw  string
		opts      Options
		wantEarly bool
	}{
		{"zam stats", goBase, goNew, Options{Tree: true}, true},
		{"zam intersect", goBase, goNew, Options{Aggregate: Intersect, Tree: true}, true},
		{"parcs", goBase, goNew, Options{Match: PARCS, Tree: true}, true},
		{"normalize total", goBase, goNew, Options{Normalize: Normalize{Mode: NormalizeTotal}, Tree: true}, true},
		{"normalize share", goBase, goNew, Options{Normalize: Normalize{Mode: NormalizeShare}, Match: PARCS, Tree: true}, true},
		{"script functions", jsBase, jsNew, Options{Tree: true}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fold := func(order string) (*Result, *earlyUnion) {
				f := NewFold(1, 1, tt.opts)
				b, n := trees(t, tt.base)[0], trees(t, tt.nw)[0]
				addBase := func() {
					f.Add(false, 0, b)
					f.startEarly()
				}
				switch order {
				case "base first":
					addBase()
					if f.earlyStartable() {
						t.Error("earlyStartable after startEarly")
					}
					f.Add(true, 0, n)
				case "new first":
					f.Add(true, 0, n)
					addBase()
				default:
					var wg sync.WaitGroup
					wg.Go(func() { f.Add(true, 0, n) })
					wg.Go(addBase)
					wg.Wait()
				}
				e := f.early
				res, err := f.Compare()
				if err != nil {
					t.Fatal(err)
				}
				return res, e
			}
			want, e := fold("new first")
			if e != nil {
				t.Fatal("new run added first: the union was started from the base run")
			}
			got, e := fold("base first")
			if (e != nil) != tt.wantEarly {
				t.Fatalf("base run added first: union started %v, want %v", e != nil, tt.wantEarly)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("base first: result differs from new first:\n got %v\nwant %v", causeLines(got), causeLines(want))
			}
			if got, _ := fold("concurrently"); !reflect.DeepEqual(got, want) {
				t.Errorf("concurrently: result differs from new first:\n got %v\nwant %v", causeLines(got), causeLines(want))
			}
		})
	}
}

// The early union, finished once the base run's values are scaled, is the
// union copyRun makes of the scaled run.
func TestEarlyUnionWeights(t *testing.T) {
	m, err := SampleMetric("", trees(t, "main.m@m.go 1")[0])
	if err != nil {
		t.Fatal(err)
	}
	fold := func() *run {
		return foldTree(trees(t, "main.m@m.go;main.a@a.go 100\nmain.m@m.go;main.b@b.go 30")[0], m, "")
	}
	early, plain := fold(), fold()
	e := startUnion(early, ZAM)
	if e == nil {
		t.Fatal("startUnion: nil for a run of Go symbols")
	}
	early.scale(2.5)
	plain.scale(2.5)
	got := e.finishUnion(early)
	got.copied = nil

	want := newUnion()
	plain.keys(&keyTable{idx: map[keyFrame]key{}}, 0)
	plain.toU = make([]int32, plain.nodes())
	want.copyRun(plain)
	want.copied = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("early union after scaling:\n got weights %v\nwant %v", got.weight, want.weight)
	}
	if got.weight[3] != 250*int64(ms) {
		t.Errorf("weight of main.a = %d, want the scaled %d", got.weight[3], 250*int64(ms))
	}
}

// keysAlone: only function frames that are not Go symbols can take a Slot.
func TestKeysAlone(t *testing.T) {
	tests := []struct {
		frames []cct.Frame
		want   bool
	}{
		{[]cct.Frame{{Kind: cct.KindThread, Thread: "t"}, {Function: "main.f", File: "f.go", StartLine: 3}}, true},
		{[]cct.Frame{{Function: "main.f", File: "f.go"}, {Function: "f", File: "app.js"}}, false},
		{[]cct.Frame{{Function: "f"}}, false},
	}
	for _, tt := range tests {
		if got := keysAlone(&run{frames: tt.frames}); got != tt.want {
			t.Errorf("keysAlone(%v) = %v, want %v", tt.frames, got, tt.want)
		}
	}
}
