// Command noise-mixed is a log analyzer: it parses access-log lines with a
// regular expression, aggregates per route and status, keeps per-route
// latency samples, computes percentiles and renders a report. The same binary
// runs on both sides of a comparison: any difference is noise.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"regexp"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
)

type stats struct {
	count     int
	errors    int
	bytes     int64
	latencies []float64
}

var lineRE = regexp.MustCompile(`^(\S+) \S+ \S+ \[([^\]]+)\] "(\w+) (\S+) HTTP/[\d.]+" (\d{3}) (\d+) ([\d.]+)$`)

func main() {
	n := flag.Int("n", 130, "passes over the log")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	lines := makeLog(5000)
	stop := startProfile(*prof)
	out := 0
	for i := 0; i < *n; i++ {
		agg := map[string]*stats{}
		for _, l := range lines {
			ingest(agg, l)
		}
		out += len(report(agg))
	}
	stop()
	fmt.Println("report bytes:", out)
}

func startProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
}

func makeLog(k int) []string {
	r := rand.New(rand.NewPCG(121, 122))
	paths := []string{"/", "/api/users/42", "/api/orders", "/static/app.js", "/api/search?q=x", "/login", "/api/items/7"}
	out := make([]string, k)
	for i := range out {
		out[i] = fmt.Sprintf(`10.0.%d.%d - - [07/Dec/2026:10:%02d:%02d +0000] "%s %s HTTP/1.1" %d %d %.3f`,
			r.IntN(256), r.IntN(256), r.IntN(60), r.IntN(60), []string{"GET", "GET", "POST", "PUT"}[r.IntN(4)],
			paths[r.IntN(len(paths))], []int{200, 200, 200, 304, 404, 500}[r.IntN(6)], r.IntN(50000), r.ExpFloat64()*0.2)
	}
	return out
}

func ingest(agg map[string]*stats, line string) {
	m := lineRE.FindStringSubmatch(line)
	if m == nil {
		return
	}
	key := m[3] + " " + routeOf(m[4])
	s := agg[key]
	if s == nil {
		s = &stats{}
		agg[key] = s
	}
	s.count++
	if m[5][0] == '5' {
		s.errors++
	}
	b, _ := strconv.ParseInt(m[6], 10, 64)
	s.bytes += b
	lat, _ := strconv.ParseFloat(m[7], 64)
	s.latencies = append(s.latencies, lat)
}

// routeOf replaces numeric path segments and drops the query.
func routeOf(path string) string {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if _, err := strconv.Atoi(p); err == nil {
			parts[i] = ":id"
		}
	}
	return strings.Join(parts, "/")
}

func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(p*float64(len(sorted)-1))]
}

func report(agg map[string]*stats) string {
	keys := make([]string, 0, len(agg))
	for k := range agg {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		s := agg[k]
		slices.Sort(s.latencies)
		fmt.Fprintf(&b, "%-30s %6d %5d %10d p50=%.3f p99=%.3f\n", k, s.count, s.errors, s.bytes,
			percentile(s.latencies, 0.5), percentile(s.latencies, 0.99))
	}
	return b.String()
}
