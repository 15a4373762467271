// Package report is the last stage of ctdiff's pipeline: it renders trees
// (from cct) and diff results (from diff) as text, JSON, DOT, pprof,
// Markdown and HTML, always to an io.Writer. Choosing stdout or a file is the
// caller's job. It only formats: verdicts and the classification of runtime
// frames come from diff.
//
// Each kind of result has one entry, which writes it in any of its Formats:
// WriteTree (a calling-context tree), WriteDiff (a comparison) and
// WriteRelease (a release report, from NewRelease). A Format says what it
// needs (Format.NeedsTree: the comparison must keep its matched tree).
//
// Reports compute their rows first and print them second, in a stable order
// (ties broken by name), so golden files stay stable. Everything that comes
// from a profile is untrusted text and is escaped for the output's syntax.
//
// report may import cct, diff, internal packages and pprof's profile
// package; it must not import convert or cmd.
package report
