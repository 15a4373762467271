// Command devtrace writes a large synthetic Chrome DevTools trace for
// benchmarks: Profile and ProfileChunk events as V8 streams them
// (profile-generator.cc, CpuProfile::StreamPendingTraceEvents), one sampled
// thread per profile, with deep stacks:
//
//	go run ./tools/synth/cmd/devtrace -o /tmp/dev500.json   # 8 threads, 28.8 M samples, ~500 MB
//	go run ./tools/synth/cmd/devtrace -min-depth 60 -max-depth 100 -o /tmp/deep.json   # README's deep-stack figure
//
// Each thread's sampler walks a call stack 30-60 frames deep, popping and
// pushing a few frames per sample; a (parent node, function) pair it has not
// seen becomes a new node, sent in the next chunk with a parent id, as V8
// does. Chunks hold 100 samples and their timeDeltas (µs); the chunks of the
// threads interleave in time, with a few other trace events between them.
// Output is deterministic for a seed.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
)

type config struct {
	seed      uint64
	threads   int
	samples   int // per thread
	functions int // per thread
	nodes     int // per thread
	minDepth  int
	maxDepth  int
}

func main() {
	var c config
	out := flag.String("o", "devtrace.json", "output file")
	flag.Uint64Var(&c.seed, "seed", 1, "random seed")
	flag.IntVar(&c.threads, "threads", 8, "sampled threads")
	flag.IntVar(&c.samples, "samples", 3_600_000, "samples per thread")
	flag.IntVar(&c.functions, "functions", 3000, "distinct functions per thread")
	flag.IntVar(&c.nodes, "nodes", 150_000, "call tree nodes per thread")
	flag.IntVar(&c.minDepth, "min-depth", 30, "least stack depth, (root) excluded")
	flag.IntVar(&c.maxDepth, "max-depth", 60, "greatest stack depth")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	nodes, err := write(w, c)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Close()
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d threads, %d samples, %d nodes\n", c.threads, c.threads*c.samples, nodes)
}

// thread is one sampled thread's profiler state.
type thread struct {
	rng *rand.Rand
	tid int
	id  string // the profile's "id"
	// The call tree, by node id-1: function (-1 for (root)), parent id,
	// depth, child ids, and whether a chunk has carried the node yet.
	fn, par, depth []int32
	kids           [][]int32
	sent           []bool
	cur            int32   // the last sample's node
	newNodes       []int32 // nodes to send in the next chunk
	ts             int64   // µs, the last sample's time
}

const (
	pid          = 4242
	chunkSamples = 100 // V8's kSamplesFlushCount
	start        = 100_000_000_000
)

func write(w *bufio.Writer, c config) (int, error) {
	w.WriteString(`{"metadata":{"source":"DevTools","startTime":"2026-11-24T10:00:00.000Z","hardwareConcurrency":8},"traceEvents":[` + "\n")
	fmt.Fprintf(w, `{"args":{"name":"Renderer"},"cat":"__metadata","name":"process_name","ph":"M","pid":%d,"tid":0,"ts":0}`, pid)
	ths := make([]*thread, c.threads)
	for i := range ths {
		th := &thread{
			rng: rand.New(rand.NewPCG(c.seed, uint64(i))),
			tid: 100 + i,
			id:  "0x" + strconv.FormatInt(int64(i+1), 16),
			ts:  start + int64(i)*37,
		}
		th.grow(c)
		ths[i] = th
		name := "CrRendererMain"
		if i > 0 {
			name = "DedicatedWorker thread"
		}
		fmt.Fprintf(w, ",\n"+`{"args":{"name":%q},"cat":"__metadata","name":"thread_name","ph":"M","pid":%d,"tid":%d,"ts":0}`, name, pid, th.tid)
		fmt.Fprintf(w, ",\n"+`{"args":{"data":{"startTime":%d}},"cat":"disabled-by-default-v8.cpu_profiler","id":"%s","name":"Profile","ph":"P","pid":%d,"tid":%d,"ts":%d,"tts":1000}`,
			th.ts-20, th.id, pid, th.tid, th.ts)
	}
	var buf []byte
	samples := make([]int32, chunkSamples)
	deltas := make([]int64, chunkSamples)
	for done := 0; done < c.samples; done += chunkSamples {
		n := min(chunkSamples, c.samples-done)
		for _, th := range ths {
			chunkTS := th.ts
			for k := range n {
				samples[k] = th.step(c)
				d := int64(100 + th.rng.IntN(60))
				if th.rng.IntN(500) == 0 {
					d = int64(1000 + th.rng.IntN(20000)) // a pause
				}
				deltas[k], th.ts = d, th.ts+d
			}
			buf = th.chunk(buf[:0], chunkTS, samples[:n], deltas[:n])
			w.Write(buf)
			// Other events, which the reader must skip.
			fmt.Fprintf(w, ",\n"+`{"args":{},"cat":"toplevel","dur":%d,"name":"RunTask","ph":"X","pid":%d,"tid":%d,"ts":%d,"tdur":%d,"tts":%d}`,
				th.ts-chunkTS, pid, th.tid, chunkTS, (th.ts-chunkTS)/2, chunkTS/3)
		}
	}
	w.WriteString("]}\n")
	nodes := 0
	for _, th := range ths {
		for _, s := range th.sent {
			if s {
				nodes++
			}
		}
	}
	return nodes, nil
}

// grow builds the thread's call tree: chains from random existing nodes
// down to a depth in [minDepth, maxDepth], so every leaf is deep and paths
// share their upper frames, as in real programs.
func (th *thread) grow(c config) {
	r := th.rng
	th.fn, th.par, th.depth, th.kids = []int32{-1}, []int32{0}, []int32{0}, [][]int32{nil}
	for len(th.fn) < c.nodes {
		at := int32(1 + r.IntN(len(th.fn)))
		target := int32(c.minDepth + r.IntN(c.maxDepth-c.minDepth+1))
		for d := th.depth[at-1]; d < target && len(th.fn) < c.nodes; d++ {
			th.fn = append(th.fn, int32(r.IntN(c.functions)))
			th.par = append(th.par, at)
			th.depth = append(th.depth, d+1)
			th.kids = append(th.kids, nil)
			n := int32(len(th.fn))
			th.kids[at-1] = append(th.kids[at-1], n)
			at = n
		}
	}
	th.sent = make([]bool, len(th.fn))
	th.cur = 1
}

// step moves to the next sample's node and returns it: often the same
// node, else up 0-3 frames (sometimes many more) and down again to a leaf or below minDepth,
// favouring the first children. Nodes are sent (newNodes) when first
// sampled, their ancestors before them, as V8 creates them.
func (th *thread) step(c config) int32 {
	r := th.rng
	if r.IntN(4) != 0 {
		up := r.IntN(4)
		if r.IntN(16) == 0 {
			up = r.IntN(c.maxDepth) // a new task, another part of the program
		}
		for ; up > 0 && th.par[th.cur-1] > 0; up-- {
			th.cur = th.par[th.cur-1]
		}
		for {
			k := th.kids[th.cur-1]
			if len(k) == 0 || int(th.depth[th.cur-1]) >= c.minDepth && r.IntN(3) == 0 {
				break
			}
			th.cur = k[min(r.IntN(len(k)), r.IntN(len(k)))]
		}
	}
	th.send(th.cur)
	return th.cur
}

// send queues node n and its unsent ancestors, parents first.
func (th *thread) send(n int32) {
	if th.sent[n-1] {
		return
	}
	mark := len(th.newNodes)
	for ; n > 0 && !th.sent[n-1]; n = th.par[n-1] {
		th.sent[n-1] = true
		th.newNodes = append(th.newNodes, n)
	}
	slices.Reverse(th.newNodes[mark:])
}

// chunk appends a ProfileChunk event: the nodes made since the last one,
// the samples and their deltas.
func (th *thread) chunk(b []byte, ts int64, samples []int32, deltas []int64) []byte {
	b = append(b, ",\n"+`{"args":{"data":{"cpuProfile":{"nodes":[`...)
	for i, n := range th.newNodes {
		if i > 0 {
			b = append(b, ',')
		}
		b = th.node(b, n)
	}
	th.newNodes = th.newNodes[:0]
	b = append(b, `],"samples":[`...)
	for i, s := range samples {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(s), 10)
	}
	b = append(b, `]},"timeDeltas":[`...)
	for i, d := range deltas {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, d, 10)
	}
	b = append(b, `]}},"cat":"disabled-by-default-v8.cpu_profiler","id":"`...)
	b = append(b, th.id...)
	b = append(b, `","name":"ProfileChunk","ph":"P","pid":`...)
	b = strconv.AppendInt(b, pid, 10)
	b = append(b, `,"tid":`...)
	b = strconv.AppendInt(b, int64(th.tid+1000), 10) // the profiler's thread
	b = append(b, `,"ts":`...)
	b = strconv.AppendInt(b, ts, 10)
	return append(b, '}')
}

// node writes node n as V8's BuildNodeValue does.
func (th *thread) node(b []byte, n int32) []byte {
	f := th.fn[n-1]
	if f < 0 {
		return append(b, `{"callFrame":{"codeType":"other","functionName":"(root)","scriptId":0},"id":1}`...)
	}
	script := int(f)%40 + 1
	line, col := int(f)*7%5000, int(f)*13%120
	b = append(b, `{"callFrame":{"codeType":"JS","columnNumber":`...)
	b = strconv.AppendInt(b, int64(col), 10)
	b = append(b, `,"functionName":"fn`...)
	b = strconv.AppendInt(b, int64(f), 10)
	b = append(b, `","lineNumber":`...)
	b = strconv.AppendInt(b, int64(line), 10)
	b = append(b, `,"scriptId":`...)
	b = strconv.AppendInt(b, int64(script), 10)
	b = append(b, `,"url":"https://app.example.com/static/js/chunk-`...)
	b = strconv.AppendInt(b, int64(script), 10)
	b = append(b, `.js"},"id":`...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, `,"parent":`...)
	b = strconv.AppendInt(b, int64(th.par[n-1]), 10)
	return append(b, '}')
}
