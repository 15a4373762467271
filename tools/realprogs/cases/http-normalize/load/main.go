// Command load drives the http-normalize service at a fixed request rate
// while it fetches the service's CPU profile from /debug/pprof/profile, as
// one profiles a live service.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

func main() {
	addr := flag.String("addr", "", "the service's host:port")
	rate := flag.Int("rate", 4000, "requests per second")
	dur := flag.Duration("duration", 5*time.Second, "how long to send requests")
	seconds := flag.Int("seconds", 7, "profile duration requested from the service")
	out := flag.String("cpuprofile", "", "write the service's CPU profile to this file")
	workers := flag.Int("workers", 16, "concurrent connections")
	flag.Parse()
	if *addr == "" || *out == "" {
		log.Fatal("load: -addr and -cpuprofile are required")
	}
	base := "http://" + *addr
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *workers}, Timeout: 30 * time.Second}
	profDone := make(chan error, 1)
	go func() { profDone <- fetchProfile(client, base, *seconds, *out) }()
	time.Sleep(300 * time.Millisecond) // the profile has started
	sent, failed := drive(client, base, *rate, *dur, *workers)
	if err := <-profDone; err != nil {
		log.Fatal(err)
	}
	fmt.Printf("requests %d, failed %d\n", sent, failed)
}

func fetchProfile(c *http.Client, base string, seconds int, path string) error {
	resp, err := c.Get(fmt.Sprintf("%s/debug/pprof/profile?seconds=%d", base, seconds))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("profile: %s", resp.Status)
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

var (
	names  = []string{"ana", "José ", "  zoë", "Mikael", "NGOZI", "wei", "Ólafur", "priya"}
	cities = []string{"São Paulo", " zürich", "Kraków ", "MALMÖ", "Montréal", "Reykjavík", "lagos", "Düsseldorf"}
	titles = []string{"senior  engineer", "Product Manager", "data scientist", "Designer", "site reliability"}
	tags   = []string{"Go", "kubernetes", "DOCKER", "linux", "RUST", "Terraform", "postgres", "Kafka"}
)

// drive sends rate requests a second for d, spread over workers.
func drive(c *http.Client, base string, rate int, d time.Duration, workers int) (int64, int64) {
	r := rand.New(rand.NewPCG(103, 104))
	urls := make([]string, 1024)
	for i := range urls {
		v := url.Values{}
		v.Set("name", names[r.IntN(len(names))])
		v.Set("city", cities[r.IntN(len(cities))])
		v.Set("title", titles[r.IntN(len(titles))])
		ts := make([]string, 4)
		for j := range ts {
			ts[j] = tags[r.IntN(len(tags))]
		}
		v.Set("tags", strings.Join(ts, ","))
		v.Set("limit", "10")
		urls[i] = base + "/api/search?" + v.Encode()
	}
	jobs := make(chan string, rate)
	var sent, failed atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range jobs {
				resp, err := c.Get(u)
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				sent.Add(1)
			}
		}()
	}
	const tick = 10 * time.Millisecond
	perTick := rate / int(time.Second/tick)
	total := int(d/tick) * perTick
	t := time.NewTicker(tick)
	for i := 0; i < total; {
		<-t.C
		for k := 0; k < perTick; k++ {
			jobs <- urls[i%len(urls)]
			i++
		}
	}
	t.Stop()
	close(jobs)
	wg.Wait()
	return sent.Load(), failed.Load()
}
