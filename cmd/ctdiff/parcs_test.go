package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// parcsOutcome is what a comparison concluded, in a form that compares
// across matchings: each cause as "kind blame: path", every ranked path
// node (of the first 100 paths) whose own delta is positive, and stderr.
type parcsOutcome struct {
	causes []string
	grew   map[string]bool
	stderr string
}

func parcsRun(t *testing.T, args ...string) parcsOutcome {
	t.Helper()
	args = append([]string{"diff", "--format", "json", "--top", "100"}, args...)
	out, errOut, code := ctdiff(args...)
	if code != exitOK {
		t.Fatalf("%q: exit %d: %s", args, code, errOut)
	}
	var doc struct {
		Causes []struct {
			Kind  string
			Blame struct{ Function string }
			Path  []struct{ Function string }
		}
		RankedPaths []struct {
			Path []struct {
				Function string
				Cost     int64
			}
		} `json:"ranked_paths"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	o := parcsOutcome{grew: map[string]bool{}, stderr: errOut}
	for _, c := range doc.Causes {
		var path []string
		for _, f := range c.Path {
			path = append(path, f.Function)
		}
		o.causes = append(o.causes, fmt.Sprintf("%s %s: %s", c.Kind, c.Blame.Function, strings.Join(path, ";")))
	}
	for _, p := range doc.RankedPaths {
		for _, f := range p.Path {
			if f.Cost > 0 {
				o.grew[f.Function] = true
			}
		}
	}
	return o
}

// parcsRuns writes three runs a side of a program whose main calls parse,
// render and store in a loop, store 30 ms more in the new version, with
// write(dir, name, order, ms) (ms: each function's time), listing main's
// callees in the given order in the old runs and in reverse in the new
// ones, and returns @lists of the two sides.
func parcsRuns(t *testing.T, ext string, write func(dir, name string, order []string, ms map[string]int) string) (oldList, newList string) {
	t.Helper()
	dir := t.TempDir()
	var runs [2][]string
	for i := range 3 {
		ms := map[string]int{"parse": 300 + 10*i, "render": 240 - 7*i, "store": 180 + 5*i}
		runs[0] = append(runs[0], write(dir, fmt.Sprintf("old%d.%s", i, ext), []string{"parse", "render", "store"}, ms))
		ms["store"] += 120
		runs[1] = append(runs[1], write(dir, fmt.Sprintf("new%d.%s", i, ext), []string{"store", "render", "parse"}, ms))
	}
	return writeFile(t, dir, "old.list", strings.Join(runs[0], "\n")+"\n"),
		writeFile(t, dir, "new.list", strings.Join(runs[1], "\n")+"\n")
}

// folded writes folded stacks, each callee of main with a leaf, in order.
func folded(t *testing.T) func(dir, name string, order []string, ms map[string]int) string {
	leaf := map[string]string{"parse": "lex", "render": "paint", "store": "write"}
	return func(dir, name string, order []string, ms map[string]int) string {
		var b strings.Builder
		for _, f := range order {
			fmt.Fprintf(&b, "main;%s;%s %d\n", f, leaf[f], ms[f])
		}
		return writeFile(t, dir, name, b.String())
	}
}

// v8Profile writes a .cpuprofile sampled every millisecond, with a
// timestamp per sample: the loop runs ten times, each time calling main's
// callees in order, so that the first sample of each (which makes its
// place among main's children) comes in that order.
func v8Profile(t *testing.T) func(dir, name string, order []string, ms map[string]int) string {
	return func(dir, name string, order []string, ms map[string]int) string {
		var b strings.Builder
		b.WriteString(`{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":""}},` +
			`{"id":2,"parent":1,"callFrame":{"functionName":"main","url":"file:///app/main.js","lineNumber":1}}`)
		id := map[string]int{}
		for k, f := range order {
			id[f] = 3 + k
			fmt.Fprintf(&b, `,{"id":%d,"parent":2,"callFrame":{"functionName":%q,"url":"file:///app/main.js","lineNumber":%d}}`, 3+k, f, 10*(k+1))
		}
		var samples []string
		for i := range 10 {
			for _, f := range order {
				n := ms[f] / 10
				if i < ms[f]%10 {
					n++
				}
				for range n {
					samples = append(samples, fmt.Sprint(id[f]))
				}
			}
		}
		deltas := strings.Repeat("1000,", len(samples))
		fmt.Fprintf(&b, `],"startTime":0,"endTime":%d,"samples":[%s],"timeDeltas":[%s]}`,
			1000*len(samples), strings.Join(samples, ","), strings.TrimSuffix(deltas, ","))
		return writeFile(t, dir, name, b.String())
	}
}

// A sampled profile does not record the order in which a function called
// its callees: pprof and collapsed stacks list them as samples first
// reached them, and so, in time order, do profiles with timestamps, which
// for callees called in a loop is whichever was sampled first. Either
// order differs from run to run, and --match parcs must not read it as
// the program's call order. On the example, pprof -top -diff_base shows
// math.log1p 40 ms faster: it is not a regression, and the causes are
// zam's. In the generated runs, the new version lists main's callees in
// reverse order, and only store grew.
func TestDiffParcsSiblingOrder(t *testing.T) {
	foldedOld, foldedNew := parcsRuns(t, "folded", folded(t))
	v8Old, v8New := parcsRuns(t, "cpuprofile", v8Profile(t))
	for _, tt := range []struct {
		name     string
		args     []string
		blame    string // a function a cause blames; "" for none
		notGrown string // a function that did not grow
	}{
		{"example", []string{exampleOld, exampleNew}, "github.com/ctdiff/ctdiff/internal/example.checkRules", "math.log1p"},
		{"example, intersect", []string{exampleOld, exampleNew, "--aggregate", "intersect"}, "", "math.log1p"},
		{"example, call sites", []string{exampleOld, exampleNew, "--call-sites"}, "github.com/ctdiff/ctdiff/internal/example.checkRules", "math.log1p"},
		{"folded, callees reversed", []string{"@" + foldedOld, "@" + foldedNew}, "write", "parse"},
		{"timestamped, first sampled reversed", []string{"@" + v8Old, "@" + v8New}, "store", "parse"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			zam := parcsRun(t, tt.args...)
			parcs := parcsRun(t, append(tt.args, "--match", "parcs")...)
			if got, want := strings.Join(parcs.causes, "\n"), strings.Join(zam.causes, "\n"); got != want {
				t.Errorf("--match parcs causes\n%s\nwant zam's\n%s", got, want)
			}
			if tt.blame != "" && !strings.Contains(strings.Join(parcs.causes, "\n"), " "+tt.blame+": ") {
				t.Errorf("--match parcs causes %q blame no %s", parcs.causes, tt.blame)
			}
			if parcs.grew[tt.notGrown] {
				t.Errorf("--match parcs ranks %s as grown (zam: %v)", tt.notGrown, zam.grew[tt.notGrown])
			}
			if parcs.stderr != zam.stderr {
				t.Errorf("--match parcs stderr\n%s\nzam's\n%s", parcs.stderr, zam.stderr)
			}
		})
	}
}
