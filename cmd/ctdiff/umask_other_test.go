//go:build !unix

package main

import "testing"

// setUmask: there is no umask here (Windows, plan9): file modes are not
// checked.
func setUmask(t *testing.T, mask int) bool { return false }
