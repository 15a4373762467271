//go:build after

package main

// rankPlayers orders a board by score, best first, with an insertion sort:
// boards change little between rounds, so they are nearly sorted already.
func rankPlayers(ps []*player) {
	for i := 1; i < len(ps); i++ {
		p := ps[i]
		s := score(p)
		j := i
		for j > 0 && score(ps[j-1]) < s {
			ps[j] = ps[j-1]
			j--
		}
		ps[j] = p
	}
}
