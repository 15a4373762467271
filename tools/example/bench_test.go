package example

import (
	"os"
	"testing"
)

// BenchmarkHandleRequest handles one request per iteration: the old
// version, or the new one with the injected slowdown when
// CTDIFF_EXAMPLE_SLOW=1, so that both versions report under the same name
// for benchstat. testdata/bench/gen.sh profiles it. It uses b.Loop, so the
// iteration count go test reports is every iteration the profile holds
// (a b.N loop with a time -benchtime also runs unreported calibration
// rounds).
func BenchmarkHandleRequest(b *testing.B) {
	slow := os.Getenv("CTDIFF_EXAMPLE_SLOW") == "1"
	var sum uint64
	i := 0
	for b.Loop() {
		sum += handleRequest(makeRequest(i), slow)
		i++
	}
	if sum == 42 {
		b.Log(sum)
	}
}

// The injected slowdown is real: the slow version does five rounds of
// checkRules where the old one does one, and both agree on the result.
func TestSlowVersionAgrees(t *testing.T) {
	for i := range 20 {
		body := makeRequest(i)
		if a, b := handleRequest(body, false), handleRequest(body, true); a != b {
			t.Fatalf("request %d: old %d, new %d", i, a, b)
		}
	}
	if n, _ := RunFor(0, false); n != 0 {
		t.Errorf("RunFor(0) handled %d requests", n)
	}
}
