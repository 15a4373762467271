package audit

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// VariationCases are the cases of what varies from run to run (each
// "-null" one the same workload unchanged, right only with no cause):
//
//   - spread, spread-null: util.parse under 20 handlers grows by DeltaMs/20
//     in each, every one below μ, their sum above;
//   - recursion-vary, recursion-vary-null: tree.Walk's recursion reaches a
//     depth drawn per run (10..50), its time spread unevenly over the
//     depths; the change: tree.visit grows by DeltaMs over all depths;
//   - gc-outlier: nothing changes, but the first before run spends three
//     times as long in the garbage collector;
//   - threads-uneven, threads-uneven-null: a pool of 8 "worker" threads
//     whose split of the same work differs per run; the change: query in
//     the pool grows by DeltaMs;
//   - threads-perm-null: 8 threads pool-1-thread-1..8 of fixed uneven
//     loads, the names dealt out anew in every run;
//   - trade: query under handleOrders grows by DeltaMs while Encode under
//     handleUsers shrinks by as much (different functions, net zero);
//   - flat, flat-one: 3000 small functions beside the service; flat-one
//     makes one of them DeltaMs slower;
//   - warmup: nothing changes, but each run has a 1.8 s warm-up (init,
//     regexp.Compile) with chance 1/2;
//   - lambda, lambda-null: a Java-style service whose lambda classes carry
//     run-specific ids ($$Lambda$123/0x...); the change: its query grows by
//     DeltaMs (write it with Format "folded");
//   - idle, idle-one: a JavaScript-like timeline whose (idle) time varies
//     from 10% to 80% of the run; idle-one: query under handleOrders grows
//     by DeltaMs (write it with Format "cpuprofile").
var VariationCases = []string{"spread", "spread-null", "recursion-vary", "recursion-vary-null", "gc-outlier",
	"threads-uneven", "threads-uneven-null", "threads-perm-null", "trade", "flat", "flat-one", "warmup",
	"lambda", "lambda-null", "idle", "idle-one"}

const (
	parse    = "github.com/acme/shop/internal/util.parse"
	gcRoot   = "runtime.gcBgMarkWorker"
	lambdaID = "$$Lambda"
	jRoot    = "java.lang.Thread.run;com.acme.shop.Worker.run"
	jLambda  = "com.acme.shop.Service" + lambdaID + ".apply;com.acme.shop.Service.lambda$handle$0"
	jQuery   = "com.acme.shop.Db.query"
)

// changeVariation makes the changes of VariationCases; false for another name.
func changeVariation(c Case, ch *changed) bool {
	before, after, tr := ch.before, ch.after, &ch.truth
	d := c.DeltaMs / c.Seconds
	switch c.Name {
	case "spread", "spread-null":
		for i := range 20 {
			h := fmt.Sprintf("%s;github.com/acme/shop/internal/http.handle%02d", srv, i)
			ch.both(h, 2)
			ch.both(h+";"+parse, 8)
			if c.Name == "spread" {
				after[h+";"+parse] += d / 20
			}
		}
		if c.Name == "spread" {
			// the context is Serve: every call site lies below it
			ch.inject(c, srv, parse, "spread over 20 handlers")
		}
	case "recursion-vary", "recursion-vary-null":
		ch.both(hA+";"+walk, 0) // the mean shape is drawn per run
		grow := 0.0
		if c.Name == "recursion-vary" {
			grow = d
			ch.inject(c, hA+";"+walk, visit, "spread over depths drawn per run")
		}
		for dep := 5; dep <= 50; dep++ {
			st := hA + strings.Repeat(";"+walk, dep)
			ch.both(st+";"+visit, 150.0/46)
			ch.both(st, 30.0/46)
			after[st+";"+visit] += grow / 46
		}
		ch.perRun = func(r *rand.Rand, side, _ int, w Workload) Workload {
			for st := range w {
				if strings.Contains(st, walk) {
					delete(w, st)
				}
			}
			top := 10 + r.IntN(41)
			ws := make([]float64, top+1)
			s := 0.0
			for dep := 5; dep <= top; dep++ {
				ws[dep] = r.ExpFloat64()
				s += ws[dep]
			}
			v := 150.0
			if side == 1 {
				v += grow
			}
			for dep := 5; dep <= top; dep++ {
				st := hA + strings.Repeat(";"+walk, dep)
				w[st+";"+visit] += v * ws[dep] / s
				w[st] += 30 * ws[dep] / s
			}
			return w
		}
	case "gc-outlier":
		ch.perRun = func(_ *rand.Rand, side, run int, w Workload) Workload {
			if side == 0 && run == 0 {
				for st := range w {
					if strings.HasPrefix(st, gcRoot) {
						w[st] *= 3
					}
				}
			}
			return w
		}
	case "threads-uneven", "threads-uneven-null":
		tr.Threads = map[string]int{"worker": 8}
		grow := 0.0
		if c.Name == "threads-uneven" {
			grow = d
			ch.inject(c, "runtime.goexit;"+pool+";"+query, query, "in a pool of 8 threads of uneven, varying loads")
		}
		for i := range 8 {
			st := fmt.Sprintf("@thread=worker/%d|runtime.goexit;%s;%s", i, pool, query)
			before[st] += 20
			after[st] += 20 + grow/8
		}
		ch.perRun = func(r *rand.Rand, _, _ int, w Workload) Workload {
			ws := make([]float64, 8)
			s, tot := 0.0, 0.0
			for i := range ws {
				ws[i] = r.ExpFloat64()
				s += ws[i]
			}
			for i := range 8 {
				tot += w[fmt.Sprintf("@thread=worker/%d|runtime.goexit;%s;%s", i, pool, query)]
			}
			for i := range 8 {
				w[fmt.Sprintf("@thread=worker/%d|runtime.goexit;%s;%s", i, pool, query)] = tot * ws[i] / s
			}
			return w
		}
	case "threads-perm-null":
		loads := []float64{50, 35, 25, 20, 10, 10, 5, 5}
		tr.Threads = map[string]int{}
		for i, v := range loads {
			tr.Threads[fmt.Sprintf("pool-1-thread-%d", i+1)] = 1
			ch.both(fmt.Sprintf("@thread=pool-1-thread-%d/%d|runtime.goexit;%s;%s", i+1, i, pool, query), v)
		}
		ch.perRun = func(r *rand.Rand, _, _ int, w Workload) Workload {
			perm := r.Perm(len(loads))
			for i := range loads {
				delete(w, fmt.Sprintf("@thread=pool-1-thread-%d/%d|runtime.goexit;%s;%s", i+1, i, pool, query))
			}
			for i, v := range loads {
				w[fmt.Sprintf("@thread=pool-1-thread-%d/%d|runtime.goexit;%s;%s", perm[i]+1, i, pool, query)] = v
			}
			return w
		}
	case "trade":
		after[hA+";"+query] += d
		after[hB+";"+encX] -= d
		ch.inject(c, hA+";"+query, query, "Encode under handleUsers shrank by as much")
	case "flat", "flat-one":
		for i := range 3000 {
			st := fmt.Sprintf("runtime.main;main.main;github.com/acme/shop/internal/gen%02d.Area;github.com/acme/shop/internal/gen%02d.f%04d", i/50, i/50, i)
			ch.both(st, 0.2)
			if c.Name == "flat-one" && i == 1234 {
				after[st] += d
				ch.inject(c, st, st[strings.LastIndex(st, ";")+1:], "one of 3000 small functions")
			}
		}
	case "warmup":
		ch.perRun = func(r *rand.Rand, _, _ int, w Workload) Workload {
			if r.IntN(2) == 0 {
				w["runtime.main;runtime.doInit;main.init;regexp.Compile"] += 40
				w["runtime.main;runtime.doInit;main.init;text/template.(*Template).Parse"] += 20
			}
			return w
		}
	case "lambda", "lambda-null":
		ch.before, ch.after = Workload{}, Workload{}
		after = ch.after
		ch.both(jRoot, 10)
		ch.both(jRoot+";"+jLambda, 30)
		ch.both(jRoot+";"+jLambda+";"+jQuery, 200)
		ch.both(jRoot+";"+jLambda+";com.acme.shop.Json.write", 150)
		ch.both(jRoot+";com.acme.shop.Cache.get", 100)
		ch.both(jRoot+";com.acme.shop.Service"+lambdaID+".accept;com.acme.shop.Log.append", 80)
		ch.both("java.lang.Thread.run;jdk.internal.misc.Unsafe.park", 30)
		if c.Name == "lambda" {
			after[jRoot+";"+jLambda+";"+jQuery] += d
			ch.inject(c, jRoot+";"+jLambda+";"+jQuery, jQuery, "under a lambda")
		}
		ch.unchanged = ch.before
		ch.perRun = func(r *rand.Rand, _, _ int, w Workload) Workload {
			// the truth names the class without its run's id
			id := fmt.Sprintf("$$Lambda$%d/0x0000000800c%05x.", 100+r.IntN(900), r.IntN(1<<20))
			out := Workload{}
			for st, v := range w {
				out[strings.ReplaceAll(st, lambdaID+".", id)] += v
			}
			return out
		}
	case "idle", "idle-one":
		if c.Name == "idle-one" {
			after[hA+";"+query] += d
			ch.inject(c, hA+";"+query, query, "beside a varying (idle)")
		}
		ch.perRun = func(r *rand.Rand, _, _ int, w Workload) Workload {
			// busy time is w's total; idle makes it 10..80% of the run
			f := 0.1 + 0.7*r.Float64()
			w["(idle)"] = w.total() * f / (1 - f)
			return w
		}
	default:
		return false
	}
	return true
}
