//go:build after

package main

// countTerms counts each term and notes its first and last positions.
func countTerms(tokens []string) map[string]termStat {
	counts := make(map[string]termStat)
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
