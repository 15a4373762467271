package convert

import (
	"bytes"
	"errors"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
)

// The refusals a caller words in its own terms (ctdiff adds the flag that
// changes them) are typed, whichever reader met them, and their messages
// name no flag.
func TestTypedReadErrors(t *testing.T) {
	t.Parallel()
	folded := strings.Repeat("main;work;leaf 1\n", 20_000)
	xml := []byte(`<StackWindow><StackSource><Frames Count="1"><Frame ID="0">main</Frame></Frames></StackSource></StackWindow>` + strings.Repeat(" ", 4096))
	for _, tt := range []struct {
		name   string
		in     []byte
		opts   Options
		target any // a pointer to the error type expected
		want   any // its value
		msg    string
	}{
		{"unknown format", []byte("\x00\x01\x02 not a profile"), Options{}, new(*UnknownFormatError),
			&UnknownFormatError{Formats: FormatNames()},
			"in: unknown profile format: the content matches none of: " + strings.Join(FormatNames(), ", ")},
		{"text reader past the limit", []byte(folded), Options{MaxDecompressed: 100_000}, new(*SizeLimitError),
			&SizeLimitError{Limit: 100_000}, ""},
		{"zip entry over the limit", perfViewZip(t, map[string][]byte{"t.perfView.xml": xml}), Options{From: "perfview", MaxDecompressed: 1000}, new(*SizeLimitError),
			&SizeLimitError{Limit: 1000, Entry: "t.perfView.xml", Size: uint64(len(xml))},
			"in: decompressed input exceeds the size limit: zip entry t.perfView.xml is " + strconv.Itoa(len(xml)) + " bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(bytes.NewReader(tt.in), "in", tt.opts)
			if err == nil {
				t.Fatal("read, want an error")
			}
			if tt.msg != "" && err.Error() != tt.msg {
				t.Errorf("err = %s, want %s", err, tt.msg)
			}
			if strings.Contains(err.Error(), "--") {
				t.Errorf("err %q names a flag", err)
			}
			if !errors.As(err, tt.target) {
				t.Fatalf("err %q (%T) is not a %T", err, err, tt.target)
			}
			if got := reflect.ValueOf(tt.target).Elem().Interface(); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("err = %#v, want %#v", got, tt.want)
			}
			// The sentinels still match.
			if !errors.Is(err, ErrTooLarge) && !errors.Is(err, errUnknownFormat) {
				t.Errorf("err %q matches neither ErrTooLarge nor ErrUnknownFormat", err)
			}
		})
	}
}

// Every reader that meets the size limit ends with an error that matches
// the *SizeLimitError and quotes its message once, however it words the
// read's failure, so that ctdiff
// can add the flag that raises the limit where the message stands.
func TestSizeLimitEveryReader(t *testing.T) {
	t.Parallel()
	var paths []string
	for _, dir := range []string{"collapsed", "cpuprofile", "devtools", "etw", "java", "perf", "pprof"} {
		paths = append(paths, corpus.Glob(t, dir+"/*")...)
	}
	next := corpus.NextFiles(t)
	paths = append(paths, next...)
	const limit = 3 * sniffSize
	tested := 0
	reached := map[string]bool{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(data) <= 2*limit || strings.HasSuffix(path, ".gz") || strings.HasSuffix(path, ".zip") {
			continue // gzip and zip inputs are bounded after decompression: tested above
		}
		_, err = Read(bytes.NewReader(data), path, Options{MaxDecompressed: limit})
		if err == nil {
			continue // a reader that stops early (a binary header) may not reach it
		}
		tested++
		reached[path] = true
		var sl *SizeLimitError
		if !errors.As(err, &sl) || sl.Limit != limit {
			t.Errorf("%s: %q (%T) does not match a *SizeLimitError of %d bytes", path, err, err, limit)
			continue
		}
		if n := strings.Count(err.Error(), sl.Error()); n != 1 {
			t.Errorf("%s: %q quotes %q %d times, want once", path, err, sl.Error(), n)
		}
	}
	if tested < 10 {
		t.Errorf("%d corpus inputs reached the limit, want 10 or more", tested)
	}
	// Of the public files not yet in the corpus, the Firefox ones are
	// large enough.
	for _, p := range next {
		if st, err := os.Stat(p); err == nil && st.Size() > 2*limit && !reached[p] {
			t.Errorf("%s: %d bytes read within a limit of %d", p, st.Size(), limit)
		}
	}
}
