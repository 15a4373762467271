// Package stats decides whether values grew between two sets of runs, and
// corrects those decisions for how many were made: the one-sided tests
// (a moderated t-test whose variance borrows strength from an
// empirical-Bayes Prior fitted on all the values compared, and Welch's
// t-test), their confidence intervals, and the family-wise corrections
// (Holm, and TreeHolm over a forest of nested hypotheses). It knows
// nothing of profiles or trees: package diff gives it rows of values, one
// per run, and the forest of its hypotheses.
package stats
