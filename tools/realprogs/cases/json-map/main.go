// Command json-map is a clickstream pipeline stage: it parses raw log lines,
// drops bots, enriches each event with a region and a session, encodes it as
// JSON for the next stage and batches the output.
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"hash/crc32"
	"log"
	"math/rand/v2"
	"os"
	"regexp"
	"runtime/pprof"
	"strconv"
	"strings"
)

type event struct {
	TS        int64  `json:"ts"`
	User      string `json:"user"`
	Session   string `json:"session"`
	Path      string `json:"path"`
	Referrer  string `json:"referrer,omitempty"`
	Region    string `json:"region"`
	Device    string `json:"device"`
	LatencyMS int    `json:"latency_ms"`
	Status    int    `json:"status"`
	Bytes     int    `json:"bytes"`
}

type session struct {
	id   string
	last int64
	hits int
}

func main() {
	n := flag.Int("n", 300000, "log lines to process")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	lines := makeLines(5000)
	stop := startProfile(*prof)
	sum := process(lines, *n)
	stop()
	fmt.Printf("batches checksum %08x\n", sum)
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

var agents = []string{"Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0) Mobile/15E148",
	"Googlebot/2.1 (+http://www.google.com/bot.html)", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/126.0", "curl/8.5.0"}
var paths = []string{"/", "/search?q=shoes", "/item/1234", "/cart", "/checkout", "/account", "/item/77/reviews", "/help"}

// makeLines renders access-log lines: ts ip user "path" status bytes ms "referrer" "agent".
func makeLines(k int) []string {
	r := rand.New(rand.NewPCG(11, 12))
	out := make([]string, k)
	for i := range out {
		ip := fmt.Sprintf("%d.%d.%d.%d", 10+r.IntN(200), r.IntN(256), r.IntN(256), r.IntN(256))
		out[i] = fmt.Sprintf(`%d %s u%d "%s" %d %d %d "https://ref.example/%d" "%s"`,
			1733600000000+int64(i)*37, ip, r.IntN(3000), paths[r.IntN(len(paths))], []int{200, 200, 304, 404, 500}[r.IntN(5)],
			r.IntN(90000), r.IntN(900), r.IntN(50), agents[r.IntN(len(agents))])
	}
	return out
}

func process(lines []string, n int) uint32 {
	sessions := make(map[string]*session)
	var batch bytes.Buffer
	var sum uint32
	for i := 0; i < n; i++ {
		f, ok := splitLine(lines[i%len(lines)])
		if !ok || isBot(f[8]) {
			continue
		}
		e := toEvent(f, int64(i))
		e.Session = sessionize(sessions, e.User, e.TS)
		batch.Write(encodeEvent(&e))
		batch.WriteByte('\n')
		if batch.Len() > 256<<10 {
			sum = flush(&batch, sum)
		}
	}
	return flush(&batch, sum)
}

// splitLine splits a log line into its nine fields, honouring quotes.
func splitLine(s string) ([9]string, bool) {
	var f [9]string
	k := 0
	for k < 9 && len(s) > 0 {
		if s[0] == '"' {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				return f, false
			}
			f[k] = s[1 : end+1]
			s = strings.TrimLeft(s[end+2:], " ")
		} else {
			end := strings.IndexByte(s, ' ')
			if end < 0 {
				end = len(s)
			}
			f[k] = s[:end]
			s = strings.TrimLeft(s[end:], " ")
		}
		k++
	}
	return f, k == 9
}

func isBot(agent string) bool {
	a := strings.ToLower(agent)
	return strings.Contains(a, "bot") || strings.HasPrefix(a, "curl/") || strings.Contains(a, "spider")
}

func toEvent(f [9]string, seq int64) event {
	ts, _ := strconv.ParseInt(f[0], 10, 64)
	status, _ := strconv.Atoi(f[4])
	size, _ := strconv.Atoi(f[5])
	ms, _ := strconv.Atoi(f[6])
	return event{TS: ts + seq, User: f[2], Path: f[3], Referrer: f[7], Region: regionOf(f[1]),
		Device: deviceOf(f[8]) + "/" + browserOf(f[8]), Status: status, Bytes: size, LatencyMS: ms}
}

// regionOf maps an IPv4 address to a region by its first octet.
func regionOf(ip string) string {
	dot := strings.IndexByte(ip, '.')
	o, err := strconv.Atoi(ip[:dot])
	if err != nil {
		return "unknown"
	}
	switch {
	case o < 60:
		return "us-east"
	case o < 110:
		return "eu-west"
	case o < 160:
		return "ap-south"
	}
	return "sa-east"
}

func deviceOf(agent string) string {
	switch {
	case strings.Contains(agent, "iPhone"), strings.Contains(agent, "Android"):
		return "mobile"
	case strings.Contains(agent, "Windows"), strings.Contains(agent, "X11"):
		return "desktop"
	}
	return "other"
}

var browserREs = []*regexp.Regexp{
	regexp.MustCompile(`(Firefox|Chrome|Safari|Edge)/(\d+)\.\d+`),
	regexp.MustCompile(`(iPhone|iPad); CPU \w+ OS (\d+)_\d+`),
	regexp.MustCompile(`(Android) (\d+)(?:\.\d+)*`),
}

// browserOf names the browser family and major version of a user agent.
func browserOf(agent string) string {
	for _, re := range browserREs {
		if m := re.FindStringSubmatch(agent); m != nil {
			return m[1] + "-" + m[2]
		}
	}
	return "unknown"
}

// sessionize returns the user's session id, opening a new session after 30
// minutes of inactivity.
func sessionize(m map[string]*session, user string, ts int64) string {
	s := m[user]
	if s == nil || ts-s.last > 30*60*1000 {
		s = &session{id: user + "-" + strconv.FormatInt(ts, 36)}
		m[user] = s
	}
	s.last = ts
	s.hits++
	return s.id
}

// flush compresses a batch for shipping and folds it into the checksum.
func flush(b *bytes.Buffer, sum uint32) uint32 {
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.DefaultCompression)
	zw.Write(b.Bytes())
	zw.Close()
	sum = crc32.Update(sum, crc32.IEEETable, z.Bytes())
	b.Reset()
	return sum
}
