//go:build !after

package main

// countTerms counts each term and notes its first and last positions; the map is sized for the worst case of all
// terms distinct, so it never grows.
func countTerms(tokens []string) map[string]termStat {
	counts := make(map[string]termStat, len(tokens))
	for i, t := range tokens {
		st, ok := counts[t]
		if !ok {
			st.first = i
		}
		st.count++
		st.last = i
		counts[t] = st
	}
	return counts
}
