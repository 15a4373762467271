// Command noise-gc is a document transformer with heavy allocation: it
// decodes JSON documents into generic trees, rewrites them, keeps a cache of
// recent documents alive and re-encodes them, so that the garbage collector
// runs often. The same binary runs on both sides of a comparison: any
// difference is noise.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
)

func main() {
	n := flag.Int("n", 15000, "documents")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	docs := makeDocs(300)
	cache := make([]any, 10000)
	stop := startProfile(*prof)
	out := 0
	for i := 0; i < *n; i++ {
		var v any
		if err := json.Unmarshal(docs[i%len(docs)], &v); err != nil {
			log.Fatal(err)
		}
		v = rewrite(v, 0)
		cache[i%len(cache)] = v
		out += countNodes(v)
		b, err := json.Marshal(v)
		if err != nil {
			log.Fatal(err)
		}
		out += len(b)
	}
	stop()
	fmt.Println("out:", out)
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

func makeDocs(k int) [][]byte {
	r := rand.New(rand.NewPCG(111, 112))
	out := make([][]byte, k)
	for i := range out {
		b, err := json.Marshal(makeTree(r, 0))
		if err != nil {
			log.Fatal(err)
		}
		out[i] = b
	}
	return out
}

func makeTree(r *rand.Rand, depth int) any {
	if depth > 3 || r.IntN(5) == 0 {
		switch r.IntN(3) {
		case 0:
			return r.Float64() * 1000
		case 1:
			return "value-" + strconv.Itoa(r.IntN(10000))
		}
		return r.IntN(2) == 0
	}
	if r.IntN(2) == 0 {
		l := make([]any, 2+r.IntN(5))
		for i := range l {
			l[i] = makeTree(r, depth+1)
		}
		return l
	}
	m := map[string]any{}
	for i := 0; i < 2+r.IntN(5); i++ {
		m["field_"+strconv.Itoa(r.IntN(40))] = makeTree(r, depth+1)
	}
	return m
}

// rewrite renames keys to camel case, rounds numbers and trims strings.
func rewrite(v any, depth int) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[camel(k)] = rewrite(x, depth+1)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = rewrite(x, depth+1)
		}
		return out
	case float64:
		return float64(int64(t*100)) / 100
	case string:
		return strings.TrimPrefix(t, "value-")
	}
	return v
}

func camel(k string) string {
	parts := strings.Split(k, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

func countNodes(v any) int {
	switch t := v.(type) {
	case map[string]any:
		n := 1
		for _, x := range t {
			n += countNodes(x)
		}
		return n
	case []any:
		n := 1
		for _, x := range t {
			n += countNodes(x)
		}
		return n
	}
	return 1
}
