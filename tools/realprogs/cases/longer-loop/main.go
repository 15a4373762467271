// Command longer-loop is a telemetry ingestion worker: it decodes batches of
// sensor readings, calibrates them, flags anomalies, smooths each series,
// downsamples it and folds it into per-device aggregates.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
)

type reading struct {
	device int
	ts     int64
	value  float64
}

type calibration struct{ gain, offset float64 }

type aggregate struct {
	count     int
	sum, sumq float64
	min, max  float64
	anomalies int
}

func main() {
	n := flag.Int("n", 6000, "batches")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	batches := makeBatches(40, 2048)
	cal := make([]calibration, 64)
	for i := range cal {
		cal[i] = calibration{gain: 1 + float64(i%7)/100, offset: float64(i%5) - 2}
	}
	aggs := make(map[int]*aggregate)
	stop := startProfile(*prof)
	out := 0
	for i := 0; i < *n; i++ {
		rs := decode(batches[i%len(batches)])
		calibrate(rs, cal)
		for dev, series := range byDevice(rs) {
			flags := anomalies(series)
			sm := smooth(series)
			ds := downsample(sm, 8)
			fold(aggs, dev, ds, flags)
			out += len(ds)
		}
	}
	stop()
	fmt.Println("points out:", out, "devices:", len(aggs))
}

func startProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		log.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
}

// makeBatches encodes readings as records of device (2 bytes), timestamp
// (8 bytes) and value (8 bytes).
func makeBatches(k, size int) [][]byte {
	r := rand.New(rand.NewPCG(81, 82))
	out := make([][]byte, k)
	for i := range out {
		b := make([]byte, 0, size*18)
		for j := 0; j < size; j++ {
			dev := r.IntN(16)
			v := 20 + 5*math.Sin(float64(j)/40+float64(dev)) + r.NormFloat64()
			if r.IntN(200) == 0 {
				v += 30
			}
			b = binary.LittleEndian.AppendUint16(b, uint16(dev))
			b = binary.LittleEndian.AppendUint64(b, uint64(1733600000000+int64(j)*100))
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		out[i] = b
	}
	return out
}

func decode(b []byte) []reading {
	out := make([]reading, 0, len(b)/18)
	for len(b) >= 18 {
		out = append(out, reading{device: int(binary.LittleEndian.Uint16(b)), ts: int64(binary.LittleEndian.Uint64(b[2:])),
			value: math.Float64frombits(binary.LittleEndian.Uint64(b[10:]))})
		b = b[18:]
	}
	return out
}

func calibrate(rs []reading, cal []calibration) {
	for i := range rs {
		c := cal[rs[i].device%len(cal)]
		rs[i].value = rs[i].value*c.gain + c.offset
	}
}

func byDevice(rs []reading) map[int][]float64 {
	m := make(map[int][]float64, 16)
	for _, r := range rs {
		m[r.device] = append(m[r.device], r.value)
	}
	return m
}

// anomalies counts points more than 4 standard deviations from the median.
func anomalies(xs []float64) int {
	s := slices.Clone(xs)
	slices.Sort(s)
	med := s[len(s)/2]
	var ss float64
	for _, x := range xs {
		ss += (x - med) * (x - med)
	}
	sd := math.Sqrt(ss / float64(len(xs)))
	n := 0
	for _, x := range xs {
		if math.Abs(x-med) > 4*sd {
			n++
		}
	}
	return n
}

func downsample(xs []float64, k int) []float64 {
	out := make([]float64, 0, len(xs)/k+1)
	for i := 0; i < len(xs); i += k {
		out = append(out, xs[i])
	}
	return out
}

func fold(aggs map[int]*aggregate, dev int, xs []float64, flags int) {
	a := aggs[dev]
	if a == nil {
		a = &aggregate{min: math.Inf(1), max: math.Inf(-1)}
		aggs[dev] = a
	}
	for _, x := range xs {
		a.count++
		a.sum += x
		a.sumq += x * x
		a.min = min(a.min, x)
		a.max = max(a.max, x)
	}
	a.anomalies += flags
}
