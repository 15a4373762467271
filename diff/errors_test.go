package diff

import (
	"errors"
	"reflect"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
)

// Compare's refusals a caller explains in its own terms are typed, with the
// fields it needs, and their messages name no flag.
func TestCompareTypedErrors(t *testing.T) {
	t.Parallel()
	one := trees(t, "main;a 10")
	two := trees(t, "main;a 10", "main;a 11")
	counts := cct.New([]cct.ValueType{{Type: "wall", Unit: "microseconds"}})
	counts.AddChild(cct.RootID, counts.Intern(cct.Frame{Kind: cct.KindThread}, cct.FrameInfo{}))
	counts.Self(1)[0] = 5
	counts.ComputeTotals()
	for _, tt := range []struct {
		name      string
		base, new []*cct.Tree
		opts      Options
		target    any // a pointer to the error type expected
		want      any // the error's value
		msg       string
	}{
		{"unpaired runs", two, one, Options{Aggregate: Intersect}, new(*UnpairedRunsError), &UnpairedRunsError{Base: 2, New: 1},
			"intersect aggregation pairs runs by sorted file name (ZAM Section 3.1) and needs as many base runs as new runs, got 2 and 1"},
		{"missing sample type", one, two, Options{SampleType: "alloc"}, new(*SampleTypeError), nil,
			`tree 1: sample type "alloc" not found: must be one of: [samples/count cpu/nanoseconds]`},
		{"mixed sample types", one, []*cct.Tree{counts}, Options{}, new(*MixedSampleTypesError),
			&MixedSampleTypesError{Tree: 1, Type: cct.ValueType{Type: "wall", Unit: "microseconds"}, First: cct.ValueType{Type: "cpu", Unit: "nanoseconds"}},
			"tree 2: sample type wall/microseconds differs from the first tree's cpu/nanoseconds"},
		{"iteration without counts", one, one, Options{Normalize: Normalize{Mode: NormalizeIteration}}, new(*NormalizeError),
			&NormalizeError{Normalize: Normalize{Mode: NormalizeIteration}, NoIterations: true, detail: "iteration needs benchmark outputs with iteration counts"},
			"normalize iteration needs benchmark outputs with iteration counts"},
		{"per without a function", one, one, Options{Normalize: Normalize{Mode: NormalizePer}}, new(*NormalizeError), nil,
			"normalize per=FUNC needs a function name"},
		{"duration on a count metric", one, one, Options{SampleType: "samples", MinDelta: Threshold{Value: 50 * ms, Unit: Nanoseconds}}, new(*MinDeltaError), nil,
			`min delta "50ms": a duration needs a time metric, and samples/count is not one: use a number or a share such as 1%`},
		{"duration on shares", one, one, Options{Normalize: Normalize{Mode: NormalizeShare}, MinDelta: Threshold{Value: 50 * ms, Unit: Nanoseconds}}, new(*MinDeltaError),
			&MinDeltaError{Threshold: Threshold{Value: 50 * ms, Unit: Nanoseconds}, Metric: "cpu/nanoseconds", Unit: UnitShare, Reason: "the values are shares of each run's total: use a share such as 1%"},
			`min delta "50ms": the values are shares of each run's total: use a share such as 1%`},
		{"number on shares", one, one, Options{Normalize: Normalize{Mode: NormalizeShare}, MinDelta: Threshold{Value: 5, Unit: Count}}, new(*MinDeltaError), nil,
			`min delta "5": the values are shares of each run's total: use a share such as 1%`},
		{"number on a time metric", one, one, Options{MinDelta: Threshold{Value: 50, Unit: Count}}, new(*MinDeltaError), nil,
			`min delta "50": a number without a unit is ambiguous for a time metric (cpu/nanoseconds): write a duration such as 50ms or 50us, or a share of the base total such as 1%`},
		{"size on a time metric", one, one, Options{MinDelta: Threshold{Value: 1 << 20, Unit: Bytes}}, new(*MinDeltaError), nil,
			`min delta "1MB": a size needs a byte metric, and cpu/nanoseconds is not one: use a duration such as 50ms or a share such as 1%`},
		{"size on a count metric", one, one, Options{SampleType: "samples", MinDelta: Threshold{Value: 100, Unit: Bytes}}, new(*MinDeltaError), nil,
			`min delta "100B": a size needs a byte metric, and samples/count is not one: use a number or a share such as 1%`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Compare(tt.base, tt.new, tt.opts)
			if err == nil || err.Error() != tt.msg {
				t.Fatalf("err = %v, want %s", err, tt.msg)
			}
			if !errors.As(err, tt.target) {
				t.Fatalf("err %T is not a %T", err, tt.target)
			}
			if got := reflect.ValueOf(tt.target).Elem().Interface(); tt.want != nil && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("err = %#v, want %#v", got, tt.want)
			}
		})
	}
}

// MinDelta is read in the unit of the normalized values: a share of each
// run's total under share, the metric's unit otherwise; a *MinDeltaError
// carries the unit it was checked against.
func TestCompareMinDeltaUnits(t *testing.T) {
	t.Parallel()
	base, nw := trees(t, "main;a 100", "main;a 110"), trees(t, "main;a 200", "main;a 210")
	for _, tt := range []struct {
		text   string
		metric string
		norm   NormalizeMode
		want   int64 // Result.MinDelta
	}{
		{"20ms", "", NormalizeNone, 20 * ms},
		{"2500us", "", NormalizeNone, 2500000},
		{"1%", "", NormalizeNone, 1050 * ms / 1000},
		{"1%", "", NormalizeShare, 1e7},
		{"3", "samples", NormalizeNone, 3},
		{"1%", "samples", NormalizeShare, 1e7},
	} {
		th, err := ParseThreshold(tt.text)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Compare(base, nw, Options{MinDelta: th, SampleType: tt.metric, Normalize: Normalize{Mode: tt.norm}})
		if err != nil {
			t.Fatalf("%s under %s: %v", tt.text, tt.norm, err)
		}
		if res.MinDelta != tt.want {
			t.Errorf("%s under %s: μ = %d, want %d", tt.text, tt.norm, res.MinDelta, tt.want)
		}
	}
	_, err := Compare(base, nw, Options{MinDelta: Threshold{Value: 2500000, Unit: Count}, Normalize: Normalize{Mode: NormalizeShare}})
	var me *MinDeltaError
	if !errors.As(err, &me) || me.Unit != UnitShare || me.AutoShare {
		t.Errorf("err = %#v, want a *MinDeltaError in %s, not chosen automatically", err, UnitShare)
	}
}
