package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// A smaller --min-delta finds at least what the default finds: every cause
// path at 50 ms is a cause path, or the start of one, at any smaller μ.
// At 1 ms the family of tests grew and stringslite.Index's +70 ms cause
// was lost.
func TestSmallerMinDeltaCoversDefault(t *testing.T) {
	paths := func(args ...string) []string {
		t.Helper()
		out, errOut, code := ctdiff(append([]string{"diff", exampleOld, exampleNew, "--format", "json"}, args...)...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var doc struct {
			Causes []struct {
				Thread string
				Path   []struct{ Function string }
			}
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		var ps []string
		for _, c := range doc.Causes {
			p := c.Thread
			for _, f := range c.Path {
				p += ";" + f.Function
			}
			ps = append(ps, p)
		}
		return ps
	}
	def := paths()
	if len(def) < 2 {
		t.Fatalf("the example has %d causes at the default, want 2", len(def))
	}
	for _, mu := range []string{"30ms", "20ms", "10ms", "5ms", "2ms", "1ms", "100us"} {
		got := paths("--min-delta", mu)
		for _, p := range def {
			covered := false
			for _, q := range got {
				covered = covered || q == p || strings.HasPrefix(q, p+";")
			}
			if !covered {
				t.Errorf("--min-delta %s: the default's cause %s is not covered by %v", mu, p, got)
			}
		}
	}
}
