// Command spread-helper is a REST API's request loop without the network:
// it routes each request to one of ten handlers, which read and write an
// in-memory store and render JSON-like responses.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
)

type request struct {
	method string
	path   string
	user   string
	body   string
	query  map[string]string
}

type item struct {
	id    int
	name  string
	price int64
	tags  []string
	stars []int
}

type db struct {
	users    map[string]string
	items    []*item
	orders   map[string][]int
	carts    map[string][]int
	sessions map[string]string
}

type handler func(*db, *request) string

var routes = map[string]handler{
	"GET /user":      getUser,
	"GET /orders":    listOrders,
	"POST /orders":   createOrder,
	"PUT /cart":      updateCart,
	"GET /search":    search,
	"GET /item":      getItem,
	"POST /review":   addReview,
	"POST /login":    login,
	"POST /logout":   logout,
	"GET /recommend": recommend,
}

func main() {
	n := flag.Int("n", 500000, "requests")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	d := newDB(3000)
	reqs := makeRequests(5000)
	stop := startProfile(*prof)
	out := 0
	for i := 0; i < *n; i++ {
		out += len(dispatch(d, &reqs[i%len(reqs)]))
	}
	stop()
	fmt.Println("response bytes:", out)
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

var words = []string{"red", "blue", "shoe", "lamp", "desk", "chair", "cable", "phone", "case", "mug", "book", "pen"}

func newDB(k int) *db {
	r := rand.New(rand.NewPCG(71, 72))
	d := &db{users: map[string]string{}, orders: map[string][]int{}, carts: map[string][]int{}, sessions: map[string]string{}}
	for i := 0; i < k; i++ {
		it := &item{id: i, name: words[r.IntN(len(words))] + " " + words[r.IntN(len(words))] + " " + strconv.Itoa(i),
			price: int64(100 + r.IntN(50000))}
		for j := 0; j < 3; j++ {
			it.tags = append(it.tags, words[r.IntN(len(words))])
		}
		d.items = append(d.items, it)
	}
	for i := 0; i < 500; i++ {
		d.users["u"+strconv.Itoa(i)] = "User Number " + strconv.Itoa(i)
	}
	return d
}

func makeRequests(k int) []request {
	r := rand.New(rand.NewPCG(73, 74))
	keys := make([]string, 0, len(routes))
	for k := range routes {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]request, k)
	for i := range out {
		mp := strings.SplitN(keys[r.IntN(len(keys))], " ", 2)
		out[i] = request{method: mp[0], path: mp[1], user: "u" + strconv.Itoa(r.IntN(500)),
			body:  `{"item":` + strconv.Itoa(r.IntN(3000)) + `,"qty":` + strconv.Itoa(1+r.IntN(3)) + `}`,
			query: map[string]string{"q": words[r.IntN(len(words))], "id": strconv.Itoa(r.IntN(3000)), "stars": strconv.Itoa(1 + r.IntN(5))}}
	}
	return out
}

func dispatch(d *db, r *request) string {
	h, ok := routes[r.method+" "+r.path]
	if !ok {
		return `{"error":"not found"}`
	}
	return h(d, r)
}

// bodyInt reads an integer field of a flat JSON body.
func bodyInt(body, field string) int {
	i := strings.Index(body, `"`+field+`":`)
	if i < 0 {
		return 0
	}
	rest := body[i+len(field)+3:]
	end := strings.IndexAny(rest, ",}")
	v, _ := strconv.Atoi(rest[:end])
	return v
}

func renderItem(b *strings.Builder, it *item) {
	b.WriteString(`{"id":`)
	b.WriteString(strconv.Itoa(it.id))
	b.WriteString(`,"name":`)
	b.WriteString(strconv.Quote(it.name))
	b.WriteString(`,"price":`)
	b.WriteString(strconv.FormatInt(it.price, 10))
	b.WriteString(`,"tags":[`)
	for i, t := range it.tags {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(t))
	}
	b.WriteString(`]}`)
}

func renderItems(its []*item) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, it := range its {
		if i > 0 {
			b.WriteByte(',')
		}
		renderItem(&b, it)
	}
	b.WriteByte(']')
	return b.String()
}

func itemByID(d *db, id int) *item {
	if id < 0 || id >= len(d.items) {
		return nil
	}
	return d.items[id]
}

func matches(it *item, q string) bool {
	if strings.Contains(it.name, q) {
		return true
	}
	return slices.Contains(it.tags, q)
}
