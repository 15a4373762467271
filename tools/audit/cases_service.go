package audit

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Cases are the audit's cases. Those that inject a regression say so in
// Truth.Injected; the others are right only with no cause reported:
//
//   - null: nothing changes;
//   - shift: Encode under handleOrders grows by DeltaMs, Encode under
//     handleUsers shrinks by as much (a function total that hides it);
//   - recursion: tree.visit grows by DeltaMs spread over recursion depths
//     5..50 of tree.Walk; recursion-null: the recursion, unchanged;
//   - rename: codec.(*Encoder).Encode becomes EncodeTo at the same cost;
//   - inline-frame: json.Marshal is inlined into Encode (the same
//     location, two lines); inline-flat: its frame vanishes and its time
//     becomes Encode's self time, Encode's inclusive time unchanged;
//   - improve: the HTTP server's subtree costs half, nothing else changes;
//   - rate: the after runs are sampled at 250 Hz instead of 100 Hz;
//   - duration: the after runs last twice as long at the same load;
//   - small: db.(*Conn).query under handleOrders grows by DeltaMs;
//     bimodal: the same mean growth, all of it in 2 of the K after runs;
//   - threads: query grows by DeltaMs spread over a pool of 16 worker
//     threads whose ids differ in every run; threads-null: the pool,
//     unchanged.
var Cases = []string{"null", "shift", "recursion", "recursion-null", "rename", "inline-frame", "inline-flat",
	"improve", "rate", "duration", "small", "bimodal", "threads", "threads-null"}

// The named stacks the changes are made to, added to every base workload.
const (
	srv    = "runtime.main;main.main;github.com/acme/shop/internal/http.(*Server).Serve"
	hA     = srv + ";github.com/acme/shop/internal/http.handleOrders"
	hB     = srv + ";github.com/acme/shop/internal/http.handleUsers"
	hS     = srv + ";github.com/acme/shop/internal/http.handleSearch"
	encX   = "github.com/acme/shop/internal/codec.(*Encoder).Encode"
	query  = "github.com/acme/shop/internal/db.(*Conn).query"
	walk   = "github.com/acme/shop/internal/tree.Walk"
	visit  = "github.com/acme/shop/internal/tree.visit"
	pool   = "github.com/acme/shop/internal/pool.(*Pool).work"
	marsh  = "encoding/json.Marshal"
	search = "github.com/acme/shop/internal/search.(*Index).match"
)

// Encode and Query are the functions the cases change, for tests that ask
// about one of them.
const (
	Encode = encX
	Query  = query
)

// fixedPart adds the stacks the changes are made to: two handlers that
// encode with JSON and query a database.
func fixedPart(w Workload) {
	w[hA+";"+encX] += 120
	w[hA+";"+encX+";"+marsh] += 60
	w[hB+";"+encX] += 120
	w[hB+";"+encX+";"+marsh] += 60
	w[hA+";"+query] += 80
	w[hB+";"+query] += 40
	w[hA+";github.com/acme/shop/internal/db.(*Rows).Scan"] += 30
}

// inject records a change of c.DeltaMs injected in context (its frames
// joined by ";") at function fn.
func (ch *changed) inject(c Case, context, fn, note string) {
	ch.truth.Injected = append(ch.truth.Injected, Injection{Context: strings.Split(context, ";"), Func: fn, DeltaNs: c.DeltaMs * 1e6, Note: note})
}

// both adds v to stack st on both sides.
func (ch *changed) both(st string, v float64) {
	ch.before[st] += v
	ch.after[st] += v
}

// A changed workload is a case's before and after workloads and what
// recording them takes.
type changed struct {
	before, after Workload
	// unchanged is the after workload of the runs that do not carry the
	// change: all but regressedRuns, when regressedRuns is not empty.
	unchanged     Workload
	regressedRuns []int
	truth         Truth
	// perRun, when not nil, changes one run's workload (side 0 before,
	// 1 after) with noise from r: what differs run to run beyond jitter.
	perRun func(r *rand.Rand, side, run int, w Workload) Workload
	// secBefore and secAfter are the runs' durations; periodAfter the
	// after runs' sampling period.
	secBefore, secAfter float64
	periodAfter         int64
	// src, when not nil, places each side's functions' sources (file,
	// start line, column): the moved-sources cases.
	src [2]func(name string) (file string, line, col int64)
	// truthBefore, when not nil, renames the before stacks for the truth
	// (two functions the after runs name alike: Renames cannot say it).
	truthBefore func(stack string) string
}

// change makes c's workloads.
func change(c Case) (changed, error) {
	w := c.Base
	if w == nil {
		w = syntheticBase()
	}
	w = w.clone()
	fixedPart(w)
	if c.Hot > 0 {
		w[hS+";"+search] += 90
		w[hS+";"+search+";sort.Slice"] += 30
		w[hS] += 10
	}
	ch := changed{before: w.clone(), after: w.clone(), unchanged: w, secBefore: c.Seconds, secAfter: c.SecondsAfter, periodAfter: period}
	if ch.secAfter == 0 {
		ch.secAfter = ch.secBefore
	}
	before, after, tr := ch.before, ch.after, &ch.truth
	d := c.DeltaMs / c.Seconds // the rate that adds DeltaMs to a run
	switch c.Name {
	case "null":
	case "shift":
		after[hA+";"+encX] += d
		after[hB+";"+encX] -= d
		ch.inject(c, hA+";"+encX, encX, "B->X shrank by the same")
	case "recursion", "recursion-null":
		for dep := 5; dep <= 50; dep++ {
			st := hA + strings.Repeat(";"+walk, dep)
			for _, w := range []Workload{before, after} {
				w[st+";"+visit] += 150.0 / 46
				w[st] += 30.0 / 46
			}
			if c.Name == "recursion" {
				after[st+";"+visit] += d / 46
			}
		}
		if c.Name == "recursion" {
			ch.inject(c, hA+";"+walk, visit, "spread over depths 5..50")
		}
	case "rename":
		ch.after = Workload{}
		for st, v := range before {
			ch.after[strings.ReplaceAll(st, encX, encX+"To")] += v
		}
		tr.Renames = map[string]string{encX + "To": encX}
	case "inline-frame", "inline-flat":
		ch.after = Workload{}
		tr.Equivalent = map[string]string{}
		for st, v := range before {
			n := st
			if strings.HasSuffix(st, encX+";"+marsh) {
				if c.Name == "inline-frame" {
					n = st + "+inl"
				} else {
					n = strings.TrimSuffix(st, ";"+marsh)
					tr.Equivalent[n] = st
				}
			}
			ch.after[n] += v
		}
	case "improve":
		for st := range after {
			if strings.HasPrefix(st, srv) {
				after[st] *= 0.5
			}
		}
	case "rate":
		ch.periodAfter = 4_000_000
	case "duration":
		if ch.secAfter == ch.secBefore {
			ch.secAfter = 2 * ch.secBefore
		}
	case "small", "bimodal":
		after[hA+";"+query] += d
		ch.inject(c, hA+";"+query, query, "")
		if c.Name == "bimodal" {
			// 2 of the K runs carry K/2 times the growth: the mean is d
			for i := 0; i < 2 && i < c.K; i++ {
				ch.regressedRuns = append(ch.regressedRuns, i)
			}
			after[hA+";"+query] += d*float64(c.K)/2 - d
		}
	case "threads", "threads-null":
		tr.Threads = map[string]int{"worker": 16}
		for i := range 16 {
			st := fmt.Sprintf("@thread=worker/%d|runtime.goexit;%s;%s", i, pool, query)
			before[st] += 20
			after[st] += 20
			if c.Name == "threads" {
				after[st] += d / 16
			}
		}
		if c.Name == "threads" {
			ch.inject(c, "runtime.goexit;"+pool+";"+query, query, "spread over 16 worker threads")
		}
	default:
		if ok := changeVariation(c, &ch) || changeIdentity(c, &ch); !ok {
			return ch, fmt.Errorf("audit: unknown case %q (one of %s)", c.Name, strings.Join(AllCases(), ", "))
		}
	}
	return ch, nil
}
