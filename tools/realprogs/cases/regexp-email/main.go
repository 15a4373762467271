// Command regexp-email replays a batch of sign-up requests the way a sign-up
// endpoint handles them: parse the form, validate the address, normalize the
// name, derive a password hash, score the risk, store the account and render
// the response.
package main

import (
	"flag"
	"fmt"
	"hash/fnv"
	"log"
	"math/rand/v2"
	"net/url"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"unicode"
)

type signup struct {
	Name, Email, Country, Password, Referrer string
	Age                                      int
}

type account struct {
	signup
	hash uint64
	risk int
}

type store struct {
	byEmail   map[string]*account
	byCountry map[string]int
}

func main() {
	n := flag.Int("n", 25000, "requests to process")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	bodies := makeRequests(4000)
	stop := startProfile(*prof)
	sum := run(bodies, *n)
	stop()
	fmt.Println("response bytes:", sum)
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

var (
	firstNames = []string{"anna", "Björn", "carla", "DMITRI", "eve", "françois", "gus", "hana", "ivan", "june"}
	lastNames  = []string{"smith", "o'neil", "García", "ng", "van der berg", "KOWALSKI", "li", "dubois"}
	domains    = []string{"example.com", "mail.example.org", "corp.test", "uni.example.edu", "bad_domain", "x.io"}
	countries  = []string{"DE", "FR", "US", "JP", "BR", "IN", "NG", "SE"}
)

// makeRequests builds url-encoded request bodies, a few of them invalid.
func makeRequests(k int) []string {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]string, k)
	for i := range out {
		first := firstNames[r.IntN(len(firstNames))]
		last := lastNames[r.IntN(len(lastNames))]
		v := url.Values{}
		v.Set("name", " "+first+"  "+last+" ")
		v.Set("email", strings.ToLower(strings.ReplaceAll(first, " ", ""))+"."+strconv.Itoa(i)+"@"+domains[r.IntN(len(domains))])
		v.Set("country", countries[r.IntN(len(countries))])
		v.Set("password", fmt.Sprintf("pw-%d-%x", r.IntN(1e6), r.Uint64()))
		v.Set("age", strconv.Itoa(14+r.IntN(70)))
		v.Set("ref", "campaign-"+strconv.Itoa(r.IntN(40)))
		out[i] = v.Encode()
	}
	return out
}

func run(bodies []string, n int) int {
	st := &store{byEmail: make(map[string]*account), byCountry: make(map[string]int)}
	sum := 0
	for i := 0; i < n; i++ {
		sum += len(handleSignup(bodies[i%len(bodies)], st))
		if len(st.byEmail) > 20000 {
			st.byEmail = make(map[string]*account)
		}
	}
	return sum
}

func handleSignup(body string, st *store) string {
	s, err := parseForm(body)
	if err != nil {
		return renderError(err.Error())
	}
	if !validEmail(s.Email) {
		return renderError("invalid email")
	}
	if s.Age < 16 {
		return renderError("too young")
	}
	s.Name = normalizeName(s.Name)
	if blocked(s.Name, s.Referrer) {
		return renderError("blocked")
	}
	a := &account{signup: s, hash: hashPassword(s.Password, s.Email)}
	a.risk = riskScore(&a.signup)
	st.byEmail[s.Email] = a
	st.byCountry[s.Country]++
	return renderResponse(a)
}

func parseForm(body string) (signup, error) {
	v, err := url.ParseQuery(body)
	if err != nil {
		return signup{}, err
	}
	age, err := strconv.Atoi(v.Get("age"))
	if err != nil {
		return signup{}, fmt.Errorf("age: %w", err)
	}
	return signup{Name: v.Get("name"), Email: v.Get("email"), Country: v.Get("country"),
		Password: v.Get("password"), Referrer: v.Get("ref"), Age: age}, nil
}

// normalizeName trims, collapses spaces and title-cases each word.
func normalizeName(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		rs := []rune(strings.ToLower(w))
		rs[0] = unicode.ToUpper(rs[0])
		words[i] = string(rs)
	}
	return strings.Join(words, " ")
}

// hashPassword stretches the password with repeated FNV rounds (a stand-in
// for a real KDF, kept cheap).
func hashPassword(pw, salt string) uint64 {
	h := fnv.New64a()
	var sum uint64
	buf := make([]byte, 0, 64)
	for i := 0; i < 900; i++ {
		buf = strconv.AppendUint(buf[:0], sum, 16)
		buf = append(buf, pw...)
		buf = append(buf, salt...)
		h.Reset()
		h.Write(buf)
		sum = h.Sum64()
	}
	return sum
}

// blocklist holds words a name or referrer must not contain.
var blocklist = func() []string {
	r := rand.New(rand.NewPCG(3, 4))
	out := make([]string, 300)
	for i := range out {
		b := make([]byte, 4+r.IntN(5))
		for j := range b {
			b[j] = byte('a' + r.IntN(26))
		}
		out[i] = string(b)
	}
	return out
}()

func blocked(name, ref string) bool {
	lname := strings.ToLower(name)
	for _, w := range blocklist {
		if strings.Contains(lname, w) || strings.Contains(ref, w) {
			return true
		}
	}
	return false
}

func riskScore(s *signup) int {
	score := 0
	if strings.HasSuffix(s.Email, ".io") {
		score += 10
	}
	if s.Age < 21 {
		score += 5
	}
	switch s.Country {
	case "NG", "BR":
		score += 3
	}
	for _, c := range s.Referrer {
		if c >= '0' && c <= '9' {
			score += int(c - '0')
		}
	}
	return score
}

func renderResponse(a *account) string {
	var b strings.Builder
	b.WriteString(`{"status":"ok","name":`)
	b.WriteString(strconv.Quote(a.Name))
	b.WriteString(`,"email":`)
	b.WriteString(strconv.Quote(a.Email))
	b.WriteString(`,"risk":`)
	b.WriteString(strconv.Itoa(a.risk))
	b.WriteString(`,"id":"`)
	b.WriteString(strconv.FormatUint(a.hash, 36))
	b.WriteString(`"}`)
	return b.String()
}

func renderError(msg string) string {
	return `{"status":"error","message":` + strconv.Quote(msg) + `}`
}
