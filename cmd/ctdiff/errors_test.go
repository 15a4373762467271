package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad input: exit code 2 and one line naming the file and what was wrong.
func TestInputErrors(t *testing.T) {
	dir := t.TempDir()
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(bytes.Repeat([]byte("main;work 1\n"), 5000))
	zw.Close()
	truncated := writeFile(t, dir, "trunc.pb.gz", gz.String()[:gz.Len()/2])
	empty := writeFile(t, dir, "empty.pb", "")
	blank := writeFile(t, dir, "blank.txt", "\n \n")
	unknown := writeFile(t, dir, "notes.txt", "hello world\nthis is not a profile\n")
	corrupt := writeFile(t, dir, "corrupt.pb", "\x0a\x05\x08\x01\x10\x02\xff\xff\xff\x00garbage")
	badCount := writeFile(t, dir, "bad.folded", "main;a 1\nmain;b x2\n")
	if err := os.Mkdir(filepath.Join(dir, "emptydir"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string // the whole stderr
	}{
		{"empty file", []string{"cct", empty}, "ctdiff: " + empty + ": empty input: no profile data\n"},
		{"blank file", []string{"cct", blank}, "ctdiff: " + blank + ": empty input: no profile data\n"},
		{"truncated gzip", []string{"cct", truncated}, "ctdiff: " + truncated + ": gzip: truncated gzip stream after "},
		{"unknown format", []string{"cct", unknown}, "ctdiff: " + unknown + ": unknown profile format: the content matches none of: "},
		{"corrupt pprof", []string{"cct", "--from", "pprof", corrupt}, "ctdiff: " + corrupt + ": byte 7: not a valid pprof profile: field 2047 has wire type 7"},
		{"bad count", []string{"convert", "-o", filepath.Join(dir, "out.pb.gz"), badCount}, "ctdiff: " + badCount + ": line 2: expected a non-negative integer count at the end, found \"x2\" (--skip-invalid-lines skips such lines, with one warning counting them)\n"},
		{"missing file", []string{"cct", filepath.Join(dir, "nope.pb.gz")}, "ctdiff: stat " + filepath.Join(dir, "nope.pb.gz") + ": no such file or directory\n"},
		{"empty directory", []string{"cct", filepath.Join(dir, "emptydir")}, "ctdiff: " + filepath.Join(dir, "emptydir") + ": directory holds no profiles\n"},
		{"unknown --from", []string{"cct", "--from", "nope", badCount}, "ctdiff: " + badCount + ": unknown format \"nope\": must be one of: "},
		{"bad --view", []string{"cct", "--view", "sideways", badCount}, "ctdiff: --view \"sideways\" must be one of: [top-down bottom-up flat]\n"},
		{"unknown flag", []string{"cct", "--colour", badCount}, "ctdiff: unknown flag: --colour (see 'ctdiff cct --help')\n"},
		{"no thread matches", []string{"cct", "--thread", "^ui$", writeFile(t, dir, "ok.folded", "main 1\n")}, "ctdiff: " + filepath.Join(dir, "ok.folded") + ": no samples: no sample matches the thread/pid selection; threads present: \"\"\n"},
		{"gzip bomb", []string{"cct", "--max-input-size", "1000", truncated}, "ctdiff: " + truncated + ": decompressed input exceeds the size limit (1000 bytes; raise it with --max-input-size)\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := ctdiff(tt.args...)
			if code != exitError {
				t.Errorf("exit code %d, want %d", code, exitError)
			}
			if out != "" {
				t.Errorf("stdout not empty: %q", out)
			}
			if strings.Count(errOut, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", errOut)
			}
			if !strings.HasPrefix(errOut, tt.want) {
				t.Errorf("stderr = %q\nwant prefix %q", errOut, tt.want)
			}
		})
	}
}
