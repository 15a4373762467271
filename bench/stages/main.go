//go:build unix

// Command stages times `ctdiff diff BASE NEW` stage by stage:
// reading the file, gunzip, the rest of reading and decoding pprof, the
// tree build, the comparison and the text report, each side alone and one
// after the other, so that every stage's wall time, CPU time (user +
// system of the process), minor page faults and allocation are its own.
// `ctdiff diff` reads and builds the two sides in parallel
// (cmd/ctdiff/trees.go); -parallel does the same here and times the two
// together.
//
//	go run ./bench/stages [-rounds 3] [-parallel] [-cpuprofile compare.pb] BASE NEW
//
// -cpuprofile profiles the comparison only, for splitting it into union,
// matching, critical graph, PARCS and ranking with go tool pprof -top.
package main

import (
	"bytes"
	"compress/gzip"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ctdiff/ctdiff/cct"
	"github.com/ctdiff/ctdiff/convert"
	"github.com/ctdiff/ctdiff/diff"
	"github.com/ctdiff/ctdiff/report"
)

// usage is one stage's cost: wall time, CPU of the whole process, minor
// faults (first touches of fresh pages) and bytes allocated.
type usage struct {
	wall, cpu time.Duration
	faults    int64
	alloc     uint64
}

type mark struct {
	t     time.Time
	ru    syscall.Rusage
	alloc uint64
}

func now() mark {
	var m mark
	m.t = time.Now()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &m.ru)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.alloc = ms.TotalAlloc
	return m
}

func since(a mark) usage {
	b := now()
	cpu := func(ru syscall.Rusage) time.Duration {
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return usage{wall: b.t.Sub(a.t), cpu: cpu(b.ru) - cpu(a.ru), faults: int64(b.ru.Minflt - a.ru.Minflt), alloc: b.alloc - a.alloc}
}

// peakRSS is the process's peak resident set so far, in MB.
func peakRSS() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for l := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return kb / 1024
		}
	}
	return 0
}

type table struct {
	names []string
	rows  map[string][]usage
}

func (t *table) add(name string, u usage) {
	if t.rows == nil {
		t.rows = map[string][]usage{}
	}
	if _, ok := t.rows[name]; !ok {
		t.names = append(t.names, name)
	}
	t.rows[name] = append(t.rows[name], u)
}

// print writes the table with each stage's best round by wall time.
func (t *table) print() {
	fmt.Println("| stage | wall (best) | CPU (that round) | minor faults | allocated |")
	fmt.Println("|---|---:|---:|---:|---:|")
	for _, n := range t.names {
		best := t.rows[n][0]
		for _, u := range t.rows[n][1:] {
			if u.wall < best.wall {
				best = u
			}
		}
		fmt.Printf("| %s | %.0f ms | %.0f ms | %d k | %d MB |\n", n, ms(best.wall), ms(best.cpu), best.faults/1000, best.alloc>>20)
	}
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

func main() {
	rounds := flag.Int("rounds", 3, "rounds; each stage's best round is shown")
	parallel := flag.Bool("parallel", false, "read and build the two sides in parallel, as ctdiff diff does")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the comparisons to this file")
	flag.Parse()
	if flag.NArg() != 2 {
		log.Fatal("usage: stages [-rounds N] [-parallel] [-cpuprofile F] BASE NEW")
	}
	// As ctdiff diff (cmd/ctdiff/diff.go).
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(150)
	}
	paths := flag.Args()
	var tab table
	var prof *os.File
	if *cpuprofile != "" {
		var err error
		if prof, err = os.Create(*cpuprofile); err != nil {
			log.Fatal(err)
		}
	}
	for r := range *rounds {
		runtime.GC()
		trees := make([]*cct.Tree, 2)
		if *parallel {
			m := now()
			var wg sync.WaitGroup
			for i, p := range paths {
				wg.Go(func() { trees[i] = readAndBuild(p, nil, "") })
			}
			wg.Wait()
			tab.add("read + build, both sides in parallel", since(m))
			runtime.GC()
		} else {
			for i, p := range paths {
				trees[i] = readAndBuild(p, &tab, []string{"base", "new"}[i])
				runtime.GC()
			}
		}
		opts := diff.DefaultOptions()
		metric, err := diff.SampleMetric("", trees...)
		if err != nil {
			log.Fatal(err)
		}
		opts.Metric = metric
		if prof != nil {
			if err := pprof.StartCPUProfile(prof); err != nil {
				log.Fatal(err)
			}
		}
		m := now()
		res, err := diff.Compare(trees[:1], trees[1:], opts)
		if err != nil {
			log.Fatal(err)
		}
		tab.add("compare (diff.Compare)", since(m))
		if prof != nil {
			pprof.StopCPUProfile()
			if r+1 < *rounds {
				// One profile of all rounds: restart on the same file
				// would truncate it, so profile the first round only.
				_ = prof.Close()
				prof = nil
			}
		}
		res.Base.Profiles, res.New.Profiles = paths[:1], paths[1:]
		m = now()
		var out bytes.Buffer
		if err := report.WriteDiff(&out, res, report.Text, report.DiffOptions{}); err != nil {
			log.Fatal(err)
		}
		tab.add("text report", since(m))
	}
	if prof != nil {
		_ = prof.Close()
	}
	tab.print()
	fmt.Printf("\npeak RSS of this process: %d MB (GOMAXPROCS %d)\n", peakRSS(), runtime.GOMAXPROCS(0))
}

// readAndBuild reads one profile and builds its tree as cmd/ctdiff's
// buildTree does. With a table it also times the parts of reading alone:
// the file, gunzip into memory, and reading the decompressed bytes
// (convert's pprof path without the gzip layer: field streaming and
// decoding into stacks).
func readAndBuild(path string, tab *table, side string) *cct.Tree {
	opts := convert.Options{Stacks: true}
	var res *convert.Result
	var err error
	if tab != nil {
		m := now()
		raw, err := os.ReadFile(path)
		if err != nil {
			log.Fatal(err)
		}
		tab.add(side+": read the file", since(m))
		m = now()
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			log.Fatal(err)
		}
		var plain bytes.Buffer
		if _, err := io.Copy(&plain, zr); err != nil {
			log.Fatal(err)
		}
		tab.add(side+": gunzip alone", since(m))
		m = now()
		if _, err := convert.Read(bytes.NewReader(plain.Bytes()), path, opts); err != nil {
			log.Fatal(err)
		}
		tab.add(side+": decode the gunzipped bytes (convert.Read)", since(m))
		raw, plain = nil, bytes.Buffer{}
		runtime.GC()
	}
	m := now()
	res, err = convert.ReadFile(path, opts)
	if err != nil {
		log.Fatal(err)
	}
	if tab != nil {
		tab.add(side+": convert.ReadFile (gunzip + decode)", since(m))
	}
	m = now()
	b := cct.NewBuilder(cct.Options{Prune: true})
	st := res.Samples
	res.Samples = nil
	if err := b.AddSamples(st); err != nil {
		log.Fatal(err)
	}
	t := b.Finish()
	if tab != nil {
		tab.add(side+": build the tree", since(m))
	}
	return t
}
