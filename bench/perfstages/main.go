// Command perfstages splits the CPU samples of `perf script` (from `perf
// record -e cpu-clock -g` of ctdiff, whose Go frames keep frame pointers)
// into ctdiff's stages, by the functions on each sample's stack: what
// `ctdiff diff` spends reading, building trees, comparing and writing, with
// the kernel's share (page faults, mostly) and the garbage collector's
// background marking apart.
//
//	perf record -e cpu-clock -F 999 -g -o p.data ctdiff diff BASE NEW -o /dev/null
//	perf script -i p.data | go run ./bench/perfstages
package main

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
)

// stages are tried in order; the first whose marker is on a stack takes
// the sample. Inner stages come first (gunzip runs inside reading).
var stages = []struct{ name, marker string }{
	{"read: gunzip", "compress/flate."},
	{"read: gunzip", "compress/gzip."},
	{"read: gunzip", "hash/crc32."},
	{"read: decode pprof", "pprofio.Decode"},
	{"read: decode pprof", "pprofio.(*pprofDecoder)"},
	{"read: copy fields (ReadFields)", "pprofio.ReadFields"},
	{"read: other", "convert."},
	{"build trees", "cct."},
	{"compare: stats tests (statsGraph)", "diff.statsGraph"},
	{"compare: stats tests (statsGraph)", "diff.(*statsPass)"},
	{"compare: PARCS", "diff.parcs"},
	{"compare: union and matching", "diff.(*matcher)"},
	{"compare: union and matching", "diff.(*union)"},
	{"compare: critical graph", "diff.assemble"},
	{"compare: critical graph", "diff.thresholdGraph"},
	{"compare: critical graph", "diff.criticalPair"},
	{"compare: ranking paths", "diff.rankPaths"},
	{"compare: Go runtime summary", "diff.goRuntime"},
	{"compare: runs and keys", "diff.newRuns"},
	{"compare: runs and keys", "diff.newKeyTable"},
	{"compare: other", "diff."},
	{"report", "report."},
	{"GC background marking", "runtime.gcBgMarkWorker"},
}

func main() {
	type count struct{ all, kernel, faults int }
	counts := map[string]*count{}
	total := 0
	var stack []string
	flush := func() {
		if len(stack) == 0 {
			return
		}
		name := "runtime, other"
		for _, s := range stages {
			if slices.ContainsFunc(stack, func(f string) bool { return strings.Contains(f, s.marker) }) {
				name = s.name
				break
			}
		}
		c := counts[name]
		if c == nil {
			c = &count{}
			counts[name] = c
		}
		c.all++
		total++
		if strings.Contains(stack[0], "[kernel") {
			c.kernel++
			if slices.ContainsFunc(stack, func(f string) bool { return strings.Contains(f, "exc_page_fault") }) {
				c.faults++
			}
		}
		stack = stack[:0]
	}
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case l == "":
			flush()
		case l[0] == '\t' || l[0] == ' ':
			stack = append(stack, strings.TrimSpace(l))
		default:
			flush() // a sample's header line
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "perfstages:", err)
		os.Exit(1)
	}
	var names []string
	for n := range counts {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return counts[b].all - counts[a].all })
	fmt.Printf("| stage | share of CPU | of which kernel | of which page faults |\n|---|---:|---:|---:|\n")
	for _, n := range names {
		c := counts[n]
		pct := func(x int) float64 { return 100 * float64(x) / float64(total) }
		fmt.Printf("| %s | %.1f%% | %.1f%% | %.1f%% |\n", n, pct(c.all), pct(c.kernel), pct(c.faults))
	}
	fmt.Printf("\n%d samples\n", total)
}
