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
//   - score.go scores one output against the ground truth;
//   - harness.go plans the cases, runs them and sums the scores up;
//   - table.go prints the results in the layout of ZAM's Table 2.
//
// Everything is seeded: the same Config gives the same numbers on any
// machine and with any degree of parallelism. Run it with
//
//	go run ./internal/eval/cmd/ctdiff-eval -min-delta 50ms,25ms,100ms -seeds 5 -failures
//	go test ./internal/eval -run TestDoneWhen -eval -v   # asserts issue 7's bar
//
// Every choice of the noise model is documented on Noise and Changes, with
// the defaults of the published numbers (BENCHMARKS.md, "diff: accuracy").
//
// eval sits beside the pipeline: it imports convert, cct and diff, and
// nothing but its command and tests import it.
package eval
