package diff

import (
	"errors"
	"fmt"
	"reflect"
	"runtime/debug"
	"sync"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

// Fill builds the runs on its workers, in the Fold's order, and folds
// them: the result is Compare's of the same trees, on one worker or
// several, kept or streamed, and GOGC is what it was once Compare returns.
func TestFill(t *testing.T) {
	t.Setenv("GOGC", "") // the Fold's GOGC applies
	tests := []struct {
		name   string
		nb, nn int
		opts   Options
		stream bool
	}{
		{"one run a side", 1, 1, Options{Tree: true}, false},
		{"three a side", 3, 3, Options{Tree: true}, false},
		{"intersect", 3, 3, Options{Aggregate: Intersect, Tree: true}, false},
		{"streamed", 11, 12, Options{Tree: true}, true},
	}
	for _, tt := range tests {
		base, nw := streamRuns(tt.nb, false), streamRuns(tt.nn, true)
		want := compare(t, trees(t, base...), trees(t, nw...), tt.opts)
		for _, workers := range []int{1, 2, 5} {
			t.Run(fmt.Sprint(tt.name, "/", workers), func(t *testing.T) {
				f := NewFold(tt.nb, tt.nn, tt.opts)
				if (f.st != nil) != tt.stream {
					t.Fatalf("streams %v, want %v", f.st != nil, tt.stream)
				}
				all := append(trees(t, base...), trees(t, nw...)...)
				var mu sync.Mutex
				var started []int
				build := func(w, i int, tail bool) (*cct.Tree, error) {
					if w < 0 || w >= workers {
						t.Errorf("worker %d of %d", w, workers)
					}
					mu.Lock()
					defer mu.Unlock()
					started = append(started, i)
					return all[i], nil
				}
				const before = 137
				old := debug.SetGCPercent(before)
				defer debug.SetGCPercent(old)
				if err := f.Fill(workers, build); err != nil {
					t.Fatal(err)
				}
				got, err := f.Compare()
				if err != nil {
					t.Fatal(err)
				}
				if gc := debug.SetGCPercent(before); gc != before {
					t.Errorf("GOGC %d after Compare, want %d", gc, before)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("Fill's result differs from Compare's:\n got %v\nwant %v", causeLines(got), causeLines(want))
				}
				if workers == 1 && !reflect.DeepEqual(started, f.order()) {
					t.Errorf("runs started in order %v, want the Fold's %v", started, f.order())
				}
			})
		}
	}
}

// After a failed build Fill starts no run and returns the first error in
// run order; a GOGC set in the environment is left alone.
func TestFillError(t *testing.T) {
	t.Setenv("GOGC", "100")
	all := trees(t, streamRuns(3, false)...)
	all = append(all, trees(t, streamRuns(3, true)...)...)
	for _, tt := range []struct {
		name    string
		workers int
		fail    []int
		want    string
		started int // with one worker
	}{
		{"one worker", 1, []int{2, 4}, "run 2", 3},
		{"two workers", 2, []int{4, 1}, "run 1", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const before = 141
			old := debug.SetGCPercent(before)
			defer debug.SetGCPercent(old)
			f := NewFold(3, 3, Options{})
			var mu sync.Mutex
			started := 0
			err := f.Fill(tt.workers, func(w, i int, tail bool) (*cct.Tree, error) {
				mu.Lock()
				started++
				mu.Unlock()
				for _, k := range tt.fail {
					if i == k {
						return nil, errors.New(fmt.Sprint("run ", i))
					}
				}
				return all[i], nil
			})
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %q", err, tt.want)
			}
			if tt.started > 0 && started != tt.started {
				t.Errorf("%d runs started, want %d", started, tt.started)
			}
			if gc := debug.SetGCPercent(before); gc != before {
				t.Errorf("GOGC %d with GOGC in the environment, want %d", gc, before)
			}
		})
	}
}
