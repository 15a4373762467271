package eval

import "fmt"

// An Output is what the scoring needs of one comparison: the leaves of the
// critical graph, the ranked paths, and the sizes for compression. Engine
// adapters (engine.go) fill it from their results.
type Output struct {
	// Causes are the leaves of the (aggregated) critical graph.
	Causes []Cause
	// Ranked are IntroPerf's ranked paths, best first.
	Ranked []Path
	// CriticalNodes is the number of function nodes in the critical graph
	// and TreeNodes the number in the tree it was cut from.
	CriticalNodes, TreeNodes int
}

// A Cause is a leaf of the critical graph, with what the engine says of it
// (for the failure listing; scoring looks at the path only).
type Cause struct {
	Path
	// Kind is "regressed" or "added"; Delta the mean growth in ns.
	Kind  string
	Delta int64
}

// A Path is a calling context: a thread label and root-first frames
// without the thread.
type Path struct {
	Thread string
	Frames []Frame
}

// prefixOf reports whether p is a non-empty root-first prefix of q (q
// itself included) on the same thread.
func (p Path) prefixOf(q Path) bool {
	if p.Thread != q.Thread || len(p.Frames) == 0 || len(p.Frames) > len(q.Frames) {
		return false
	}
	for i, f := range p.Frames {
		if q.Frames[i] != f {
			return false
		}
	}
	return true
}

// A Score is one comparison scored against its ground truth, in the terms
// of ZAM Section 5.2 (RQ1). Sums over cases give the table's ratios.
type Score struct {
	// NodeHit: "Node recall: The number of ZAM outputs that correctly
	// identify the modified function as the performance regression-cause,
	// divided by the total number of ZAM outputs". A hit is a leaf whose
	// whole calling context is the injected one.
	NodeHit bool
	// PathHit: "Path recall: The number of ZAM outputs that correctly
	// identify at least part of the call path that eventually calls the
	// performance regression-cause (we call these partial paths), divided by
	// the total number of ZAM outputs", where "any subpath of this path
	// rooted at root is considered a partial path". A hit is a leaf whose
	// path is a non-empty root-first prefix of the cause's path: a leaf
	// elsewhere does not count even if the graph passes through the
	// cause's callers on the way to it, and a thread-only leaf names no
	// function, so it does not count either.
	PathHit bool
	// Leaves is the number of leaves in the output; NodeLeaves of them "match
	// the modified function" ("Node precision: The number of leaf nodes in
	// the ZAM output that match the modified function, divided by the total
	// number of leaf nodes in the ZAM output") and PathLeaves "either match
	// the modified function or are part of the partial path to the
	// modified function" ("Path precision", same denominator).
	Leaves, NodeLeaves, PathLeaves int
	// Distance sums, over the PathLeaves, how many nodes each is above the
	// cause ("average distance of all valid paths to the performance
	// regression-cause").
	Distance int
	// Longest is the length of the cause's path from its top-level
	// function ("the longest path from a top-level function to the
	// performance regression-cause").
	Longest int
	// PMin is IntroPerf's path distance p_min: "the top (minimum) rank of
	// the path that includes a patched function" — here the best rank of a
	// ranked path through the injected node; 0 when no ranked path passes
	// through it.
	PMin int
	// CriticalNodes and TreeNodes are summed for ZAM's compression ratio
	// (RQ4): "# of Function Nodes in the Critical Graphs / Total # of
	// Function Nodes in the Timelines".
	CriticalNodes, TreeNodes int
	// NameHit says a leaf ends in the truth's function name (spread
	// checks: "found by the name of the new function").
	// Named says the truth has a name (NameHit can be true).
	NameHit, Named bool
}

// A Truth is what counts as right for an injected case: the calling
// contexts whose leaf is the regression-cause (one for ZAM's kinds; every
// context that got the new callee for a spread check), and for a spread
// check the new function's name, which makes any leaf ending in it right
// wherever the engine puts it (one folded cause, or one per context).
type Truth struct {
	Paths []Path
	Name  string
}

// primary is the context the failure listing and p_min look at.
func (t Truth) primary() Path {
	if len(t.Paths) == 0 {
		return Path{}
	}
	return t.Paths[0]
}

// named reports whether leaf p ends in the truth's function name.
func (t Truth) named(p Path) bool {
	return t.Name != "" && len(p.Frames) > 0 && p.Frames[len(p.Frames)-1].Function == t.Name
}

// through reports whether ranked path r passes through a truth path's
// node or through a frame of the truth's name.
func (t Truth) through(r Path) bool {
	for _, p := range t.Paths {
		if p.prefixOf(r) {
			return true
		}
	}
	if t.Name != "" {
		for _, f := range r.Frames {
			if f.Function == t.Name {
				return true
			}
		}
	}
	return false
}

// classify says whether leaf p is a node leaf (one of the truth's paths,
// or ending in its name), a path leaf (that, or a prefix of one of its
// paths), and its distance to the nearest path it is a prefix of.
func (t Truth) classify(p Path) (node, path bool, dist int) {
	node, path = t.named(p), t.named(p)
	for _, q := range t.Paths {
		if !p.prefixOf(q) {
			continue
		}
		d := len(q.Frames) - len(p.Frames)
		if !path || d < dist {
			dist = d
		}
		path = true
		if d == 0 {
			node = true
		}
	}
	if node {
		dist = 0
	}
	return node, path, dist
}

// score scores an injected case's output against its cause.
func score(out Output, truth Path) Score { return scoreTruth(out, Truth{Paths: []Path{truth}}) }

// scoreTruth scores an output against a Truth: a leaf is a node leaf when
// it is one of the truth's paths or ends in its name, and a path leaf when
// it is also or is a prefix of one of them (its distance is to the nearest
// path it is a prefix of).
func scoreTruth(out Output, truth Truth) Score {
	p0 := truth.primary()
	s := Score{
		Leaves:        len(out.Causes),
		Longest:       len(p0.Frames),
		CriticalNodes: out.CriticalNodes,
		TreeNodes:     out.TreeNodes,
		Named:         truth.Name != "",
	}
	for _, c := range out.Causes {
		node, path, dist := truth.classify(c.Path)
		if truth.named(c.Path) {
			s.NameHit = true
		}
		if !path {
			continue
		}
		s.PathHit = true
		s.PathLeaves++
		s.Distance += dist
		if node {
			s.NodeHit = true
			s.NodeLeaves++
		}
	}
	for i, r := range out.Ranked {
		if truth.through(r) {
			s.PMin = i + 1
			break
		}
	}
	return s
}

// A Summary sums Scores over a set of injected cases and counts the false
// paths of the base-vs-base cases.
type Summary struct {
	Cases, NodeHits, PathHits int
	// NameHits counts cases with a NameHit, of NameCases cases whose
	// truth has a name.
	NameHits, NameCases            int
	Leaves, NodeLeaves, PathLeaves int
	Distance, Longest              int
	// PMinCases counts cases whose p_min is between 1 and 3 ("p_min ≤ 3");
	// PMinFound those with any p_min, PMinSum the sum of those.
	PMinTop3, PMinFound, PMinSum int
	CriticalNodes, TreeNodes     int
	// Baselines counts base-vs-base cases and FalsePaths the leaves they
	// output: "These baseline comparisons are expected to have zero paths
	// in the critical graph generated by ZAM, so any path that appears is
	// automatically a false positive."
	Baselines, FalsePaths int
	// FalseBaselines counts the baselines with any leaf.
	FalseBaselines int
}

func (s *Summary) add(c Score) {
	s.Cases++
	if c.NodeHit {
		s.NodeHits++
	}
	if c.PathHit {
		s.PathHits++
	}
	if c.Named {
		s.NameCases++
	}
	if c.NameHit {
		s.NameHits++
	}
	s.Leaves += c.Leaves
	s.NodeLeaves += c.NodeLeaves
	s.PathLeaves += c.PathLeaves
	s.Distance += c.Distance
	s.Longest += c.Longest
	if c.PMin > 0 {
		s.PMinFound++
		s.PMinSum += c.PMin
		if c.PMin <= 3 {
			s.PMinTop3++
		}
	}
	s.CriticalNodes += c.CriticalNodes
	s.TreeNodes += c.TreeNodes
}

// Merge adds o's counts to s (pooling several benchmarks).
func (s *Summary) Merge(o Summary) {
	s.Cases += o.Cases
	s.NodeHits += o.NodeHits
	s.PathHits += o.PathHits
	s.NameHits += o.NameHits
	s.NameCases += o.NameCases
	s.Leaves += o.Leaves
	s.NodeLeaves += o.NodeLeaves
	s.PathLeaves += o.PathLeaves
	s.Distance += o.Distance
	s.Longest += o.Longest
	s.PMinTop3 += o.PMinTop3
	s.PMinFound += o.PMinFound
	s.PMinSum += o.PMinSum
	s.CriticalNodes += o.CriticalNodes
	s.TreeNodes += o.TreeNodes
	s.Baselines += o.Baselines
	s.FalsePaths += o.FalsePaths
	s.FalseBaselines += o.FalseBaselines
}

func (s *Summary) addBaseline(out Output) {
	s.Baselines++
	s.FalsePaths += len(out.Causes)
	if len(out.Causes) > 0 {
		s.FalseBaselines++
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// NodeRecall and the other ratios are in [0, 1]. The precisions pool the
// leaves of all outputs, as ZAM's "All" row does (41.16% is not the mean of
// its rows). An output with no leaves adds nothing to them, and a set of
// cases with no leaves at all has precision 1.
func (s *Summary) NodeRecall() float64 { return ratio(s.NodeHits, s.Cases) }
func (s *Summary) PathRecall() float64 { return ratio(s.PathHits, s.Cases) }

// NameRecall is the share of cases with a named truth (spread checks) that
// a leaf names.
func (s *Summary) NameRecall() float64 { return ratio(s.NameHits, s.NameCases) }

func (s *Summary) NodePrecision() float64 {
	if s.Leaves == 0 {
		return 1
	}
	return ratio(s.NodeLeaves, s.Leaves)
}

func (s *Summary) PathPrecision() float64 {
	if s.Leaves == 0 {
		return 1
	}
	return ratio(s.PathLeaves, s.Leaves)
}

// AvgDistance is the mean distance of the valid leaves to the cause.
func (s *Summary) AvgDistance() float64 { return ratio(s.Distance, s.PathLeaves) }

// AvgLongest is the mean length of the causes' paths.
func (s *Summary) AvgLongest() float64 { return ratio(s.Longest, s.Cases) }

// Compression is critical-graph nodes over tree nodes.
func (s *Summary) Compression() float64 { return ratio(s.CriticalNodes, s.TreeNodes) }

// PMinTop3Share is the share of cases with p_min ≤ 3.
func (s *Summary) PMinTop3Share() float64 { return ratio(s.PMinTop3, s.Cases) }

// Thresholds are the bar the engine must meet.
// MaxCompression, PMinTop3 and NameRecall are not checked when zero.
type Thresholds struct {
	PathRecall, PathPrecision, NodeRecall, NodePrecision float64
	MaxFalsePaths                                        int
	MaxCompression, PMinTop3                             float64
	NameRecall                                           float64
}

// DoneWhen is the standard bar: better than ZAM's published 86.67% node
// recall, 41.16% node precision and 96.09% path precision.
var DoneWhen = Thresholds{
	PathRecall: 1, PathPrecision: 0.97, NodeRecall: 0.95, NodePrecision: 0.70,
	MaxFalsePaths: 0, MaxCompression: 0.02, PMinTop3: 0.90,
}

// FamilyBar is the per-family bar at K = 3, for every case family: node recall ≥
// 95%, path recall 100%, node precision ≥ 85%, path precision ≥ 97%, no
// cause on baselines, and spread checks found by the new function's name
// in ≥ 90% of cases. At K = 1 the bar asks only for no cause on
// noise-only pairs (FamilyBarK1).
var FamilyBar = Thresholds{
	PathRecall: 1, PathPrecision: 0.97, NodeRecall: 0.95, NodePrecision: 0.85,
	MaxFalsePaths: 0, NameRecall: 0.90,
}

// FamilyBarK1 is the per-family bar at K = 1: no cause on noise-only pairs.
var FamilyBarK1 = Thresholds{MaxFalsePaths: 0}

// A Miss is a threshold a Summary misses: Metric names it ("node recall",
// "false causes", ...) and Text says by how much.
type Miss struct {
	Metric, Text string
}

// Misses returns the thresholds s misses; none means it meets them all.
func (s *Summary) Misses(t Thresholds) []Miss {
	var miss []Miss
	f := func(ok bool, metric, format string, args ...any) {
		if !ok {
			miss = append(miss, Miss{metric, fmt.Sprintf(format, args...)})
		}
	}
	f(s.PathRecall() >= t.PathRecall, "path recall", "path recall %.2f%% < %.2f%%", 100*s.PathRecall(), 100*t.PathRecall)
	f(s.PathPrecision() >= t.PathPrecision, "path precision", "path precision %.2f%% < %.2f%%", 100*s.PathPrecision(), 100*t.PathPrecision)
	f(s.NodeRecall() >= t.NodeRecall, "node recall", "node recall %.2f%% < %.2f%%", 100*s.NodeRecall(), 100*t.NodeRecall)
	f(s.NodePrecision() >= t.NodePrecision, "node precision", "node precision %.2f%% < %.2f%%", 100*s.NodePrecision(), 100*t.NodePrecision)
	f(s.FalsePaths <= t.MaxFalsePaths, "false causes", "%d false paths on base-vs-base cases > %d", s.FalsePaths, t.MaxFalsePaths)
	f(t.MaxCompression == 0 || s.Compression() <= t.MaxCompression, "compression", "compression %.2f%% > %.2f%%", 100*s.Compression(), 100*t.MaxCompression)
	f(t.PMinTop3 == 0 || s.PMinTop3Share() >= t.PMinTop3, "p_min", "p_min ≤ 3 in %.2f%% of cases < %.2f%%", 100*s.PMinTop3Share(), 100*t.PMinTop3)
	f(t.NameRecall == 0 || s.NameCases == 0 || s.NameRecall() >= t.NameRecall, "found by name", "found by the new function's name in %.2f%% of cases < %.2f%%", 100*s.NameRecall(), 100*t.NameRecall)
	return miss
}

// Check returns the thresholds s misses, as sentences; none means it
// meets them all.
func (s *Summary) Check(t Thresholds) []string {
	var out []string
	for _, m := range s.Misses(t) {
		out = append(out, m.Text)
	}
	return out
}
