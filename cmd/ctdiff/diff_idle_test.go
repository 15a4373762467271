package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctdiff/ctdiff/internal/corpus"
	"github.com/ctdiff/ctdiff/report"
	"github.com/google/pprof/profile"
)

// A wall-clock timeline's diff totals leave out "(idle)": the Total line and
// the JSON say how much, and total plus idle is the recording's whole time
// (what ctdiff cct prints as its total). A profile without idle time says
// nothing of it.
func TestDiffTotalSaysWhatItExcludes(t *testing.T) {
	trace := corpus.Path(t, "devtools/devtools-two-workers.json.gz")
	pb := filepath.Join(t.TempDir(), "p.pb.gz")
	if _, errOut, code := ctdiff("convert", trace, "-o", pb); code != 0 {
		t.Fatalf("convert: exit %d: %s", code, errOut)
	}
	f, err := os.Open(pb)
	if err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var all, idle int64
	wall := len(p.SampleType) - 1 // the default type, which diff compares
	if p.SampleType[wall].Type != "wall" {
		t.Fatalf("the trace's last sample type is %s, not wall", p.SampleType[wall].Type)
	}
	for _, s := range p.Sample {
		all += s.Value[wall]
		if fn := s.Location[0].Line[0].Function; len(s.Location) == 1 && fn.Name == "(idle)" {
			idle += s.Value[wall]
		}
	}
	if idle == 0 {
		t.Fatal("the trace has no (idle) samples: the test cannot tell anything")
	}

	var doc struct {
		Unit      string
		Base, New struct{ Total, Idle int64 }
	}
	js, errOut, code := ctdiff("diff", trace, trace, "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	for _, s := range []struct{ Total, Idle int64 }{doc.Base, doc.New} {
		if s.Idle != idle || s.Total+s.Idle != all {
			t.Errorf("JSON side: total %d, idle %d; want idle %d and total + idle = %d", s.Total, s.Idle, idle, all)
		}
	}

	text, errOut, code := ctdiff("diff", trace, trace)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	v := report.FormatValue(idle, "nanoseconds")
	want := "Total: " + report.FormatValue(all-idle, "nanoseconds") + " → " + report.FormatValue(all-idle, "nanoseconds") +
		" (0, +0.00%), excluding (idle) " + v + " → " + v + "\n"
	if !strings.Contains(text, want) {
		t.Errorf("the text report lacks %q:\n%s", want, text)
	}
	md, _, _ := ctdiff("diff", trace, trace, "--format", "markdown")
	if !strings.Contains(md, "excluding (idle) "+v) {
		t.Errorf("the Markdown summary does not say that (idle) %s is left out:\n%s", v, md)
	}

	js, _, _ = ctdiff("diff", exampleOld, exampleNew, "--format", "json")
	text, _, _ = ctdiff("diff", exampleOld, exampleNew)
	if strings.Contains(js, `"idle"`) || strings.Contains(text, "excluding") {
		t.Error("a comparison without (idle) time says it excludes some")
	}
}
