// Package eval is ctdiff's accuracy harness, modelled on ZAM's RQ1 (Ocariza &
// Zhao, Section 5): it takes real profiles from the shared corpus, makes K
// noisy runs per side from each, injects one known regression of ZAM's three
// kinds into every "new" run, compares the sides with package diff and
// scores the output exactly as ZAM Section 5.2 defines it, plus IntroPerf's
// p_min (Kim et al., Section 5.1) for the ranked paths.
//
// The work is at the pprof level, on the profiles the converters produce:
//
//   - model.go keeps a profile in editable form: per thread, samples in time
//     order, each pointing at a distinct stack, and a trie of the stacks'
//     pruned frame paths, which is the calling-context tree cct builds with
//     Prune, so every target picked here is a node ctdiff can report;
//   - noise.go makes a run noisy: sampling noise, per-subtree jitter,
//     reordered top-level calls and extraneous handlers;
//   - inject.go holds the unrelated code changes of the new version
//     (renamed minified functions, added and removed tiny calls) and the
//     injected regressions with their ground truth;
//   - family.go holds the case families, the cases the standard
//     benchmark lacks, each with its own noise and notion of right:
//     spread regressions (spread.go: a new callee in every calling context
//     of a function, found by the new function's name; growth spread over
//     several callees, found at their lowest common caller), growth deep
//     in a long task noisier than the change (longtask.go), a GC node
//     varying ±10% with baselines that differ by 2.2 standard errors by
//     chance (gc.go), runtime artifacts as leaves under the regressed
//     function (artifacts.go) and scripts served from another origin
//     (origins.go);
//   - score.go scores one output against the ground truth (a Truth of one
//     or several calling contexts and, for spread checks, a name);
//   - harness.go plans the cases, runs them and sums the scores up;
//   - table.go prints the results per family and K and in the layout of
//     ZAM's Table 2;
//   - sensitivity.go sweeps the injected size for the smallest regression
//     found at each K, against an oracle and pprof -diff_base
//     (pprofdiff.go), and senstable.go prints it.
//
// Everything is seeded: the same Config gives the same numbers on any
// machine and with any degree of parallelism. Run it with
//
//	go run ./tools/eval/cmd/ctdiff-eval -aggregate stats -runs 1,3,5,10   # per family and K
//	go run ./tools/eval/cmd/ctdiff-eval -min-delta 50ms,25ms,100ms -seeds 5 -failures
//	go run ./tools/eval/cmd/ctdiff-eval -aggregate stats -sensitivity -runs 1,3,5,10
//	go test ./tools/eval -run TestDoneWhen -eval -v           # the standard and per-family bars
//	go test ./tools/eval -run TestDoneWhen -eval -v -strict   # ... with the known failures
//
// Every choice of the noise model is documented on Noise and Changes, with
// the defaults of the published numbers (BENCHMARKS.md, "diff: accuracy").
//
// eval sits beside the pipeline: it imports convert, cct and diff, and
// nothing but its command and tests import it.
package eval
