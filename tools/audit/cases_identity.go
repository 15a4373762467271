package audit

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"
)

// IdentityCases are the cases of what changes names or places between
// two versions or two recordings (each "-null" one right only with no
// cause):
//
//   - closure-renumber, closure-renumber-null: a closure is added above
//     (*Server).handle's two, so handle.func1 is handle.func2 after and
//     handle.func2 is handle.func3; the change: the renamed closure's
//     Encode grows by DeltaMs;
//   - generic-renamed, generic-renamed-null: util.Map[go.shape.int] is
//     printed util.Map[...] after (runtime/pprof printed [...] up to Go
//     1.20 and the shape names since 1.21; godeltaprof prints [...]); the
//     change: parse under it grows by DeltaMs; generic-merged-null:
//     Map[go.shape.int] and Map[go.shape.string], both under handleOrders,
//     are one Map[...] after (their time summed: no change);
//   - truncated-null: tree.Walk recurses 100..200 deep (drawn per run) and
//     the profiler keeps the 64 leaf-most frames of a stack (pprof in older
//     Go; JFR's default); truncated-perf-null: 100..250 deep, 127 frames
//     (perf's default); truncated-vary-null: 30..200 deep, 64 frames, so
//     that some runs are not truncated at all and others mostly;
//   - moved-line-null: every function starts 13 lines lower after;
//   - moved-file, moved-file-null: package db's file conn.go is
//     conn_pool.go after, its functions 37 lines lower; the change: query
//     under handleOrders grows by DeltaMs;
//   - moved-js, moved-js-null: a JavaScript bundle re-laid out: every
//     function at another line and column after (write it with Format
//     "cpuprofile"); the change: query under handleOrders grows by DeltaMs;
//   - gomaxprocs, gomaxprocs-null: a pool of 8 "worker" threads is 16
//     after, the same work split over them; the change: query in the pool
//     grows by DeltaMs; gomaxprocs-named-null: the threads named
//     pool-1-thread-1..8, then ..16; gomaxprocs-heavy-null: "worker"
//     threads of 3 times the load (the pool a third of the CPU);
//   - unsym-null: the after side's Encode and json.Marshal frames are
//     unsymbolized (shop!0x4c1a20, shop!0x4b3f10): a stripped build.
//
// Mixed formats need no case: Pair.FormatAfter (gen -formatafter).
var IdentityCases = []string{"closure-renumber", "closure-renumber-null", "generic-renamed", "generic-renamed-null", "generic-merged-null",
	"truncated-null", "truncated-perf-null", "truncated-vary-null", "moved-line-null", "moved-file", "moved-file-null", "moved-js", "moved-js-null",
	"gomaxprocs", "gomaxprocs-null", "gomaxprocs-named-null", "gomaxprocs-heavy-null", "unsym-null"}

// AllCases are the service, variation and identity cases.
func AllCases() []string {
	return append(append(append([]string{}, Cases...), VariationCases...), IdentityCases...)
}

const (
	handle  = "github.com/acme/shop/internal/http.(*Server).handle"
	mapInt  = "github.com/acme/shop/internal/util.Map[go.shape.int]"
	mapDots = "github.com/acme/shop/internal/util.Map[...]"
	unEnc   = "shop!0x4c1a20"
	unMarsh = "shop!0x4b3f10"
)

// defaultFile is the file the recorder gives a function by default.
func defaultFile(name string) string {
	return "/src/" + strings.ReplaceAll(name[:max(0, strings.LastIndex(name, "."))], ".", "_") + ".go"
}

// hash32 is a function's stable pseudo-random number (its place in a
// bundle).
func hash32(s string) int64 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return int64(h.Sum32())
}

// changeIdentity makes the changes of IdentityCases; false for another name.
func changeIdentity(c Case, ch *changed) bool {
	before, after, tr := ch.before, ch.after, &ch.truth
	d := c.DeltaMs / c.Seconds
	switch c.Name {
	case "closure-renumber", "closure-renumber-null":
		h := srv + ";" + handle
		before[h] += 10
		after[h] += 10
		// before: func1 encodes, func2 queries
		before[h+";"+handle+".func1"] += 40
		before[h+";"+handle+".func1;"+encX] += 60
		before[h+";"+handle+".func2"] += 30
		before[h+";"+handle+".func2;"+query] += 40
		// after: the same, one closure down, and a new func1 (a deferred
		// log call) of little cost
		after[h+";"+handle+".func1"] += 0.5
		after[h+";"+handle+".func2"] += 40
		after[h+";"+handle+".func2;"+encX] += 60
		after[h+";"+handle+".func3"] += 30
		after[h+";"+handle+".func3;"+query] += 40
		tr.Renames = map[string]string{handle + ".func2": handle + ".func1", handle + ".func3": handle + ".func2"}
		if c.Name == "closure-renumber" {
			after[h+";"+handle+".func2;"+encX] += d
			ch.inject(c, h+";"+handle+".func2", encX, "the closure was func1 before")
		}
	case "generic-renamed", "generic-renamed-null":
		for _, hh := range []string{hA, hB} {
			before[hh+";"+mapInt] += 30
			before[hh+";"+mapInt+";"+parse] += 40
			after[hh+";"+mapDots] += 30
			after[hh+";"+mapDots+";"+parse] += 40
		}
		tr.Renames = map[string]string{mapDots: mapInt}
		src := func(name string) (string, int64, int64) {
			if strings.HasPrefix(name, "github.com/acme/shop/internal/util.Map[") {
				return "/src/github.com/acme/shop/internal/util/map.go", 20, 0
			}
			return defaultFile(name), 8, 0
		}
		ch.src = [2]func(string) (string, int64, int64){src, src}
		if c.Name == "generic-renamed" {
			after[hA+";"+mapDots+";"+parse] += d
			ch.inject(c, hA+";"+mapDots+";"+parse, parse, "Map[go.shape.int] before")
		}
	case "generic-merged-null":
		mapStr := "github.com/acme/shop/internal/util.Map[go.shape.string]"
		before[hA+";"+mapInt] += 30
		before[hA+";"+mapInt+";"+parse] += 40
		before[hA+";"+mapStr] += 20
		before[hA+";"+mapStr+";"+parse] += 30
		after[hA+";"+mapDots] += 50
		after[hA+";"+mapDots+";"+parse] += 70
		ch.truthBefore = func(st string) string {
			return strings.ReplaceAll(strings.ReplaceAll(st, mapInt, mapDots), mapStr, mapDots)
		}
		src := func(name string) (string, int64, int64) {
			if strings.HasPrefix(name, "github.com/acme/shop/internal/util.Map[") {
				return "/src/github.com/acme/shop/internal/util/map.go", 20, 0
			}
			return defaultFile(name), 8, 0
		}
		ch.src = [2]func(string) (string, int64, int64){src, src}
	case "truncated-null", "truncated-perf-null", "truncated-vary-null":
		maxFrames, lo, hi := 64, 100, 200
		switch c.Name {
		case "truncated-perf-null":
			maxFrames, hi = 127, 250
		case "truncated-vary-null":
			lo = 30
		}
		for dep := 5; dep <= 50; dep++ {
			// the truth's mean shape; the runs' is drawn per run
			st := hA + strings.Repeat(";"+walk, dep)
			ch.both(st+";"+visit, 150.0/46)
			ch.both(st, 30.0/46)
		}
		trunc := func(st string) string {
			fs := strings.Split(st, ";")
			if len(fs) > maxFrames {
				fs = fs[len(fs)-maxFrames:]
			}
			return strings.Join(fs, ";")
		}
		ch.perRun = func(r *rand.Rand, _, _ int, w Workload) Workload {
			for st := range w {
				if strings.Contains(st, walk) {
					delete(w, st)
				}
			}
			top := lo + r.IntN(hi-lo+1)
			ws := make([]float64, top+1)
			s := 0.0
			for dep := 5; dep <= top; dep++ {
				ws[dep] = r.ExpFloat64()
				s += ws[dep]
			}
			for dep := 5; dep <= top; dep++ {
				st := hA + strings.Repeat(";"+walk, dep)
				w[trunc(st+";"+visit)] += 150 * ws[dep] / s
				w[trunc(st)] += 30 * ws[dep] / s
			}
			return w
		}
	case "moved-line-null":
		ch.src[0] = func(name string) (string, int64, int64) { return defaultFile(name), 20 + hash32(name)%400, 0 }
		ch.src[1] = func(name string) (string, int64, int64) { return defaultFile(name), 33 + hash32(name)%400, 0 }
	case "moved-file", "moved-file-null":
		db := "github.com/acme/shop/internal/db."
		ch.src[0] = func(name string) (string, int64, int64) {
			if strings.HasPrefix(name, db) {
				return "/src/github.com/acme/shop/internal/db/conn.go", 20 + hash32(name)%400, 0
			}
			return defaultFile(name), 20 + hash32(name)%400, 0
		}
		ch.src[1] = func(name string) (string, int64, int64) {
			if strings.HasPrefix(name, db) {
				return "/src/github.com/acme/shop/internal/db/conn_pool.go", 57 + hash32(name)%400, 0
			}
			return defaultFile(name), 20 + hash32(name)%400, 0
		}
		if c.Name == "moved-file" {
			after[hA+";"+query] += d
			ch.inject(c, hA+";"+query, query, "its file renamed")
		}
	case "moved-js", "moved-js-null":
		// one-line minified bundle: columns move, lines too in another
		// chunk layout
		ch.src[0] = func(name string) (string, int64, int64) { return "", 1 + hash32(name)%3, 1 + hash32(name)%90000 }
		ch.src[1] = func(name string) (string, int64, int64) {
			return "", 1 + hash32(name+"v2")%3, 1 + hash32(name+"v2")%90000
		}
		if c.Name == "moved-js" {
			after[hA+";"+query] += d
			ch.inject(c, hA+";"+query, query, "in a re-laid-out bundle")
		}
	case "gomaxprocs", "gomaxprocs-null", "gomaxprocs-named-null", "gomaxprocs-heavy-null":
		name := func(i int) string { return fmt.Sprintf("worker/%d", i) }
		load := 1.0
		if c.Name == "gomaxprocs-heavy-null" {
			load = 3
		}
		tr.Threads = map[string]int{"worker": 16}
		if c.Name == "gomaxprocs-named-null" {
			name = func(i int) string { return fmt.Sprintf("pool-1-thread-%d/%d", i+1, i) }
			tr.Threads = map[string]int{}
			for i := range 16 {
				tr.Threads[fmt.Sprintf("pool-1-thread-%d", i+1)] = 1
			}
		}
		grow := 0.0
		if c.Name == "gomaxprocs" {
			grow = d
			ch.inject(c, "runtime.goexit;"+pool+";"+query, query, "a pool of 8 threads before, 16 after")
		}
		for i := range 8 {
			before[fmt.Sprintf("@thread=%s|runtime.goexit;%s;%s", name(i), pool, query)] += 20 * load
			before[fmt.Sprintf("@thread=%s|runtime.goexit;%s", name(i), pool)] += 4 * load
		}
		for i := range 16 {
			after[fmt.Sprintf("@thread=%s|runtime.goexit;%s;%s", name(i), pool, query)] += 10*load + grow/16
			after[fmt.Sprintf("@thread=%s|runtime.goexit;%s", name(i), pool)] += 2 * load
		}
	case "unsym-null":
		ch.after = Workload{}
		for st, v := range before {
			st = strings.ReplaceAll(st, encX+";"+marsh, unEnc+";"+unMarsh)
			st = strings.ReplaceAll(st, encX, unEnc)
			ch.after[st] += v
		}
		tr.Renames = map[string]string{unEnc: encX, unMarsh: marsh}
	default:
		return false
	}
	return true
}
