package cct_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/google/pprof/profile"
)

// wantFrames is the definition the builder's caches of frames (by location
// and by Go function) must keep: every line of every sample's stack, in
// file order, root first and outermost first, interned by its frame, the
// first line of a frame giving its info.
func wantFrames(p *profile.Profile, prune bool) []string {
	var out []string
	seen := map[cct.Frame]bool{}
	for _, s := range p.Sample {
		for i := len(s.Location) - 1; i >= 0; i-- {
			loc := s.Location[i]
			for j := len(loc.Line) - 1; j >= 0; j-- {
				ln := loc.Line[j]
				fn := ln.Function
				f := cct.Frame{Function: fn.Name, File: fn.Filename}
				info := cct.FrameInfo{Line: ln.Line, Column: ln.Column}
				if fn.StartLine > 0 {
					info.Line = fn.StartLine
					if ln.Line != fn.StartLine {
						info.Column = 0
					}
				}
				if !strings.HasSuffix(fn.Filename, ".go") {
					f.StartLine = fn.StartLine
					if ln.Line == fn.StartLine {
						f.StartColumn = ln.Column
					}
				}
				if (prune && cct.Prunable(f.Function)) || seen[f] {
					continue
				}
				seen[f] = true
				out = append(out, fmt.Sprint(f, info))
			}
		}
	}
	return out
}

func TestFramesOfFunctions(t *testing.T) {
	cases := []struct {
		name  string
		ids   func(i int) uint64 // function i's id
		prune bool
	}{
		{"ids are indexes", func(i int) uint64 { return uint64(i + 1) }, false},
		{"pruned", func(i int) uint64 { return uint64(i + 1) }, true},
		{"sparse ids", func(i int) uint64 { return uint64(100 * (i + 1)) }, true},
		{"ids out of order", func(i int) uint64 { return uint64(5 - i) }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}}}
			fns := []*profile.Function{
				{Name: "main.a", Filename: "a.go", StartLine: 3},
				{Name: "main.b", Filename: "a.go"},
				{Name: "runtime.gopark", Filename: "proc.go"}, // prunable
				{Name: "t", Filename: "app.js", StartLine: 7}, // its frame depends on the line's
				{Name: "main.c", Filename: "c.go", StartLine: 9},
			}
			for i, fn := range fns {
				fn.ID, fn.SystemName = tc.ids(i), fn.Name
				p.Function = append(p.Function, fn)
			}
			line := func(fn int, l, col int64) profile.Line {
				return profile.Line{Function: fns[fn], Line: l, Column: col}
			}
			locs := [][]profile.Line{
				{line(0, 5, 1)},
				{line(1, 20, 0), line(0, 4, 2)}, // inlined: b in a
				{line(2, 30, 0)},
				{line(3, 7, 4)}, // t at its start
				{line(3, 8, 6)}, // t elsewhere: another frame
				{line(0, 3, 5), line(4, 9, 1)},
				{line(1, 21, 0), line(2, 31, 0), line(4, 10, 2)},
			}
			for i, lines := range locs {
				p.Location = append(p.Location, &profile.Location{ID: uint64(i + 1), Line: lines})
			}
			stacks := [][]int{{0}, {1, 0}, {2, 1, 0}, {3, 5}, {4, 5}, {6, 3}, {6, 1, 5}, {1, 6}}
			for _, st := range stacks {
				s := &profile.Sample{Value: []int64{1}}
				for _, x := range st {
					s.Location = append(s.Location, p.Location[x])
				}
				p.Sample = append(p.Sample, s)
			}
			if err := p.CheckValid(); err != nil {
				t.Fatal(err)
			}
			tr, err := cct.FromProfile(p, cct.Options{Prune: tc.prune})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for id, f := range tr.Frames {
				if f.Kind == cct.KindFunction {
					got = append(got, fmt.Sprint(f, tr.FrameInfo[id]))
				}
			}
			if want := wantFrames(p, tc.prune); !slices.Equal(got, want) {
				t.Errorf("frames:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}
