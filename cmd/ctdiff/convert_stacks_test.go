package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/internal/pprofio"
	"github.com/google/pprof/profile"
)

// TestConvertStacksSameBytes: converting one DevTools trace or .cpuprofile,
// which convert reads as stacks, writes the bytes the profile it reads
// without them is written as, with and without --thread.
func TestConvertStacksSameBytes(t *testing.T) {
	var inputs []string
	fixtures, _ := filepath.Glob("../../convert/testdata/devtools/*")
	for _, f := range fixtures {
		if !strings.HasSuffix(f, ".golden") {
			inputs = append(inputs, f)
		}
	}
	inputs = append(inputs,
		corpus.Path(t, "devtools/devtools-two-workers.json.gz"),
		corpus.Path(t, "cpuprofile/speedscope-Chrome_65-sucrase.cpuprofile"))
	if len(inputs) < 3 {
		t.Fatal("no fixtures in convert/testdata/devtools")
	}
	for _, in := range inputs {
		for _, thread := range []string{"", "Worker"} {
			t.Run(filepath.Base(in)+"/"+thread, func(t *testing.T) {
				args := []string{"convert", in, "-o", filepath.Join(t.TempDir(), "out.pb.gz")}
				opts := convert.Options{}
				if thread != "" {
					args = append(args, "--thread", thread)
					opts.Thread = regexp.MustCompile(thread)
				}
				res, wantErr := convert.ReadFile(in, opts)
				_, errOut, code := ctdiff(args...)
				if wantErr != nil {
					if code != 2 || !strings.Contains(errOut, wantErr.Error()) {
						t.Fatalf("exit %d, %q; want exit 2 and %q", code, errOut, wantErr)
					}
					return
				}
				if code != 0 {
					t.Fatalf("exit %d: %s", code, errOut)
				}
				got, err := os.ReadFile(args[3])
				if err != nil {
					t.Fatal(err)
				}
				var want bytes.Buffer
				if err := pprofio.Write(&want, res.Profile); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want.Bytes()) {
					t.Fatalf("convert wrote %d bytes unlike the profile's %d", len(got), want.Len())
				}
			})
		}
	}
}

// TestConvertMergesTraces: several traces are read as profiles and merged,
// as before.
func TestConvertMergesTraces(t *testing.T) {
	ins := []string{"../../convert/testdata/devtools/chunks.json", "../../convert/testdata/devtools/profiles-per-thread.json"}
	out := filepath.Join(t.TempDir(), "out.pb.gz")
	if _, errOut, code := ctdiff("convert", ins[0], ins[1], "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var ps []*profile.Profile
	for _, in := range ins {
		res, err := convert.ReadFile(in, convert.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, res.Profile)
	}
	merged, err := profile.Merge(ps)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := pprofio.Write(&want, merged); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("convert wrote %d bytes (%v) unlike the merged profiles' %d", len(got), err, want.Len())
	}
}
