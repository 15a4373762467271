package diff

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

func TestCompareErrors(t *testing.T) {
	one := trees(t, "main;a 10")
	two := trees(t, "main;a 10", "main;a 11")
	for _, tt := range []struct {
		name      string
		base, new []*cct.Tree
		opts      Options
		want      string
	}{
		{"no base", nil, one, Options{}, "need at least one base and one new tree, got 0 and 1"},
		{"nil tree", []*cct.Tree{nil}, one, Options{}, "tree 1 is empty (no root)"},
		{"intersect needs pairs", two, one, Options{Aggregate: Intersect}, "intersect aggregation pairs runs by sorted file name (ZAM Section 3.1) and needs as many base runs as new runs, got 2 and 1"},
		{"bad aggregate", one, one, Options{Aggregate: "mean"}, `aggregate "mean" must be one of: [stats intersect]`},
		{"bad match", one, one, Options{Match: "exact"}, `match "exact" must be one of: [zam parcs]`},
		{"bad alpha", one, one, Options{Alpha: 2}, "alpha 2 must be between 0 and 1"},
		{"metric without functions", one, one, Options{Metric: Metric{Name: "latency", Total: func(*cct.Tree, cct.NodeID) int64 { return 0 }}}, "metric latency lacks a Total or Self function"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compare(tt.base, tt.new, tt.opts)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v, want %s", err, tt.want)
			}
		})
	}
}

// Compare only reads its trees.
func TestCompareDoesNotMutate(t *testing.T) {
	base := trees(t, "main;a;x 100\nmain;b 50", "main;a;x 90\nmain;b 55")
	nw := trees(t, "main;b 50\nmain;a;x 200\nmain;c 70", "main;a;x 210\nmain;b 50\nmain;c 75")
	snapshot := func(ts []*cct.Tree) []string {
		var out []string
		for _, tr := range ts {
			var b strings.Builder
			for i, n := range tr.Nodes {
				b.WriteString(tr.Frames[n.Frame].Function)
				for _, v := range append(slices.Clone(tr.Self(cct.NodeID(i))), tr.Total(cct.NodeID(i))...) {
					b.WriteString(" " + strings.Repeat("x", int(v%7)))
				}
				for _, c := range tr.Children(cct.NodeID(i)) {
					b.WriteString(" c" + tr.Frames[tr.Nodes[c].Frame].Function)
				}
				b.WriteString("\n")
			}
			out = append(out, b.String())
		}
		return out
	}
	before := append(snapshot(base), snapshot(nw)...)
	for _, o := range []Options{{}, {Aggregate: Intersect}, {Match: PARCS}} {
		compare(t, base, nw, o)
	}
	if after := append(snapshot(base), snapshot(nw)...); !reflect.DeepEqual(before, after) {
		t.Error("Compare modified its input trees")
	}
}

func TestSampleMetric(t *testing.T) {
	a := tree(t, "main 10")
	// Same types in another order, and a tree without the type.
	b := cct.New([]cct.ValueType{{Type: "cpu", Unit: "nanoseconds"}, {Type: "samples", Unit: "count"}})
	b.AddChild(cct.RootID, b.Intern(cct.Frame{Kind: cct.KindThread}, cct.FrameInfo{}))
	b.Self(1)[0] = 7 * ms
	b.ComputeTotals()
	m, err := SampleMetric("cpu", a, b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "cpu/nanoseconds" || m.Unit != "nanoseconds" || m.Total(a, 0) != 10*ms || m.Total(b, 0) != 7*ms {
		t.Errorf("metric %s %s: totals %d, %d", m.Name, m.Unit, m.Total(a, 0), m.Total(b, 0))
	}
	if m, _ := SampleMetric("samples", a); m.Unit != "count" || m.Total(a, 0) != 1 {
		t.Errorf("samples metric: %s, total %d", m.Unit, m.Total(a, 0))
	}
	// Time units other than nanoseconds are converted.
	c := cct.New([]cct.ValueType{{Type: "wall", Unit: "microseconds"}})
	c.AddChild(cct.RootID, c.Intern(cct.Frame{Kind: cct.KindThread}, cct.FrameInfo{}))
	c.Self(1)[0] = 5
	c.ComputeTotals()
	if m, _ := SampleMetric("", c); m.Unit != "nanoseconds" || m.Total(c, 0) != 5000 {
		t.Errorf("microseconds metric: %s, total %d, want nanoseconds, 5000", m.Unit, m.Total(c, 0))
	}
	for _, tt := range []struct {
		name  string
		trees []*cct.Tree
		want  string
	}{
		{"alloc", []*cct.Tree{a}, `tree 1: sample type "alloc" not found: must be one of: [samples/count cpu/nanoseconds]`},
		{"", []*cct.Tree{a, c}, "tree 2: sample type wall/microseconds differs from the first tree's cpu/nanoseconds"},
		{"cpu", nil, `no trees to resolve sample type "cpu" in`},
	} {
		if _, err := SampleMetric(tt.name, tt.trees...); err == nil || err.Error() != tt.want {
			t.Errorf("SampleMetric(%q) err = %v, want %s", tt.name, err, tt.want)
		}
	}
}

// ParseThreshold reads μ as a user writes it; in checks it against the
// unit of the compared values.
func TestParseThreshold(t *testing.T) {
	for _, tt := range []struct {
		in, unit string
		parsed   Threshold // ParseThreshold's
		want     Threshold // in unit
		err      string
	}{
		{"50ms", "nanoseconds", Threshold{Value: 50 * ms, Unit: Nanoseconds}, Threshold{Value: 50 * ms}, ""},
		{"1.5s", "nanoseconds", Threshold{Value: 1500 * ms, Unit: Nanoseconds}, Threshold{Value: 1500 * ms}, ""},
		{"2ms", "microseconds", Threshold{Value: 2 * ms, Unit: Nanoseconds}, Threshold{Value: 2000}, ""},
		{"50µs", "nanoseconds", Threshold{Value: 50000, Unit: Nanoseconds}, Threshold{Value: 50000}, ""},
		{"1%", "nanoseconds", Threshold{Share: 0.01}, Threshold{Share: 0.01}, ""},
		{" 0.5% ", "count", Threshold{Share: 0.005}, Threshold{Share: 0.005}, ""},
		{"5%", UnitShare, Threshold{Share: 0.05}, Threshold{Share: 0.05}, ""},
		{"1000", "count", Threshold{Value: 1000, Unit: Count}, Threshold{Value: 1000}, ""},
		{"1MB", "bytes", Threshold{Value: 1 << 20, Unit: Bytes}, Threshold{Value: 1 << 20}, ""},
		{"1.5 KiB", "bytes", Threshold{Value: 1536, Unit: Bytes}, Threshold{Value: 1536}, ""},
		{"100b", "bytes", Threshold{Value: 100, Unit: Bytes}, Threshold{Value: 100}, ""},
		{"1m", "nanoseconds", Threshold{Value: 60e9, Unit: Nanoseconds}, Threshold{Value: 60e9}, ""},
		{"0", "count", Threshold{}, Threshold{}, `"0": must be positive`},
		{"-5ms", "nanoseconds", Threshold{}, Threshold{}, `"-5ms": must be positive`},
		{"0MB", "bytes", Threshold{}, Threshold{}, `"0MB": must be positive`},
		{"0.1B", "bytes", Threshold{}, Threshold{}, `"0.1B": is below one byte`},
		{"9000000TB", "bytes", Threshold{}, Threshold{}, `"9000000TB": is too large`},
		{"150%", "nanoseconds", Threshold{}, Threshold{}, `"150%": want a share between 0% and 100%, such as 1%`},
		{"fast", "nanoseconds", Threshold{}, Threshold{}, `"fast": want a duration such as 50ms, a share such as 1%, a size such as 1MB or a count such as 100`},
		{"1e3", "count", Threshold{}, Threshold{}, `"1e3": want a duration such as 50ms, a share such as 1%, a size such as 1MB or a count such as 100`},
		{"50", "nanoseconds", Threshold{Value: 50, Unit: Count}, Threshold{},
			`min delta "50": a number without a unit is ambiguous for a time metric (m): write a duration such as 50ms or 50us, or a share of the base total such as 1%`},
		{"50", UnitShare, Threshold{Value: 50, Unit: Count}, Threshold{}, `min delta "50": the values are shares of each run's total: use a share such as 1%`},
		{"50ms", UnitShare, Threshold{Value: 50 * ms, Unit: Nanoseconds}, Threshold{}, `min delta "50ms": the values are shares of each run's total: use a share such as 1%`},
		{"1000", "bytes", Threshold{Value: 1000, Unit: Count}, Threshold{},
			`min delta "1000": a number without a unit is ambiguous for a byte metric (m): write a size such as 1000B, 1000kB or 1000MB, or a share of the base total such as 1%`},
		{"50ms", "count", Threshold{Value: 50 * ms, Unit: Nanoseconds}, Threshold{}, `min delta "50ms": a duration needs a time metric, and m is not one: use a number or a share such as 1%`},
		{"50ms", "bytes", Threshold{Value: 50 * ms, Unit: Nanoseconds}, Threshold{}, `min delta "50ms": a duration needs a time metric, and m is not one: use a size such as 1MB or a share such as 1%`},
		{"2kB", "count", Threshold{Value: 2048, Unit: Bytes}, Threshold{}, `min delta "2kB": a size needs a byte metric, and m is not one: use a number or a share such as 1%`},
		{"500ns", "milliseconds", Threshold{Value: 500, Unit: Nanoseconds}, Threshold{}, `min delta "500ns": is below one millisecond`},
	} {
		parsed, err := ParseThreshold(tt.in)
		if err == nil && parsed != tt.parsed {
			t.Errorf("ParseThreshold(%q) = %+v, want %+v", tt.in, parsed, tt.parsed)
		}
		var got Threshold
		if err == nil {
			got, err = parsed.in(tt.unit, "m")
		}
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseThreshold(%q) in %s: err = %v, want %s", tt.in, tt.unit, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseThreshold(%q) in %s = %+v, %v; want %+v", tt.in, tt.unit, got, err, tt.want)
		}
	}
}

// ZAM Section 3.2: only what is in every pair's critical graph stays, with
// averaged times.
func TestIntersect(t *testing.T) {
	base := trees(t, "m;a 100\nm;b 100", "m;a 100\nm;b 100", "m;a 100\nm;b 100")
	nw := trees(t,
		"m;a 200\nm;b 160",
		"m;a 180\nm;b 100",
		"m;a 220\nm;b 100\nm;noise 90",
	)
	res := compare(t, base, nw, Options{Aggregate: Intersect})
	if got := causeLines(res); !slices.Equal(got, []string{"regressed 100 m;a"}) {
		t.Errorf("causes %q, want a +100 (mean of 100, 80, 120)", got)
	}
	if c := res.Causes[0]; c.Base != 100*ms || c.New != 200*ms || c.Stats != nil {
		t.Errorf("cause %+v, want base 100 ms, new 200 ms, no stats", c)
	}
}

// Under a normalization that lifts Algorithm 2's condition on ancestors
// (share, total), a pair's graph holds each grown node's ancestors as
// context. What grew in one pair only leaves the intersection, and its
// ancestors, in every pair as context, must leave with it: they did not
// grow (a null comparison reported "m" as a cause, 0% → 0%).
func TestIntersectDropsBareContexts(t *testing.T) {
	base := trees(t, "m;a 100\nm;b 100\nm;c 100", "m;a 100\nm;b 100\nm;c 100")
	nw := trees(t, "m;a 150\nm;b 100\nm;c 100", "m;a 100\nm;b 150\nm;c 100")
	share := Normalize{Mode: NormalizeShare}
	res := compare(t, base, nw, Options{Aggregate: Intersect, Normalize: share})
	if got := causeLines(res); len(got) != 0 {
		t.Errorf("causes %q, want none: a grew in one pair, b in the other, m in neither", got)
	}
	if len(res.Graph) != 0 {
		t.Errorf("critical graph %+v, want empty", res.Graph)
	}
	// What grew in both pairs stays, with its context.
	nw = trees(t, "m;a 150\nm;b 100\nm;c 100", "m;a 160\nm;b 150\nm;c 100")
	res = compare(t, base, nw, Options{Aggregate: Intersect, Normalize: share})
	if got := causeLines(res); len(got) != 1 || !strings.HasSuffix(got[0], " m;a") {
		t.Errorf("causes %q, want m;a", got)
	}
}

// A callee inlined in the new version, its frame gone, moves its time
// into its caller's own: the caller's self time grows significantly while
// its inclusive time does not, and that is no regression. A
// caller whose own code got slower besides is one, by what it grew beyond
// the callee's time.
func TestInlinedCalleeIsNoRegression(t *testing.T) {
	runs := func(lines func(i int) string) []*cct.Tree {
		var rs []string
		for i := range 5 {
			rs = append(rs, lines(i))
		}
		return trees(t, rs...)
	}
	other := func(i int) string {
		return fmt.Sprintf("m;h;other %d\nm;h;more %d\nm;g;x %d\nm;g;y %d", 300+7*i, 200-5*i, 150+3*i, 90+2*(i%3))
	}
	base := runs(func(i int) string { return fmt.Sprintf("m;h;enc %d\nm;h;enc;marshal %d\n", 120+i, 150-i) + other(i) })
	for _, tt := range []struct {
		name  string
		extra int // ms of new self time of enc beyond marshal's
		want  []string
	}{
		{"inlined", 0, nil},
		// Significant once the callee counts as the caller's own time,
		// but below μ: the mean gate (vanishedCallees) keeps it out.
		{"inlined and a little slower", 30, nil},
		{"inlined and slower", 200, []string{"regressed 200.4 m;h;enc"}},
	} {
		nw := runs(func(i int) string { return fmt.Sprintf("m;h;enc %d\n", 270+tt.extra+(i%2)) + other(4-i) })
		res := compare(t, base, nw, Options{MinDelta: Threshold{Value: 50 * ms}, Normalize: Normalize{Mode: NormalizeNone}})
		if got := causeLines(res); !slices.Equal(got, tt.want) {
			t.Errorf("%s: causes %q, want %q", tt.name, got, tt.want)
		}
	}
	// The mirror: a function no longer inlined appears with
	// the time its caller's self time lost, and is no new work; a new
	// call that costs time of its own is.
	inlined := runs(func(i int) string { return fmt.Sprintf("m;h;enc %d\n", 270+(i%2)) + other(4-i) })
	for _, tt := range []struct {
		name string
		enc  int // ms of enc's self time in the new runs
		want []string
	}{
		{"no longer inlined", 120, nil},
		{"a new call", 270, []string{"added 148 m;h;enc;marshal"}},
	} {
		nw := runs(func(i int) string { return fmt.Sprintf("m;h;enc %d\nm;h;enc;marshal %d\n", tt.enc+i, 150-i) + other(i) })
		res := compare(t, inlined, nw, Options{MinDelta: Threshold{Value: 50 * ms}, Normalize: Normalize{Mode: NormalizeNone}})
		if got := causeLines(res); !slices.Equal(got, tt.want) {
			t.Errorf("%s: causes %q, want %q", tt.name, got, tt.want)
		}
	}
}

// Threads present on one side only are reported.
func TestThreadWarnings(t *testing.T) {
	res := compare(t, trees(t, "thread=main a 10"), trees(t, "thread=main a 10\nthread=gc sweep 5"), Options{})
	if got := strings.Join(res.Warnings, "\n"); !strings.Contains(got, `thread "gc" occurs only in the new runs`) {
		t.Errorf("warnings %q", got)
	}
	// A pool resized: one warning for the pool, none per thread.
	res = compare(t, trees(t, "thread=w-1 a 10\nthread=w-2 a 10\nthread=main m 5"), trees(t, "thread=w-1 a 5\nthread=w-2 a 5\nthread=w-3 a 5\nthread=w-4 a 5\nthread=main m 5"), Options{})
	if got := strings.Join(res.Warnings, "\n"); !strings.Contains(got, `the thread pool of "w-3" has 2 threads in the base runs and 4 in the new`) || strings.Contains(got, "occurs only") {
		t.Errorf("warnings %q", got)
	}
	res = compare(t, trees(t, "thread=main a 10"), trees(t, "thread=ui a 10"), Options{})
	if got := strings.Join(res.Warnings, "\n"); !strings.Contains(got, `no thread of the new runs matches a thread of the base runs (threads match by name and ordinal): base has ["main"], new has ["ui"]`) {
		t.Errorf("warnings %q", got)
	}
}

// Every step is iterative: stacks 100,000 frames deep compare fine.
func TestDeepStacks(t *testing.T) {
	const depth = 100_000
	line := func(v string) string {
		var b strings.Builder
		for i := range depth {
			if i > 0 {
				b.WriteByte(';')
			}
			b.WriteString([]string{"rec", "helper", "step"}[i%3])
		}
		return b.String() + " " + v
	}
	base := trees(t, line("100"), line("101"))
	nw := trees(t, line("180"), line("178"))
	for _, o := range []Options{{}, {Aggregate: Intersect}, {Match: PARCS}} {
		res := compare(t, base, nw, o)
		if len(res.Causes) != 1 || len(res.Causes[0].Path) != depth {
			t.Fatalf("%+v: %d causes, want the leaf at depth %d", o, len(res.Causes), depth)
		}
		if len(res.RankedPaths) != 1 || len(res.RankedPaths[0].Path) != depth {
			t.Fatalf("%+v: ranked paths %d", o, len(res.RankedPaths))
		}
	}
}

func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{"50ms", "1%", "0.5%", "1000", "1.5s", "-1ms", "100%", "1e3", "%", "ms", "9223372036854775807ns", "1MB", "1.5 KiB", "0.5B", "1e30TB"} {
		f.Add(s, "nanoseconds")
		f.Add(s, "count")
		f.Add(s, "bytes")
		f.Add(s, UnitShare)
	}
	f.Fuzz(func(t *testing.T, s, unit string) {
		th, err := ParseThreshold(s)
		if err != nil {
			if !strings.HasPrefix(err.Error(), strconv.Quote(strings.TrimSpace(s))) {
				t.Errorf("error %q does not start with the quoted input", err)
			}
			return
		}
		if th.Value < 0 || th.Share < 0 || th.Share > 1 || (th.Value == 0) == (th.Share == 0) || (th.Share > 0) != (th.Unit == InValues) {
			t.Errorf("ParseThreshold(%q) = %+v", s, th)
		}
		again, err := ParseThreshold(th.String())
		if err != nil || again != th && th.Share == 0 {
			t.Errorf("ParseThreshold(%q) = %+v, written %q, read again %+v, %v", s, th, th.String(), again, err)
		}
		v, err := th.in(unit, "m")
		if err != nil {
			var me *MinDeltaError
			if !errors.As(err, &me) || me.Threshold != th || me.Unit != unit {
				t.Errorf("%+v in %q: err = %#v", th, unit, err)
			}
			return
		}
		if v.Unit != InValues {
			t.Errorf("%+v in %q = %+v, not in the values' unit", th, unit, v)
		}
		if v.resolve(1e9) < 1 {
			t.Errorf("resolved μ below 1 for %+v", v)
		}
	})
}

// A Go function is its package-qualified name wherever the source was
// checked out, so two builds from different directories (or one with
// -trimpath) match; other languages' names need their file (script or
// module) to be the same function.
func TestGoFramesMatchAcrossCheckouts(t *testing.T) {
	for _, tc := range []struct {
		name           string
		base, new      string
		wantCommonTree float64 // thread, main and the leaf: 100%
	}{
		{
			name:           "Go, two checkout directories",
			base:           "main.main@/home/a/src/main.go;example.com/app/db.Query@/home/a/src/db/db.go 100",
			new:            "main.main@/ci/build-7/main.go;example.com/app/db.Query@/ci/build-7/db/db.go 100",
			wantCommonTree: 100,
		},
		{
			name:           "Go, -trimpath on one side",
			base:           "main.main@/home/a/src/main.go;runtime.memmove@/usr/local/go/src/runtime/memmove_amd64.s 100",
			new:            "main.main@example.com/app/main.go;runtime.memmove@runtime/memmove_amd64.s 100",
			wantCommonTree: 100,
		},
		{
			name:           "JavaScript, same name in another script",
			base:           "main@app.js;render@a.js 100",
			new:            "main@app.js;render@b.js 100",
			wantCommonTree: 200.0 / 3, // render is another function
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := trees(t, tc.base, tc.new)
			res, err := Compare(ts[:1], ts[1:], Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Overlap.CommonTree; math.Abs(got-tc.wantCommonTree) > 0.01 {
				t.Errorf("common tree %.2f%%, want %.2f%%", got, tc.wantCommonTree)
			}
		})
	}
}

// The totals leave out "(idle)" (isIdle), and Side.Idle says how much:
// the mean over the runs, normalized like the totals.
func TestSideIdle(t *testing.T) {
	base := trees(t,
		"thread=main work 300\nthread=main (idle) 700\nthread=w (idle) 100",
		"thread=main work 300\nthread=main (idle) 500\nthread=w (idle) 100",
	)
	nw := trees(t, "thread=main work 400\nthread=main (idle) 600", "thread=main work 400\nthread=main (idle) 600")
	for _, tt := range []struct {
		norm                      Normalize
		baseTotal, baseIdle, newI int64
	}{
		{Normalize{Mode: NormalizeNone}, 300 * ms, 700 * ms, 600 * ms},
		// total: the base is scaled to the new total, 400/300.
		{Normalize{Mode: NormalizeTotal}, 400 * ms, 933333333, 600 * ms},
	} {
		res := compare(t, base, nw, Options{Normalize: tt.norm})
		if res.Base.Total != tt.baseTotal || res.Base.Idle != tt.baseIdle || res.New.Idle != tt.newI {
			t.Errorf("%s: base total %d idle %d, new idle %d; want %d, %d, %d", tt.norm.Mode,
				res.Base.Total, res.Base.Idle, res.New.Idle, tt.baseTotal, tt.baseIdle, tt.newI)
		}
	}
	if res := compare(t, trees(t, "thread=main work 300"), trees(t, "thread=main work 400"), Options{}); res.Base.Idle != 0 || res.New.Idle != 0 {
		t.Errorf("no (idle) frames, yet Idle %d and %d", res.Base.Idle, res.New.Idle)
	}
}
