package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// isTerminal reports whether w is a terminal. A character device is not
// enough: /dev/null is one, and `ctdiff diff a b 2>/dev/null` drew a
// progress bar nobody saw.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
