package convert_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/convert"
)

// Only the errors Options.SkipInvalidLines would skip match
// ErrInvalidLine: not a stack over the depth limit (refused even when
// skipping), nor a malformed input of another format.
func TestErrInvalidLineOnlyWhereSkippable(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		opts     convert.Options
		want     bool
	}{
		{"a count that is not a number", "main;a 1\nmain;b x\n", convert.Options{}, true},
		{"a control character in the line", "main;a 1\nmain;\x1b[2Jb x\n", convert.Options{}, true},
		{"a stack over the depth limit", strings.Repeat("f;", convert.MaxStackDepth) + "leaf 1\n", convert.Options{SkipInvalidLines: true}, false},
		{"a stack over the depth limit, not skipping", strings.Repeat("f;", convert.MaxStackDepth) + "leaf 1\n", convert.Options{}, false},
		{"a truncated cpuprofile", `{"nodes":[{"id":1,`, convert.Options{From: "cpuprofile"}, false},
	} {
		_, err := convert.Read(strings.NewReader(tt.in), "x", tt.opts)
		if err == nil {
			t.Fatalf("%s: read", tt.name)
		}
		if got := errors.Is(err, convert.ErrInvalidLine); got != tt.want {
			t.Errorf("%s: errors.Is(%v, ErrInvalidLine) = %v, want %v", tt.name, err, got, tt.want)
		}
	}
}
