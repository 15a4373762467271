package report

import "github.com/ctdiff/ctdiff/internal/oneline"

// textName is how the text reports write a name that came from a profile
// or the command line (function, file, thread, process, sample type,
// input, component, and warnings that quote them): each control character
// (ESC, the 8-bit CSI, BEL, newlines) becomes its Go escape, as in errors,
// so no name can move a terminal's cursor, retitle its window, clear it,
// or start a report line of its own. Every writer calls it where it writes
// a name; Markdown has its own escaping (mdCode, mdText), DOT dotQuote.
func textName(s string) string { return oneline.Escape(s) }

// textNames is textName of each line.
func textNames(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = textName(l)
	}
	return out
}
