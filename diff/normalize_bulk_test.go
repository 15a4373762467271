package diff

import (
	"fmt"
	"strings"
	"testing"
)

// flatOf makes a side's flat profile of runs runs, every one with the
// functions' self values given (name=value), scaled by f.
func flatOf(runs int, f float64, fns string) *flatProfile {
	p := &flatProfile{self: map[funcKey]float64{}, runs: runs}
	for _, kv := range strings.Fields(fns) {
		var name string
		var v float64
		if _, err := fmt.Sscanf(strings.Replace(kv, "=", " ", 1), "%s %g", &name, &v); err != nil {
			panic(kv)
		}
		p.self[funcKey{function: name}] += v * f * float64(runs)
	}
	return p
}

// The automatic choice between shares and absolute values follows the bulk
// of the program, and only where the data says so.
func TestCheckBulk(t *testing.T) {
	const program = "a=100 b=80 c=60 d=50 e=40 f=30 g=20 h=10"
	const s30, s60, s33 = int64(30e9), int64(60e9), int64(33e9)
	for _, tt := range []struct {
		name      string
		durations [2]int64
		cpu       bool
		minDelta  string
		base, new *flatProfile
		want      NormalizeMode
	}{
		{"equal windows, a got twice as fast: the rest kept its time", [2]int64{s30, s30}, true, "",
			flatOf(3, 1, program), flatOf(3, 1, "a=50 b=80 c=60 d=50 e=40 f=30 g=20 h=10"), NormalizeNone},
		{"equal windows, a regressed by a third of the total, the rest unchanged", [2]int64{s30, s30}, true, "1%",
			flatOf(3, 1, program), flatOf(3, 1, "a=230 b=80 c=60 d=50 e=40 f=30 g=20 h=10"), NormalizeNone},
		{"equal windows that cap the total: a slower a takes time from the rest", [2]int64{s30, s30}, true, "",
			flatOf(3, 1, program), flatOf(3, 0.8, "a=197.5 b=80 c=60 d=50 e=40 f=30 g=20 h=10"), NormalizeShare},
		{"equal windows, more load: everything scaled", [2]int64{s30, s30}, true, "",
			flatOf(3, 1, program), flatOf(3, 1.3, program), NormalizeShare},
		{"equal windows, a small regression (3% of the total)", [2]int64{s30, s30}, true, "",
			flatOf(3, 1, program), flatOf(3, 1, "a=112 b=80 c=60 d=50 e=40 f=30 g=20 h=10"), NormalizeShare},
		{"30 s against 60 s of the same load", [2]int64{s30, s60}, true, "",
			flatOf(5, 1, program), flatOf(5, 2, program), NormalizeShare},
		{"30 s against 60 s, an absolute --min-delta", [2]int64{s30, s60}, true, "50ms",
			flatOf(5, 1, program), flatOf(5, 2, program), NormalizeNone},
		{"30 s against 60 s of wall-clock time", [2]int64{s30, s60}, false, "",
			flatOf(5, 1, program), flatOf(5, 2, program), NormalizeNone},
		{"fixed work 10% slower throughout", [2]int64{s30, s33}, true, "",
			flatOf(5, 1, program), flatOf(5, 1.1, program), NormalizeNone},
		{"durations unknown, twice the samples", [2]int64{0, 0}, true, "",
			flatOf(1, 1, program), flatOf(1, 2, program), NormalizeNone},
		{"30 s against 60 s, too little in common", [2]int64{s30, s60}, true, "",
			flatOf(5, 1, program), flatOf(5, 2, "a=100 x=80 y=60 z=50 u=40 v=30 w=20 h=10"), NormalizeNone},
	} {
		t.Run(tt.name, func(t *testing.T) {
			bd := []int64{tt.durations[0], tt.durations[0]}
			nd := []int64{tt.durations[1], tt.durations[1]}
			nz, err := planNormalization(recordings{durations: [2][]int64{bd, nd}}, tt.cpu, Normalize{}, "nanoseconds", false)
			if err != nil {
				t.Fatal(err)
			}
			planned := nz.Mode
			var th Threshold
			if tt.minDelta != "" {
				if th, err = ParseThreshold(tt.minDelta); err != nil {
					t.Fatal(err)
				}
			}
			nz.checkBulk(tt.base, tt.new, th)
			if nz.Mode != tt.want {
				bk, _ := bulkOf(tt.base, tt.new)
				t.Fatalf("planned %s, checked %s, want %s (bulk %+v)", planned, nz.Mode, tt.want, bk)
			}
			if wantUnit := map[bool]string{true: UnitShare, false: "nanoseconds"}[tt.want == NormalizeShare]; nz.Unit != wantUnit {
				t.Errorf("unit %q, want %q", nz.Unit, wantUnit)
			}
			if nz.Mode != planned && !strings.Contains(nz.Reason, "unchanged within") {
				t.Errorf("reason %q does not say why the plan changed", nz.Reason)
			}
		})
	}
}

// An explicit mode is never revised.
func TestCheckBulkKeepsExplicitModes(t *testing.T) {
	for _, m := range []NormalizeMode{NormalizeShare, NormalizeNone, NormalizeTotal} {
		nz, err := planNormalization(recordings{durations: [2][]int64{{30e9}, {30e9}}}, true, Normalize{Mode: m}, "nanoseconds", false)
		if err != nil {
			t.Fatal(err)
		}
		nz.checkBulk(flatOf(1, 1, "a=100 b=100 c=100"), flatOf(1, 1, "a=10 b=100 c=100"), Threshold{})
		if nz.Mode != m {
			t.Errorf("--normalize %s became %s", m, nz.Mode)
		}
	}
}
