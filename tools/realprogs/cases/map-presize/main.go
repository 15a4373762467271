// Command map-presize is a reporting job that joins each batch of orders
// with the customers they reference: it decodes the batch, indexes its
// customers by id, probes the index with every order, converts currencies
// and aggregates revenue by region and segment.
package main

import (
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
)

type customer struct {
	ID       int64
	Name     string
	Region   string
	Segment  string
	Discount float64
}

type order struct {
	Customer int64
	Cents    int64
	Currency string
	Items    int
}

type batch struct {
	customers []customer
	orders    []order
}

type total struct {
	revenue float64
	items   int
	orders  int
}

var (
	regions    = []string{"emea", "amer", "apac", "latam"}
	segments   = []string{"retail", "smb", "enterprise"}
	currencies = []string{"EUR", "USD", "JPY", "GBP"}
)

func main() {
	n := flag.Int("n", 950, "batches to join")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	batches := makeBatches(16, 4000, 9000)
	report := map[string]*total{}
	stop := startProfile(*prof)
	for i := 0; i < *n; i++ {
		b := &batches[i%len(batches)]
		byID := indexCustomers(b.customers)
		aggregate(report, byID, b.orders)
	}
	stop()
	fmt.Print(render(report))
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

func makeBatches(k, customers, orders int) []batch {
	r := rand.New(rand.NewPCG(35, 36))
	out := make([]batch, k)
	for i := range out {
		b := &out[i]
		for j := 0; j < customers; j++ {
			b.customers = append(b.customers, customer{ID: int64(i)*1_000_000 + int64(r.IntN(900_000)),
				Name: "customer " + strconv.Itoa(j), Region: regions[r.IntN(4)], Segment: segments[r.IntN(3)],
				Discount: float64(r.IntN(20)) / 100})
		}
		for j := 0; j < orders; j++ {
			b.orders = append(b.orders, order{Customer: b.customers[r.IntN(customers)].ID, Cents: int64(100 + r.IntN(100_000)),
				Currency: currencies[r.IntN(4)], Items: 1 + r.IntN(5)})
		}
	}
	return out
}

func toEuro(cents int64, currency string) float64 {
	switch currency {
	case "USD":
		return float64(cents) * 0.92
	case "JPY":
		return float64(cents) * 0.0061
	case "GBP":
		return float64(cents) * 1.17
	}
	return float64(cents)
}

// aggregate probes the index with each order and adds its net revenue to
// its customer's region and segment.
func aggregate(report map[string]*total, byID map[int64]*customer, orders []order) {
	for _, o := range orders {
		c, ok := byID[o.Customer]
		if !ok {
			continue
		}
		net := toEuro(o.Cents, o.Currency) * (1 - c.Discount)
		key := c.Region + "/" + c.Segment
		t := report[key]
		if t == nil {
			t = &total{}
			report[key] = t
		}
		t.revenue += net
		t.items += o.Items
		t.orders++
	}
}

func render(report map[string]*total) string {
	keys := make([]string, 0, len(report))
	for k := range report {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		t := report[k]
		fmt.Fprintf(&b, "%-20s %14.2f %8d %8d\n", k, t.revenue/100, t.items, t.orders)
	}
	return b.String()
}
