package convert

import (
	"errors"
	"fmt"
	"strings"
)

// A SyntaxError reports malformed input at a position. Where is a
// human-readable position such as "line 12", "byte 3456" or "event 17".
type SyntaxError struct {
	File  string // input name; filled in by Read when the parser leaves it empty
	Where string
	Msg   string
}

func (e *SyntaxError) Error() string {
	switch {
	case e.File != "" && e.Where != "":
		return fmt.Sprintf("%s: %s: %s", e.File, e.Where, e.Msg)
	case e.File != "":
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	case e.Where != "":
		return fmt.Sprintf("%s: %s", e.Where, e.Msg)
	}
	return e.Msg
}

// errAtLine returns a SyntaxError at a 1-based line number.
func errAtLine(line int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Where: fmt.Sprintf("line %d", line), Msg: fmt.Sprintf(format, args...)}
}

// errAtOffset returns a SyntaxError at a 0-based byte offset of the
// (decompressed) input.
func errAtOffset(offset int64, format string, args ...any) *SyntaxError {
	return &SyntaxError{Where: fmt.Sprintf("byte %d", offset), Msg: fmt.Sprintf(format, args...)}
}

// errAtEvent returns a SyntaxError at a 0-based event (record) index.
func errAtEvent(event int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Where: fmt.Sprintf("event %d", event), Msg: fmt.Sprintf(format, args...)}
}

// ErrInvalidLine is matched (errors.Is) by the folded-stacks reader's
// errors about a line it cannot read, which Options.SkipInvalidLines skips
// instead.
var ErrInvalidLine = errors.New("invalid line")

// An invalidLineError is a reader's error about one line that
// Options.SkipInvalidLines would skip: it reads as the error it wraps and
// matches ErrInvalidLine too.
type invalidLineError struct{ err error }

func (e *invalidLineError) Error() string   { return e.err.Error() }
func (e *invalidLineError) Unwrap() []error { return []error{e.err, ErrInvalidLine} }

// errUnknownFormat is returned (wrapped) when no registered format
// recognises the input.
var errUnknownFormat = errors.New("unknown profile format")

// errNoSamples is returned (wrapped) when an input holds no samples at all
// after selection; an empty profile is almost always a mistake upstream.
var errNoSamples = errors.New("no samples")

// ErrTooLarge is returned (wrapped) when decompressed input exceeds
// Options.MaxDecompressed.
var ErrTooLarge = errors.New("decompressed input exceeds the size limit")

// A SizeLimitError says the decompressed input, or a zip entry in it,
// exceeds Options.MaxDecompressed (Limit). It matches ErrTooLarge.
type SizeLimitError struct {
	Limit int64
	// Entry and Size name a zip entry larger than Limit; Entry is "" when
	// the input itself exceeded it as it was read.
	Entry string
	Size  uint64
}

func (e *SizeLimitError) Error() string {
	if e.Entry != "" {
		return fmt.Sprintf("%v: zip entry %s is %d bytes", ErrTooLarge, e.Entry, e.Size)
	}
	return fmt.Sprintf("%v (%d bytes)", ErrTooLarge, e.Limit)
}

func (e *SizeLimitError) Unwrap() error { return ErrTooLarge }

// An UnknownFormatError says no format recognises the input; Options.From
// forces one. It matches ErrUnknownFormat.
type UnknownFormatError struct {
	// Formats are the formats tried (FormatNames).
	Formats []string
}

func (e *UnknownFormatError) Error() string {
	return fmt.Sprintf("%v: the content matches none of: %s", errUnknownFormat, strings.Join(e.Formats, ", "))
}

func (e *UnknownFormatError) Unwrap() error { return errUnknownFormat }

// A SampleLimitError says an input holds more timestamped samples than
// Options.MaxTimedSamples, for a caller that keeps them one by one.
type SampleLimitError struct {
	Limit int64
}

func (e *SampleLimitError) Error() string {
	return fmt.Sprintf("more than %d timestamped samples, the limit for samples kept one by one", e.Limit)
}

// limitOrAtLine returns a *SampleLimitError as it is (a count, not a place
// in the input) and any other error at a line, after prefix.
func limitOrAtLine(line int, prefix string, err error) error {
	var limit *SampleLimitError
	if errors.As(err, &limit) {
		return err
	}
	return errAtLine(line, "%s%v", prefix, err)
}
