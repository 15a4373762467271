package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
)

// TestConvertOTLP converts an OTLP/JSON file with the CLI, sniffed and
// forced, and refuses a malformed one with one line and exit 2.
func TestConvertOTLP(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "good.json", `{"resourceProfiles":[{"scopeProfiles":[{"profiles":[
	  {"sampleType":{"typeStrindex":1,"unitStrindex":2},"samples":[{"stackIndex":1,"values":["5"]},{"stackIndex":2,"values":["7"]}]}]}]}],
	 "dictionary":{"stringTable":["","cpu","nanoseconds","main","work"],
	  "functionTable":[{},{"nameStrindex":3},{"nameStrindex":4}],
	  "locationTable":[{},{"lines":[{"functionIndex":1}]},{"lines":[{"functionIndex":2}]}],
	  "stackTable":[{},{"locationIndices":[1]},{"locationIndices":[2,1]}]}}`)
	for _, from := range [][]string{nil, {"--from", "otlp"}} {
		out := filepath.Join(dir, "out.pb.gz")
		args := append(append([]string{"convert"}, from...), good, "-o", out)
		if _, errOut, code := ctdiff(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		p, err := profile.Parse(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, s := range p.Sample {
			var names []string
			for _, l := range s.Location {
				names = append(names, l.Line[0].Function.Name)
			}
			got = append(got, strings.Join(names, "<")+" "+p.SampleType[0].Type)
		}
		if g, want := strings.Join(got, ", "), "main cpu, work<main cpu"; g != want {
			t.Errorf("%v: samples %q, want %q", args, g, want)
		}
	}

	bad := writeFile(t, dir, "bad.json", `{"resourceProfiles": 5}`)
	_, errOut, code := ctdiff("convert", "--from", "otlp", bad, "-o", filepath.Join(dir, "bad.pb.gz"))
	if want := "ctdiff: " + bad + ": not a valid OTLP profile (JSON): "; code != 2 || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want exit 2 and one line starting %q", code, errOut, want)
	}
}
