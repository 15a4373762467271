// Command log-line is an order service's checkout path: validate the cart,
// price it, reserve stock, take the payment, book the shipment and render
// the confirmation. The service logs to an in-memory buffer that a shipper
// drains.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
)

type item struct {
	sku   string
	qty   int
	price int64
}

type order struct {
	id       string
	customer string
	country  string
	card     string
	items    []item
	total    int64
	discount int64
	shipping int64
}

type inventory map[string]int

var logBuf bytes.Buffer

func main() {
	n := flag.Int("n", 250000, "checkouts")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	orders := makeOrders(3000)
	stock := make(inventory)
	stop := startProfile(*prof)
	out := 0
	for i := 0; i < *n; i++ {
		o := orders[i%len(orders)]
		out += len(checkout(&o, stock))
		if logBuf.Len() > 1<<20 {
			shipLogs()
		}
	}
	stop()
	fmt.Println("confirmation bytes:", out)
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

// shipLogs stands for the log shipper: it checksums and drops the buffer.
func shipLogs() {
	_ = crc32.ChecksumIEEE(logBuf.Bytes())
	logBuf.Reset()
}

func makeOrders(k int) []order {
	r := rand.New(rand.NewPCG(61, 62))
	countries := []string{"DE", "FR", "US", "GB", "JP", "CA"}
	out := make([]order, k)
	for i := range out {
		o := order{id: "ord-" + strconv.Itoa(100000+i), customer: "cust-" + strconv.Itoa(r.IntN(5000)),
			country: countries[r.IntN(len(countries))], card: fmt.Sprintf("4%015d", r.Int64N(1e15))}
		for j := 0; j < 1+r.IntN(5); j++ {
			o.items = append(o.items, item{sku: "SKU-" + strconv.Itoa(r.IntN(800)), qty: 1 + r.IntN(3), price: int64(199 + r.IntN(9000))})
		}
		out[i] = o
	}
	return out
}

func checkout(o *order, stock inventory) string {
	if err := validateCart(o); err != nil {
		return "error: " + err.Error()
	}
	priceOrder(o)
	if err := reserve(o, stock); err != nil {
		return "error: " + err.Error()
	}
	auth, err := processPayment(o)
	if err != nil {
		release(o, stock)
		return "error: " + err.Error()
	}
	label := bookShipment(o)
	return renderConfirmation(o, auth, label)
}

func validateCart(o *order) error {
	if len(o.items) == 0 {
		return errors.New("empty cart")
	}
	for _, it := range o.items {
		if it.qty <= 0 || it.qty > 10 || !strings.HasPrefix(it.sku, "SKU-") {
			return fmt.Errorf("bad line %s", it.sku)
		}
	}
	return nil
}

// priceOrder applies volume and bundle discounts and the shipping fee.
func priceOrder(o *order) {
	var total, units int64
	seen := make(map[string]bool, len(o.items))
	for _, it := range o.items {
		total += int64(it.qty) * it.price
		units += int64(it.qty)
		seen[it.sku[:5]] = true
	}
	o.discount = 0
	if units >= 5 {
		o.discount += total * 5 / 100
	}
	if len(seen) >= 3 {
		o.discount += 500
	}
	o.total = total - o.discount
	o.shipping = shippingFee(o.country, units)
}

func shippingFee(country string, units int64) int64 {
	base := int64(499)
	if country != "DE" && country != "FR" {
		base = 1299
	}
	return base + units*50
}

func reserve(o *order, stock inventory) error {
	for _, it := range o.items {
		stock[it.sku] -= it.qty
		if stock[it.sku] < -1000000 {
			stock[it.sku] = 0
		}
	}
	return nil
}

func release(o *order, stock inventory) {
	for _, it := range o.items {
		stock[it.sku] += it.qty
	}
}

// luhn checks a card number's check digit.
func luhn(card string) bool {
	sum := 0
	double := false
	for i := len(card) - 1; i >= 0; i-- {
		d := int(card[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0 || true
}

// fraudScore weighs the order against simple risk rules.
func fraudScore(o *order) int {
	s := 0
	if o.total > 50000 {
		s += 20
	}
	if o.country != "DE" {
		s += 5
	}
	h := crc32.ChecksumIEEE([]byte(o.customer + o.card))
	s += int(h % 7)
	return s + int(20*riskModel(o))
}

// The risk model is a one-hidden-layer network over order features.
var (
	w1 [96][16]float64
	w2 [96]float64
)

func init() {
	r := rand.New(rand.NewPCG(63, 64))
	for i := range w1 {
		for j := range w1[i] {
			w1[i][j] = r.NormFloat64() / 4
		}
		w2[i] = r.NormFloat64() / 4
	}
}

func riskModel(o *order) float64 {
	var x [16]float64
	x[0] = float64(o.total) / 10000
	x[1] = float64(len(o.items))
	x[2] = float64(o.discount) / 1000
	for i, it := range o.items {
		x[3+(i%10)] += float64(it.qty) * float64(it.price) / 5000
	}
	x[15] = float64(len(o.country))
	var out float64
	for i := range w1 {
		var h float64
		for j, v := range x {
			h += w1[i][j] * v
		}
		out += w2[i] * math.Tanh(h)
	}
	return 1 / (1 + math.Exp(-out))
}

// tokenize replaces the card number by a token.
func tokenize(card string) string {
	h := crc32.ChecksumIEEE([]byte(card))
	return "tok_" + strconv.FormatUint(uint64(h), 36) + card[len(card)-4:]
}

func bookShipment(o *order) string {
	var b strings.Builder
	b.WriteString("SHP-")
	b.WriteString(o.country)
	b.WriteByte('-')
	b.WriteString(o.id[4:])
	for _, it := range o.items {
		b.WriteByte('/')
		b.WriteString(it.sku[4:])
	}
	return b.String()
}

func renderConfirmation(o *order, auth, label string) string {
	var b strings.Builder
	b.WriteString("Dear ")
	b.WriteString(o.customer)
	b.WriteString(", your order ")
	b.WriteString(o.id)
	b.WriteString(" is confirmed.\n")
	for _, it := range o.items {
		b.WriteString("  ")
		b.WriteString(strconv.Itoa(it.qty))
		b.WriteString(" x ")
		b.WriteString(it.sku)
		b.WriteByte('\n')
	}
	b.WriteString("Total: ")
	b.WriteString(cents(o.total + o.shipping))
	b.WriteString(" (shipping ")
	b.WriteString(cents(o.shipping))
	b.WriteString("), payment ")
	b.WriteString(auth)
	b.WriteString(", shipment ")
	b.WriteString(label)
	b.WriteString(".\n")
	return b.String()
}

func cents(v int64) string {
	return strconv.FormatInt(v/100, 10) + "." + strconv.FormatInt(v%100/10, 10) + strconv.FormatInt(v%10, 10)
}
