package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"hash"
	"hash/maphash"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/convert"
)

// A run given twice on a side counted as two runs and made every difference
// look more significant: it is refused, whether it is named twice, named by
// two paths (a list, a directory, a glob, a link) or copied.
func TestDiffDuplicateRuns(t *testing.T) {
	dir := t.TempDir()
	runs := []string{}
	for _, r := range []string{"run1.pb.gz", "run2.pb.gz", "run3.pb.gz"} {
		runs = append(runs, copyTo(t, filepath.Join(exampleOld, r), filepath.Join(dir, "old", r)))
	}
	thrice := writeFile(t, dir, "old.list", strings.Repeat("old/run1.pb.gz\nold/run2.pb.gz\nold/run3.pb.gz\n", 3))
	if err := os.Symlink("old", filepath.Join(dir, "linked-old")); err != nil {
		t.Fatal(err)
	}
	twoPaths := writeFile(t, dir, "two-paths.list", "old/run1.pb.gz\nold/run2.pb.gz\nlinked-old/run1.pb.gz\n")
	listAndDir := writeFile(t, dir, "dir.list", "old/run2.pb.gz\nold\n")
	copied := copyTo(t, runs[0], filepath.Join(dir, "copied", "a.pb.gz"))
	copyTo(t, runs[1], filepath.Join(dir, "copied", "b.pb.gz"))
	copyTo(t, runs[0], filepath.Join(dir, "copied", "c.pb.gz"))
	linked := filepath.Join(dir, "linked")
	copyTo(t, runs[0], filepath.Join(linked, "run1.pb.gz"))
	if err := os.Symlink("run1.pb.gz", filepath.Join(linked, "run9.pb.gz")); err != nil {
		t.Fatal(err)
	}
	manifest := writeFile(t, dir, "release.toml", "[[component]]\nname = \"svc\"\nold = \"@old.list\"\nnew = \""+filepath.Join(wd(t), exampleNew)+"\"\n")
	const tail = ": a run given twice counts as two runs and overstates the significance of every difference; give each run once\n"
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"each of three runs three times", []string{"diff", "@" + thrice, exampleNew},
			"ctdiff: OLD @" + thrice + ": " + runs[0] + " is given twice (its inputs 1 and 4)" + tail},
		{"a new run twice", []string{"diff", exampleNew, "@" + thrice},
			"ctdiff: NEW @" + thrice + ": " + runs[0] + " is given twice (its inputs 1 and 4)" + tail},
		{"one file by two paths", []string{"diff", "@" + twoPaths, exampleNew},
			"ctdiff: OLD @" + twoPaths + ": " + runs[0] + " and " + filepath.Join(dir, "linked-old/run1.pb.gz") + " are the same file (its inputs 1 and 3)" + tail},
		{"a list and a directory", []string{"diff", "@" + listAndDir, exampleNew},
			"ctdiff: OLD @" + listAndDir + ": " + runs[1] + " is given twice (its inputs 1 and 3)" + tail},
		{"a glob of a file and its link", []string{"diff", filepath.Join(linked, "run*.pb.gz"), exampleNew},
			"ctdiff: OLD " + filepath.Join(linked, "run*.pb.gz") + ": " + filepath.Join(linked, "run1.pb.gz") + " and " + filepath.Join(linked, "run9.pb.gz") + " are the same file (its inputs 1 and 2)" + tail},
		{"a copy", []string{"diff", exampleOld, filepath.Dir(copied)},
			"ctdiff: NEW " + filepath.Dir(copied) + ": " + copied + " and " + filepath.Join(dir, "copied", "c.pb.gz") + " hold the same profile, byte for byte (its inputs 1 and 3)" + tail},
		{"a report component", []string{"report", manifest},
			"ctdiff: " + manifest + ": component \"svc\": OLD @" + thrice + ": " + runs[0] + " is given twice (its inputs 1 and 4)" + tail},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := ctdiff(tt.args...)
			if code != exitError || errOut != tt.want || out != "" {
				t.Errorf("exit %d, stdout %q, stderr\n%q\nwant exit %d,\n%q", code, out, errOut, exitError, tt.want)
			}
		})
	}
}

// The same profile on both sides is compared (it is how the noise of a
// setup is seen), with a warning in the report and, beside a report
// written elsewhere, on stderr.
func TestDiffSameProfileOnBothSides(t *testing.T) {
	dir := t.TempDir()
	copied := copyTo(t, filepath.Join(exampleOld, "run2.pb.gz"), filepath.Join(dir, "new", "run2.pb.gz"))
	copyTo(t, filepath.Join(exampleNew, "run1.pb.gz"), filepath.Join(dir, "new", "run1.pb.gz"))
	const why = "byte for byte): a profile compared with itself shows no change"
	for _, tt := range []struct {
		name     string
		old, new string
		want     string
	}{
		{"all of them", exampleOld, exampleOld, "inputs: OLD and NEW hold the same 3 profiles, byte for byte: a profile compared with itself shows no change"},
		{"one", exampleOld, filepath.Join(dir, "new"), "inputs: the same profile is on both sides (" + filepath.Join(exampleOld, "run2.pb.gz") + " and " + copied + ", " + why},
		{"the one of each side", filepath.Join(exampleNew, "run1.pb.gz"), filepath.Join(exampleNew, "run1.pb.gz"), "inputs: OLD and NEW are the same profile, byte for byte: a profile compared with itself shows no change"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := ctdiff("diff", tt.old, tt.new, "--format", "json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var doc struct{ Warnings []string }
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Warnings) == 0 || doc.Warnings[0] != tt.want {
				t.Errorf("warnings %q, want first %q", doc.Warnings, tt.want)
			}
			if !strings.Contains(errOut, "ctdiff: warning: "+tt.want+"\n") {
				t.Errorf("stderr %q does not warn %q", errOut, tt.want)
			}
		})
	}
	// Different profiles: no such warning.
	_, errOut, code := ctdiff("diff", exampleOld, exampleNew, "--format", "json")
	if code != 0 || strings.Contains(errOut, "inputs:") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// An input's digest is the hash of all its bytes, whether the reader
// reads them through Read, reads a gzipped file whole through ReadAt, or
// stops at the end of its data (trailing bytes differ, digests differ),
// with and without a progress bar.
func TestReadInputDigest(t *testing.T) {
	dir := t.TempDir()
	cpuprofile := `{"nodes":[{"id":1,"callFrame":{"functionName":"(root)","url":"","lineNumber":-1,"columnNumber":-1}},` +
		`{"id":2,"callFrame":{"functionName":"work","url":"file:///a.js","lineNumber":1,"columnNumber":1},"parent":1}],` +
		`"startTime":0,"endTime":3000,"samples":[2,2,2],"timeDeltas":[1000,1000,1000]}`
	inputs := []string{
		filepath.Join(exampleOld, "run1.pb.gz"),
		writeFile(t, dir, "a.folded", "main;work 10\nmain;other 3\n"),
		writeFile(t, dir, "a.cpuprofile", cpuprofile+"\n\n"),
		writeFile(t, dir, "b.cpuprofile", cpuprofile+"\n\n\n"),
		writeFile(t, dir, "c.cpuprofile", cpuprofile+strings.Repeat(" ", 1<<20)+"\n"),
		writeFile(t, dir, "d.cpuprofile", cpuprofile+strings.Repeat(" ", 1<<20)+"\n\n"),
		writeFile(t, dir, "e.folded", "main;work 10\nmain;other 3\n"+strings.Repeat("\n", 1<<20)),
	}
	sums := map[digest]string{}
	for _, path := range inputs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		want := digest{sum: maphash.Bytes(digestSeed, data), n: int64(len(data))}
		for _, p := range []*progress{nil, newProgress(io.Discard, "reading", 8<<20)} {
			var sum digest
			if _, err := readInput(path, convert.Options{}, p, &sum); err != nil {
				t.Fatal(err)
			}
			if sum != want {
				t.Errorf("%s (progress %v): digest %x, want the hash of the file, %x", path, p != nil, sum, want)
			}
		}
		if other, ok := sums[want]; ok {
			t.Errorf("%s and %s have one digest", path, other)
		}
		sums[want] = path
	}
}

// copyTo copies src to dst, making dst's directory, and returns dst.
func copyTo(t *testing.T, src, dst string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// BenchmarkDigest reads a 4 MB input as readInput does, hashing it with
// the digest and, for comparison, with SHA-256: what telling duplicate
// runs apart adds to reading each input.
func BenchmarkDigest(b *testing.B) {
	data := make([]byte, 4<<20)
	for i := range data {
		data[i] = byte(i * 7)
	}
	for _, h := range []struct {
		name string
		new  func() hash.Hash
	}{
		{"maphash", func() hash.Hash { var m maphash.Hash; m.SetSeed(digestSeed); return &m }},
		{"sha256", sha256.New},
	} {
		b.Run(h.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				w := h.new()
				if _, err := io.CopyBuffer(w, bytes.NewReader(data), make([]byte, 64<<10)); err != nil {
					b.Fatal(err)
				}
				w.Sum(nil)
			}
		})
	}
}
