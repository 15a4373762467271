package diff

// improvements are the causes of the mirrored critical graph (the sides
// swapped, criticalGraph.improved), told in the comparison's own terms:
// base and new put back, deltas negative, "added" a removed call.
func improvements(cg criticalGraph, kt *keyTable, b *blamer) []Cause {
	if cg.improved == nil || cg.untested {
		return []Cause{}
	}
	_, causes, ids := assemble(cg.improved, cg.mirror, kt)
	for i := range causes {
		c := &causes[i]
		flipCause(c)
		c.Blame = b.blame(ids[c.Node], c.Thread)
		c.Node = -1
	}
	return causes
}

// flipCause turns a cause of the mirrored union into an improvement of
// the comparison: sides swapped back, the delta and its interval negated.
func flipCause(c *Cause) {
	c.Base, c.New, c.Delta = c.New, c.Base, -c.Delta
	if c.Kind == Added {
		c.Kind = Removed
	} else {
		c.Kind = Improved
	}
	if t := c.Stats; t != nil {
		f := *t
		f.Low, f.High = -t.High, -t.Low
		f.SelfBase, f.SelfNew = t.SelfNew, t.SelfBase
		c.Stats = &f
	}
	if sp := c.Spread; sp != nil {
		f := *sp
		f.Contexts = make([]SpreadContext, len(sp.Contexts))
		for i, x := range sp.Contexts {
			x.Base, x.New, x.Delta = x.New, x.Base, -x.Delta
			f.Contexts[i] = x
		}
		c.Spread = &f
	}
}
