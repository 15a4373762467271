package report

import "github.com/ctdiff/ctdiff/diff"

// totalExcludes is what a comparison's totals leave out, to append to them:
// ", excluding (idle) 2.19s → 2.19s" for wall-clock timelines, whose
// "(idle)" time is no work (diff.Side.Idle); "" when nothing is left out.
// Without it a total that is half the recording looks like a unit error.
func totalExcludes(res *diff.Result) string {
	if res.Base.Idle == 0 && res.New.Idle == 0 {
		return ""
	}
	return ", excluding (idle) " + FormatValue(res.Base.Idle, res.Unit) + " → " + FormatValue(res.New.Idle, res.Unit)
}
