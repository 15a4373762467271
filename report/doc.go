// Package report is the last stage of ctdiff's pipeline: it renders trees
// (from cct) and diff results (from diff) as text, JSON, DOT, pprof,
// Markdown and HTML, always to an io.Writer. Choosing stdout or a file is the
// caller's job.
//
// Reports compute their rows first and print them second, in a stable order
// (ties broken by name), so golden files stay stable. Everything that comes
// from a profile is untrusted text and is escaped for the output's syntax.
//
// report may import cct, diff, internal packages and pprof's profile
// package; it must not import convert or cmd.
package report
