package diff

import (
	"runtime"
	"sync"
)

// parallel calls work on consecutive ranges covering [0, n), one per core
// (up to one range per 10,000 items: smaller work is not worth a
// goroutine), and returns when all are done.
func parallel(n int, work func(from, to int)) {
	parallelParts(n, parallelCount(n), func(_, from, to int) { work(from, to) })
}

// serial is parallel's signature on the calling goroutine alone.
func serial(n int, work func(from, to int)) { work(0, n) }

// parallelCount is how many ranges parallel splits n items into.
func parallelCount(n int) int { return min(runtime.GOMAXPROCS(0), max(1, n/10_000)) }

// parallelParts calls work on parts consecutive ranges covering [0, n),
// part k from n*k/parts to n*(k+1)/parts, each on its own goroutine, and
// returns when all are done: two calls with the same n and parts give the
// same ranges, so a first pass can leave per part what a second reads
// (a prefix sum over the parts).
func parallelParts(n, parts int, work func(part, from, to int)) {
	var wg sync.WaitGroup
	for k := range parts {
		from, to := n*k/parts, n*(k+1)/parts
		if k == parts-1 {
			work(k, from, to)
			continue
		}
		wg.Go(func() { work(k, from, to) })
	}
	wg.Wait()
}
