// Package diff is the third stage of ctdiff's pipeline: it compares a set of
// "before" calling-context trees with a set of "after" trees and says which
// call paths regressed, down to the lowest regressed functions, with noise
// filtered out. Compare is the entry point; Result documents every number it
// returns.
//
// The algorithms come from three papers (../shared/papers):
//
//   - ZAM (Ocariza & Zhao), Sections 2.2-3: hybrid sibling matching (per-level
//     LCS with a hash-map fallback, match_zam.go and lcs.go), critical graphs
//     (Algorithm 2, critical.go) and their aggregation over run pairs
//     (Section 3.2, aggregate.go).
//   - PARCS (Mostafa & Krintz), Sections 2.2-3.5: strict and relaxed
//     common-tree matching (match_parcs.go), overlap, common-tree share,
//     matching score, noise floor, topological differences and iterative
//     weight matching (overlap.go).
//   - IntroPerf (Kim et al.), Section 3.4, Algorithm 3: differential path
//     ranking (rank.go).
//
// Where a paper is wrong or vague the code does better and says why in a
// comment citing the section.
//
// Every run is also matched onto one union tree (union.go), which gives every
// calling context one identity across all runs; statistics over runs
// (statsgraph.go, with the tests of package diff/stats) and path ranking
// work on it. A Fold (fold.go) takes the runs one tree at a time; with
// many runs it streams them (stream.go): each is matched onto the union and
// with its pair as it arrives, then released, and the normalization is
// applied to the union's values at the end.
//
// diff never mutates its input trees. All traversals are iterative, maps are
// keyed by interned integers, never strings, and no step is quadratic in the
// number of nodes: trees reach 1.5 million nodes.
//
// Before anything is compared, every run's values are normalized
// (normalize.go: none, total, share, per call of a marker function, per
// benchmark iteration), chosen from the inputs when the caller does not
// say; benchstat.go reads go test -bench output and gives benchstat's
// verdict, and goruntime.go summarizes Go's GC and allocation work.
// frames.go is the one classifier of runtime and VM frames (RuntimeGroup)
// every output uses, and release.go judges a comparison for a release
// report (Judge: regressed, improved or unchanged, with its impact).
//
// diff imports cct, internal helpers, gonum's stat packages and
// golang.org/x/perf's benchfmt and benchmath (benchstat's own parser and
// statistics); it must not import convert, report or cmd.
package diff
