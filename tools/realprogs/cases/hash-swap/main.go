// Command hash-swap is a cache proxy: it parses text-protocol commands,
// serves hot keys from a local LRU, routes the rest to a shard picked on a
// consistent-hash ring, and keeps per-shard statistics.
package main

import (
	"container/list"
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

type command struct {
	op    string
	key   string
	value string
	ttl   int
}

type entry struct {
	key   string
	value string
}

type lru struct {
	cap   int
	ll    *list.List
	items map[string]*list.Element
}

type ring struct {
	points []uint64
	owner  map[uint64]int
}

type shard struct {
	id    int
	store map[string]string
	gets  int
	sets  int
	bytes int
}

func main() {
	n := flag.Int("n", 2400000, "commands to serve")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	lines := makeCommands(20000)
	shards := make([]*shard, 12)
	for i := range shards {
		shards[i] = &shard{id: i, store: make(map[string]string)}
	}
	rg := newRing(len(shards), 160)
	cache := &lru{cap: 300, ll: list.New(), items: make(map[string]*list.Element)}
	stop := startProfile(*prof)
	out := 0
	for i := 0; i < *n; i++ {
		out += len(serve(lines[i%len(lines)], cache, rg, shards))
	}
	stop()
	fmt.Println("reply bytes:", out, report(shards))
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

func makeCommands(k int) []string {
	r := rand.New(rand.NewPCG(51, 52))
	out := make([]string, k)
	for i := range out {
		key := "session:" + strconv.Itoa(int(r.ExpFloat64()*4000)) + ":profile"
		if r.IntN(4) == 0 {
			out[i] = "set " + key + " " + strconv.Itoa(60+r.IntN(3600)) + " " + strings.Repeat("v", 20+r.IntN(200))
		} else {
			out[i] = "get " + key
		}
	}
	return out
}

func newRing(shards, vnodes int) *ring {
	rg := &ring{owner: make(map[uint64]int)}
	for s := 0; s < shards; s++ {
		for v := 0; v < vnodes; v++ {
			h := shardKey("shard-" + strconv.Itoa(s) + "#" + strconv.Itoa(v))
			rg.points = append(rg.points, h)
			rg.owner[h] = s
		}
	}
	slices.Sort(rg.points)
	return rg
}

// lookup returns the shard owning the first ring point at or after h.
func (rg *ring) lookup(h uint64) int {
	i, _ := slices.BinarySearch(rg.points, h)
	if i == len(rg.points) {
		i = 0
	}
	return rg.owner[rg.points[i]]
}

func serve(line string, cache *lru, rg *ring, shards []*shard) string {
	c, err := parseCommand(line)
	if err != nil {
		return "CLIENT_ERROR " + err.Error() + "\r\n"
	}
	switch c.op {
	case "get":
		if v, ok := cache.get(c.key); ok {
			return formatValue(c.key, v)
		}
		s := shards[rg.lookup(shardKey(c.key))]
		s.gets++
		v, ok := s.store[c.key]
		if !ok {
			return "END\r\n"
		}
		cache.put(c.key, v)
		return formatValue(c.key, v)
	case "set":
		s := shards[rg.lookup(shardKey(c.key))]
		s.sets++
		s.bytes += len(c.value)
		s.store[c.key] = c.value
		cache.remove(c.key)
		return "STORED\r\n"
	}
	return "ERROR\r\n"
}

func parseCommand(line string) (command, error) {
	f := strings.SplitN(line, " ", 4)
	switch {
	case len(f) == 2 && f[0] == "get":
		return command{op: "get", key: f[1]}, nil
	case len(f) == 4 && f[0] == "set":
		ttl, err := strconv.Atoi(f[2])
		if err != nil {
			return command{}, fmt.Errorf("bad ttl %q", f[2])
		}
		return command{op: "set", key: f[1], ttl: ttl, value: f[3]}, nil
	}
	return command{}, fmt.Errorf("bad command")
}

func formatValue(key, v string) string {
	return "VALUE " + key + " 0 " + strconv.Itoa(len(v)) + "\r\n" + v + "\r\nEND\r\n"
}

func (c *lru) get(k string) (string, bool) {
	if e, ok := c.items[k]; ok {
		c.ll.MoveToFront(e)
		return e.Value.(*entry).value, true
	}
	return "", false
}

func (c *lru) put(k, v string) {
	if e, ok := c.items[k]; ok {
		e.Value.(*entry).value = v
		c.ll.MoveToFront(e)
		return
	}
	c.items[k] = c.ll.PushFront(&entry{k, v})
	if c.ll.Len() > c.cap {
		last := c.ll.Back()
		c.ll.Remove(last)
		delete(c.items, last.Value.(*entry).key)
	}
}

func (c *lru) remove(k string) {
	if e, ok := c.items[k]; ok {
		c.ll.Remove(e)
		delete(c.items, k)
	}
}

func report(shards []*shard) string {
	parts := make([]string, len(shards))
	for i, s := range shards {
		parts[i] = fmt.Sprintf("%d:%d/%d", s.id, s.gets, s.sets)
	}
	return strings.Join(parts, " ")
}
