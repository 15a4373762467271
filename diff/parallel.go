package diff

import (
	"runtime"
	"sync"
)

// parallel calls work on consecutive ranges covering [0, n), one per core
// (up to one range per 10,000 items: smaller work is not worth a
// goroutine), and returns when all are done.
func parallel(n int, work func(from, to int)) {
	parts := min(runtime.GOMAXPROCS(0), max(1, n/10_000))
	var wg sync.WaitGroup
	for k := range parts {
		from, to := n*k/parts, n*(k+1)/parts
		if k == parts-1 {
			work(from, to)
			continue
		}
		wg.Go(func() { work(from, to) })
	}
	wg.Wait()
}
