package convert

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/ctdiff/ctdiff/internal/corpus"
)

// BenchmarkDevtools converts the largest corpus trace (33 MB decompressed,
// 128,570 events, 5 sampled threads, 388,168 samples) from memory, and
// reports throughput on the decompressed bytes and the peak live heap
// during a conversion (sampled every 200 µs). See BENCHMARKS.md.
func BenchmarkDevtools(b *testing.B) {
	benchmarkV8(b, "devtools/devtools-web-dev-screenshot-source-ids.json.gz")
}

// BenchmarkCpuprofile converts the largest corpus .cpuprofile (48 MB).
func BenchmarkCpuprofile(b *testing.B) {
	benchmarkV8(b, "cpuprofile/devtools-large-profile.cpuprofile.gz")
}

// BenchmarkDevtoolsFile streams a trace from disk, gzip and all: the
// corpus's largest, or the file named by $CTDIFF_BENCH_TRACE; with
// timestamps (one pprof sample per CPU sample), with --aggregate, and as
// stacks (Options.Stacks: timestamps, no profile.Sample per sample, as
// ctdiff cct, diff and convert read it). Run one sub-benchmark once under
// /usr/bin/time -v for the process's peak memory (BENCHMARKS.md).
func BenchmarkDevtoolsFile(b *testing.B) {
	path := os.Getenv("CTDIFF_BENCH_TRACE")
	if path == "" {
		path = corpus.Path(b, "devtools/devtools-web-dev-screenshot-source-ids.json.gz")
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	for _, bm := range []struct {
		name string
		opts Options
	}{
		{"timestamps", Options{}},
		{"aggregate", Options{Aggregate: true}},
		{"stacks", Options{Stacks: true}},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.SetBytes(st.Size())
			var peak uint64
			for b.Loop() {
				stop := watchHeap(&peak)
				res, err := ReadFile(path, bm.opts)
				stop()
				if err != nil {
					b.Fatal(err)
				}
				samples := sumValues(res.Profile, 0)
				if s := compact(res); s != nil {
					samples = int64(s.Len())
				}
				b.ReportMetric(float64(samples), "samples")
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}

func benchmarkV8(b *testing.B, file string) {
	f, err := os.Open(corpus.Path(b, file))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		stop := watchHeap(&peak)
		res, err := Read(bytes.NewReader(data), file, Options{})
		stop()
		if err != nil || len(res.Profile.Sample) == 0 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// watchHeap samples the live heap until stop is called, keeping the peak.
func watchHeap(peak *uint64) (stop func()) {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(200 * time.Microsecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			*peak = max(*peak, sample[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done); <-finished }
}

// BenchmarkJSONStreamEscapes scans a value whose string is all escapes,
// of 8 and 16 MB: linear, the second costs about twice the first.
func BenchmarkJSONStreamEscapes(b *testing.B) {
	for _, mb := range []int{8, 16} {
		for _, esc := range []string{`\n`, `\u0041`} {
			in := []byte(`{"ignored":"` + strings.Repeat(esc, mb<<20/len(esc)) + `","name":"f"}`)
			b.Run(fmt.Sprintf("%s/%dMB", strings.TrimPrefix(esc, `\`), mb), func(b *testing.B) {
				b.SetBytes(int64(len(in)))
				br := bufio.NewReaderSize(nil, 64<<10)
				for b.Loop() {
					br.Reset(bytes.NewReader(in))
					if _, err := newJSONStream(br).value(true); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
