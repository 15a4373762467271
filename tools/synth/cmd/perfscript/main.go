// Command perfscript writes a large synthetic `perf script` text for
// benchmarks, as `perf record -g` then `perf script` print it:
//
//	go run ./tools/synth/cmd/perfscript -o /tmp/perf800.txt   # 1 M samples, ~820 MB
//
// Each sample is a header "comm pid/tid [cpu] secs.usecs: period
// cpu-clock:" and its stack, leaf first, one "\taddr symbol+0xOFF (dso)"
// line per frame, then a blank line. Stacks are 4-23 frames: kernel frames
// on top of C++ (mangled) and C frames, drawn from a few thousand symbols
// along a few thousand paths, so that frames and stacks recur as in a real
// recording. Output is deterministic for a seed.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"strconv"
)

type symbol struct {
	addr uint64
	name string
	dso  string
}

func main() {
	out := flag.String("o", "perfscript.txt", "output file")
	seed := flag.Uint64("seed", 1, "random seed")
	samples := flag.Int("samples", 1_000_000, "samples")
	paths := flag.Int("paths", 4000, "distinct call paths (stacks before their leaf frames vary)")
	flag.Parse()
	f, err := os.Create(*out)
	if err != nil {
		log.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	write(w, rand.New(rand.NewPCG(*seed, 20)), *samples, *paths)
	if err := w.Flush(); err != nil {
		log.Fatal(err)
	}
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}

// symbols makes n symbols of one dso at increasing addresses.
func symbols(r *rand.Rand, n int, base uint64, dso string, name func(i int) string) []symbol {
	out := make([]symbol, n)
	addr := base
	for i := range out {
		addr += uint64(64 + r.IntN(4096))
		out[i] = symbol{addr, name(i), dso}
	}
	return out
}

func write(w *bufio.Writer, r *rand.Rand, samples, paths int) {
	words := []string{"Render", "Layout", "Paint", "Style", "Script", "Parse", "Network", "Cache", "Frame", "Node", "Tree", "Buffer", "Queue", "Task", "Event"}
	kernel := symbols(r, 300, 0xffffffff81000000, "[kernel.kallsyms]", func(i int) string {
		return fmt.Sprintf("%s_%s_%d", []string{"do", "sys", "__handle", "vfs", "tcp", "ep"}[i%6], words[i%len(words)], i)
	})
	cpp := symbols(r, 3000, 0x7f3a10000000, "/usr/lib/libapp.so.1", func(i int) string {
		a, b := words[i%len(words)], words[(i/len(words))%len(words)]
		return "_ZN3app" + strconv.Itoa(len(a)) + a + strconv.Itoa(len(b)+4) + b + "Impl" + strconv.Itoa(i) + "Ev"
	})
	libc := symbols(r, 200, 0x7f3a0f000000, "/usr/lib/x86_64-linux-gnu/libc.so.6", func(i int) string {
		return []string{"__memmove_avx_unaligned_erms", "malloc", "free", "__libc_write", "pthread_mutex_lock", "epoll_wait", "__GI___poll"}[i%7] + strconv.Itoa(i/7)
	})
	// Call paths: outer frames, outermost last as perf prints them.
	type path []symbol
	ps := make([]path, paths)
	for i := range ps {
		n := 6 + r.IntN(11)
		p := make(path, n)
		for k := range p {
			p[k] = cpp[(i*7+k*131+r.IntN(8))%len(cpp)]
		}
		p[n-1] = libc[1] // __libc_start_main-like root
		ps[i] = p
	}
	threads := []struct {
		comm     string
		pid, tid int
	}{{"app", 4100, 4100}, {"app", 4100, 4107}, {"Web Content", 4100, 4112}, {"worker-3", 4100, 4119}, {"kworker/2:1", 88, 88}}
	t := int64(7628263_042515) // µs
	var b []byte
	for range samples {
		th := threads[r.IntN(len(threads))]
		t += int64(200 + r.IntN(400))
		b = b[:0]
		b = fmt.Appendf(b, "%s %5d/%-5d [%03d] %d.%06d: %10d cpu-clock:\n", th.comm, th.pid, th.tid, r.IntN(8), t/1e6, t%1e6, 250000)
		frame := func(s symbol, leaf bool) {
			// A caller's return address is fixed; the leaf's varies.
			off := s.addr * 2654435761 >> 7 % 512
			if leaf {
				off = uint64(r.IntN(512))
			}
			b = append(b, '\t')
			b = strconv.AppendUint(b, s.addr+off, 16)
			b = append(b, ' ')
			b = append(b, s.name...)
			b = append(b, "+0x"...)
			b = strconv.AppendUint(b, off, 16)
			b = append(b, " ("...)
			b = append(b, s.dso...)
			b = append(b, ")\n"...)
		}
		leaf := true
		if r.IntN(3) == 0 { // in the kernel
			for k := 1 + r.IntN(6); k > 0; k-- {
				frame(kernel[r.IntN(len(kernel))], leaf)
				leaf = false
			}
		}
		if r.IntN(4) == 0 {
			frame(libc[r.IntN(len(libc))], leaf)
			leaf = false
		}
		p := ps[min(r.IntN(len(ps)), r.IntN(len(ps)))]
		for _, s := range p[r.IntN(3):] {
			frame(s, leaf)
			leaf = false
		}
		b = append(b, '\n')
		w.Write(b)
	}
}
