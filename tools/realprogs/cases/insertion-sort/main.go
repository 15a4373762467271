// Command insertion-sort is a game ranking service's batch step: it applies
// match results to player ratings, rebuilds the leaderboard of each region
// and mode, and renders the top of each board.
package main

import (
	"flag"
	"fmt"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
)

type player struct {
	ID      int
	Name    string
	Region  string
	Mode    string
	Rating  float64
	Games   int
	Wins    int
	History []float64
}

type match struct{ a, b, winner int }

type board struct {
	key     string
	players []*player
}

var regions = []string{"eu", "na", "sa", "asia", "oce"}
var modes = []string{"solo", "duo", "squad", "ranked"}

func main() {
	n := flag.Int("n", 220, "rounds of matches")
	prof := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	players := makePlayers(6000)
	r := rand.New(rand.NewPCG(21, 22))
	stop := startProfile(*prof)
	out := 0
	for i := 0; i < *n; i++ {
		ms := makeMatches(r, len(players), 3000)
		applyMatches(players, ms)
		for _, b := range buildBoards(players) {
			rankPlayers(b.players)
			out += len(renderTop(b, 50))
		}
	}
	stop()
	fmt.Println("rendered bytes:", out)
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

func makePlayers(k int) []*player {
	r := rand.New(rand.NewPCG(23, 24))
	out := make([]*player, k)
	for i := range out {
		out[i] = &player{ID: i, Name: "player_" + strconv.Itoa(i), Region: regions[r.IntN(len(regions))],
			Mode: modes[r.IntN(len(modes))], Rating: 1500 + r.NormFloat64()*200}
	}
	return out
}

func makeMatches(r *rand.Rand, players, k int) []match {
	out := make([]match, k)
	for i := range out {
		a, b := r.IntN(players), r.IntN(players)
		w := a
		if r.IntN(2) == 0 {
			w = b
		}
		out[i] = match{a, b, w}
	}
	return out
}

// applyMatches updates Elo ratings and keeps each player's rating history.
func applyMatches(players []*player, ms []match) {
	for _, m := range ms {
		a, b := players[m.a], players[m.b]
		if a == b {
			continue
		}
		ea := expected(a.Rating, b.Rating)
		sa := 0.0
		if m.winner == m.a {
			sa = 1
			a.Wins++
		} else {
			b.Wins++
		}
		ka, kb := kFactor(a), kFactor(b)
		a.Rating += ka * (sa - ea)
		b.Rating += kb * ((1 - sa) - (1 - ea))
		a.Games++
		b.Games++
		a.History = appendHistory(a.History, a.Rating)
		b.History = appendHistory(b.History, b.Rating)
	}
}

func expected(ra, rb float64) float64 {
	return 1 / (1 + math.Pow(10, (rb-ra)/400))
}

func kFactor(p *player) float64 {
	switch {
	case p.Games < 30:
		return 40
	case p.Rating > 2400:
		return 10
	}
	return 20
}

// appendHistory keeps the last 64 ratings, in a fresh slice so that
// snapshots taken by readers stay valid.
func appendHistory(h []float64, v float64) []float64 {
	if len(h) >= 64 {
		h = h[1:]
	}
	out := make([]float64, len(h), len(h)+1)
	copy(out, h)
	return append(out, v)
}

// buildBoards groups players by region and mode.
func buildBoards(players []*player) map[string]*board {
	boards := make(map[string]*board)
	for _, p := range players {
		key := p.Region + "/" + p.Mode
		b := boards[key]
		if b == nil {
			b = &board{key: key}
			boards[key] = b
		}
		b.players = append(b.players, p)
	}
	return boards
}

func score(p *player) float64 {
	conf := 1 - 1/math.Sqrt(float64(p.Games+1))
	return p.Rating * conf
}

func renderTop(b *board, k int) string {
	var sb strings.Builder
	sb.WriteString("== ")
	sb.WriteString(b.key)
	sb.WriteString(" ==\n")
	for i, p := range b.players[:min(k, len(b.players))] {
		sb.WriteString(strconv.Itoa(i + 1))
		sb.WriteString(". ")
		sb.WriteString(p.Name)
		sb.WriteString(" ")
		sb.WriteString(strconv.FormatFloat(p.Rating, 'f', 1, 64))
		sb.WriteString(" (")
		sb.WriteString(strconv.FormatFloat(trend(p.History), 'f', 2, 64))
		sb.WriteString(")\n")
	}
	return sb.String()
}

// trend is the slope of the least-squares line through the rating history.
func trend(h []float64) float64 {
	n := float64(len(h))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i, y := range h {
		x := float64(i)
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	return (n*sxy - sx*sy) / (n*sxx - sx*sx)
}
