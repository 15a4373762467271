// Command sprintf-itoa is a metrics exporter: between scrapes it folds
// request events into counters and histograms, and on each scrape it renders
// every series in the Prometheus text format.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
)

type event struct {
	route  int
	status int
	micros int64
	bytes  int64
}

type series struct {
	name   string
	labels string
	value  int64
}

type histogram struct {
	bounds  []int64
	buckets []int64
	sum     int64
	count   int64
}

type registry struct {
	requests  map[[2]int]int64
	bytesOut  map[int]int64
	latencies map[int]*histogram
}

var routes = []string{"/api/v1/users", "/api/v1/orders", "/api/v1/search", "/healthz", "/api/v1/cart",
	"/api/v1/items", "/login", "/logout", "/api/v2/users", "/static"}

func main() {
	n := flag.Int("n", 3000, "scrapes")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	events := makeEvents(2500)
	reg := newRegistry()
	stop := startProfile(*prof)
	total := 0
	for i := 0; i < *n; i++ {
		ingest(reg, events)
		total += len(scrape(reg))
	}
	stop()
	fmt.Println("bytes rendered:", total)
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

func makeEvents(k int) []event {
	r := rand.New(rand.NewPCG(5, 6))
	out := make([]event, k)
	codes := []int{200, 200, 200, 200, 201, 204, 301, 400, 404, 500}
	for i := range out {
		out[i] = event{route: r.IntN(len(routes)), status: codes[r.IntN(len(codes))],
			micros: int64(r.ExpFloat64() * 3000), bytes: int64(r.IntN(64 << 10))}
	}
	return out
}

func newRegistry() *registry {
	return &registry{requests: map[[2]int]int64{}, bytesOut: map[int]int64{}, latencies: map[int]*histogram{}}
}

// ingest folds a window of events into the registry.
func ingest(reg *registry, events []event) {
	for _, e := range events {
		reg.requests[[2]int{e.route, e.status}]++
		reg.bytesOut[e.route] += e.bytes
		h := reg.latencies[e.route]
		if h == nil {
			h = newHistogram()
			reg.latencies[e.route] = h
		}
		h.observe(e.micros)
	}
}

func newHistogram() *histogram {
	b := []int64{50, 100, 250, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000}
	return &histogram{bounds: b, buckets: make([]int64, len(b)+1)}
}

func (h *histogram) observe(v int64) {
	i, _ := slices.BinarySearch(h.bounds, v)
	h.buckets[i]++
	h.sum += v
	h.count++
}

// collect lists every series of the registry, sorted by name and labels.
func collect(reg *registry) []series {
	out := make([]series, 0, 256)
	for k, v := range reg.requests {
		out = append(out, series{"http_requests_total", labelSet("route", routes[k[0]], "code", statusText(k[1])), v})
	}
	for r, v := range reg.bytesOut {
		out = append(out, series{"http_response_bytes_total", labelSet("route", routes[r]), v})
	}
	for r, h := range reg.latencies {
		var cum int64
		for i, c := range h.buckets {
			cum += c
			le := "+Inf"
			if i < len(h.bounds) {
				le = statusText(int(h.bounds[i]))
			}
			out = append(out, series{"http_request_duration_us_bucket", labelSet("route", routes[r], "le", le), cum})
		}
		out = append(out, series{"http_request_duration_us_sum", labelSet("route", routes[r]), h.sum})
		out = append(out, series{"http_request_duration_us_count", labelSet("route", routes[r]), h.count})
	}
	slices.SortFunc(out, func(a, b series) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		return strings.Compare(a.labels, b.labels)
	})
	return out
}

// labelSet renders name="value" pairs, escaping quotes and backslashes.
func labelSet(kv ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(kv[i])
		b.WriteString(`="`)
		b.WriteString(escapeLabel(kv[i+1]))
		b.WriteByte('"')
	}
	return b.String()
}

func escapeLabel(s string) string {
	if !strings.ContainsAny(s, "\"\\\n") {
		return s
	}
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func statusText(code int) string {
	var buf [8]byte
	i := len(buf)
	for code >= 10 {
		i--
		buf[i] = byte('0' + code%10)
		code /= 10
	}
	i--
	buf[i] = byte('0' + code)
	return string(buf[i:])
}

// scrape renders the registry; each scrape also reports the exporter's own
// series.
func scrape(reg *registry) []byte {
	var b bytes.Buffer
	all := collect(reg)
	last := ""
	for _, s := range all {
		if s.name != last {
			writeHelp(&b, s.name)
			last = s.name
		}
		writeSample(&b, s, 1733600000000)
	}
	return b.Bytes()
}

func writeHelp(b *bytes.Buffer, name string) {
	b.WriteString("# HELP ")
	b.WriteString(name)
	b.WriteString(" exported by the service.\n# TYPE ")
	b.WriteString(name)
	if strings.HasSuffix(name, "_total") {
		b.WriteString(" counter\n")
	} else {
		b.WriteString(" histogram\n")
	}
}
