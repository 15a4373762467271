package cct_test

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/google/pprof/profile"
)

// posProfile builds a profile from lines "root;...;leaf VALUE" whose frames
// are "name@file#start[:col]", written the way the V8 converters write a
// call frame: Function.StartLine is the start, and the location is at the
// start line and column. "#0" is a frame without a position.
func posProfile(tb testing.TB, lines ...string) *profile.Profile {
	tb.Helper()
	p := &profile.Profile{SampleType: []*profile.ValueType{{Type: "wall", Unit: "nanoseconds"}}}
	funcs := map[string]*profile.Function{}
	locs := map[string]*profile.Location{}
	for _, line := range lines {
		stack, v, _ := strings.Cut(line, " ")
		value, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			tb.Fatalf("posProfile: bad value in %q", line)
		}
		s := &profile.Sample{Value: []int64{value}}
		for _, fr := range strings.Split(stack, ";") {
			loc := locs[fr]
			if loc == nil {
				spec, pos, _ := strings.Cut(fr, "#")
				name, file, _ := strings.Cut(spec, "@")
				l, c, _ := strings.Cut(pos, ":")
				start, _ := strconv.ParseInt(l, 10, 64)
				col, _ := strconv.ParseInt(c, 10, 64)
				fk := fmt.Sprint(name, file, start)
				fn := funcs[fk]
				if fn == nil {
					fn = &profile.Function{ID: uint64(len(p.Function) + 1), Name: name, SystemName: name, Filename: file, StartLine: start}
					funcs[fk] = fn
					p.Function = append(p.Function, fn)
				}
				loc = &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: fn, Line: start, Column: col}}}
				locs[fr] = loc
				p.Location = append(p.Location, loc)
			}
			s.Location = append([]*profile.Location{loc}, s.Location...)
		}
		p.Sample = append(p.Sample, s)
	}
	if err := p.CheckValid(); err != nil {
		tb.Fatal(err)
	}
	return p
}

// dumpPositions shows a tree as "name#line:col total" lines, indented.
func dumpPositions(t *cct.Tree) string {
	var b strings.Builder
	for _, id := range t.PreOrder() {
		if id == cct.RootID {
			continue
		}
		f := t.FrameOf(id)
		fmt.Fprintf(&b, "%s%s", strings.Repeat("  ", int(t.Node(id).Depth)-1), t.Label(id))
		if f.StartLine != 0 || f.StartColumn != 0 {
			fmt.Fprintf(&b, "#%d:%d", f.StartLine, f.StartColumn)
		}
		fmt.Fprintf(&b, " %d\n", t.Total(id)[0])
	}
	return b.String()
}

// Same-named functions of one script are different nodes, told apart by
// where they are defined; a frame without a position is
// the function of its name when the profile knows only one, and stays apart
// when it knows several; a Go function is its qualified name.
func TestSameNamedFunctionsStayApart(t *testing.T) {
	for _, tt := range []struct {
		name  string
		lines []string
		want  string
	}{
		{
			name:  "two (anonymous) functions of one script",
			lines: []string{"(anonymous)@app.js#8:13;foo@app.js#16:1 100", "(anonymous)@app.js#19:22;foo@app.js#16:1 200"},
			want:  "(all threads) 300\n  (anonymous)#8:13 100\n    foo#16:1 100\n  (anonymous)#19:22 200\n    foo#16:1 200\n",
		},
		{
			name:  "minified names on one line differ by column",
			lines: []string{"run@m.js#1:10;t@m.js#1:500 5", "run@m.js#1:10;t@m.js#1:900 7"},
			want:  "(all threads) 12\n  run#1:10 12\n    t#1:500 5\n    t#1:900 7\n",
		},
		{
			name:  "a frame without a position is the one function of its name",
			lines: []string{"next@t.js#101:5;nextToken@t.js#158:13 1", "next@t.js#0;nextToken@t.js#0 2"},
			want:  "(all threads) 3\n  next#101:5 3\n    nextToken#158:13 3\n",
		},
		{
			name:  "a frame without a position among several stays apart",
			lines: []string{"(anonymous)@a.js#8:1 1", "(anonymous)@a.js#21:1 2", "(anonymous)@a.js#0 4"},
			want:  "(all threads) 7\n  (anonymous)#8:1 1\n  (anonymous)#21:1 2\n  (anonymous) 4\n",
		},
		{
			name:  "other files' functions of that name do not count",
			lines: []string{"f@a.js#3:1 1", "f@b.js#9:1 2", "f@a.js#0 4"},
			want:  "(all threads) 7\n  f#3:1 5\n  f#9:1 2\n",
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := cct.FromProfile(posProfile(t, tt.lines...), cct.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := dumpPositions(tr); got != tt.want {
				t.Errorf("tree:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}

	// Go: two builds where main.work moved stay one node when merged.
	b := cct.NewBuilder(cct.Options{})
	for _, start := range []string{"10", "14"} {
		if err := b.Add(posProfile(t, "main.main@/src/main.go#3;main.work@/src/main.go#"+start+" 5")); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := dumpPositions(b.Finish()), "(all threads) 10\n  main.main 10\n    main.work 10\n"; got != want {
		t.Errorf("Go builds merged:\n%s\nwant:\n%s", got, want)
	}
}

// In a public DevTools trace two (anonymous) functions of the page, at
// lines 8 and 19, were one node with the time of both; they are two, and
// every frame of a V8 profile whose position V8 left out (half the nodes
// of speedscope's sucrase profile) still joins its function.
func TestSameNamedFunctionsCorpus(t *testing.T) {
	tree := func(rel string) *cct.Tree {
		res, err := convert.ReadFile(corpus.Path(t, rel), convert.Options{})
		if err != nil {
			t.Fatal(err)
		}
		tr, err := cct.FromProfile(res.Profile, cct.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	tr := tree("devtools/devtools-recursive-counting-js.json.gz")
	w, err := tr.SampleIndex("wall")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var sum int64
	for _, th := range tr.Children(cct.RootID) {
		for _, c := range tr.Children(th) {
			if f := tr.FrameOf(c); f.Function == "(anonymous)" && f.File == "http://localhost:8080/" {
				got = append(got, fmt.Sprintf("%d:%d", f.StartLine, f.StartColumn))
				sum += tr.Total(c)[w]
			}
		}
	}
	slices.Sort(got)
	if strings.Join(got, " ") != "19:22 8:13" {
		t.Errorf("(anonymous) functions of http://localhost:8080/ under the thread at %v, want 19:22 and 8:13", got)
	}
	if sum < 3e9 {
		t.Errorf("they hold %d ns, want the 3.18 s of the former single node", sum)
	}

	tr = tree("cpuprofile/speedscope-Chrome_65-sucrase.cpuprofile")
	for id := range tr.Nodes {
		seen := map[[2]string]bool{}
		for _, c := range tr.Children(cct.NodeID(id)) {
			f := tr.FrameOf(c)
			k := [2]string{f.Function, f.File}
			if seen[k] && f.Kind == cct.KindFunction {
				t.Fatalf("node %d has two children %s (%s): a frame without a position was split from its function", id, f.Function, f.File)
			}
			seen[k] = true
		}
	}
}
