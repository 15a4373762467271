package main

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/diff"
)

// The library's typed errors, wrapped as the commands wrap them, are
// worded with the flags that change them; the result still unwraps to the
// library's error.
func TestFlagHints(t *testing.T) {
	t.Parallel()
	paths := []string{"old/1.pb.gz", "old/2.pb.gz", "new/1.pb.gz"}
	for _, tt := range []struct {
		name string
		err  error
		hint func(error) error
		want string
	}{
		{"input over the limit", fmt.Errorf("in.txt: line 7: %w", &convert.SizeLimitError{Limit: 1000}), inputFlagHints,
			"in.txt: line 7: decompressed input exceeds the size limit (1000 bytes; raise it with --max-input-size)"},
		{"zip entry over the limit", fmt.Errorf("t.zip: %w", &convert.SizeLimitError{Limit: 1000, Entry: "t.perfView.xml", Size: 4203}), inputFlagHints,
			"t.zip: decompressed input exceeds the size limit: zip entry t.perfView.xml is 4203 bytes (raise it with --max-input-size)"},
		{"unknown format", fmt.Errorf("x.bin: %w", &convert.UnknownFormatError{Formats: []string{"a", "b"}}), inputFlagHints,
			"x.bin: unknown profile format: the content matches none of: a, b (use --from to force one)"},
		{"other input error", errors.New("x.bin: empty input: no profile data"), inputFlagHints,
			"x.bin: empty input: no profile data"},
		{"unpaired runs", &diff.UnpairedRunsError{Base: 2, New: 1}, func(err error) error { return flagError(err, paths, nil) },
			"--aggregate intersect pairs runs by sorted file name (ZAM Section 3.1) and needs as many base runs as new runs, got 2 and 1: use --aggregate stats"},
		{"mixed sample types", &diff.MixedSampleTypesError{Tree: 2, Type: diffType("samples", "count"), First: diffType("cpu", "nanoseconds")}, func(err error) error { return flagError(err, paths, nil) },
			"new/1.pb.gz: compares samples/count, and old/1.pb.gz compares cpu/nanoseconds: pick a type both have with --metric"},
		{"mixed sample types of two kinds", &diff.MixedSampleTypesError{Tree: 2, Type: diffType("inuse_space", "bytes"), First: diffType("cpu", "nanoseconds")},
			func(err error) error {
				return flagError(err, paths, []inputKind{goCPU, goCPU, {format: "pprof", types: []cct.ValueType{diffType("inuse_space", "bytes")}, period: diffType("space", "bytes")}})
			},
			"the inputs are different kinds of profile: new/1.pb.gz is a heap profile (pprof: inuse_space/bytes), and old/1.pb.gz is a CPU profile (pprof: samples/count, cpu/nanoseconds); they have no sample type in common, so they do not compare"},
		{"per without a function", perNoFunc(t), func(err error) error { return flagError(err, paths, nil) },
			"--normalize per=FUNC needs a function name"},
		{"duration in a share unit", &diff.MinDeltaError{Threshold: diff.Threshold{Value: 5e7, Unit: diff.Nanoseconds}, Unit: diff.UnitShare, Reason: "shares"}, func(err error) error { return flagError(err, paths, nil) },
			`--min-delta "50ms": values are shares of each run's total (--normalize share): use a share such as 1%`},
		{"number in a share unit chosen automatically", &diff.MinDeltaError{Threshold: diff.Threshold{Value: 5, Unit: diff.Count}, Unit: diff.UnitShare, AutoShare: true, Reason: "shares"}, func(err error) error { return flagError(err, paths, nil) },
			`--min-delta "5": values are shares of each run's total (--normalize auto chose share for these inputs): use a share such as 1%`},
		{"number for a time metric", &diff.MinDeltaError{Threshold: diff.Threshold{Value: 50, Unit: diff.Count}, Unit: "nanoseconds", Reason: "write 50ms"}, func(err error) error { return flagError(err, paths, nil) },
			`--min-delta "50": write 50ms`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.hint(tt.err)
			if got.Error() != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
			if !errors.Is(got, tt.err) {
				t.Errorf("%v does not unwrap to %v", got, tt.err)
			}
		})
	}
}

// goCPU is the kind of a Go CPU profile.
var goCPU = inputKind{format: "pprof", types: []cct.ValueType{diffType("samples", "count"), diffType("cpu", "nanoseconds")}, period: diffType("cpu", "nanoseconds")}

func diffType(typ, unit string) cct.ValueType { return cct.ValueType{Type: typ, Unit: unit} }

// perNoFunc is the diff.NormalizeError of per= without a function.
func perNoFunc(t *testing.T) error {
	_, err := diff.PlanNormalization(nil, nil, diff.Normalize{Mode: diff.NormalizePer}, "nanoseconds", false)
	if err == nil {
		t.Fatal("per= without a function planned")
	}
	return err
}
