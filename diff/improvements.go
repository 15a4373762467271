package diff

// improvements are the causes of the mirrored critical graph (the sides
// swapped, criticalGraph.improved), told in the comparison's own terms:
// base and new put back, deltas negative, "added" a removed call.
func improvements(cg criticalGraph, kt *keyTable, own ownership) []Cause {
	if cg.improved == nil || cg.untested {
		return []Cause{}
	}
	_, causes, ids := assemble(cg.improved, cg.mirror, kt)
	// Blamed on the mirrored union, where a removed call is a new one.
	b := newBlamer(cg.mirror, kt, own)
	nodes := make([]int32, len(causes))
	for i := range causes {
		c := &causes[i]
		c.Blame, nodes[i] = b.blame(ids[c.Node], c.Thread)
		c.Node = -1
	}
	orderByBlame(causes, nodes, cg.mirror, 1)
	for i := range causes {
		flipCause(&causes[i])
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
	if b := c.Blame; b != nil {
		f := *b
		f.Base, f.New, f.Delta = b.New, b.Base, -b.Delta
		f.Breakdown = make([]Step, len(b.Breakdown))
		for i, s := range b.Breakdown {
			s.Base, s.New, s.Delta = s.New, s.Base, -s.Delta
			f.Breakdown[i] = s
		}
		f.Also = make([]Charge, len(b.Also))
		for i, a := range b.Also {
			a.Base, a.New, a.Delta = a.New, a.Base, -a.Delta
			f.Also[i] = a
		}
		if len(f.Breakdown) == 0 {
			f.Breakdown = nil
		}
		if len(f.Also) == 0 {
			f.Also = nil
		}
		c.Blame = &f
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
