// Package example is a small request-processing workload used to generate
// the example profiles in testdata/example (the same fixed amount of work in
// two versions), testdata/fixed-duration (the same recording time: RunFor)
// and testdata/bench (go test -bench BenchmarkHandleRequest), where the
// "new" version carries one known, injected slowdown (ZAM's "repeated
// check": validate re-checks every field against every rule). Its only
// purpose is to give ctdiff real Go CPU profiles with a known answer.
package example

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// A Record is one item of a request.
type Record struct {
	ID     int       `json:"id"`
	Name   string    `json:"name"`
	Tags   []string  `json:"tags"`
	Values []float64 `json:"values"`
}

// Config selects the version and the amount of work.
type Config struct {
	// Slow injects the regression: validate checks each record against every
	// rule repeatedly (the "new" version).
	Slow bool
	// Requests is the number of requests to handle.
	Requests int
}

// Run handles cfg.Requests requests and returns a checksum so the compiler
// cannot drop the work.
func Run(cfg Config) uint64 {
	var sum uint64
	for i := range cfg.Requests {
		sum += handleRequest(makeRequest(i), cfg.Slow)
	}
	return sum
}

// RunFor handles requests one after another until d has passed, as a
// saturated service does during a fixed-duration profile
// (/debug/pprof/profile?seconds=N): the slow version handles fewer
// requests in the same time. It returns the requests handled and a
// checksum.
func RunFor(d time.Duration, slow bool) (requests int, sum uint64) {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		sum += handleRequest(makeRequest(requests), slow)
		requests++
	}
	return requests, sum
}

func makeRequest(seed int) []byte {
	recs := make([]Record, 40)
	for i := range recs {
		r := &recs[i]
		r.ID = seed*100 + i
		r.Name = fmt.Sprintf("item-%d-%d", seed, i)
		r.Tags = []string{"alpha", "beta", fmt.Sprint("t", i%7)}
		r.Values = make([]float64, 16)
		for j := range r.Values {
			r.Values[j] = float64((seed+1)*(i+1)*(j+1)%97) / 7
		}
	}
	b, _ := json.Marshal(recs)
	return b
}

func handleRequest(body []byte, slow bool) uint64 {
	recs := parseRecords(body)
	if !validate(recs, slow) {
		return 0
	}
	score := computeScores(recs)
	out := render(recs, score)
	return checksum(compress(out))
}

func parseRecords(body []byte) []Record {
	var recs []Record
	if err := json.Unmarshal(body, &recs); err != nil {
		panic(err)
	}
	return recs
}

var rules = []string{
	"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
	"iota", "kappa", "lambda", "mu", "item-", "t1", "t3", "t5",
}

// validate checks names and tags against the rules. The slow version
// re-runs the whole check for every rule: the injected regression.
func validate(recs []Record, slow bool) bool {
	rounds := 1
	if slow {
		rounds = 5
	}
	ok := true
	for range rounds {
		ok = checkRules(recs) && ok
	}
	return ok
}

func checkRules(recs []Record) bool {
	hits := 0
	for _, r := range recs {
		for _, rule := range rules {
			if strings.Contains(r.Name, rule) {
				hits++
			}
			for _, t := range r.Tags {
				if strings.EqualFold(t, rule) {
					hits++
				}
			}
		}
	}
	return hits > 0
}

func computeScores(recs []Record) []float64 {
	scores := make([]float64, len(recs))
	for i, r := range recs {
		v := append([]float64(nil), r.Values...)
		sort.Float64s(v)
		for round := range 8 {
			for k, x := range v {
				scores[i] += math.Sqrt(x+float64(round)+1) * math.Log1p(float64(k)+x)
			}
		}
	}
	return scores
}

func render(recs []Record, scores []float64) []byte {
	var b bytes.Buffer
	for i, r := range recs {
		fmt.Fprintf(&b, "%d\t%s\t%s\t%.4f\n", r.ID, r.Name, strings.Join(r.Tags, ","), scores[i])
	}
	return b.Bytes()
}

// gz is reused across requests, as a real service would pool it.
var gz, _ = gzip.NewWriterLevel(nil, gzip.BestSpeed)

func compress(b []byte) []byte {
	var out bytes.Buffer
	gz.Reset(&out)
	gz.Write(b)
	gz.Close()
	return out.Bytes()
}

func checksum(b []byte) uint64 {
	h := sha256.Sum256(b)
	var s uint64
	for _, c := range h[:8] {
		s = s<<8 | uint64(c)
	}
	return s
}
