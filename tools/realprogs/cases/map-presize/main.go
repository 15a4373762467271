// Command map-presize indexes a stream of support tickets: it tokenizes each
// ticket, drops stop words, stems, counts terms, adds the ticket to an
// inverted index and tags it with its top terms by tf-idf.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"slices"
	"strings"
	"unicode"
)

type posting struct {
	doc   int
	count int
}

// termStat is a term's count and first and last positions in a ticket.
type termStat struct {
	count, first, last int
}

type index struct {
	postings map[string][]posting
	docs     int
}

var vocabulary = func() []string {
	r := rand.New(rand.NewPCG(31, 32))
	out := make([]string, 6000)
	for i := range out {
		b := make([]byte, 3+r.IntN(8))
		for j := range b {
			b[j] = byte('a' + r.IntN(26))
		}
		out[i] = string(b)
	}
	return out
}()

var stopWords = map[string]bool{"the": true, "a": true, "an": true, "and": true, "or": true, "to": true,
	"of": true, "in": true, "is": true, "it": true, "my": true, "on": true, "for": true, "with": true}

func main() {
	n := flag.Int("n", 12000, "tickets to index")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	tickets := makeTickets(2000)
	stop := startProfile(*prof)
	tags := 0
	ix := &index{postings: make(map[string][]posting)}
	for i := 0; i < *n; i++ {
		tags += len(indexTicket(ix, i, tickets[i%len(tickets)]))
		if i%5000 == 4999 {
			ix = &index{postings: make(map[string][]posting)}
		}
	}
	stop()
	fmt.Println("tags:", tags)
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

func makeTickets(k int) []string {
	r := rand.New(rand.NewPCG(33, 34))
	stops := []string{"the", "a", "and", "to", "of", "my", "is"}
	out := make([]string, k)
	for i := range out {
		var b strings.Builder
		for w := 0; w < 300+r.IntN(300); w++ {
			if r.IntN(4) == 0 {
				b.WriteString(stops[r.IntN(len(stops))])
			} else {
				word := vocabulary[int(math.Abs(r.NormFloat64()*1500))%len(vocabulary)]
				if r.IntN(10) == 0 {
					word = strings.ToUpper(word[:1]) + word[1:] + "ing"
				}
				b.WriteString(word)
			}
			if r.IntN(12) == 0 {
				b.WriteString(". ")
			} else {
				b.WriteByte(' ')
			}
		}
		out[i] = b.String()
	}
	return out
}

func indexTicket(ix *index, id int, text string) []string {
	tokens := tokenize(text)
	tokens = dropStopWords(tokens)
	for i, t := range tokens {
		tokens[i] = stem(t)
	}
	counts := countTerms(tokens)
	addToIndex(ix, id, counts)
	return topTerms(ix, counts, 5)
}

// tokenize splits text into lower-case words.
func tokenize(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) })
}

func dropStopWords(ts []string) []string {
	out := ts[:0]
	for _, t := range ts {
		if !stopWords[t] {
			out = append(out, t)
		}
	}
	return out
}

// stem strips a few English suffixes.
func stem(w string) string {
	for _, suf := range []string{"ing", "edly", "ed", "ly", "es", "s"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

func addToIndex(ix *index, id int, counts map[string]termStat) {
	for t, c := range counts {
		ix.postings[t] = append(ix.postings[t], posting{id, c.count})
	}
	ix.docs++
}

// topTerms returns the k terms of the ticket with the highest tf-idf.
func topTerms(ix *index, counts map[string]termStat, k int) []string {
	type scored struct {
		term  string
		score float64
	}
	all := make([]scored, 0, len(counts))
	for t, c := range counts {
		df := len(ix.postings[t])
		idf := math.Log(float64(ix.docs+1) / float64(df+1))
		spread := float64(c.last-c.first+1) / float64(c.count)
		all = append(all, scored{t, float64(c.count) * idf / math.Sqrt(spread)})
	}
	slices.SortFunc(all, func(a, b scored) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.term, b.term)
	})
	out := make([]string, 0, k)
	for _, s := range all[:min(k, len(all))] {
		out = append(out, s.term)
	}
	return out
}
