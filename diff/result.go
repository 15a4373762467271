package diff

import "github.com/ctdiff/ctdiff/cct"

// A Result is the outcome of Compare. Values are in Unit; "mean" means the
// mean over the runs of a side. Slices are never nil, and every list has a
// stable order (ties broken by name), so reports and golden files are stable.
type Result struct {
	// Metric and Unit name the compared values (Metric.Name, Metric.Unit).
	Metric, Unit string
	// MinDelta is μ in Unit, resolved from Options.MinDelta; MinDeltaSpec
	// is how it was given ("1%" or the absolute value).
	MinDelta     int64
	MinDeltaSpec string
	// Aggregate and Match are the methods used; Alpha is the family-wise
	// error rate of the Stats tests.
	Aggregate Aggregate
	Match     Matching
	Alpha     float64

	// Base and New describe the two sides.
	Base, New Side
	// Filters are pprof's sample and frame filters (focus, ignore, hide,
	// show) the runs' trees were built with, zero for none: the
	// comparison is of what they kept. Compare leaves it zero for the
	// caller, as Side.Profiles.
	Filters cct.Filters `json:",omitzero"`

	// Outcome is the verdict (verdict.go): regressed, improved, unchanged
	// or inconclusive, with the smallest detectable change.
	Outcome Outcome
	// Causes are the leaves of the critical graph (ZAM Definitions 2 and 3):
	// the lowest functions whose time grew by at least MinDelta (and, in
	// Stats mode, significantly). Sorted by Delta, largest first. A cause
	// whose growth is spread over many calling contexts of one function is
	// one Cause with Spread set.
	Causes []Cause
	// Untested are nodes that grew by at least MinDelta where no test could
	// tell their growth from noise. With one run on a side: all of them
	// when the profile has too few calling contexts to model one pair's
	// noise, else top-level calls present on one side only and garbage
	// collector frames (aggregate.go says why); and Intersect mode with a
	// single pair. They are not regressions: reports list them apart, and
	// --fail-on-regression ignores them. Same order and form as Causes;
	// Node is -1 for those not in Graph (Graph holds the others, with Cause
	// unset).
	Untested []Cause
	// Improvements are the causes of the time that fell: the lowest
	// functions whose time shrank by at least MinDelta, significantly,
	// tested as the causes are (the sides swapped) in a family of their
	// own, so that looking for them costs the regressions no power. Kind
	// is Improved or Removed; Base, New and Delta (negative) are as
	// measured, the test's interval too. Node is -1: they are not in
	// Graph. Stats mode only.
	Improvements []Cause
	// Graph is the critical graph in pre-order (children by Delta, largest
	// first), without the synthetic root: every cause with its ancestors.
	Graph []GraphNode
	// CriticalGraphNodes is len(Graph); TreeNodes is the node count of the
	// first base tree without its root. Their ratio is ZAM's compression
	// (Section 5.2, RQ4).
	CriticalGraphNodes, TreeNodes int

	// RankedPaths are IntroPerf's differential path ranking (Algorithm 3):
	// the Options.Top root-to-leaf paths of the new runs with the largest
	// positive cost. Rank 1 is the costliest.
	RankedPaths []RankedPath

	// Overlap holds PARCS's similarity numbers (Section 3.4 and 5.2).
	Overlap Overlap
	// Topology lists the added and removed subtrees (PARCS Section 3.3).
	Topology Topology
	// WeightMatching is PARCS's iterative weight matching (Section 3.4).
	WeightMatching WeightMatching

	// Matchers counts the sibling-list matchings by algorithm (ZAM RQ3).
	Matchers MatcherCounts
	// Shared is the smaller of the two sides' shares of their time in
	// calling contexts both sides have (1 for versions of one program
	// that changed nothing, near 0 for two programs); 1 when a side has
	// no time. Below SharedMin the causes say only that the trees differ.
	Shared float64
	// Warnings are things the user should know: too few runs for
	// statistics, threads that match nothing, and the like.
	Warnings []string
	// ResizedPools describes each thread pool (threads named alike but for
	// numbers) with another number of threads on each side, as "the pool
	// of "worker #9" has 8 threads in the base runs and 16 in the new";
	// the command compares such runs again with cct.Options.Pools. Not
	// written: a warning says the same.
	ResizedPools []string `json:"-"`
	// ResizedPoolNames are those pools' names (cct.PoolName), for
	// cct.Options.PoolNames.
	ResizedPoolNames []string `json:"-"`

	// Functions is the per-function table (pprof's -top of a diff;
	// functions.go), set only when Options.Functions asks for it.
	Functions *FunctionTable `json:",omitempty"`

	// Tree is the matched union tree of all runs (tree.go), root first;
	// set only when Options.Tree asks for it.
	Tree []TreeNode `json:",omitempty"`

	// Normalization says how the values were scaled before comparing
	// (normalize.go): every value of the Result, Base and New totals
	// included, is normalized and in Unit.
	Normalization Normalization
	// Benchmark is benchstat's verdict on the benchmark whose outputs
	// came with the profiles (Options.Bench); nil without them.
	Benchmark *BenchVerdict
	// GoRuntime summarizes the Go runtime's garbage collection and
	// allocation work (goruntime.go); nil when the profiles have none.
	GoRuntime *GoRuntime
}

// A Side describes the base or the new runs.
type Side struct {
	// Profiles names the inputs; Compare leaves it empty for the caller.
	Profiles []string
	// Runs is the number of trees.
	Runs int
	// Total is the mean root total; Totals has one entry per run. Both
	// leave out V8's "(idle)" frames, which are no work (see isIdle).
	Total  int64
	Totals []int64
	// Idle is the mean time of the "(idle)" frames that Total leaves out
	// (in Unit, normalized like Total); 0 when the runs have none.
	// Reports print it beside the totals, so that a wall-clock total
	// that is half idle does not pass for the recording's length.
	Idle int64
}

// A Frame is a function's identity in reports: its name and file.
type Frame struct {
	Function string
	File     string
	// Line and Column are where the function is defined, when the profile
	// says so (cct.Frame.StartLine; not for Go symbols): they tell apart
	// same-named functions of one file. As first seen, like File: a
	// function matched across versions shows the base's position. (int32:
	// causes hold a path of frames each, and 40,000 causes of a large
	// comparison hold a million frames.)
	Line, Column int32 `json:",omitempty"`
}

// A Kind says why a node is a cause.
type Kind string

const (
	// Regressed: the node exists on both sides and grew by at least μ.
	Regressed Kind = "regressed"
	// Added: the node has no match on the base side and costs at least μ.
	Added Kind = "added"
	// Improved: an improvement (Result.Improvements): the node exists on
	// both sides and shrank by at least μ.
	Improved Kind = "improved"
	// Removed: an improvement whose node has no match on the new side: a
	// call the new runs no longer make, which cost at least μ.
	Removed Kind = "removed"
)

// A Cause is a performance regression-cause (ZAM Definition 2).
type Cause struct {
	// Thread is the thread's label (cct.ThreadLabel); Path is root-first,
	// without the synthetic root and the thread node. A cause with an empty
	// path is a thread whose time grew with no single function below it
	// growing by μ.
	Thread string
	Path   []Frame
	Kind   Kind
	// Base, New and Delta are mean inclusive values.
	Base, New, Delta int64
	// Stats is set in Stats mode when a test was made.
	Stats *Test
	// Node indexes Result.Graph (-1 for an untested node outside it).
	Node int
	// Spread is set when the cause is one function's growth summed over
	// its calling contexts; Path is then the context that grew most, and
	// Base, New and Delta are the function's sums.
	Spread *Spread `json:",omitempty"`
	// Blame is the function of the program's own code the cause is
	// charged to (blame.go): the lowest such frame of Path, or for the
	// runtime's work on the program's behalf the functions the evidence
	// points at. nil when there is none.
	Blame *Blame `json:",omitempty"`
}

// A Spread is a regression spread over the calling contexts of one function,
// none of which grew by μ alone: a check added in every context of a caller,
// a function that got slower everywhere it is called. ZAM (Sections 5 and
// 6.1) names this its main limitation: per-context analysis reports the
// common ancestor, one level too high, or nothing. The contexts are the
// function's outermost occurrences (a recursive call inside one is part of
// it), and the test is on their sum per run.
type Spread struct {
	// Function is the function; Callers are the distinct functions calling
	// it in the contexts that grew (the caller that got a new callee).
	Function Frame
	Callers  []Frame
	// Contexts are the contexts that grew, largest growth first, at most
	// maxSpreadContexts; ContextCount counts all of the function's contexts
	// and Grew those that grew.
	Contexts     []SpreadContext
	ContextCount int
	Grew         int
	// Threads counts the distinct threads of the contexts that grew: the
	// cause's Thread is the largest context's only, and a function slower
	// across a pool of workers is not one worker's regression.
	Threads int
}

// A SpreadContext is one calling context of a spread cause.
type SpreadContext struct {
	Thread           string
	Path             []Frame
	Base, New, Delta int64
}

// A Test is the outcome of the per-node significance test of Stats mode.
type Test struct {
	// Name is "moderated-t" (a t-test whose variance borrows strength from
	// all nodes, stats.Prior), "welch" (Welch's t-test), or "untested" (P = 1)
	// for a node no test could be made for: a single run on a side and no
	// noise model, shown only on context nodes of the graph.
	Name string
	// Of says which value was tested: "" for the node's inclusive value,
	// OfSelf for its own (self) value, OfFunction for a spread cause's sum
	// over the function's contexts.
	Of string `json:",omitempty"`
	// P is the one-sided p-value (new > base); Q is the Holm-adjusted
	// p-value over the nodes tested: the node is significant when Q ≤ Alpha.
	P, Q float64
	// Low and High bound the 95% confidence interval of the mean delta.
	Low, High int64
	// SelfBase and SelfNew are the means of the self values tested, base
	// and new, when Of is OfSelf (a cause's Base and New are its inclusive
	// values). Folded artifacts and callees no new run has count as their
	// caller's own time here, as in the test.
	SelfBase, SelfNew int64 `json:",omitempty"`
}

// Values of Test.Of.
const (
	OfSelf     = "self"
	OfFunction = "function"
)

// A GraphNode is one node of the critical graph.
type GraphNode struct {
	// Parent indexes Result.Graph, or is -1 for thread nodes, whose parent
	// is the synthetic root.
	Parent int
	Thread string
	// Frame is empty for thread nodes.
	Frame Frame
	// IsThread marks thread nodes.
	IsThread bool
	Kind     Kind
	// Base, New and Delta are mean inclusive values.
	Base, New, Delta int64
	// Cause marks leaves, which are Result.Causes.
	Cause bool
	// Context marks nodes that are only in the graph as ancestors of a
	// cause: in Stats mode their own change was not significant.
	Context bool
	Stats   *Test
}

// A RankedPath is one root-to-leaf path of IntroPerf's ranking.
type RankedPath struct {
	Rank   int
	Thread string
	// Cost is the sum of the nodes' own-value deltas (new − base).
	Cost int64
	Path []PathNode
}

// A PathNode is one function of a ranked path.
type PathNode struct {
	Frame
	// Cost is the node's mean own (self) value delta, new − base; the base
	// is 0 for nodes the base runs lack.
	Cost int64
	// Rank orders the nodes of the path by Cost, 1 for the costliest
	// ("hottest"); ties keep path order.
	Rank int
}

// Overlap holds PARCS's similarity numbers, averaged over the run pairs.
type Overlap struct {
	// Percent is Σ over matched nodes of min(pweight_base, pweight_new),
	// where a node's pweight is its self value as a percentage of the tree's
	// total (PARCS Section 3.4). 100 means identical weights.
	Percent float64
	// NoiseFloor is the same overlap between consecutive base runs, when
	// there are at least two: the similarity noise alone leaves.
	NoiseFloor *float64
	// CommonTree is the matched share of the base tree's nodes, with the
	// chosen matching (PARCS Table 4); StrictCommonTree the same with strict
	// common-tree matching (Definition 1), for comparison (PARCS Figure 9).
	CommonTree, StrictCommonTree float64
	// Score is PARCS's matching score: overlap × |CT|/|CCT1| × |CT|/|CCT2|
	// × 100, with one overlap metric, the compared one.
	Score float64
	// Pairs is the number of run pairs averaged.
	Pairs int
}

// Topology lists subtrees present on one side only (PARCS Section 3.3),
// those found in every run pair, heaviest first.
type Topology struct {
	Added, Removed []Subtree
	// AddedCount and RemovedCount count all of them; the lists stop at
	// Options.TopologyLimit.
	AddedCount, RemovedCount int
}

// A Subtree is a maximal unmatched subtree.
type Subtree struct {
	Thread string
	Path   []Frame
	// Nodes is its size and Weight its root's mean inclusive value.
	Nodes  int
	Weight int64
}

// WeightMatching is PARCS's iterative weight matching (Section 3.4): matched
// nodes by decreasing difference of percentage weights, taken until the
// overlap adjusted for them reaches the noise floor (or Options.Top nodes).
type WeightMatching struct {
	Nodes []WeightDiff
	// Adjusted is the overlap once the listed nodes' differences are
	// removed; Reached says whether it reached the noise floor.
	Adjusted float64
	Reached  bool
}

// A WeightDiff is one node of the weight matching.
type WeightDiff struct {
	Thread string
	Path   []Frame
	// Base and New are mean percentage weights (self value / total × 100);
	// Diff is New − Base.
	Base, New, Diff float64
}

// MatcherCounts counts sibling-list matchings (one per pair of matched
// parents with children on both sides) by the algorithm that produced them.
type MatcherCounts struct {
	// LCS: Myers' LCS finished within its budget.
	LCS int
	// Alternate: ZAM's hash-map matching chosen for threads and top-level
	// functions.
	Alternate int
	// Fallback: LCS exceeded its work budget and hash-map matching (ZAM) or
	// the order-preserving hash matching (PARCS) was used instead.
	Fallback int
	// Residual: after LCS, children the LCS left unmatched were paired by
	// identity (reordered calls); counts the lists where that matched any.
	Residual int
	// Relaxed and Strict: PARCS relaxed (Definition 2) and strict
	// (Definition 1) matchings.
	Relaxed, Strict int
	// Renamed counts children paired as renamed functions (ZAM mode,
	// match_rename.go): pairs, not lists.
	Renamed int
}
