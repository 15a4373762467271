//go:build unix

package main

import (
	"syscall"
	"testing"
)

// setUmask sets the process's umask for the test, restored after it, and
// says it could.
func setUmask(t *testing.T, mask int) bool {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
	return true
}
