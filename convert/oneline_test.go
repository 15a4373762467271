package convert

import (
	"archive/zip"
	"bytes"
	"errors"
	"testing"
)

func TestEscapeControls(t *testing.T) {
	for in, want := range map[string]string{
		"plain name":             "plain name",
		"two\nlines\r\n":         `two\nlines\r\n`,
		"nul\x00 and tab\t":      `nul\x00 and tab\t`,
		"unicode ü and \u0085!":  `unicode ü and \u0085!`,
		"ctdiff: x: warning: ok": "ctdiff: x: warning: ok",
	} {
		if got := escapeControls(in); got != want {
			t.Errorf("escapeControls(%q) = %q, want %q", in, got, want)
		}
	}
}

// An error that quotes the input raw still reaches the user on one line,
// and still unwraps to what the reader returned.
func TestReadErrorsAreOneLine(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	if _, err := zw.Create("notes\nctdiff: fake.json: warning: all good.txt"); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := Read(&buf, "trace.zip", Options{From: "perfview"})
	want := `trace.zip: expected a .perfView.xml or .perfView.json entry in the zip archive, found: notes\nctdiff: fake.json: warning: all good.txt`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v\nwant  %s", err, want)
	}
	var le *lineError
	if !errors.As(err, &le) || le.err.Error() == err.Error() {
		t.Errorf("the error was not escaped by Read: %#v", err)
	}
}
