package diff

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff/stats"
)

// rowString renders a row's values in ms: "name flat base→new cum base→new".
func rowString(r FunctionRow) string {
	v := func(x int64) string { return fmt.Sprint(float64(x) / float64(ms)) }
	return fmt.Sprintf("%s flat %s→%s cum %s→%s", r.Function, v(r.FlatBase), v(r.FlatNew), v(r.CumBase), v(r.CumNew))
}

func TestFunctionTable(t *testing.T) {
	// b is called from a and from c, a recurses; b grew by 30 ms in each
	// run, c shrank by 10 ms of its own time.
	base := trees(t,
		"main;a;b 10\nmain;a;a;b 5\nmain;c;b 6\nmain;c 20\nthread=w main;a 4",
		"main;a;b 11\nmain;a;a;b 5\nmain;c;b 5\nmain;c 21\nthread=w main;a 4",
		"main;a;b 9\nmain;a;a;b 5\nmain;c;b 7\nmain;c 19\nthread=w main;a 4",
	)
	nw := trees(t,
		"main;a;b 40\nmain;a;a;b 5\nmain;c;b 6\nmain;c 10\nthread=w main;a 4",
		"main;a;b 43\nmain;a;a;b 5\nmain;c;b 5\nmain;c 11\nthread=w main;a 4",
		"main;a;b 37\nmain;a;a;b 5\nmain;c;b 7\nmain;c 9\nthread=w main;a 4",
	)
	opts := Options{MinDelta: Threshold{Value: 5 * ms}, Normalize: Normalize{Mode: NormalizeNone}, Functions: &FunctionOptions{}}
	res := compare(t, base, nw, opts)
	ft := res.Functions
	var got []string
	for _, r := range ft.Rows {
		got = append(got, rowString(r))
	}
	// By |flat Δ|, then name: b +30, c -10; a and main (flat 0) by name.
	want := []string{
		"b flat 21→51 cum 21→51",
		"c flat 20→10 cum 26→16",
		"a flat 4→4 cum 19→49", // a;a;b counted once; thread w's a too
		"main flat 0→0 cum 45→65",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if ft.Sort != SortFlat || ft.Dropped != 0 || ft.Cutoff != 0 {
		t.Errorf("table %+v", *ft)
	}
	b, c := ft.Rows[0], ft.Rows[1]
	if !b.FlatTest.Significant || !b.CumTest.Significant || b.FlatTest.Low > 30*ms || b.FlatTest.High < 30*ms {
		t.Errorf("b's +30 ms: flat %+v, cum %+v; want significant, the CI around 30 ms", *b.FlatTest, *b.CumTest)
	}
	if !c.FlatTest.Significant || c.FlatTest.High >= 0 {
		t.Errorf("c's -10 ms: %+v; want significant, the CI below 0", *c.FlatTest)
	}
	if a := ft.Rows[2]; a.FlatTest.Significant || a.FlatTest.P != 1 {
		t.Errorf("a's unchanged flat: %+v", *a.FlatTest)
	}

	// By |cum Δ|: b and a +30 by name, main +20, c -10.
	opts.Functions = &FunctionOptions{Sort: SortCum}
	rows := compare(t, base, nw, opts).Functions.Rows
	var names []string
	for _, r := range rows {
		names = append(names, r.Function)
	}
	if got := strings.Join(names, " "); got != "a b main c" {
		t.Errorf("by cum: %s, want a b main c", got)
	}

	// μ = 50 ms: a change of 30 ms is not significant, whatever its p.
	opts.MinDelta = Threshold{Value: 50 * ms}
	opts.Functions = &FunctionOptions{}
	b = compare(t, base, nw, opts).Functions.Rows[0]
	if b.FlatTest.Significant || b.FlatTest.Q > 0.05 {
		t.Errorf("b at μ = 50 ms: %+v; want a small p but not significant", *b.FlatTest)
	}

	// The node fraction drops what changed by no more than its share of
	// the base total: a quarter of 45 ms, more than c's 10 ms.
	opts.Functions = &FunctionOptions{NodeFraction: 0.25}
	ft = compare(t, base, nw, opts).Functions
	if len(ft.Rows) != 3 || ft.Dropped != 1 || ft.Cutoff != 11250*ms/1000 {
		t.Errorf("node fraction 0.25: %d rows, %d dropped, cutoff %d; want 3, 1 (c), 11.25 ms", len(ft.Rows), ft.Dropped, ft.Cutoff)
	}
}

// flatViewOf is the oracle: a tree's function values of the compared type
// (cct.Flat, which counts a recursive function's stack once).
func flatViewOf(tr *cct.Tree) map[string][2]float64 {
	out := map[string][2]float64{}
	for _, e := range cct.Flat(tr) {
		out[e.Function+"@"+e.File] = [2]float64{float64(e.Self[1]), float64(e.Total[1])}
	}
	return out
}

// randomRuns is n runs of random stacks over functions f0..f7, several
// threads and recursion, the new runs with f3's time grown.
func randomRuns(t *testing.T, rng *rand.Rand, n int, grow bool) []*cct.Tree {
	out := make([]*cct.Tree, n)
	for i := range out {
		var lines []string
		for range 60 {
			var frames []string
			for range 1 + rng.IntN(6) {
				frames = append(frames, fmt.Sprintf("f%d", rng.IntN(8)))
			}
			v := 1 + rng.IntN(20)
			if grow && frames[len(frames)-1] == "f3" {
				v += 5
			}
			lines = append(lines, fmt.Sprintf("thread=t%d %s %d", rng.IntN(2), strings.Join(frames, ";"), v))
		}
		out[i] = tree(t, lines...)
	}
	return out
}

// TestFunctionTableMatchesFlatView: every row is the mean of the runs'
// flat views (cct.Flat), new − base, and its test is the test of those
// per-run values: Welch's, with Options.stats.welch, bit for bit.
func TestFunctionTableMatchesFlatView(t *testing.T) {
	rng := rand.New(rand.NewPCG(35, 2))
	for i := range 20 {
		nb, nn := 2+rng.IntN(3), 2+rng.IntN(3)
		base, nw := randomRuns(t, rng, nb, false), randomRuns(t, rng, nn, true)
		opts := Options{MinDelta: Threshold{Value: 5 * ms}, Normalize: Normalize{Mode: NormalizeNone}, Functions: &FunctionOptions{}, stats: statsChoices{welch: true}}
		res := compare(t, base, nw, opts)
		runs := map[string][][2]float64{}
		for _, tr := range append(append([]*cct.Tree{}, base...), nw...) {
			seen := flatViewOf(tr)
			for k := range seen {
				if runs[k] == nil {
					runs[k] = make([][2]float64, nb+nn)
				}
			}
		}
		for r, tr := range append(append([]*cct.Tree{}, base...), nw...) {
			for k, v := range flatViewOf(tr) {
				runs[k][r] = v
			}
		}
		if len(res.Functions.Rows)+res.Functions.Dropped > len(runs) {
			t.Fatalf("case %d: %d rows and %d dropped, of %d functions", i, len(res.Functions.Rows), res.Functions.Dropped, len(runs))
		}
		for _, row := range res.Functions.Rows {
			v := runs[row.Function+"@"+row.File]
			for j, which := range []struct {
				name        string
				b, n        int64
				test        *FunctionTest
				significant bool
			}{{"flat", row.FlatBase, row.FlatNew, row.FlatTest, false}, {"cum", row.CumBase, row.CumNew, row.CumTest, false}} {
				x, y := make([]float64, nb), make([]float64, nn)
				for r := range v {
					if r < nb {
						x[r] = v[r][j]
					} else {
						y[r-nb] = v[r][j]
					}
				}
				if which.b != round(stats.Mean(x)) || which.n != round(stats.Mean(y)) {
					t.Fatalf("case %d: %s %s %d → %d, the flat views' %v → %v", i, row.Function, which.name, which.b, which.n, x, y)
				}
				se, df := stats.WelchSE(x, y)
				d := stats.Mean(y) - stats.Mean(x)
				p := 1.0
				if se > 0 {
					p = min(1, 2*stats.Survival(math.Abs(d)/se, df))
				} else if d != 0 {
					p = 0
				}
				if which.test.Name != "welch" || which.test.P != p {
					t.Fatalf("case %d: %s %s test %+v, want Welch's p %g", i, row.Function, which.name, *which.test, p)
				}
			}
		}
	}
}

// The table is a view: a comparison with it has the causes, graph and
// everything else a comparison without it has, in every mode.
func TestFunctionTableKeepsResult(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	base, nw := randomRuns(t, rng, 3, false), randomRuns(t, rng, 3, true)
	one := synthTreePairs(t)[0]
	for _, tt := range []struct {
		name     string
		base, nw []*cct.Tree
		opts     Options
	}{
		{"stats", base, nw, Options{MinDelta: Threshold{Value: 10 * ms}}},
		{"intersect", base, nw, Options{MinDelta: Threshold{Value: 10 * ms}, Aggregate: Intersect}},
		{"one run a side", []*cct.Tree{one.base}, []*cct.Tree{one.nw}, Options{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := compare(t, tt.base, tt.nw, tt.opts)
			o := tt.opts
			o.Functions = &FunctionOptions{NodeFraction: 0.001}
			got := compare(t, tt.base, tt.nw, o)
			if got.Functions == nil || len(got.Functions.Rows) == 0 {
				t.Fatal("no function table")
			}
			tested := got.Functions.Rows[0].FlatTest != nil
			if tested != (tt.opts.Aggregate != Intersect) {
				t.Errorf("rows tested: %v under %s", tested, tt.name)
			}
			got.Functions = nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the result differs with the function table")
			}
		})
	}
}

func TestFunctionOptionsErrors(t *testing.T) {
	base := trees(t, "main;a 10")
	for _, tt := range []struct {
		fo   FunctionOptions
		want string
	}{
		{FunctionOptions{Sort: "self"}, `function table order "self" must be one of: [flat cum]`},
		{FunctionOptions{NodeFraction: 1}, "node fraction 1 must be at least 0 and below 1"},
		{FunctionOptions{NodeFraction: -0.1}, "node fraction -0.1 must be at least 0 and below 1"},
	} {
		fo := tt.fo
		_, err := Compare(base, base, Options{Functions: &fo})
		if err == nil || err.Error() != tt.want {
			t.Errorf("%+v: error %v, want %q", tt.fo, err, tt.want)
		}
	}
}

// BenchmarkFunctionTable is a comparison of synth's small pair with and
// without the function table: what the table adds.
func BenchmarkFunctionTable(b *testing.B) {
	p := synthTreePairs(b)[0]
	for _, fo := range []*FunctionOptions{nil, {}} {
		b.Run(fmt.Sprintf("table=%v", fo != nil), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				compare(b, []*cct.Tree{p.base}, []*cct.Tree{p.nw}, Options{Functions: fo})
			}
		})
	}
}
