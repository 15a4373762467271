//go:build after

package main

import "regexp"

// validEmail reports whether s looks like an e-mail address; the pattern is
// compiled on every call.
func validEmail(s string) bool {
	emailRE := regexp.MustCompile(`^[a-zA-Z0-9._%+\-]+@[a-zA-Z0-9.\-]+\.[a-zA-Z]{2,}$`)
	return len(s) <= 254 && emailRE.MatchString(s)
}
