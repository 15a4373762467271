package diff

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/ctdiff/ctdiff/cct"
)

// Two comparisons give causes that say nothing of the program, and both
// were reported without a word: every context of one
// side reads as added and the other's as removed, at p-values of 1e-10.
//
//   - Sides that share almost nothing: a pprof of a Go service against a
//     V8 .cpuprofile of the same workload, under a --metric both have
//     (overlap 0%, 0.75% of the base tree matched), or two unrelated
//     programs. sideWarnings says how little of each side's time lies in
//     calling contexts both have.
//   - One side unsymbolized: a stripped build's frames are module!0xADDR,
//     which match nothing on the symbolized side (Encode's unchanged
//     time "added" as shop!0x4c1a20 at p 3.5e-10). sideWarnings says
//     how much of each side's time is in such frames.
//
// Both are warnings, not errors: the causes stay, and the warning says
// what they are worth.

// SharedMin is the least share of each side's time, in calling contexts
// both sides have, below which sideWarnings speaks. Versions of one
// program share most of their time; a regression, however large, adds a
// subtree beside what stays.
const SharedMin = 0.2

// unsymbolizedName matches frames without a symbol: cct's module!0xADDR
// and bare 0xADDR of a pprof location without lines, ETW's module!? and
// module!0xADDR.
var unsymbolizedName = regexp.MustCompile(`^(?:[^!]*!)?(?:0x[0-9a-fA-F]+|\?)$`)

// symbolMin is the least share of a side's time in unsymbolized frames for
// sideWarnings to speak, and symbolRatio how many times the other side's
// share it must be.
const (
	symbolMin   = 0.02
	symbolRatio = 2
)

// sideWarnings warns when either side has less than SharedMin of its self
// time in union nodes both sides' runs have, and when one side has clearly
// more of its time in unsymbolized frames than the other (a build without
// symbols on one side): one walk of the union's nodes for both.
//
// The runtime's and the VM's own frames (RuntimeGroup: V8's "(idle)" and
// "(program)", Go's collector and scheduler) are left out of the shared
// time: every program of a runtime has them, in the same contexts, and
// two Chrome traces of different pages shared 48% of their time there.
func sideWarnings(res *Result, u *union, kt *keyTable) {
	unsym := make([]bool, len(kt.frames))
	vm := make([]bool, len(kt.frames))
	for k, f := range kt.frames {
		unsym[k] = f.Function != "" && unsymbolizedName.MatchString(f.Function)
		vm[k] = f.Kind == cct.KindFunction && RuntimeGroup(f.frame()) != ""
	}
	var totB, totN, comB, comN, inB, inN float64
	var names []string
	for x := int32(1); int(x) < u.len(); x++ {
		b, n := u.selfBase[x], u.selfNew[x]
		if k := u.key[x]; k >= 0 && vm[k] {
			continue
		}
		totB += b
		totN += n
		if u.baseRuns(x) > 0 && u.newRuns(x) > 0 {
			comB += b
			comN += n
		}
		if k := u.key[x]; k >= 0 && unsym[k] {
			inB += b
			inN += n
			if name := kt.frames[k].Function; len(names) < 3 && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	if totB <= 0 || totN <= 0 {
		return
	}
	res.Shared = min(comB/totB, comN/totN)
	if fb, fn := comB/totB, comN/totN; fb < SharedMin || fn < SharedMin {
		res.warn("the base and new runs share little: %s of the base's time and %s of the new's is in calling contexts both have (frames match by function and file; Go symbols by function): are they profiles of the same program, symbolized alike? The rest reads as added and removed, and causes there say only that the trees differ",
			percent(fb), percent(fn))
	}
	fb, fn := inB/totB, inN/totN
	side, other := "", ""
	switch {
	case fn >= symbolMin && fn >= symbolRatio*fb:
		side, other = fmt.Sprintf("the new runs' (%s)", percent(fn)), fmt.Sprintf("the base's %s", percent(fb))
	case fb >= symbolMin && fb >= symbolRatio*fn:
		side, other = fmt.Sprintf("the base runs' (%s)", percent(fb)), fmt.Sprintf("the new's %s", percent(fn))
	default:
		return
	}
	res.warn("more of %s time is in unsymbolized frames (%s) than %s: was one build stripped, or its symbols not found? Those frames match nothing on the other side, so their time reads as added or removed whether or not it changed",
		side, strings.Join(names, ", "), other)
}

// percent formats a fraction as a percentage with one decimal, or two
// below 1%.
func percent(f float64) string {
	if f < 0.01 {
		return fmt.Sprintf("%.2f%%", 100*f)
	}
	return fmt.Sprintf("%.1f%%", 100*f)
}
