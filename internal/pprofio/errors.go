package pprofio

import "fmt"

// An Error is malformed input at a byte offset of the decompressed
// profile.proto.
type Error struct {
	Offset int64
	Msg    string
}

func (e *Error) Error() string { return fmt.Sprintf("byte %d: %s", e.Offset, e.Msg) }

// errAtOffset returns an Error at a 0-based byte offset of the
// (decompressed) input.
func errAtOffset(offset int64, format string, args ...any) *Error {
	return &Error{Offset: offset, Msg: fmt.Sprintf(format, args...)}
}
