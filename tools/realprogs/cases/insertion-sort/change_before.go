//go:build !after

package main

import "sort"

// rankPlayers orders a board by score, best first.
func rankPlayers(ps []*player) {
	sort.Slice(ps, func(i, j int) bool { return score(ps[i]) > score(ps[j]) })
}
