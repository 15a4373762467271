// Command concat-rows is a nightly export job: it loads orders, joins them
// with customers, computes totals and taxes, filters, formats each order as a
// CSV row and writes the file in chunks.
package main

import (
	"bufio"
	"compress/gzip"
	"flag"
	"fmt"
	"hash/crc32"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"
)

type customer struct {
	ID      int
	Name    string
	Email   string
	Region  string
	Segment string
}

type line struct {
	SKU   string
	Qty   int
	Price int64 // cents
}

type order struct {
	ID       int
	Customer *customer
	Placed   time.Time
	Lines    []line
	Subtotal int64
	Tax      int64
	Status   string
	Note     string
}

func main() {
	n := flag.Int("n", 12, "export passes over the order book")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	customers, orders := loadBook(20000)
	stop := startProfile(*prof)
	total := 0
	for i := 0; i < *n; i++ {
		total += export(customers, orders, io.Discard)
	}
	stop()
	fmt.Println("bytes exported:", total)
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

var regions = []string{"emea", "amer", "apac"}
var segments = []string{"retail", "smb", "enterprise", "public"}
var statuses = []string{"paid", "shipped", "refunded", "open", "cancelled"}

func loadBook(k int) (map[int]*customer, []order) {
	r := rand.New(rand.NewPCG(7, 8))
	customers := make(map[int]*customer, k/4)
	for i := 0; i < k/4; i++ {
		customers[i] = &customer{ID: i, Name: fmt.Sprintf("Customer %d, \"Ltd\"", i),
			Email: fmt.Sprintf("c%d@example.com", i), Region: regions[r.IntN(3)], Segment: segments[r.IntN(4)]}
	}
	orders := make([]order, k)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range orders {
		o := &orders[i]
		o.ID = 100000 + i
		o.Customer = customers[r.IntN(k/4)]
		o.Placed = base.Add(time.Duration(r.IntN(365*24*3600)) * time.Second)
		o.Status = statuses[r.IntN(len(statuses))]
		o.Note = strings.Repeat("note ", r.IntN(4))
		for j := 0; j < 1+r.IntN(6); j++ {
			o.Lines = append(o.Lines, line{SKU: "SKU-" + strconv.Itoa(r.IntN(5000)), Qty: 1 + r.IntN(5), Price: int64(100 + r.IntN(20000))})
		}
	}
	return customers, orders
}

// export writes the orders that are not cancelled, newest first, as CSV.
func export(customers map[int]*customer, orders []order, w io.Writer) int {
	selected := selectOrders(orders)
	sortOrders(selected)
	cw := &countingWriter{w: w}
	zw, _ := gzip.NewWriterLevel(cw, gzip.BestSpeed)
	bw := bufio.NewWriterSize(zw, 64<<10)
	writeHeader(bw)
	var sum uint32
	for _, o := range selected {
		computeTotals(o)
		row := formatRow(o)
		sum = crc32.Update(sum, crc32.IEEETable, []byte(row))
		io.WriteString(bw, row)
	}
	fmt.Fprintf(bw, "# crc32 %08x\n", sum)
	bw.Flush()
	zw.Close()
	return cw.n
}

type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

func selectOrders(orders []order) []*order {
	out := make([]*order, 0, len(orders))
	for i := range orders {
		if orders[i].Status != "cancelled" {
			out = append(out, &orders[i])
		}
	}
	return out
}

func sortOrders(os []*order) {
	slices.SortFunc(os, func(a, b *order) int { return b.Placed.Compare(a.Placed) })
}

// catalog maps a SKU to its list price and discount class.
var catalog = func() map[string]catalogItem {
	m := make(map[string]catalogItem, 5000)
	for i := 0; i < 5000; i++ {
		m["SKU-"+strconv.Itoa(i)] = catalogItem{Class: i % 7, Weight: 1 + i%40}
	}
	return m
}()

type catalogItem struct{ Class, Weight int }

func computeTotals(o *order) {
	var sub int64
	for _, l := range o.Lines {
		sub += discounted(l)
	}
	o.Subtotal = sub
	o.Tax = taxFor(o.Customer.Region, sub)
}

// discounted applies the catalog's volume discount of the line's class.
func discounted(l line) int64 {
	it, ok := catalog[l.SKU]
	if !ok {
		return int64(l.Qty) * l.Price
	}
	pct := int64(0)
	for q := 1; q <= l.Qty; q++ {
		if (q+it.Class)%3 == 0 {
			pct++
		}
	}
	return int64(l.Qty) * l.Price * (100 - pct) / 100
}

func taxFor(region string, cents int64) int64 {
	switch region {
	case "emea":
		return cents * 20 / 100
	case "apac":
		return cents * 10 / 100
	}
	return cents * 7 / 100
}

func writeHeader(w io.Writer) {
	io.WriteString(w, "id,placed,customer,email,region,segment,status,lines,skus,subtotal,tax,total,note\n")
}

// csvField quotes a field when it holds a comma, a quote or a newline.
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\n") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func money(cents int64) string {
	return strconv.FormatInt(cents/100, 10) + "." + fmt.Sprintf("%02d", cents%100)
}

func skuList(o *order) string {
	skus := make([]string, len(o.Lines))
	for i, l := range o.Lines {
		skus[i] = l.SKU
	}
	return strings.Join(skus, "|")
}
