package main

import (
	"regexp"
	"strings"
	"unicode"
)

// accents maps accented letters to their base letter.
var accents = map[rune]rune{'á': 'a', 'à': 'a', 'ã': 'a', 'â': 'a', 'ä': 'a', 'é': 'e', 'è': 'e', 'ê': 'e', 'ë': 'e',
	'í': 'i', 'ï': 'i', 'ó': 'o', 'ö': 'o', 'ô': 'o', 'ø': 'o', 'ú': 'u', 'ü': 'u', 'ñ': 'n', 'ç': 'c', 'ễ': 'e'}

var (
	punctuation = regexp.MustCompile(`[^\p{L}\p{N}\s,]+`)
	spaces      = regexp.MustCompile(`[\s\p{Zs}]+`)
)

// normalize lower-cases s, strips accents and punctuation and collapses white
// space.
func normalize(s string) string {
	s = punctuation.ReplaceAllString(s, "")
	s = spaces.ReplaceAllString(strings.TrimSpace(s), " ")
	return strings.Map(func(r rune) rune {
		r = unicode.ToLower(r)
		if a, ok := accents[r]; ok {
			return a
		}
		return r
	}, s)
}
