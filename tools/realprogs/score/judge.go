package main

import (
	"encoding/json"
)

// diffOutput is the part of ctdiff's JSON (schema ctdiff.diff/v1) that the
// score reads: the causes (largest first) and the untested findings.
type diffOutput struct {
	Causes   []cause `json:"causes"`
	Untested []cause `json:"untested"`
}

type frame struct {
	Function string `json:"function"`
	File     string `json:"file"`
}

type cause struct {
	Path []frame `json:"path"`
	// Blame is the function the cause is attributed to: a frame object,
	// also accepted as a bare function name.
	Blame json.RawMessage `json:"blame"`
	Delta int64           `json:"delta"`
}

// blamed is the cause's blame.function when present, else the last frame
// of its path.
func (c *cause) blamed() string {
	if f := c.blameFunction(); f != "" {
		return f
	}
	if len(c.Path) == 0 {
		return ""
	}
	return c.Path[len(c.Path)-1].Function
}

func (c *cause) blameFunction() string {
	if len(c.Blame) == 0 || string(c.Blame) == "null" {
		return ""
	}
	var f frame
	if err := json.Unmarshal(c.Blame, &f); err == nil {
		return f.Function
	}
	var s string
	if err := json.Unmarshal(c.Blame, &s); err == nil {
		return s
	}
	return ""
}

// onPath reports whether the cause concerns fn: its path holds fn or its
// blame is fn.
func (c *cause) onPath(fn string) bool {
	if c.blamed() == fn {
		return true
	}
	for _, f := range c.Path {
		if f.Function == fn {
			return true
		}
	}
	return false
}

// judge fills a row from ctdiff's result.
func judge(r *row, out *diffOutput, c *caseRow) {
	r.Causes = len(out.Causes)
	r.Untested = len(out.Untested)
	switch {
	case len(out.Causes) > 0:
		r.Tested = "yes"
		r.Blamed = out.Causes[0].blamed()
	case len(out.Untested) > 0:
		r.Tested = "untested"
		r.UntestedBlamed = largest(out.Untested).blamed()
	}
	if c.isNoise() {
		return
	}
	r.Hit = r.Blamed != "" && r.Blamed == c.Function
	for i := range out.Causes {
		if !out.Causes[i].onPath(c.Function) {
			r.OffPath++
		}
	}
}

// largest is the finding with the largest delta (untested findings are not
// promised to be sorted).
func largest(cs []cause) *cause {
	best := &cs[0]
	for i := range cs {
		if cs[i].Delta > best.Delta {
			best = &cs[i]
		}
	}
	return best
}
