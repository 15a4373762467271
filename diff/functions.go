package diff

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/ctdiff/ctdiff/diff/stats"
)

// The per-function table is pprof's -top of a diff (go tool pprof -top
// -diff_base): one row per function, its flat delta (its own time, summed
// over every calling context) and its cumulative delta (its time with its
// callees, each sample counted once however often the function recurs in
// it: the sum over its outermost contexts), as mean per run, new − base.
// It is a view of the same comparison, made from the union tree once the
// critical graph is made, and takes no part in it: the causes are the
// same with and without it.
//
// Where the runs' values are kept (Stats), each row's flat and cum values
// are tested run by run with the test a node's are (moderated t with the
// comparison's noise prior, Welch's t, or untested where a side has one
// run and no prior), two-sided, since a function's time may fall as well
// as grow. The family is every function's flat and cum value that could
// change by μ (its values summed over all runs reach μ × the smaller
// side's runs, the independent filter of statsGraph), corrected with
// Holm's method; a change is significant when its adjusted p-value is at
// most α and it is at least μ, as a cause's must be.

// Sort orders of FunctionOptions, as pprof's -top sorts (by flat) and
// -top -cum.
const (
	SortFlat = "flat"
	SortCum  = "cum"
)

// DefaultNodeFraction is pprof's -nodefraction: functions whose flat and
// cum deltas are both at most this share of the base total are dropped.
const DefaultNodeFraction = 0.005

// FunctionOptions ask Compare for the per-function table
// (Options.Functions).
type FunctionOptions struct {
	// Sort is SortFlat ("" too) or SortCum.
	Sort string
	// NodeFraction drops the functions whose flat and cum deltas are both
	// at most this share of the mean base total (pprof's -nodefraction;
	// 0 keeps every function that changed). Between 0 and 1.
	NodeFraction float64
}

// check validates o; nil asks for no table.
func (o *FunctionOptions) check() error {
	switch {
	case o == nil:
		return nil
	case o.Sort != "" && o.Sort != SortFlat && o.Sort != SortCum:
		return &OptionError{Option: "function table order", Reason: fmt.Sprintf("%q must be one of: [%s %s]", o.Sort, SortFlat, SortCum)}
	case !(o.NodeFraction >= 0 && o.NodeFraction < 1):
		return &OptionError{Option: "node fraction", Reason: fmt.Sprintf("%g must be at least 0 and below 1", o.NodeFraction)}
	}
	return nil
}

// A FunctionTable is the per-function table of a comparison.
type FunctionTable struct {
	// Sort is how Rows are ordered: SortFlat by |Flat| (then name, then
	// |Cum|), SortCum by |Cum| (then name, then |Flat|), as pprof orders.
	Sort string
	// NodeFraction and Cutoff (NodeFraction × the mean base total, in
	// Unit): the functions whose |Flat| and |Cum| are both at most Cutoff
	// are left out, and Dropped counts them.
	NodeFraction float64
	Cutoff       int64
	Dropped      int
	// Tested is the size of the family the adjusted p-values are
	// corrected over; 0 when nothing could be tested (Intersect keeps no
	// per-run values).
	Tested int
	Rows   []FunctionRow
}

// A FunctionRow is one function: its mean values per side and their
// deltas, new − base.
type FunctionRow struct {
	Frame
	FlatBase, FlatNew, Flat int64
	CumBase, CumNew, Cum    int64
	// FlatTest and CumTest are the tests of Flat and Cum; nil when the
	// comparison keeps no per-run values (Intersect).
	FlatTest, CumTest *FunctionTest
}

// A FunctionTest is the two-sided test of one value of a FunctionRow.
type FunctionTest struct {
	// Name is "moderated-t", "welch" or "untested" (a side has one run
	// and there is no noise model): as Test.Name.
	Name string
	// P is the two-sided p-value; Q is P adjusted over the table's
	// family (FunctionTable.Tested) when InFamily, else 1: a value whose
	// means are both below μ, which cannot change by μ, is not in it.
	P, Q     float64
	InFamily bool
	// Low and High bound the 95% confidence interval of the mean delta;
	// both are the delta when untested.
	Low, High int64
	// Significant: Q ≤ α and the delta is at least μ in size.
	Significant bool
}

// A nodeNoise is what statsGraph tested a node's values with: its
// variance prior (nil where none was fitted) and, per union node, the mean
// collector time its subtree holds (nil without collector frames), which
// sets a floor to the variance of the values that hold it.
type nodeNoise struct {
	pr *stats.Prior
	gc []float64
}

// priorHolding is the prior of a value that holds held of collector time,
// as statsGraph's prOf and groupPrior make it.
func (nn *nodeNoise) priorHolding(held float64) *stats.Prior {
	if nn == nil {
		return nil
	}
	if nn.pr == nil || held <= 0 {
		return nn.pr
	}
	return nn.pr.WithFloor(collectorCV * collectorCV * held * held)
}

// functionTally is one function's sums: means per side and, for the
// functions tested, per-run rows (base runs first) and collector time.
type functionTally struct {
	flatB, flatN, cumB, cumN float64
	// slot is 1 + the function's index in the per-run rows, 0 when it
	// has none.
	slot int32
}

// functionTable makes the per-function table of the union u (nBase base
// runs), μ = mu, with the noise the critical graph's tests used (nil for
// none).
func functionTable(u *union, kt *keyTable, nBase int, mu int64, alpha float64, baseTotal int64, noise *nodeNoise, o FunctionOptions) *FunctionTable {
	n, nk := u.len(), len(kt.frames)
	nNew := u.runs - nBase
	topmost := walkOutermost(u, nil, nk, nil)
	t := make([]functionTally, nk)
	for x := int32(1); int(x) < n; x++ {
		if u.depth[x] < 2 {
			continue
		}
		f := &t[u.key[x]]
		f.flatB += u.selfBase[x]
		f.flatN += u.selfNew[x]
		if topmost[x] {
			f.cumB += u.meanBase[x]
			f.cumN += u.meanNew[x]
		}
	}
	if o.Sort == "" {
		o.Sort = SortFlat
	}
	ft := &FunctionTable{Sort: o.Sort, NodeFraction: o.NodeFraction, Cutoff: round(o.NodeFraction * float64(baseTotal)), Rows: []FunctionRow{}}
	cut := float64(ft.Cutoff)
	m := float64(mu)
	// pooled reaches μ: the value's sum over all runs is at least μ
	// times the smaller side's runs, which a mean change of μ either way
	// needs (values are never negative).
	pooled := func(b, nw float64) bool {
		return b*float64(nBase)+nw*float64(nNew) >= m*float64(min(nBase, nNew))
	}
	var keys []key // the functions shown
	var slots []key
	for k := range key(nk) {
		f := &t[k]
		shown := math.Abs(f.flatN-f.flatB) > cut || math.Abs(f.cumN-f.cumB) > cut
		if shown {
			keys = append(keys, k)
		} else if f.flatB != 0 || f.flatN != 0 || f.cumB != 0 || f.cumN != 0 {
			ft.Dropped++
		}
		if shown || pooled(f.flatB, f.flatN) || pooled(f.cumB, f.cumN) {
			slots = append(slots, k)
			f.slot = int32(len(slots))
		}
	}
	var tests []functionTests
	if u.rowsAreMeans || u.pv != nil || u.total != nil {
		tests = testFunctions(u, t, slots, topmost, nBase, noise)
		ft.Tested = adjustFunctions(tests, t, slots, pooled)
	}
	for _, k := range keys {
		f := &t[k]
		r := FunctionRow{Frame: kt.frames[k].frame(),
			FlatBase: round(f.flatB), FlatNew: round(f.flatN), CumBase: round(f.cumB), CumNew: round(f.cumN)}
		r.Flat, r.Cum = r.FlatNew-r.FlatBase, r.CumNew-r.CumBase
		if tests != nil {
			ts := &tests[f.slot-1]
			r.FlatTest, r.CumTest = ts.flat.result(r.Flat, mu, alpha), ts.cum.result(r.Cum, mu, alpha)
		}
		ft.Rows = append(ft.Rows, r)
	}
	sortFunctionRows(ft.Rows, o.Sort)
	return ft
}

// functionTests are one function's two tests.
type functionTests struct{ flat, cum FunctionTest }

// result is t for a row whose delta is d.
func (t FunctionTest) result(d, mu int64, alpha float64) *FunctionTest {
	t.Significant = t.Name != untested && t.Q <= alpha && (d >= mu || -d >= mu)
	return &t
}

// testFunctions tests the flat and cum values of the functions with a
// slot, run by run: each node's self value adds to its function's flat
// row, and an outermost context's inclusive value to its cum row.
func testFunctions(u *union, t []functionTally, slots []key, topmost []bool, nBase int, noise *nodeNoise) []functionTests {
	runs := u.runs
	flat := make([]float64, len(slots)*runs)
	cum := make([]float64, len(slots)*runs)
	flatGC := make([]float64, len(slots))
	cumGC := make([]float64, len(slots))
	var gcSelf []float64
	if noise != nil && noise.gc != nil {
		// The collector time of a node's own value: its subtree's less
		// its children's.
		gcSelf = slices.Clone(noise.gc)
		for x := int32(u.len() - 1); x >= 1; x-- {
			gcSelf[u.parent[x]] -= noise.gc[x]
		}
	}
	row := make([]float64, runs)
	for x := int32(1); int(x) < u.len(); x++ {
		if u.depth[x] < 2 {
			continue
		}
		s := t[u.key[x]].slot - 1
		if s < 0 {
			continue
		}
		addTo(flat[int(s)*runs:int(s+1)*runs], u.selfRow(x, row))
		if gcSelf != nil {
			flatGC[s] += max(gcSelf[x], 0)
		}
		if topmost[x] {
			addTo(cum[int(s)*runs:int(s+1)*runs], u.totalRow(x, row))
			if gcSelf != nil {
				cumGC[s] += noise.gc[x]
			}
		}
	}
	out := make([]functionTests, len(slots))
	parallel(len(slots), func(from, to int) {
		for s := from; s < to; s++ {
			f, c := flat[s*runs:(s+1)*runs], cum[s*runs:(s+1)*runs]
			out[s] = functionTests{
				flat: twoSided(f[:nBase], f[nBase:], noise.priorHolding(flatGC[s])),
				cum:  twoSided(c[:nBase], c[nBase:], noise.priorHolding(cumGC[s])),
			}
		}
	})
	return out
}

func addTo(dst, v []float64) {
	for i, x := range v {
		dst[i] += x
	}
}

// twoSided is the test statsGraph makes of a node's values (testFloats
// chooses it), two-sided, with its 95% confidence interval.
func twoSided(x, y []float64, pr *stats.Prior) FunctionTest {
	var d, se, df float64
	t := testFloats(x, y, pr)
	switch t.Name {
	case "moderated-t":
		d, se, df = pr.Moderated(x, y)
	case "welch":
		d = stats.Mean(y) - stats.Mean(x)
		se, df = stats.WelchSE(x, y)
	default:
		d := round(stats.Mean(y) - stats.Mean(x))
		return FunctionTest{Name: t.Name, P: 1, Q: 1, Low: d, High: d}
	}
	p := 1.0
	switch {
	case se == 0 || math.IsNaN(se):
		if d != 0 {
			p = 0
		}
	default:
		p = min(1, 2*stats.Survival(math.Abs(d)/se, df))
	}
	lo, hi := stats.TInterval(d, se, df)
	return FunctionTest{Name: t.Name, P: p, Q: 1, Low: round(lo), High: round(hi)}
}

// adjustFunctions sets the adjusted p-values of the family: the flat and
// cum values that could change by μ (pooled), corrected with Holm's
// method. It returns the family's size.
func adjustFunctions(tests []functionTests, t []functionTally, slots []key, pooled func(b, nw float64) bool) int {
	var ps []float64
	var at []*FunctionTest
	for s, k := range slots {
		f := &t[k]
		ts := &tests[s]
		if pooled(f.flatB, f.flatN) && ts.flat.Name != untested {
			ps, at = append(ps, ts.flat.P), append(at, &ts.flat)
		}
		if pooled(f.cumB, f.cumN) && ts.cum.Name != untested {
			ps, at = append(ps, ts.cum.P), append(at, &ts.cum)
		}
	}
	for i, q := range stats.Holm(ps) {
		at[i].Q, at[i].InFamily = q, true
	}
	return len(ps)
}

// sortFunctionRows orders rows as pprof's FlatNameOrder (by |Flat|, then
// name, then |Cum|) or, for SortCum, its CumNameOrder (|Cum|, name,
// |Flat|); the file breaks the last ties.
func sortFunctionRows(rows []FunctionRow, order string) {
	abs := func(v int64) int64 {
		if v < 0 {
			return -v
		}
		return v
	}
	slices.SortFunc(rows, func(a, b FunctionRow) int {
		first, second := [2]int64{abs(a.Flat), abs(b.Flat)}, [2]int64{abs(a.Cum), abs(b.Cum)}
		if order == SortCum {
			first, second = second, first
		}
		if c := cmp.Compare(first[1], first[0]); c != 0 {
			return c
		}
		if c := compareStrings(a.Function, b.Function); c != 0 {
			return c
		}
		if c := cmp.Compare(second[1], second[0]); c != 0 {
			return c
		}
		return compareStrings(a.File, b.File)
	})
}

// prior is the prior the tests used, nil without one.
func (nn *nodeNoise) prior() *stats.Prior {
	if nn == nil {
		return nil
	}
	return nn.pr
}
