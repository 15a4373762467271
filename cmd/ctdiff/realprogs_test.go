package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// realProgs are profiles of real Go programs (tools/realprogs) with one
// code change in one function each, three runs a side recorded by
// runtime/pprof at 100 Hz, and of noise-only programs (the same binary on
// both sides). testdata/realprogs/cases.tsv names the changed function.
const realProgs = "../../testdata/realprogs"

type realProg struct{ name, kind, function string }

func readRealProgs(t *testing.T) []realProg {
	t.Helper()
	f, err := os.Open(filepath.Join(realProgs, "cases.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []realProg
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		out = append(out, realProg{name: c[0], kind: c[2], function: c[3]})
	}
	return out
}

// realVerdict is what a comparison of a case says: the top cause's blame,
// how many causes, and how many are off the changed function's path.
type realVerdict struct {
	blame            string
	causes, offPaths int
}

func diffRealProg(t *testing.T, c realProg, old, nw []string) realVerdict {
	t.Helper()
	list := func(side string, runs []string) string {
		var b strings.Builder
		for _, r := range runs {
			abs, err := filepath.Abs(filepath.Join(realProgs, c.name, side, r))
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintln(&b, abs)
		}
		return writeFile(t, t.TempDir(), side+".list", b.String())
	}
	out, errOut, code := ctdiff("diff", "--format", "json", "@"+list("old", old), "@"+list("new", nw))
	if code != exitOK {
		t.Fatalf("%s: exit %d: %s", c.name, code, errOut)
	}
	var doc struct {
		Causes []struct {
			Path  []struct{ Function string }
			Blame *struct{ Function string }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	var v realVerdict
	v.causes = len(doc.Causes)
	for i, cs := range doc.Causes {
		blame, on := "", false
		if cs.Blame != nil {
			blame = cs.Blame.Function
		} else if n := len(cs.Path); n > 0 {
			blame = cs.Path[n-1].Function
		}
		for _, f := range cs.Path {
			on = on || f.Function == c.function
		}
		if i == 0 {
			v.blame = blame
		}
		if !on && blame != c.function {
			v.offPaths++
		}
	}
	return v
}

// On real programs the top cause is charged to the function whose code
// changed: with three runs a side in every case, with one run a side (each
// of the three pairings) in most of them as a tested cause; no cause on a
// noise-only program; at most 2 causes off the changed function's path in
// all. Leaves in the runtime and the standard library were blamed before
// (runtime.mallocgcSmallNoscan, regexp/syntax.parse, background GC): 2 of
// 12 at three runs a side.
func TestRealProgramsBlame(t *testing.T) {
	runs := []string{"run1.pb.gz", "run2.pb.gz", "run3.pb.gz"}
	var changes, hits3, hits1, offPaths int
	for _, c := range readRealProgs(t) {
		v := diffRealProg(t, c, runs, runs)
		offPaths += v.offPaths
		if c.kind == "noise" {
			if v.causes > 0 {
				t.Errorf("%s (noise only), 3 runs a side: %d causes, the first charged to %s", c.name, v.causes, v.blame)
			}
		} else {
			changes++
			if v.blame == c.function {
				hits3++
			} else {
				t.Errorf("%s, 3 runs a side: the top cause is charged to %q, want %s", c.name, v.blame, c.function)
			}
		}
		pairHits := 0
		for _, r := range runs {
			v := diffRealProg(t, c, []string{r}, []string{r})
			offPaths += v.offPaths
			switch {
			case c.kind == "noise" && v.causes > 0:
				t.Errorf("%s (noise only), %s a side: %d causes, the first charged to %s", c.name, r, v.causes, v.blame)
			case v.blame == c.function:
				pairHits++
			}
		}
		if c.kind != "noise" && pairHits >= 2 {
			hits1++
		}
	}
	t.Logf("3 runs a side: %d of %d; one run a side: %d of %d cases (in 2 of their 3 pairings); %d causes off the changed function's path",
		hits3, changes, hits1, changes, offPaths)
	if hits1 < 7 {
		t.Errorf("one run a side names the changed function in %d of %d cases, want 7 or more", hits1, changes)
	}
	if offPaths > 2 {
		t.Errorf("%d causes off the changed function's path, want at most 2", offPaths)
	}
}
