// Command http-normalize is a small net/http service: GET /api/search looks
// up people in a directory by name, city and tags, scores the matches and
// returns them as JSON. It serves net/http/pprof, and its CPU profile is
// taken from /debug/pprof/profile while a separate load process sends
// requests.
package main

import (
	"encoding/json"
	"flag"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	_ "net/http/pprof"
	"os"
	"slices"
	"strconv"
	"strings"
)

type person struct {
	ID    int      `json:"id"`
	Name  string   `json:"name"`
	City  string   `json:"city"`
	Title string   `json:"title"`
	Tags  []string `json:"tags"`
	Score float64  `json:"score"`

	nameKey, titleKey string
}

type query struct {
	name, city, title string
	tags              []string
	limit             int
}

type directory struct {
	people []person
	byCity map[string][]int
}

func main() {
	addrFile := flag.String("addrfile", "", "write the listening address to this file")
	flag.Parse()
	dir := newDirectory(240)
	http.HandleFunc("/api/search", func(w http.ResponseWriter, r *http.Request) { handleSearch(dir, w, r) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	if *addrFile != "" {
		if err := os.WriteFile(*addrFile, []byte(ln.Addr().String()), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	log.Fatal(http.Serve(ln, nil))
}

var (
	firstNames = []string{"Ana", "José", "Zoë", "Mikael", "Ngozi", "Wei", "Ólafur", "Priya", "Chloé", "Tomás"}
	lastNames  = []string{"Müller", "García", "Nakamura", "Okafor", "Dubois", "Kowalski", "Ström", "Nguyễn"}
	cities     = []string{"São Paulo", "Zürich", "Kraków", "Malmö", "Montréal", "Reykjavík", "Lagos", "Düsseldorf"}
	titles     = []string{"Senior Engineer", "Product Manager", "Data Scientist", "Designer", "Site Reliability Engineer"}
	tagWords   = []string{"Go", "Kubernetes", "Docker", "Linux", "Rust", "Terraform", "Postgres", "Kafka"}
)

func newDirectory(k int) *directory {
	r := rand.New(rand.NewPCG(101, 102))
	d := &directory{byCity: map[string][]int{}}
	for i := 0; i < k; i++ {
		p := person{ID: i, Name: firstNames[r.IntN(len(firstNames))] + " " + lastNames[r.IntN(len(lastNames))],
			City: cities[r.IntN(len(cities))], Title: titles[r.IntN(len(titles))]}
		p.nameKey, p.titleKey = normalize(p.Name), normalize(p.Title)
		for j := 0; j < 3; j++ {
			p.Tags = append(p.Tags, tagWords[r.IntN(len(tagWords))])
		}
		d.people = append(d.people, p)
		key := normalize(p.City)
		d.byCity[key] = append(d.byCity[key], i)
	}
	return d
}

func handleSearch(d *directory, w http.ResponseWriter, r *http.Request) {
	q, err := parseQuery(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	hits := search(d, q)
	w.Header().Set("Content-Type", "application/json")
	if err := json.NewEncoder(w).Encode(hits); err != nil {
		log.Print(err)
	}
}

func search(d *directory, q query) []person {
	var out []person
	for _, i := range d.byCity[normalize(q.city)] {
		p := d.people[i]
		p.Score = score(&p, q)
		if p.Score > 0 {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b person) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return a.ID - b.ID
	})
	return out[:min(q.limit, len(out))]
}

// score weighs how well a person matches: name prefix, title words, tags.
func score(p *person, q query) float64 {
	s := 0.0
	if strings.HasPrefix(p.nameKey, q.name) {
		s += 3
	}
	for _, w := range strings.Fields(q.title) {
		if strings.Contains(p.titleKey, w) {
			s++
		}
	}
	for _, t := range q.tags {
		for _, pt := range p.Tags {
			if strings.EqualFold(pt, t) {
				s += 0.5
			}
		}
	}
	return s
}

func limitParam(v string) int {
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return 10
	}
	return min(n, 50)
}
