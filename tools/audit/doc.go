// Package audit is an independent audit of ctdiff's verdicts, kept as tests:
// it generates K "before" and K "after" pprof CPU profiles of a workload
// with a known ground truth (Generate), and scores a comparison's causes
// against that truth (Score). Its workload, noise model and injections were
// written apart from tools/eval and tools/synth, so that an
// assumption they share with package diff does not go unseen.
//
//   - workload.go: the synthetic Go-like workload, or one read from a
//     pprof or folded file (ReadBase);
//   - cases_service.go: the cases, each a change (or none) made to the
//     workload, with the truth it implies: a service's code changes
//     (shifts, recursion, renames, inlining, sampling rate, duration,
//     threads); cases_variation.go: what varies from run to run (spread
//     regressions, recursion depths and thread loads, a GC-heavy run,
//     warm-ups, flat profiles, JVM lambdas, idle time);
//     cases_identity.go: what changes names or places between two
//     versions (renumbered closures, generic names, truncated stacks,
//     moved sources, a resized pool, unsymbolized frames; mixed formats
//     by Pair.FormatAfter);
//   - formats.go: a run written as pprof, folded stacks or a V8
//     .cpuprofile, for the converters;
//   - noise.go: one recorded run: lognormal jitter per calling-context
//     prefix and per run, an optional 30%-slower outlier run, Poisson
//     sampling;
//   - truth.go: what the change did, in expected inclusive time per
//     context, and the files Write puts on disk;
//   - score.go: each cause judged a true positive, true growth or a false
//     alarm, and whether the injected change was found;
//   - verdict_test.go: the audit's findings as a table (TestVerdicts),
//     the defects still open skipped unless -audit.strict.
//
// Everything is deterministic for a Case. The commands write and score
// what the CLI compares:
//
//	go run ./tools/audit/cmd/gen -case null -k 5 -seed 3 -out /tmp/audit/x
//	ctdiff diff /tmp/audit/x/before /tmp/audit/x/after --format json -o /tmp/audit/x/out.json
//	go run ./tools/audit/cmd/score -truth /tmp/audit/x/truth.json -out /tmp/audit/x/out.json
//	go test ./tools/audit -run TestVerdicts -audit.strict   # the open defects fail
//
// audit sits beside the pipeline: it imports diff (Score reads a
// diff.Result), its tests convert and cct too, and nothing but its
// commands and tests import it.
package audit
