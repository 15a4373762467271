//go:build !after

package main

import "regexp"

var emailRE = regexp.MustCompile(`^[a-zA-Z0-9._%+\-]+@[a-zA-Z0-9.\-]+\.[a-zA-Z]{2,}$`)

// validEmail reports whether s looks like an e-mail address; the pattern is
// compiled once, at start-up.
func validEmail(s string) bool {
	return len(s) <= 254 && emailRE.MatchString(s)
}
