package diff

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/tools/synth"
)

// ms is one millisecond in nanoseconds.
const ms = int64(1e6)

// tree builds a tree from folded lines "[thread=NAME] a;b;c VALUE", VALUE in
// milliseconds of self time for the leaf. A frame is "name[@file][:callsite]";
// the call site is the caller's line (PARCS call-site CCTs). Children keep
// the order in which they first appear.
func tree(tb testing.TB, lines ...string) *cct.Tree {
	tb.Helper()
	t := cct.New([]cct.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}})
	t.DefaultSampleType = "cpu"
	frame := func(fr string) (cct.Frame, cct.FrameInfo, error) {
		f := cct.Frame{}
		if i := strings.LastIndexByte(fr, ':'); i > 0 {
			cs, err := strconv.ParseInt(fr[i+1:], 10, 64)
			if err != nil {
				return f, cct.FrameInfo{}, errors.New("bad call site")
			}
			f.CallSite, fr = cs, fr[:i]
		}
		f.Function, f.File, _ = strings.Cut(fr, "@")
		return f, cct.FrameInfo{}, nil
	}
	self := func(id cct.NodeID, ns int64) {
		t.Self(id)[0]++
		t.Self(id)[1] += ns
	}
	return foldedTree(tb, "tree", t, frame, self, lines...)
}

// foldedTree adds folded lines "[thread=NAME] a;b;c VALUE" to t, parse
// reading each of a;b;c and self recording VALUE (milliseconds, as
// nanoseconds) at the leaf, and returns t with its totals. who names the
// caller in messages about malformed lines.
func foldedTree(tb testing.TB, who string, t *cct.Tree, parse func(string) (cct.Frame, cct.FrameInfo, error), self func(id cct.NodeID, ns int64), lines ...string) *cct.Tree {
	tb.Helper()
	for _, line := range lines {
		f := strings.Fields(line)
		thread := ""
		if name, ok := strings.CutPrefix(f[0], "thread="); ok {
			thread, f = name, f[1:]
		}
		if len(f) != 2 {
			tb.Fatalf("%s: want \"[thread=N] stack VALUE\", got %q", who, line)
		}
		v, err := strconv.ParseFloat(f[1], 64)
		if err != nil {
			tb.Fatalf("%s: bad value in %q", who, line)
		}
		id := t.AddChild(cct.RootID, t.Intern(cct.Frame{Thread: thread, Kind: cct.KindThread}, cct.FrameInfo{}))
		for _, fr := range strings.Split(f[0], ";") {
			frame, info, err := parse(fr)
			if err != nil {
				tb.Fatalf("%s: %v in %q", who, err, line)
			}
			id = t.AddChild(id, t.Intern(frame, info))
		}
		self(id, int64(v*float64(ms)))
	}
	t.ComputeTotals()
	if err := t.Validate(); err != nil {
		tb.Fatal(err)
	}
	return t
}

// trees builds one tree per argument, each a list of lines separated by
// newlines (blank lines ignored).
func trees(tb testing.TB, runs ...string) []*cct.Tree {
	tb.Helper()
	out := make([]*cct.Tree, len(runs))
	for i, r := range runs {
		var lines []string
		for _, l := range strings.Split(r, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				lines = append(lines, l)
			}
		}
		out[i] = tree(tb, lines...)
	}
	return out
}

func compare(tb testing.TB, base, nw []*cct.Tree, opts Options) *Result {
	tb.Helper()
	res, err := Compare(base, nw, opts)
	if err != nil {
		tb.Fatal(err)
	}
	return res
}

// causeLines renders causes as "kind delta path" lines, delta in ms.
func causeLines(res *Result) []string {
	var out []string
	for _, c := range res.Causes {
		out = append(out, string(c.Kind)+" "+strconv.FormatFloat(float64(c.Delta)/float64(ms), 'f', -1, 64)+" "+pathString(c.Path))
	}
	return out
}

// leafLines is causeLines for the critical graph's leaves whether or not
// they were tested: Causes, then Untested (one run per side without a
// noise model), which ZAM's Algorithm 2 selects alike.
func leafLines(res *Result) []string {
	out := causeLines(res)
	for _, c := range res.Untested {
		out = append(out, string(c.Kind)+" "+strconv.FormatFloat(float64(c.Delta)/float64(ms), 'f', -1, 64)+" "+pathString(c.Path))
	}
	return out
}

func pathString(p []Frame) string {
	names := make([]string, len(p))
	for i, f := range p {
		names[i] = f.Function
	}
	return strings.Join(names, ";")
}

// indentJSON is got as indented JSON with a final newline, as goldens hold it.
func indentJSON(t *testing.T, got any) []byte {
	t.Helper()
	b, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// A treePair is one run a side of a test case.
type treePair struct {
	name     string
	base, nw *cct.Tree
}

// synthTreePairs builds synth's small pair (seed 4, 3,000 stacks) as
// pruned trees and as call-site trees: the two shapes of key a union meets.
func synthTreePairs(tb testing.TB) []treePair {
	tb.Helper()
	pair := synth.Generate(synth.Config{Seed: 4, Stacks: 3000, Functions: 200})
	var out []treePair
	for _, opts := range []cct.Options{{Prune: true}, {CallSites: true}} {
		b, err := cct.FromProfile(pair.Base, opts)
		if err != nil {
			tb.Fatal(err)
		}
		n, err := cct.FromProfile(pair.New, opts)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, treePair{fmt.Sprintf("synth-%+v", opts), b, n})
	}
	return out
}
