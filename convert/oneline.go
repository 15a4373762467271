package convert

import (
	"strconv"
	"strings"
	"unicode"

	"github.com/ctdiff/ctdiff/internal/oneline"
)

// Errors and warnings are printed one per line, and their text quotes the
// input: a name holding a newline must not start a line of its own, which
// could pass for another message (log injection) or break the one-line
// error contract. Readers quote what they quote; Read escapes whatever
// control characters remain.

// oneLine returns s for a message: as it is when printable, quoted when it
// holds control characters.
func oneLine(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// escapeControls replaces each control character of s by its Go escape.
func escapeControls(s string) string { return oneline.Escape(s) }

// lineError is an error whose message had control characters escaped; it
// unwraps to the original, so errors.Is and errors.As still see it.
type lineError struct {
	err error
	msg string
}

func (e *lineError) Error() string { return e.msg }
func (e *lineError) Unwrap() error { return e.err }

// oneLineError returns err, or err with its message escaped when that
// holds control characters.
func oneLineError(err error) error {
	msg := err.Error()
	if strings.IndexFunc(msg, unicode.IsControl) < 0 {
		return err
	}
	return &lineError{err: err, msg: escapeControls(msg)}
}
