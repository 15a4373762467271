// Command noise-cpu is an image thumbnailer: it decodes synthetic frames,
// converts them to grey, blurs, computes histograms and edges, resizes and
// quantizes. Compute-bound, with little allocation. The same binary runs on
// both sides of a comparison: any difference is noise.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"runtime/pprof"
)

type image struct {
	w, h int
	pix  []float64
}

func main() {
	n := flag.Int("n", 280, "frames")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	stop := startProfile(*prof)
	var sum float64
	for i := 0; i < *n; i++ {
		rgb := synthesize(320, 240, i)
		g := grey(rgb, 320, 240)
		b := blur(g)
		h := histogram(b)
		e := edges(b)
		t := resize(e, 80, 60)
		sum += quantize(t, h)
	}
	stop()
	fmt.Printf("sum %.3f\n", sum)
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

func synthesize(w, h, seed int) []uint8 {
	out := make([]uint8, w*h*3)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := (y*w + x) * 3
			v := math.Sin(float64(x+seed)/17) * math.Cos(float64(y-seed)/23)
			out[i] = uint8(128 + 127*v)
			out[i+1] = uint8((x * y) ^ seed)
			out[i+2] = uint8(x + y + seed)
		}
	}
	return out
}

func grey(rgb []uint8, w, h int) *image {
	g := &image{w: w, h: h, pix: make([]float64, w*h)}
	for i := range g.pix {
		g.pix[i] = 0.299*float64(rgb[3*i]) + 0.587*float64(rgb[3*i+1]) + 0.114*float64(rgb[3*i+2])
	}
	return g
}

// blur is a 5x5 Gaussian blur.
func blur(g *image) *image {
	k := [5]float64{1, 4, 6, 4, 1}
	out := &image{w: g.w, h: g.h, pix: make([]float64, len(g.pix))}
	for y := 2; y < g.h-2; y++ {
		for x := 2; x < g.w-2; x++ {
			var s float64
			for dy := -2; dy <= 2; dy++ {
				for dx := -2; dx <= 2; dx++ {
					s += k[dy+2] * k[dx+2] * g.pix[(y+dy)*g.w+x+dx]
				}
			}
			out.pix[y*g.w+x] = s / 256
		}
	}
	return out
}

func histogram(g *image) [64]int {
	var h [64]int
	for _, v := range g.pix {
		h[int(v)/4%64]++
	}
	return h
}

// edges is the Sobel gradient magnitude.
func edges(g *image) *image {
	out := &image{w: g.w, h: g.h, pix: make([]float64, len(g.pix))}
	for y := 1; y < g.h-1; y++ {
		for x := 1; x < g.w-1; x++ {
			p := func(dx, dy int) float64 { return g.pix[(y+dy)*g.w+x+dx] }
			gx := -p(-1, -1) - 2*p(-1, 0) - p(-1, 1) + p(1, -1) + 2*p(1, 0) + p(1, 1)
			gy := -p(-1, -1) - 2*p(0, -1) - p(1, -1) + p(-1, 1) + 2*p(0, 1) + p(1, 1)
			out.pix[y*g.w+x] = math.Hypot(gx, gy)
		}
	}
	return out
}

// resize is a box-filter downscale.
func resize(g *image, w, h int) *image {
	out := &image{w: w, h: h, pix: make([]float64, w*h)}
	sx, sy := g.w/w, g.h/h
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var s float64
			for j := 0; j < sy; j++ {
				for i := 0; i < sx; i++ {
					s += g.pix[(y*sy+j)*g.w+x*sx+i]
				}
			}
			out.pix[y*w+x] = s / float64(sx*sy)
		}
	}
	return out
}

func quantize(g *image, h [64]int) float64 {
	total := 0
	for _, c := range h {
		total += c
	}
	var s float64
	for _, v := range g.pix {
		q := math.Round(v / 16)
		s += q * float64(h[int(q)%64]) / float64(total)
	}
	return s
}
