package eval

import (
	"fmt"
	"time"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/diff"
)

// An Engine compares base runs with new runs.
type Engine struct {
	// Name labels the engine's results ("stats μ=50ms").
	Name    string
	Compare func(base, nw []*cct.Tree) (Output, error)
}

// DiffEngine is package diff with opts.
func DiffEngine(name string, opts diff.Options) Engine {
	return Engine{Name: name, Compare: func(base, nw []*cct.Tree) (Output, error) {
		res, err := diff.Compare(base, nw, opts)
		if err != nil {
			return Output{}, err
		}
		return fromDiff(res, base[0]), nil
	}}
}

// DiffEngines returns package diff's default options with each aggregation
// mode and each μ, aggregation mode first.
func DiffEngines(aggs []diff.Aggregate, deltas []time.Duration) []Engine {
	var es []Engine
	for _, a := range aggs {
		for _, d := range deltas {
			o := diff.DefaultOptions()
			o.Aggregate = a
			o.MinDelta = diff.Threshold{Value: int64(d)}
			es = append(es, DiffEngine(fmt.Sprintf("%s μ=%v", a, d), o))
		}
	}
	return es
}

// fromDiff converts a diff.Result. Compression counts function nodes only,
// as ZAM's RQ4 does: thread nodes are neither in the numerator nor in the
// denominator (the first base tree's function nodes).
func fromDiff(res *diff.Result, first *cct.Tree) Output {
	out := Output{}
	for _, c := range res.Causes {
		out.Causes = append(out.Causes, Cause{Path: Path{Thread: c.Thread, Frames: frames(c.Path)}, Kind: string(c.Kind), Delta: c.Delta})
	}
	for _, r := range res.RankedPaths {
		p := Path{Thread: r.Thread, Frames: make([]Frame, len(r.Path))}
		for i, n := range r.Path {
			p.Frames[i] = fromDiffFrame(n.Frame)
		}
		out.Ranked = append(out.Ranked, p)
	}
	for _, g := range res.Graph {
		if !g.IsThread {
			out.CriticalNodes++
		}
	}
	for _, n := range first.Nodes {
		if first.Frames[n.Frame].Kind == cct.KindFunction {
			out.TreeNodes++
		}
	}
	return out
}

func frames(fs []diff.Frame) []Frame {
	out := make([]Frame, len(fs))
	for i, f := range fs {
		out[i] = fromDiffFrame(f)
	}
	return out
}

func fromDiffFrame(f diff.Frame) Frame {
	return Frame{Function: f.Function, File: f.File, Line: int64(f.Line), Column: int64(f.Column)}
}
